// Preconnector: preconnect as a prefetch strategy, Chromium's preconnect.
// When the DNS prefetcher resolves a host, open a connection to it, run the
// TLS handshake, and leave the socket warm in the HTTP session's idle pool
// (marked preconnected), so the click costs one round trip: the request.
// The session closes a preconnected socket nobody took after its unused
// idle timeout; the trace says when a request used one
// (LoadTiming::socket_preconnected).
//
// Where the host's request will go over HTTP/3 (the session's http3, or
// h3_https_rr with a prefetched HTTPS record that offers h3 and applies:
// HttpNetworkTransaction's rule), the preconnect is a QUIC connection
// instead: the origin's HTTP/3 session, opened to the address and port the
// request would use and left in the session's Http3SessionPool (its QUIC
// idle timeout closes it if unused); a TCP connection would go unused. A
// QUIC preconnect that fails marks the origin broken for QUIC (its request
// goes straight to TCP). Not through a proxy or a --connect-to rule.
//
// Limits: sockets per host (open or opening) and in all, and the session's
// per-group connection limit (a preconnect holds one of its group's slots
// while it connects, and none starts while requests wait). Network-thread
// affine; owned by the NetworkContext. The session, resolver and factory are
// not owned and must outlive it.

#ifndef NET_CONTEXT_PRECONNECTOR_H_
#define NET_CONTEXT_PRECONNECTOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "dns/dns_prefetcher.h"
#include "net/base/thread_checker.h"
#include "net/http/http_network_session.h"

namespace net {

class Preconnector : public DnsPrefetcher::Observer {
 public:
  struct Options {
    size_t max_per_host = 1;
    size_t max_total = 6;
    uint16_t default_port = 443;
    // The port each host is preconnected to (default_port otherwise).
    std::map<std::string, uint16_t> ports;
    // A preconnect (DNS, TCP and the TLS handshake) that has not finished by
    // then fails with ERR_TIMED_OUT: a server that accepts and never answers
    // holds neither a connection slot nor WhenIdle for longer.
    absl::Duration timeout = absl::Seconds(10);
  };

  Preconnector(Options options, HttpNetworkSession* session);
  ~Preconnector() override;
  Preconnector(const Preconnector&) = delete;
  Preconnector& operator=(const Preconnector&) = delete;

  // DnsPrefetcher::Observer: a host resolved; preconnect to it over https.
  void OnHostPrefetched(const std::string& host, int result,
                        const HostResolveResult& answer) override;
  // Preconnect opens one https connection to host:port, within the limits.
  void Preconnect(const std::string& host, uint16_t port);
  // WhenIdle runs |callback| (from a task) once no preconnect is opening.
  void WhenIdle(absl::AnyInvocable<void()> callback);

  size_t started() const { return started_; }
  size_t succeeded() const { return succeeded_; }
  size_t failed() const { return failed_; }
  size_t skipped() const { return skipped_; }

 private:
  class Job;
  class TcpJob;
  class Http3Job;
  // Whether host:port's request will go over HTTP/3 (|answer|: the
  // prefetch's lookup), and if so where a QUIC preconnect goes (|*peer|
  // unset: nowhere this preconnector can go, such as an Alt-Svc
  // alternative on another host).
  bool WillUseHttp3(const std::string& host, uint16_t port,
                    const HostResolveResult& answer,
                    std::optional<IPEndPoint>* peer) const;
  // Preconnects opening, and preconnected TCP sockets and QUIC sessions
  // no request has taken yet: what max_total bounds.
  size_t InUse();
  void PreconnectHttp3(const std::string& host, uint16_t port,
                       const IPEndPoint& peer);
  void OnJobDone(Job* job, int result);
  void MaybeRunIdleCallbacks();

  const Options options_;
  HttpNetworkSession* const session_;
  std::vector<std::unique_ptr<Job>> jobs_;
  // The QUIC sessions the HTTP/3 jobs opened (InUse counts those still
  // open and not taken).
  std::vector<WeakPtr<Http3Session>> http3_sessions_;
  std::vector<absl::AnyInvocable<void()>> idle_callbacks_;
  size_t started_ = 0;
  size_t succeeded_ = 0;
  size_t failed_ = 0;
  size_t skipped_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<Preconnector> weak_factory_{this};
};

}  // namespace net

#endif  // NET_CONTEXT_PRECONNECTOR_H_
