// TruncatedBundleSource: a server's bundle read from the server itself with
// a handshake that stops before anything is authenticated.
//
// First net/snap_start's SnapStartProbe: a TLS 1.2 ClientHello with an empty
// Snap Start extension, read ServerHello, Certificate and ServerHelloDone in
// the clear, then a fatal alert — no session is left on the server. That
// gives the chain, the cipher suite, the orbit (if the server has one) and
// the ServerHello template Snap Start predicts from. A server that will not
// do that (TLS 1.3 only, no static-RSA suite) gets a second try: a normal
// BoringSSL handshake aborted at certificate verification, which yields the
// chain only (no orbit, cipher suite 0). SPECS.md section 9.
//
// The resolver and socket factory are not owned and must outlive the source.
// Network-thread affine.

#ifndef PREFETCH_TRUNCATED_BUNDLE_SOURCE_H_
#define PREFETCH_TRUNCATED_BUNDLE_SOURCE_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/thread_checker.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/connect_to.h"
#include "net/socket/tcp_fast_open.h"
#include "prefetch/bundle_source.h"

namespace net {

class TruncatedBundleSource : public BundleSource {
 public:
  // With |fast_open|, the probe's ClientHello goes in the SYN without a
  // TCP Fast Open cookie; a server whose SYN-ACK acknowledges it takes SYN
  // data without one, and the bundle made from the probe says so
  // (tcp_fast_open_no_cookie). A server that does not costs nothing: the
  // kernel sends the ClientHello again after the handshake.
  // |connect_to| (not owned, may be null) redirects the probes as it does
  // the session's connections. |rtt_observer| (not owned, may be null;
  // must outlive the source) is told each probe connection's round trip,
  // so a later visit's TCP Fast Open race knows the server's RTT.
  TruncatedBundleSource(HostResolver* resolver, ClientSocketFactory* factory,
                        absl::Duration connect_timeout, bool fast_open = false,
                        const ConnectToRules* connect_to = nullptr,
                        ServerRttObserver* rtt_observer = nullptr)
      : resolver_(resolver),
        factory_(factory),
        connect_timeout_(connect_timeout),
        fast_open_(fast_open),
        connect_to_(connect_to),
        rtt_observer_(rtt_observer) {}
  BundleSourceType type() const override {
    return BundleSourceType::kTruncated;
  }
  void Fetch(const std::string& host, uint16_t port, Callback callback,
             std::unique_ptr<Request>* out_request) override;

 private:
  class ProbeRequest;
  HostResolver* const resolver_;
  ClientSocketFactory* const factory_;
  const absl::Duration connect_timeout_;
  const bool fast_open_;
  const ConnectToRules* const connect_to_;
  ServerRttObserver* const rtt_observer_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // PREFETCH_TRUNCATED_BUNDLE_SOURCE_H_
