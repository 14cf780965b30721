// HttpProxyConnectJob: a connection through an HTTP proxy (Chromium's
// HttpProxyConnectJob and HttpProxyClientSocket, small). It resolves the
// proxy's name and connects TCP to its addresses in turn (a
// TransportConnectJob), then, with |tunnel|, asks for a tunnel to the
// origin:
//
//   CONNECT host:port HTTP/1.1
//   Host: host:port
//   Proxy-Authorization: Basic ...     (when the proxy has credentials)
//
// and reads the proxy's reply through an HttpHeaderScanner, bounded by
// kMaxReplyBytes. A 2xx hands over the TCP socket to the proxy as the
// tunnel: a plain StreamSocket, which SSLConnectJob then runs TLS over
// unchanged (BoringSSL, Snap Start, 0-RTT, OBCs, ALPN). Without |tunnel|
// (an http:// URL), the job ends at the TCP connection to the proxy; the
// HTTP/1.1 stream then writes requests in absolute form.
//
// The origin's name is never resolved here: the proxy resolves it. TCP Fast
// Open is not used to the proxy (Options::tcp is left off by callers): its
// cookie memory is per server and the request in the SYN would be the
// CONNECT, not the ClientHello a Snap Start or 0-RTT connection counts on.
//
// Failures, with error_detail() saying what happened:
//   ERR_PROXY_CONNECTION_FAILED  the proxy's name did not resolve, or TCP to
//                                it failed (the underlying error named);
//   ERR_PROXY_AUTH_REQUESTED     407;
//   ERR_TUNNEL_CONNECTION_FAILED any other non-2xx status (1xx included),
//                                a malformed reply, the connection closed
//                                or failed mid-exchange, or bytes after a
//                                2xx reply (a proxy that speaks before the
//                                TLS client is not a tunnel: those bytes are
//                                never fed to TLS);
//   ERR_RESPONSE_HEADERS_TOO_BIG the reply's header block passed
//                                kMaxReplyBytes (a proxy that never stops
//                                sending is cut off there);
//   ERR_TIMED_OUT                no complete reply within connect_timeout
//                                of sending CONNECT.
//
// Owned by its user; destroying it cancels the step in flight. The resolver,
// factory and clock are not owned and must outlive it. Network-thread
// affine.

#ifndef NET_HTTP_HTTP_PROXY_CONNECT_JOB_H_
#define NET_HTTP_HTTP_PROXY_CONNECT_JOB_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_header_scanner.h"
#include "net/proxy/proxy_config.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/connect_job.h"
#include "net/socket/transport_connect_job.h"

namespace net {

struct HttpProxyConnectJobParams {
  ProxyServer proxy;
  // The origin the tunnel goes to (CONNECT's target); unused without
  // |tunnel|.
  std::string host;
  uint16_t port = 443;
  // CONNECT (https URLs) or only the connection to the proxy (http URLs).
  bool tunnel = true;
  // Bounds each TCP attempt to the proxy, and, separately, the CONNECT
  // exchange (from the request's first byte to the reply's blank line).
  absl::Duration connect_timeout = absl::Seconds(10);
  // The proxy's lookup and TCP: clock, addresses of an earlier lookup of
  // the proxy (a retry). |tcp| should stay off (see above).
  TransportConnectJob::Options transport;
};

class HttpProxyConnectJob : public ConnectJob {
 public:
  // The most the proxy's reply to CONNECT may take, status line and header
  // fields (a proxy's reply is a few hundred bytes; Chromium's bound for
  // any header block is 256 KB).
  static constexpr size_t kMaxReplyBytes = 64 * 1024;

  HttpProxyConnectJob(HostResolver* resolver, ClientSocketFactory* factory,
                      HttpProxyConnectJobParams params);
  ~HttpProxyConnectJob() override;
  HttpProxyConnectJob(const HttpProxyConnectJob&) = delete;
  HttpProxyConnectJob& operator=(const HttpProxyConnectJob&) = delete;

  // The CONNECT request the job sends (exposed for tests and logs).
  static std::string BuildConnectRequest(const HttpProxyConnectJobParams& p);

  // ConnectJob:
  int Connect(CompletionOnceCallback callback) override;
  void ResumeAfterHostResolved() override;
  std::unique_ptr<StreamSocket> TakeSocket() override {
    return std::move(socket_);
  }
  Phase phase() const override;
  // The proxy's lookup and TCP connection (remote_address is the proxy's),
  // connect_end once the tunnel is open.
  ConnectTiming timing() const override;
  // The proxy's addresses.
  const HostResolveResult& resolve_result() const override {
    return transport_.resolve_result();
  }
  size_t address_index() const override { return transport_.address_index(); }
  const std::string& error_detail() const override { return error_detail_; }
  const SSLInfo* ssl_info() const override { return nullptr; }

  // The status of the proxy's reply to CONNECT (0 before one arrived, or
  // without a tunnel).
  int tunnel_status() const { return tunnel_status_; }

 private:
  enum State {
    STATE_NONE,
    STATE_TRANSPORT_CONNECT,
    STATE_TRANSPORT_CONNECT_COMPLETE,
    STATE_SEND_REQUEST,
    STATE_SEND_REQUEST_COMPLETE,
    STATE_READ_REPLY,
    STATE_READ_REPLY_COMPLETE,
  };

  int DoLoop(int result);
  int DoTransportConnect();
  int DoTransportConnectComplete(int result);
  int DoSendRequest();
  int DoSendRequestComplete(int result);
  int DoReadReply();
  int DoReadReplyComplete(int result);
  // The reply's header block is complete, with |extra| bytes read after it.
  int HandleReply(size_t extra);
  void OnIOComplete(int result);
  void OnTunnelTimeout();
  // Fails the tunnel step with |error| and a detail that names the proxy
  // and the target.
  int FailTunnel(int error, absl::string_view why);

  HttpProxyConnectJobParams params_;
  const TickClock* const clock_;
  TransportConnectJob transport_;
  State next_state_ = STATE_NONE;
  bool in_tunnel_ = false;
  bool done_ = false;
  TimeTicks connect_end_;
  std::unique_ptr<StreamSocket> socket_;
  std::shared_ptr<DrainableIOBuffer> request_buf_;
  std::shared_ptr<IOBuffer> read_buf_;
  HttpHeaderScanner scanner_{kMaxReplyBytes};
  std::string reply_;
  int tunnel_status_ = 0;
  CompletionOnceCallback callback_;
  OneShotTimer tunnel_timer_;
  std::string error_detail_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<HttpProxyConnectJob> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_HTTP_PROXY_CONNECT_JOB_H_
