// SSLConnectJob: the one way any caller gets a connected, handshaken TLS
// socket — resolve, TCP to each address in turn (a TransportConnectJob; or,
// through an HTTP proxy, an HttpProxyConnectJob's CONNECT tunnel), then the
// TLS handshake over BoringSSL or, for a server the Snap Start
// context knows, over the Snap Start core (whose attempt sends the first
// request with the ClientHello). Early data (0-RTT) and origin-bound
// certificates are the SSLConfig's and the TLS context's business; the job
// passes them on. Every socket comes from the ClientSocketFactory, so tests
// script TCP and TLS alike (MockClientSocketFactory).
//
// Encrypted ClientHello (SSLConfig::ech_mode): the job offers the ECH
// configuration of the origin's HTTPS record (the resolve step's, with
// TransportConnectJob::Options::https_record), or curl's --ech ecl: list,
// and GREASE without one; never Snap Start then (its core has no ECH). When
// the server rejects the configuration (ERR_ECH_NOT_NEGOTIATED, after
// authenticating as its public name), the job retries once on a new
// connection to the same address: with the server's retry configurations,
// or without ECH when it sent none (it rolled ECH back; with kHard that is
// the failure instead). The trace's tls.ech is the first attempt's
// ("rejected"), tls.echRetry the retry's. The retry's TCP connect and
// handshake each get their own connect_timeout and handshake_timeout, as
// any new connection's do (Chromium's retry is a new connection too), so a
// job with a retry is bounded by twice each; there is only one retry.
//
// Users: HttpNetworkTransaction (https), the Preconnector, prevalidation's
// probe handshake and the truncated-handshake bundle source's fallback.
//
// It lives in net/http (target //net/http:ssl_connect_job), not in
// net/socket as DESIGN.md's layout draws it: it constructs the TLS sockets
// of net/ssl and net/snap_start (through the factory, but with their
// SSLConfig and contexts), and both sit above net/socket (net/socket <-
// net/ssl, net/snap_start <- net/http). net/http is the first layer that
// may see them, as for the default socket factory.
//
// Owned by its user; destroying it cancels the step in flight. The resolver,
// factory, TLS contexts and clock are not owned and must outlive it.
// Network-thread affine.

#ifndef NET_HTTP_SSL_CONNECT_JOB_H_
#define NET_HTTP_SSL_CONNECT_JOB_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/proxy/proxy_config.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/connect_job.h"
#include "net/socket/transport_connect_job.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_config.h"
#include "net/ssl/ssl_info.h"

namespace net {

class SnapStartClientContext;

struct SSLConnectJobParams {
  std::string host;
  uint16_t port = 443;
  absl::Duration connect_timeout = absl::Seconds(10);
  // The most the TLS handshake may take once TCP is up: a server that
  // accepts and never answers the ClientHello fails the job with
  // ERR_TIMED_OUT in the kSSLHandshake phase.
  absl::Duration handshake_timeout = absl::Seconds(10);
  // The BoringSSL handshake's settings and context (session cache,
  // coalescing, verifier). |ssl_context| is required.
  SSLConfig ssl_config;
  SSLClientContext* ssl_context = nullptr;
  // Snap Start: when set, a server it has information for (host:port) gets
  // the Snap Start core's client instead of BoringSSL; with
  // |snap_start_learn_in_handshake| every server does (the core's full
  // handshake learns the orbit in-band). Null: always BoringSSL.
  SnapStartClientContext* snap_start_context = nullptr;
  bool snap_start_learn_in_handshake = false;
  // The resolve and TCP step's options: clock, pre-resolved addresses (a
  // retry), the OnHostResolved hook (SPDY IP pooling).
  TransportConnectJob::Options transport;
  // Through an HTTP proxy: the resolve and TCP step is then the proxy's
  // (|transport| applies to it: addresses and the hook are the proxy's),
  // followed by a CONNECT tunnel to host:port (HttpProxyConnectJob); the
  // handshake runs through the tunnel unchanged. Unset: direct.
  std::optional<ProxyServer> proxy;
};

class SSLConnectJob : public ConnectJob {
 public:
  SSLConnectJob(HostResolver* resolver, ClientSocketFactory* factory,
                SSLConnectJobParams params);
  ~SSLConnectJob() override;
  SSLConnectJob(const SSLConnectJob&) = delete;
  SSLConnectJob& operator=(const SSLConnectJob&) = delete;

  // ConnectJob:
  int Connect(CompletionOnceCallback callback) override;
  void ResumeAfterHostResolved() override;
  std::unique_ptr<StreamSocket> TakeSocket() override {
    return std::move(socket_);
  }
  Phase phase() const override;
  ConnectTiming timing() const override;
  // The lookup of the transport step: the origin's, or the proxy's.
  const HostResolveResult& resolve_result() const override {
    return transport_->resolve_result();
  }
  size_t address_index() const override { return transport_->address_index(); }
  // The transport (or tunnel) step's detail, or the TLS socket's own after
  // a failed handshake.
  const std::string& error_detail() const override { return error_detail_; }

  const SSLInfo* ssl_info() const override {
    return ssl_info_ ? &*ssl_info_ : nullptr;
  }
  // Whether the TLS socket is the Snap Start core's.
  bool used_snap_start_core() const { return used_snap_start_core_; }
  const HandshakeChoice* handshake_choice() const override {
    return choice_.chosen.empty() ? nullptr : &choice_;
  }

 private:
  // Where the job is in ECH's one retry.
  enum class EchAttempt { kFirst, kRetryWithConfigs, kRetryWithoutEch };

  enum State {
    STATE_NONE,
    STATE_TRANSPORT_CONNECT,
    STATE_TRANSPORT_CONNECT_COMPLETE,
    STATE_SSL_CONNECT,
    STATE_SSL_CONNECT_COMPLETE,
  };

  int DoLoop(int result);
  int DoTransportConnect();
  int DoTransportConnectComplete(int result);
  int DoSSLConnect();
  int DoSSLConnectComplete(int result);
  void OnIOComplete(int result);
  void OnHandshakeTimeout();
  // Chooses the cheapest handshake known for host:port (choice_); Snap
  // Start is no candidate when |ech| (a configuration will be offered).
  void ChooseHandshake(bool ech);
  // This attempt's SSLConfig's ECH fields, per ech_mode: OK, or
  // ERR_ECH_NOT_NEGOTIATED for kHard without a configuration.
  int PrepareEch(SSLConfig* config);
  // The resolve-and-TCP step (or proxy tunnel) with |options|.
  std::unique_ptr<ConnectJob> MakeTransport(
      TransportConnectJob::Options options);
  // After an ECH rejection: a new connection to the address just used, no
  // new lookup (OK), or the rejection's error when no retry is allowed.
  int RetryAfterEchRejection(int result);
  // The retry's outcome into ssl_info_ (tls.ech stays "rejected").
  void NoteEchRetry(int result);

  HostResolver* const resolver_;
  ClientSocketFactory* const factory_;
  SSLConnectJobParams params_;
  // What the retry's transport step needs again (params_.transport is
  // moved into the first).
  TcpConnectOptions tcp_options_;
  const ConnectToRules* connect_to_ = nullptr;
  bool https_record_ = false;
  const TickClock* const clock_;
  // TransportConnectJob, or HttpProxyConnectJob through a proxy.
  std::unique_ptr<ConnectJob> transport_;
  State next_state_ = STATE_NONE;
  bool in_handshake_ = false;
  bool done_ = false;
  TimeTicks ssl_start_;
  TimeTicks connect_end_;
  std::unique_ptr<StreamSocket> socket_;
  std::optional<SSLInfo> ssl_info_;
  bool used_snap_start_core_ = false;
  HandshakeChoice choice_;
  // ECH's retry: where it stands, the retry configurations, the first
  // attempt's words and transport stamps.
  EchAttempt ech_attempt_ = EchAttempt::kFirst;
  std::string ech_retry_configs_;
  std::string first_ech_detail_;
  std::optional<ConnectTiming> first_timing_;
  CompletionOnceCallback callback_;
  OneShotTimer handshake_timer_;
  std::string error_detail_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SSLConnectJob> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_SSL_CONNECT_JOB_H_
