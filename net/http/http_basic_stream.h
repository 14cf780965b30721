// HttpBasicStream: the HttpStream of HTTP/1.1 — one request on a connection
// it owns, written and read by HttpStreamParser (framing, keep-alive,
// bounded memory). The connection is a fresh one, or an idle keep-alive one
// from the session's pool; after a complete body ReleaseConnection hands it
// back for reuse if the parser says it may be.
//
// Owned by HttpNetworkTransaction; the LoadTiming and clock are not owned
// and must outlive it.

#ifndef NET_HTTP_HTTP_BASIC_STREAM_H_
#define NET_HTTP_HTTP_BASIC_STREAM_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/base/tick_clock.h"
#include "net/http/http_stream.h"
#include "net/http/http_stream_parser.h"
#include "net/proxy/proxy_config.h"
#include "net/timing/load_timing.h"

namespace net {

class HttpBasicStream : public HttpStream {
 public:
  // With |proxy| (an http URL through an HTTP proxy; not owned, must
  // outlive the stream), the request goes in absolute form with the proxy's
  // Proxy-Authorization, if it has credentials.
  HttpBasicStream(std::unique_ptr<StreamSocket> socket, LoadTiming* timing,
                  const TickClock* clock, const ProxyServer* proxy = nullptr);
  ~HttpBasicStream() override;
  HttpBasicStream(const HttpBasicStream&) = delete;
  HttpBasicStream& operator=(const HttpBasicStream&) = delete;

  // HttpStream:
  int InitializeStream(const HttpRequestInfo* request,
                       CompletionOnceCallback callback) override;
  int SendRequest(CompletionOnceCallback callback) override;
  const std::vector<std::pair<std::string, std::string>>& request_headers_sent()
      const override {
    return headers_sent_;
  }
  int ReadResponseHeaders(CompletionOnceCallback callback) override;
  const HttpResponseHeaders* response_headers() const override;
  int ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                       CompletionOnceCallback callback) override;
  bool IsResponseBodyComplete() const override;
  std::unique_ptr<StreamSocket> ReleaseConnection(bool* reusable) override;
  const SSLInfo* GetSSLInfo() const override;
  TcpFastOpenInfo GetTcpFastOpenInfo() const override;
  const std::string& error_detail() const override;

  // The HTTP/1.1 request headers SendRequest writes, in order (with
  // |proxy|, Proxy-Authorization when it has credentials and the caller gave
  // none).
  static std::vector<std::pair<std::string, std::string>> RequestHeaders(
      const HttpRequestInfo& request, const ProxyServer* proxy = nullptr);
  // The HTTP/1.1 request head (and body) SendRequest writes: the request
  // target in origin form ("/path?q"), or with |proxy| in absolute form
  // ("http://host:port/path?q", RFC 9112 3.2.2).
  static std::string BuildRequest(const HttpRequestInfo& request,
                                  const ProxyServer* proxy = nullptr);

 private:
  std::unique_ptr<StreamSocket> socket_;
  LoadTiming* const timing_;
  const TickClock* const clock_;
  const ProxyServer* const proxy_;
  const HttpRequestInfo* request_ = nullptr;
  std::unique_ptr<HttpStreamParser> parser_;
  std::vector<std::pair<std::string, std::string>> headers_sent_;
  bool send_failed_ = false;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_BASIC_STREAM_H_
