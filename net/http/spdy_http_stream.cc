#include "net/http/spdy_http_stream.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "net/http/multiplexed_response_head.h"
#include "net/spdy/spdy_credential.h"

namespace net {

SpdyHttpStream::SpdyHttpStream(WeakPtr<SpdySession> session, Params params)
    : session_(std::move(session)), params_(params) {}

SpdyHttpStream::SpdyHttpStream(std::unique_ptr<StreamSocket> socket,
                               SpdySessionPool* pool,
                               absl::AnyInvocable<void()> on_session_started,
                               Params params)
    : socket_(std::move(socket)),
      pool_(pool),
      on_session_started_(std::move(on_session_started)),
      params_(params) {}

SpdyHttpStream::~SpdyHttpStream() = default;

Origin SpdyHttpStream::RequestOrigin() const {
  return Origin(request_->url.scheme(), request_->url.host(),
                request_->url.port());
}

int SpdyHttpStream::InitializeStream(const HttpRequestInfo* request,
                                     CompletionOnceCallback callback) {
  request_ = request;
  ClientCertProvider* provider = params_.cert_provider;
  // The OBC matters only on a session whose handshake presented one (the
  // server asked for client certificates).
  const SSLInfo* info =
      session_ ? session_->socket()->GetSSLInfo() : &params_.timing->ssl;
  if (!provider || !info || info->obc.source == ObcSource::kNone ||
      !params_.client_cert->cert_der.empty())
    return OnClientCertDone(OK);
  *params_.client_cert = ClientCert();
  int rv = provider->GetClientCert(
      RequestOrigin(), params_.client_cert,
      [weak = weak_factory_.GetWeakPtr()](int rv) {
        if (!weak) return;
        rv = weak->OnClientCertDone(rv);
        // The callback may destroy this stream: run it from a local.
        CompletionOnceCallback callback = std::move(weak->init_callback_);
        std::move(callback)(rv);
      },
      &cert_request_);
  if (rv == ERR_IO_PENDING) {
    init_callback_ = std::move(callback);
    return rv;
  }
  return OnClientCertDone(rv);
}

int SpdyHttpStream::OnClientCertDone(int result) {
  cert_request_.reset();
  if (result != OK) {
    error_detail_ = "no origin-bound certificate for the SPDY stream";
    return result;
  }
  if (!session_) {
    // The session this stream was to use is gone: the transaction retries
    // on another.
    if (!socket_) return ERR_SPDY_SERVER_REFUSED_STREAM;
    StartSession();
  }
  return OK;
}

void SpdyHttpStream::StartSession() {
  SpdySessionParams params;
  params.origin = RequestOrigin();
  if (!params_.client_cert->cert_der.empty())
    params.handshake_cert_der = params_.client_cert->cert_der;
  // RFC 5705 keying material for CREDENTIAL proofs (the session owns the
  // socket and outlives the exporter's uses).
  StreamSocket* tls = socket_.get();
  params.export_keying_material = [tls](absl::string_view label, size_t length,
                                        std::string* out) {
    out->assign(length, '\0');
    return tls->ExportKeyingMaterial(
        label, kSpdyCredentialExporterHasContext, "",
        reinterpret_cast<uint8_t*>(out->data()), length);
  };
  auto session = std::make_unique<SpdySession>(std::move(socket_), params);
  SpdySession* raw = pool_->InsertSession(std::move(session));
  raw->Start();
  session_ = raw->GetWeakPtr();
  if (on_session_started_) std::move(on_session_started_)();
}

int SpdyHttpStream::SendRequest(CompletionOnceCallback callback) {
  SpdySession* session = session_.get();
  if (!session) return ERR_SPDY_SERVER_REFUSED_STREAM;
  LoadTiming* timing = params_.timing;
  timing->spdy.used = true;
  {
    IPEndPoint local;
    std::string via;
    if (session->socket() && session->socket()->GetLocalAddress(&local) == OK)
      via = local.ToString();
    timing->spdy.session_id =
        absl::StrCat(session->origin().Serialize(), " via ", via);
  }
  SpdyStreamParams params;
  params.origin = RequestOrigin();
  params.client_cert =
      params_.client_cert->cert_der.empty() ? nullptr : params_.client_cert;
  int rv = session->CreateStream(params, &stream_);
  if (rv != OK) return rv;
  const HttpRequestInfo& request = *request_;
  std::vector<std::pair<std::string, std::string>> headers;
  if (!request.HasExtraHeader("user-agent"))
    headers.emplace_back("user-agent", "netstack-fetch/0.1");
  if (!request.HasExtraHeader("accept")) headers.emplace_back("accept", "*/*");
  for (const auto& header : request.extra_headers) headers.push_back(header);
  if (!request.upload_body.empty() || request.method == "POST") {
    headers.emplace_back("content-length",
                         absl::StrCat(request.upload_body.size()));
  }
  timing->request_start = params_.clock->NowTicks();
  SpdyHeaderBlock block =
      MakeSpdyRequestHeaders(request.method, request.url, headers);
  headers_sent_.assign(block.begin(), block.end());
  rv = stream_->SendRequest(
      std::move(block), request.upload_body,
      [this, callback = std::move(callback)](int rv) mutable {
        if (rv != OK)
          error_detail_ = "sending the request on the SPDY stream failed";
        std::move(callback)(rv);
      });
  if (rv != OK && rv != ERR_IO_PENDING)
    error_detail_ = "sending the request on the SPDY stream failed";
  return rv;
}

int SpdyHttpStream::ReadResponseHeaders(CompletionOnceCallback callback) {
  int rv = stream_->ReadResponseHeaders(
      [this, callback = std::move(callback)](int rv) mutable {
        std::move(callback)(OnResponseHeaders(rv));
      });
  if (rv == ERR_IO_PENDING) return rv;
  return OnResponseHeaders(rv);
}

int SpdyHttpStream::OnResponseHeaders(int result) {
  LoadTiming* timing = params_.timing;
  timing->spdy.stream_id = stream_->stream_id();
  timing->spdy.credential_slot = stream_->credential_slot();
  timing->spdy.credential_sent = stream_->sent_credential();
  if (result != OK) {
    error_detail_ = absl::StrCat("SPDY stream ", stream_->stream_id(),
                                 " failed: ", ErrorToShortString(result));
    return result;
  }
  timing->response_start = params_.clock->NowTicks();
  const SpdyHeaderBlock& block = stream_->response_headers();
  const int status = SpdyResponseStatus(block);
  if (status < 0) {
    error_detail_ = "the SYN_REPLY has no valid :status";
    return ERR_SPDY_PROTOCOL_ERROR;
  }
  return ParseMultiplexedResponseHead(
      HttpHeadFromFields(status, block, /*split_nul=*/true), timing,
      &response_headers_, &error_detail_);
}

const HttpResponseHeaders* SpdyHttpStream::response_headers() const {
  return response_headers_ ? &*response_headers_ : nullptr;
}

int SpdyHttpStream::SettleBodyResult(int rv) const {
  // A peer that resets a stream after sending every byte its
  // Content-Length promised has lost us nothing: the body is complete (seen
  // from node-spdy around a GOAWAY). Without a length, a reset stays an
  // error: the body may be cut short.
  if (rv == ERR_SPDY_STREAM_RESET && response_headers_ &&
      response_headers_->content_length() >= 0 &&
      params_.timing->body_bytes == response_headers_->content_length())
    return 0;
  return rv;
}

void SpdyHttpStream::OnBodyResult(int rv) {
  if (rv > 0) {
    params_.timing->body_bytes += rv;
    return;
  }
  body_done_ = true;
  params_.timing->response_end = params_.clock->NowTicks();
  if (rv < 0) {
    error_detail_ = absl::StrCat("SPDY stream ", stream_->stream_id(),
                                 " failed: ", ErrorToShortString(rv));
  }
}

int SpdyHttpStream::ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                                     CompletionOnceCallback callback) {
  if (body_done_ || !stream_) return 0;
  int rv =
      stream_->ReadBody(std::move(buf), len,
                        [this, callback = std::move(callback)](int rv) mutable {
                          rv = SettleBodyResult(rv);
                          OnBodyResult(rv);
                          std::move(callback)(rv);
                        });
  if (rv == ERR_IO_PENDING) return rv;
  rv = SettleBodyResult(rv);
  OnBodyResult(rv);
  return rv;
}

bool SpdyHttpStream::IsResponseBodyComplete() const {
  return body_done_ || !stream_;
}

std::unique_ptr<StreamSocket> SpdyHttpStream::ReleaseConnection(
    bool* reusable) {
  // The session keeps its connection for its other streams.
  *reusable = false;
  return nullptr;
}

bool SpdyHttpStream::ShouldRetryOnAnotherStream(int error,
                                                bool* avoid_pooling) {
  if ((error == ERR_SPDY_INVALID_CREDENTIALS ||
       error == ERR_SPDY_CREDENTIAL_UNAVAILABLE) &&
      params_.pooled) {
    // The server wants this origin on a connection of its own (or its OBC
    // cannot be presented on the pooled one): a direct connection.
    *avoid_pooling = true;
    params_.timing->spdy.retry = absl::StrCat(
        ErrorToShortString(error), ": retried on a direct connection");
    return true;
  }
  if (error == ERR_SPDY_SERVER_REFUSED_STREAM) {
    params_.timing->spdy.retry =
        "refused stream (GOAWAY): retried on a new session";
    return true;
  }
  return false;
}

TcpFastOpenInfo SpdyHttpStream::GetTcpFastOpenInfo() const {
  if (session_) return session_->socket()->GetTcpFastOpenInfo();
  return socket_ ? socket_->GetTcpFastOpenInfo() : TcpFastOpenInfo();
}

const SSLInfo* SpdyHttpStream::GetSSLInfo() const {
  if (session_) return session_->socket()->GetSSLInfo();
  return socket_ ? socket_->GetSSLInfo() : nullptr;
}

}  // namespace net
