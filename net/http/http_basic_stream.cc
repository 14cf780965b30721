#include "net/http/http_basic_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace net {

HttpBasicStream::HttpBasicStream(std::unique_ptr<StreamSocket> socket,
                                 LoadTiming* timing, const TickClock* clock)
    : socket_(std::move(socket)), timing_(timing), clock_(clock) {}

HttpBasicStream::~HttpBasicStream() = default;

int HttpBasicStream::InitializeStream(const HttpRequestInfo* request,
                                      CompletionOnceCallback) {
  request_ = request;
  return OK;
}

std::string HttpBasicStream::BuildRequest(const HttpRequestInfo& request,
                                          const std::string& cookie_header) {
  std::string out = absl::StrCat(request.method, " ",
                                 request.url.PathForRequest(), " HTTP/1.1\r\n");
  if (!request.HasExtraHeader("host"))
    absl::StrAppend(&out, "Host: ", request.url.HostHeader(), "\r\n");
  if (!request.HasExtraHeader("user-agent"))
    absl::StrAppend(&out, "User-Agent: netstack-fetch/0.1\r\n");
  if (!request.HasExtraHeader("accept"))
    absl::StrAppend(&out, "Accept: */*\r\n");
  if (!request.HasExtraHeader("connection"))
    absl::StrAppend(&out, "Connection: keep-alive\r\n");
  for (const auto& [name, value] : request.extra_headers) {
    absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  if (!cookie_header.empty())
    absl::StrAppend(&out, "Cookie: ", cookie_header, "\r\n");
  if (!request.upload_body.empty() || request.method == "POST") {
    absl::StrAppend(&out, "Content-Length: ", request.upload_body.size(),
                    "\r\n");
  }
  out += "\r\n";
  out += request.upload_body;
  return out;
}

int HttpBasicStream::SendRequest(const std::string& cookie_header,
                                 CompletionOnceCallback callback) {
  timing_->request_start = TimeTicks();
  parser_ = std::make_unique<HttpStreamParser>(socket_.get(), timing_, clock_);
  int rv = parser_->SendRequest(
      BuildRequest(*request_, cookie_header), request_->method == "HEAD",
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
