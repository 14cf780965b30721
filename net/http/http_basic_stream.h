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
#include "net/timing/load_timing.h"

namespace net {

class HttpBasicStream : public HttpStream {
 public:
  HttpBasicStream(std::unique_ptr<StreamSocket> socket, LoadTiming* timing,
                  const TickClock* clock);
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

  // The HTTP/1.1 request headers SendRequest writes, in order.
  static std::vector<std::pair<std::string, std::string>> RequestHeaders(
      const HttpRequestInfo& request);
  // The HTTP/1.1 request head (and body) SendRequest writes.
  static std::string BuildRequest(const HttpRequestInfo& request);

 private:
  std::unique_ptr<StreamSocket> socket_;
  LoadTiming* const timing_;
  const TickClock* const clock_;
  const HttpRequestInfo* request_ = nullptr;
  std::unique_ptr<HttpStreamParser> parser_;
  std::vector<std::pair<std::string, std::string>> headers_sent_;
  bool send_failed_ = false;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_BASIC_STREAM_H_
