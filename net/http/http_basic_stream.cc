#include "net/http/http_basic_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace net {

HttpBasicStream::HttpBasicStream(std::unique_ptr<StreamSocket> socket,
                                 LoadTiming* timing, const TickClock* clock,
                                 const ProxyServer* proxy)
    : socket_(std::move(socket)),
      timing_(timing),
      clock_(clock),
      proxy_(proxy) {}

HttpBasicStream::~HttpBasicStream() = default;

int HttpBasicStream::InitializeStream(const HttpRequestInfo* request,
                                      CompletionOnceCallback) {
  request_ = request;
  return OK;
}

std::vector<std::pair<std::string, std::string>>
HttpBasicStream::RequestHeaders(const HttpRequestInfo& request,
                                const ProxyServer* proxy) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!request.HasExtraHeader("host"))
    headers.emplace_back("Host", request.url.HostHeader());
  if (!request.HasExtraHeader("user-agent"))
    headers.emplace_back("User-Agent", "netstack-fetch/0.1");
  if (!request.HasExtraHeader("accept")) headers.emplace_back("Accept", "*/*");
  if (!request.HasExtraHeader("connection"))
    headers.emplace_back("Connection", "keep-alive");
  if (proxy && proxy->has_credentials() &&
      !request.HasExtraHeader("proxy-authorization")) {
    headers.emplace_back("Proxy-Authorization", proxy->BasicAuthorization());
  }
  headers.insert(headers.end(), request.extra_headers.begin(),
                 request.extra_headers.end());
  if (!request.upload_body.empty() || request.method == "POST") {
    headers.emplace_back("Content-Length",
                         absl::StrCat(request.upload_body.size()));
  }
  return headers;
}

std::string HttpBasicStream::BuildRequest(const HttpRequestInfo& request,
                                          const ProxyServer* proxy) {
  // Url::spec() is canonical, without userinfo or fragment.
  std::string out =
      absl::StrCat(request.method, " ",
                   proxy ? request.url.spec() : request.url.PathForRequest(),
                   " HTTP/1.1\r\n");
  for (const auto& [name, value] : RequestHeaders(request, proxy))
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  out += "\r\n";
  out += request.upload_body;
  return out;
}

int HttpBasicStream::SendRequest(CompletionOnceCallback callback) {
  timing_->request_start = TimeTicks();
  parser_ = std::make_unique<HttpStreamParser>(socket_.get(), timing_, clock_);
  headers_sent_ = RequestHeaders(*request_, proxy_);
  int rv = parser_->SendRequest(
      BuildRequest(*request_, proxy_), request_->method == "HEAD",
      [this, callback = std::move(callback)](int rv) mutable {
        if (rv < 0) send_failed_ = true;
        std::move(callback)(rv);
      });
  if (rv < 0 && rv != ERR_IO_PENDING) send_failed_ = true;
  return rv;
}

int HttpBasicStream::ReadResponseHeaders(CompletionOnceCallback callback) {
  return parser_->ReadResponseHeaders(std::move(callback));
}

const HttpResponseHeaders* HttpBasicStream::response_headers() const {
  return parser_ ? parser_->response_headers() : nullptr;
}

int HttpBasicStream::ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                                      CompletionOnceCallback callback) {
  return parser_->ReadResponseBody(std::move(buf), len, std::move(callback));
}

bool HttpBasicStream::IsResponseBodyComplete() const {
  return parser_ && parser_->IsResponseBodyComplete();
}

std::unique_ptr<StreamSocket> HttpBasicStream::ReleaseConnection(
    bool* reusable) {
  *reusable = parser_ && parser_->CanReuseConnection();
  return std::move(socket_);
}

TcpFastOpenInfo HttpBasicStream::GetTcpFastOpenInfo() const {
  return socket_ ? socket_->GetTcpFastOpenInfo() : TcpFastOpenInfo();
}

const SSLInfo* HttpBasicStream::GetSSLInfo() const {
  return socket_ ? socket_->GetSSLInfo() : nullptr;
}

const std::string& HttpBasicStream::error_detail() const {
  static const std::string* const kSendFailed =
      new std::string("sending the request failed");
  if (send_failed_) return *kSendFailed;
  static const std::string* const kNone = new std::string();
  return parser_ ? parser_->error_detail() : *kNone;
}

}  // namespace net
