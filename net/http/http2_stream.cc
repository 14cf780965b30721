#include "net/http/http2_stream.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/http/multiplexed_response_head.h"
#include "net/http2/http2_priority.h"

namespace net {
namespace {

// Connection-specific fields an HTTP/2 request must not carry (RFC 9113
// 8.2.2); Host becomes :authority.
bool IsDroppedHeader(const std::string& lower_name) {
  return lower_name == "connection" || lower_name == "host" ||
         lower_name == "keep-alive" || lower_name == "proxy-connection" ||
         lower_name == "transfer-encoding" || lower_name == "upgrade";
}

}  // namespace

Http2Headers MakeHttp2RequestHeaders(const HttpRequestInfo& request) {
  const Url& url = request.url;
  // Host:port as HTTP/1.1's Host header has it (port only if not the
  // scheme's default), or the request's own Host.
  std::string authority = url.HostHeader();
  for (const auto& [name, value] : request.extra_headers) {
    if (absl::EqualsIgnoreCase(name, "host")) authority = value;
  }
  const std::string& path = url.PathForRequest();
  // Chromium's order.
  Http2Headers headers = {{":method", request.method},
                          {":authority", authority},
                          {":scheme", url.scheme()},
                          {":path", path}};
  if (!request.HasExtraHeader("user-agent"))
    headers.emplace_back("user-agent", "netstack-fetch/0.1");
  if (!request.HasExtraHeader("accept")) headers.emplace_back("accept", "*/*");
  for (const auto& [name, value] : request.extra_headers) {
    std::string lower = absl::AsciiStrToLower(name);
    if (IsDroppedHeader(lower)) continue;
    // TE is allowed only as "trailers".
    if (lower == "te" && !absl::EqualsIgnoreCase(value, "trailers")) continue;
    headers.emplace_back(std::move(lower), value);
  }
  if (!request.upload_body.empty() || request.method == "POST") {
    if (!request.HasExtraHeader("content-length"))
      headers.emplace_back("content-length",
                           absl::StrCat(request.upload_body.size()));
  }
  // RFC 9218, as Chromium sends it: the request priority's urgency (none
  // for the default, LOWEST's 3) and incremental.
  const std::string priority =
      PriorityFieldValue(request.priority, request.priority_incremental);
  if (!priority.empty() && !request.HasExtraHeader("priority"))
    headers.emplace_back("priority", priority);
  return headers;
}

Http2Stream::Http2Stream(WeakPtr<Http2Session> session, Params params)
    : session_(std::move(session)),
      params_(std::move(params)),
      use_(params_.use) {}

Http2Stream::Http2Stream(std::unique_ptr<StreamSocket> socket,
                         Http2SessionPool* pool,
                         absl::AnyInvocable<void()> on_session_started,
                         Params params)
    : socket_(std::move(socket)),
      pool_(pool),
      on_session_started_(std::move(on_session_started)),
      params_(std::move(params)),
      use_(SessionUse::kNew) {}

Http2Stream::~Http2Stream() = default;

int Http2Stream::InitializeStream(const HttpRequestInfo* request,
                                  CompletionOnceCallback callback) {
  request_ = request;
  if (!session_) {
    // The session this stream was to use is gone: the transaction retries
    // on another.
    if (!socket_) {
      error_detail_ = "the HTTP/2 session went away before the request";
      return ERR_HTTP2_SERVER_REFUSED_STREAM;
    }
    Http2SessionParams session_params = params_.session;
    session_params.origin =
        Origin(request->url.scheme(), request->url.host(), request->url.port());
    session_params.clock = params_.clock;
    auto session =
        std::make_unique<Http2Session>(std::move(socket_), session_params);
    Http2Session* raw = pool_->InsertSession(std::move(session));
    raw->Start();
    session_ = raw->GetWeakPtr();
    if (on_session_started_) std::move(on_session_started_)();
  }
  Http2Session* session = session_.get();
  if (!session) {
    error_detail_ = "the HTTP/2 session failed as it started";
    return ERR_HTTP2_SERVER_REFUSED_STREAM;
  }
  int rv = session->CreateStream(&stream_);
  if (rv != OK) {
    error_detail_ = session->error_detail().empty()
                        ? "the HTTP/2 session is going away"
                        : session->error_detail();
  }
  return rv;
}

void Http2Stream::NoteSessionFacts() {
  LoadTiming* timing = params_.timing;
  Http2Session* session = session_.get();
  if (!session) return;
  timing->h2.server_settings.clear();
  for (const auto& [name, value] : session->server_settings()) {
    auto& settings = timing->h2.server_settings;
    auto it = std::find_if(settings.begin(), settings.end(),
                           [&](const auto& s) { return s.first == name; });
    if (it == settings.end()) {
      settings.emplace_back(name, value);
    } else {
      it->second = value;
    }
  }
}

int Http2Stream::SendRequest(CompletionOnceCallback callback) {
  Http2Session* session = session_.get();
  if (!session || !stream_) return ERR_HTTP2_SERVER_REFUSED_STREAM;
  LoadTiming* timing = params_.timing;
  timing->h2.used = true;
  timing->h2.session = use_;
  {
    IPEndPoint local;
    std::string via;
    if (session->socket() && session->socket()->GetLocalAddress(&local) == OK)
      via = local.ToString();
    timing->h2.session_id =
        absl::StrCat(session->origin().Serialize(), " via ", via);
  }
  Http2Headers headers = MakeHttp2RequestHeaders(*request_);
  headers_sent_.assign(headers.begin(), headers.end());
  timing->request_start = params_.clock->NowTicks();
  stream_->set_priority(request_->priority);
  int rv = stream_->SendRequest(
      headers, request_->upload_body,
      [this, callback = std::move(callback)](int rv) mutable {
        params_.timing->h2.stream_id = stream_->stream_id();
        if (rv != OK) error_detail_ = StreamFailure(rv);
        std::move(callback)(rv);
      });
  params_.timing->h2.stream_id = stream_->stream_id();
  params_.timing->h2.weight = stream_->sent_priority().weight;
  params_.timing->h2.depends_on =
      static_cast<uint32_t>(stream_->sent_priority().parent);
  if (rv != OK && rv != ERR_IO_PENDING) error_detail_ = StreamFailure(rv);
  return rv;
}

std::string Http2Stream::StreamFailure(int error) const {
  Http2Session* session = session_.get();
  std::string detail =
      absl::StrCat("HTTP/2 stream ", stream_ ? stream_->stream_id() : 0,
                   " failed: ", ErrorToShortString(error));
  if (session && session->error() != OK && !session->error_detail().empty())
    absl::StrAppend(&detail, " (", session->error_detail(), ")");
  if (error == ERR_RESPONSE_HEADERS_TOO_BIG)
    absl::StrAppend(&detail, " (the response's header list passed 256 KB)");
  return detail;
}

int Http2Stream::ReadResponseHeaders(CompletionOnceCallback callback) {
  int rv = stream_->ReadResponseHeaders(
      [this, callback = std::move(callback)](int rv) mutable {
        std::move(callback)(OnResponseHeaders(rv));
      });
  if (rv == ERR_IO_PENDING) return rv;
  return OnResponseHeaders(rv);
}

int Http2Stream::OnResponseHeaders(int result) {
  LoadTiming* timing = params_.timing;
  timing->h2.stream_id = stream_->stream_id();
  NoteSessionFacts();
  if (result != OK) {
    error_detail_ = StreamFailure(result);
    return result;
  }
  timing->response_start = params_.clock->NowTicks();
  int rv = ParseMultiplexedResponseHead(
      HttpHeadFromFields(stream_->status(), stream_->response_headers()),
      timing, &response_headers_, &error_detail_);
  if (rv != OK) return rv;
  // A HEAD, 204 or 304 ends with its headers.
  if (stream_->response_complete() && stream_->buffered_bytes() == 0)
    OnBodyResult(0);
  return OK;
}

const HttpResponseHeaders* Http2Stream::response_headers() const {
  return response_headers_ ? &*response_headers_ : nullptr;
}

void Http2Stream::OnBodyResult(int rv) {
  if (rv > 0) {
    params_.timing->body_bytes += rv;
    return;
  }
  body_done_ = true;
  params_.timing->response_end = params_.clock->NowTicks();
  if (rv < 0) error_detail_ = StreamFailure(rv);
}

int Http2Stream::ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                                  CompletionOnceCallback callback) {
  if (body_done_ || !stream_) return 0;
  int rv =
      stream_->ReadBody(std::move(buf), len,
                        [this, callback = std::move(callback)](int rv) mutable {
                          OnBodyResult(rv);
                          std::move(callback)(rv);
                        });
  if (rv == ERR_IO_PENDING) return rv;
  OnBodyResult(rv);
  return rv;
}

bool Http2Stream::IsResponseBodyComplete() const {
  return body_done_ || !stream_;
}

std::unique_ptr<StreamSocket> Http2Stream::ReleaseConnection(bool* reusable) {
  // The session keeps its connection for its other streams.
  *reusable = false;
  return nullptr;
}

bool Http2Stream::ShouldRetryOnAnotherStream(int error, bool* avoid_pooling) {
  if (error == ERR_HTTP2_SERVER_REFUSED_STREAM) {
    params_.timing->h2.retry =
        "refused stream (REFUSED_STREAM or GOAWAY): retried on a new session";
    return true;
  }
  if (use_ != SessionUse::kNew &&
      (error == ERR_HTTP2_PING_FAILED || error == ERR_CONNECTION_CLOSED ||
       error == ERR_CONNECTION_RESET)) {
    // The reused session was dead; nothing came back for this request.
    params_.timing->h2.retry = absl::StrCat(ErrorToShortString(error),
                                            " on a reused session: retried");
    return true;
  }
  return false;
}

bool Http2Stream::ShouldRetryMisdirectedRequest() {
  if (use_ == SessionUse::kNew || !request_) return false;
  const Origin origin(request_->url.scheme(), request_->url.host(),
                      request_->url.port());
  // RFC 9110 15.5.20, RFC 8336 2.4: not on this connection again.
  if (Http2Session* session = session_.get()) session->NoteMisdirected(origin);
  params_.timing->h2.retry =
      absl::StrCat("misdirected (421) on a ",
                   use_ == SessionUse::kPooled ? "coalesced" : "reused",
                   " session: retried on a new connection of its own");
  return true;
}

TcpFastOpenInfo Http2Stream::GetTcpFastOpenInfo() const {
  if (session_) return session_->socket()->GetTcpFastOpenInfo();
  return socket_ ? socket_->GetTcpFastOpenInfo() : TcpFastOpenInfo();
}

const SSLInfo* Http2Stream::GetSSLInfo() const {
  if (session_) return session_->socket()->GetSSLInfo();
  return socket_ ? socket_->GetSSLInfo() : nullptr;
}

}  // namespace net
