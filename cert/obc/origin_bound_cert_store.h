// OriginBoundCertStore: one profile's origin-bound certificates (OBCs), one
// per scope (an origin, or an eTLD+1 in legacy mode; see obc_scope.h), made
// on demand from the shared KeyPool and persisted in the profile directory.
//
// GetOrCreate answers synchronously when the scope already has a
// certificate (kCachedCert) or a key is pooled (kPooledKey: the certificate
// was minted with the key on a worker, so binding it costs a map insert);
// otherwise it returns ERR_IO_PENDING and the request waits for a key from
// the worker pool (kGenerated). Requests for a scope whose key is being
// made join that one job (coalesced_requests() counts them). A scope keeps
// its key for good: once it has a certificate, every later request gets the
// same one, whatever algorithm it asks for, so channel-bound cookies stay
// valid; a certificate close to expiry is re-minted on the same key.
//
// Persistence: every change schedules a write of the whole store (temp
// file, fsync, rename, fsync directory; see obc_store_file.h) on the worker
// pool, one at a time. Answers never wait for the disk; Flush() says when
// the changes made so far are durable. Open() reports a corrupt file as an
// error and never replaces it. A private profile (incognito) keeps
// everything in memory and never touches the disk, not even to read.
//
// Ownership: created by the profile, on the network thread, and used and
// destroyed there. |key_pool| and |workers| are not owned and must outlive
// the store. Destroying the store cancels its requests (their callbacks
// never run); unwritten changes are still written by the worker pool.

#ifndef CERT_OBC_ORIGIN_BOUND_CERT_STORE_H_
#define CERT_OBC_ORIGIN_BOUND_CERT_STORE_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/obc_scope.h"
#include "cert/obc/obc_store_file.h"
#include "cert/obc/obc_types.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/base/worker_pool.h"

namespace net {

class OriginBoundCertStore {
 public:
  struct Options {
    // The profile directory (must exist). Ignored for a private profile.
    std::string profile_dir;
    // Memory only: nothing is read from or written to disk.
    bool private_profile = false;
    // The mode GetOrCreate(Origin, ...) uses.
    ScopeMode scope_mode = ScopeMode::kOrigin;
    // Wall clock for certificate validity and renewal. Null means absl::Now.
    std::function<absl::Time()> now;
    // Measures request waits. Not owned; must outlive the store.
    const TickClock* tick_clock = DefaultTickClock::GetInstance();
  };

  // Result is a scope's OBC as handed to a request.
  struct Result {
    ObcScope scope;
    // The self-signed certificate, DER.
    std::string cert_der;
    // The private key (a new reference; the store keeps its own).
    bssl::UniquePtr<EVP_PKEY> key;
    ObcFacts facts;
  };

  // Request is an outstanding GetOrCreate(); destroying it cancels the
  // request (the scope's job still finishes and stores its certificate).
  class Request {
   public:
    virtual ~Request() = default;
  };

  struct Stats {
    uint64_t cache_hits = 0;    // kCachedCert answers.
    uint64_t pooled_keys = 0;   // kPooledKey answers.
    uint64_t jobs_started = 0;  // Pool misses: scopes that waited for a key.
    uint64_t coalesced_requests = 0;  // Requests that joined a running job.
    uint64_t renewed_certs = 0;       // Certificates re-minted before expiry.
    uint64_t writes = 0;              // Completed file writes.
    uint64_t write_failures = 0;
  };

  // kRenewBefore: a certificate whose notAfter is closer than this is
  // re-minted (same key) when next requested.
  static constexpr absl::Duration kRenewBefore = absl::Hours(24 * 30);

  // Open creates the store of a profile: for a persistent profile it takes
  // the profile's lock and loads <profile_dir>/origin_bound_certs.pb (a
  // missing file is an empty store). Errors: DataLoss if the file is
  // corrupt (the file is left as it is), FailedPrecondition if another
  // store has the profile open, InvalidArgument for an empty profile_dir,
  // I/O errors. Synchronous: it reads one small file.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<OriginBoundCertStore>>
  Open(Options options, KeyPool* key_pool, WorkerPool* workers);
  ~OriginBoundCertStore();
  OriginBoundCertStore(const OriginBoundCertStore&) = delete;
  OriginBoundCertStore& operator=(const OriginBoundCertStore&) = delete;

  // GetOrCreate fills |*result| with |scope|'s certificate and key and
  // returns OK, or returns ERR_IO_PENDING and later runs |callback| with OK
  // (|*result| filled) or ERR_OBC_KEY_GENERATION_FAILED. |algorithm| is
  // used only if the scope has no certificate yet (and no job running).
  // |*result| must stay valid until the callback runs or |*out_request| is
  // destroyed.
  int GetOrCreate(const ObcScope& scope, KeyAlgorithm algorithm, Result* result,
                  CompletionOnceCallback callback,
                  std::unique_ptr<Request>* out_request);
  // GetOrCreate for |origin| in the store's scope mode. ERR_INVALID_URL if
  // the origin has no valid scope.
  int GetOrCreate(const Origin& origin, KeyAlgorithm algorithm, Result* result,
                  CompletionOnceCallback callback,
                  std::unique_ptr<Request>* out_request);

  // Lookup fills |*result| (facts: kCachedCert) and returns true if |scope|
  // has a certificate; creates nothing.
  bool Lookup(const ObcScope& scope, Result* result) const;
  // Lookup for |origin|'s scope in the store's scope mode; false also for an
  // origin with no valid scope.
  bool Lookup(const Origin& origin, Result* result) const;
  // Delete forgets |scope|'s certificate and key; returns whether it had
  // one. A job running for the scope still stores its result when done.
  bool Delete(const ObcScope& scope);
  // DeleteAll forgets every certificate; returns how many there were.
  size_t DeleteAll();

  // Flush returns OK if every change so far is on disk (always, for a
  // private profile), else ERR_IO_PENDING and runs |callback| with OK once
  // it is, or with ERR_FILE_WRITE_FAILED if the write failed (see
  // last_write_status()); a later change or Flush retries.
  int Flush(CompletionOnceCallback callback);

  std::vector<ObcScope> GetAllScopes() const;
  size_t size() const { return records_.size(); }
  bool is_private() const { return options_.private_profile; }
  // file_path is <profile_dir>/origin_bound_certs.pb ("" if private).
  std::string file_path() const;
  const absl::Status& last_write_status() const { return last_write_status_; }
  const Stats& stats() const { return stats_; }

 private:
  class RequestImpl;
  struct Job;
  struct Entry {
    std::shared_ptr<const ObcRecord> record;
    absl::Time not_after;
  };

  OriginBoundCertStore(Options options, KeyPool* key_pool, WorkerPool* workers,
                       std::shared_ptr<ObcFileWriter> writer);

  absl::Time Now() const { return options_.now ? options_.now() : absl::Now(); }
  // Insert binds |material| to |scope| (unless it already has a record) and
  // schedules a write; returns the scope's record.
  const ObcRecord& Insert(const ObcScope& scope, ObcKeyMaterial material);
  // Put stores |record| under its scope, re-minting its certificate first if
  // it expires within kRenewBefore.
  const ObcRecord& Put(std::shared_ptr<const ObcRecord> record);
  static void Fill(const ObcRecord& record, Result* result);
  void OnJobDone(const std::string& id, int rv);
  void CancelRequest(RequestImpl* request);

  // Snapshot shares the current records (immutable) in scope order.
  std::vector<std::shared_ptr<const ObcRecord>> Snapshot() const;
  void ScheduleWrite();
  void StartWrite();
  void OnWriteDone(uint64_t seq, absl::Status status);

  Options options_;
  KeyPool* const key_pool_;
  WorkerPool* const workers_;
  // Null for a private profile.
  const std::shared_ptr<ObcFileWriter> writer_;

  // Keyed by ObcScope::ToString(). Records are immutable once made, so a
  // write task can share them with the map.
  absl::flat_hash_map<std::string, Entry> records_;
  absl::flat_hash_map<std::string, std::unique_ptr<Job>> jobs_;

  // Writes: |mutation_seq_| counts changes, |written_seq_| is the newest
  // change on disk. At most one write is in flight.
  uint64_t mutation_seq_ = 0;
  uint64_t written_seq_ = 0;
  bool write_in_flight_ = false;
  std::vector<std::pair<uint64_t, CompletionOnceCallback>> flush_waiters_;
  absl::Status last_write_status_;

  Stats stats_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<OriginBoundCertStore> weak_factory_{this};
};

}  // namespace net

#endif  // CERT_OBC_ORIGIN_BOUND_CERT_STORE_H_
