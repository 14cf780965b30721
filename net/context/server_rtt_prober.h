// ServerRttProber: measures a server's round trip before the first visit,
// when nothing else will have, so a SYN carrying data to it is raced after
// about one RTT instead of the configured delay (TcpFastOpenHints).
//
// Why: with TCP Fast Open, a first visit whose bundle says the server takes
// SYN data without a cookie puts its first flight (a Snap Start ClientHello
// and request) in the SYN. A path that drops such SYNs is detected only by
// the race; its delay is 1.1 x RTT when the session knows the server's RTT
// (a preconnect, the truncated-handshake probe, an earlier connection), and
// the configured 250 ms otherwise — the case of a bundle that came from DNS,
// a well-known path or a CDN, where nothing has connected to the server.
// The probe is one TCP handshake to the server (SYN, SYN-ACK, ACK, then the
// socket is closed), off the critical path, started when such a bundle is
// ready; its sample (the kernel's tcpi_rtt, else the connect time) goes to
// the session's hints like any connection's.
//
// What it costs and reveals: the server learns that this client may visit
// it, as from a preconnect or the truncated source (DNS-only prefetching
// reveals that only to the resolver); so it runs only when Fast Open is on,
// the bundle announced no-cookie SYN data (the client is about to put data
// in a SYN), no RTT is known yet, and no proxy is configured for the origin
// (the direct path is not the one requests take, and would bypass the
// proxy).
//
// Limits: one probe per host at once, |max_concurrent| in all (others are
// skipped: an optimisation, not a duty), each bounded by the connect
// timeout. Owned by the NetworkContext; the session (its resolver, factory,
// connect-to rules, hints and proxy) is not owned and must outlive it.
// Network-thread affine.

#ifndef NET_CONTEXT_SERVER_RTT_PROBER_H_
#define NET_CONTEXT_SERVER_RTT_PROBER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"

namespace net {

class HttpNetworkSession;

class ServerRttProber {
 public:
  static constexpr size_t kDefaultMaxConcurrent = 4;

  explicit ServerRttProber(HttpNetworkSession* session,
                           size_t max_concurrent = kDefaultMaxConcurrent);
  ~ServerRttProber();
  ServerRttProber(const ServerRttProber&) = delete;
  ServerRttProber& operator=(const ServerRttProber&) = delete;

  // MaybeProbe starts a probe of host:port unless one of the conditions
  // above says no (Fast Open off, an RTT known, a proxy for the origin, a
  // probe of |host| running, |max_concurrent| running).
  void MaybeProbe(const std::string& host, uint16_t port);
  // WhenIdle runs |callback| (from a task) once no probe runs.
  void WhenIdle(absl::AnyInvocable<void()> callback);

  size_t started() const { return started_; }
  // Probes whose connection gave a sample.
  size_t sampled() const { return sampled_; }
  size_t failed() const { return failed_; }
  size_t skipped() const { return skipped_; }

 private:
  class Probe;
  void OnProbeDone(Probe* probe, bool sampled);
  void MaybeRunIdleCallbacks();

  HttpNetworkSession* const session_;
  const size_t max_concurrent_;
  std::vector<std::unique_ptr<Probe>> probes_;
  std::vector<absl::AnyInvocable<void()>> idle_callbacks_;
  size_t started_ = 0;
  size_t sampled_ = 0;
  size_t failed_ = 0;
  size_t skipped_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<ServerRttProber> weak_factory_{this};
};

}  // namespace net

#endif  // NET_CONTEXT_SERVER_RTT_PROBER_H_
