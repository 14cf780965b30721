// CertPrefetcher: when the DNS prefetcher fires for a host (links on a page,
// typed hosts, the startup list), get the host's certificate bundle from the
// configured sources in order, verify its chain for that host and check
// revocation off the critical path (the Prevalidator: OCSP/CRL for every
// chain element at once), and keep the result for the connection layer:
//
//   - a connection whose handshake chain is byte-identical uses the
//     prevalidated result (PrevalidatedCertVerifier): no OCSP or CRL round
//     trip on the critical path;
//   - a bundle with a Snap Start orbit lets the first visit run Snap Start
//     (the Observer hands it to the Snap Start state).
//
// A bundle that does not verify (another host's chain, an untrusted root,
// expired, malformed) is dropped with its reason in the record; the next
// source is tried; the normal handshake runs if none is usable. Bundles stay
// in the PrefetchCache until the earliest of the chain's notAfter and the
// cache's bound; prevalidation answers follow the Prevalidator's freshness.
//
// Limits: jobs at once, jobs queued (a page with hundreds of links queues at
// most max_queued_jobs), a timeout per source attempt, bytes per bundle (the
// sources' decoders). Owned by the NetworkContext; the sources, the
// prevalidator and the cache are not owned and must outlive it.
// Network-thread affine.

#ifndef PREFETCH_CERT_PREFETCHER_H_
#define PREFETCH_CERT_PREFETCHER_H_

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "cert/prevalidator.h"
#include "dns/dns_prefetcher.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "prefetch/bundle_source.h"
#include "prefetch/prefetch_cache.h"

namespace net {

struct CertPrefetcherOptions {
  // Sources, in the order tried.
  std::vector<BundleSourceType> source_order = {
      BundleSourceType::kDns, BundleSourceType::kWellKnown,
      BundleSourceType::kCdn, BundleSourceType::kTruncated};
  // Verify and check revocation as soon as a bundle arrives. Off, a bundle
  // is handed on unverified and the connection verifies it on the critical
  // path (the "no prevalidation" baseline).
  bool prevalidate = true;
  size_t max_concurrent_jobs = 4;
  size_t max_queued_jobs = 32;
  absl::Duration source_timeout = absl::Seconds(5);
  // The port a host is prefetched for unless SetPort names another.
  uint16_t default_port = 443;
};

// What the prefetcher did for one host:port; the trace's cert.bundle.
struct PrefetchRecord {
  enum class State { kRunning, kReady, kFailed };
  State state = State::kRunning;
  std::string host;
  uint16_t port = 0;
  // The bundle in use (kReady).
  FetchedBundle fetched;
  bool from_cache = false;
  bool prevalidated = false;
  TimeTicks started;          // the trigger
  TimeTicks bundle_received;  // the bundle arrived (or came from the cache)
  TimeTicks ready;            // verified and prevalidated (or failed)
  absl::Time fetched_at;      // wall clock, for the bundle's age at use
  // Why each rejected bundle or failed source was not used, in order.
  std::vector<std::string> rejected;
};

class CertPrefetcher : public DnsPrefetcher::Observer {
 public:
  class Observer {
   public:
    virtual ~Observer() = default;
    // A verified (or, without prevalidation, a shape-checked) bundle is
    // ready for host:port.
    virtual void OnBundleReady(const PrefetchRecord& record) = 0;
  };

  CertPrefetcher(CertPrefetcherOptions options,
                 std::vector<BundleSource*> sources, Prevalidator* prevalidator,
                 PrefetchCache* cache,
                 const TickClock* clock = DefaultTickClock::GetInstance());
  ~CertPrefetcher() override;
  CertPrefetcher(const CertPrefetcher&) = delete;
  CertPrefetcher& operator=(const CertPrefetcher&) = delete;

  void set_observer(Observer* observer) { observer_ = observer; }
  // SetPort makes DNS-triggered prefetches of |host| use |port|.
  void SetPort(const std::string& host, uint16_t port);

  // Prefetch starts (or joins) the job for host:port.
  void Prefetch(const std::string& host, uint16_t port);
  // DnsPrefetcher::Observer: a host was prefetched; fetch its bundle too.
  void OnHostPrefetched(const std::string& host, int result,
                        const HostResolveResult& answer) override;
  // WhenIdle runs |callback| (from a task) once no job runs or waits.
  void WhenIdle(absl::AnyInvocable<void()> callback);

  // Record returns what happened for host:port (null: never prefetched).
  const PrefetchRecord* Record(const std::string& host, uint16_t port) const;
  // Records in the order their jobs started (the trace's prefetch track).
  std::vector<const PrefetchRecord*> Records() const;

  size_t jobs_started() const { return jobs_started_; }
  size_t jobs_dropped() const { return jobs_dropped_; }

 private:
  class Job;
  void StartQueued();
  void OnJobDone(Job* job);
  void MaybeRunIdleCallbacks();
  static std::string Key(const std::string& host, uint16_t port);

  const CertPrefetcherOptions options_;
  std::map<BundleSourceType, BundleSource*> sources_;
  Prevalidator* const prevalidator_;
  PrefetchCache* const cache_;
  const TickClock* const clock_;
  Observer* observer_ = nullptr;
  std::map<std::string, uint16_t> ports_;
  std::map<std::string, std::unique_ptr<PrefetchRecord>> records_;
  std::vector<const PrefetchRecord*> record_order_;
  std::map<std::string, std::unique_ptr<Job>> running_;
  std::deque<std::string> queue_;
  std::vector<absl::AnyInvocable<void()>> idle_callbacks_;
  size_t jobs_started_ = 0;
  size_t jobs_dropped_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<CertPrefetcher> weak_factory_{this};
};

}  // namespace net

#endif  // PREFETCH_CERT_PREFETCHER_H_
