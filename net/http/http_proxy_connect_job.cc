#include "net/http/http_proxy_connect_job.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/http/http_response_headers.h"

namespace net {
namespace {

// What a read asks for; the scanner, not the read size, bounds the reply.
constexpr size_t kReadSize = 4096;

std::string HostPortOf(const std::string& host, uint16_t port) {
  return host.find(':') != std::string::npos
             ? absl::StrCat("[", host, "]:", port)
             : absl::StrCat(host, ":", port);
}

}  // namespace

HttpProxyConnectJob::HttpProxyConnectJob(HostResolver* resolver,
                                         ClientSocketFactory* factory,
                                         HttpProxyConnectJobParams params)
    : params_(std::move(params)),
      clock_(params_.transport.clock),
      transport_(resolver, factory, params_.proxy.host(), params_.proxy.port(),
                 params_.connect_timeout, std::move(params_.transport)) {}

HttpProxyConnectJob::~HttpProxyConnectJob() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

std::string HttpProxyConnectJob::BuildConnectRequest(
    const HttpProxyConnectJobParams& p) {
  const std::string target = HostPortOf(p.host, p.port);
  std::string out =
      absl::StrCat("CONNECT ", target, " HTTP/1.1\r\nHost: ", target, "\r\n");
  if (p.proxy.has_credentials()) {
    absl::StrAppend(&out, "Proxy-Authorization: ", p.proxy.BasicAuthorization(),
                    "\r\n");
  }
  out += "\r\n";
  return out;
}

ConnectJob::Phase HttpProxyConnectJob::phase() const {
  if (done_) return Phase::kDone;
  if (in_tunnel_) return Phase::kProxyTunnel;
  return transport_.phase();
}

ConnectTiming HttpProxyConnectJob::timing() const {
  ConnectTiming timing = transport_.timing();
  // The TCP connection's end is not this job's while the tunnel is made.
  if (params_.tunnel) timing.connect_end = connect_end_;
  return timing;
}

int HttpProxyConnectJob::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  next_state_ = STATE_TRANSPORT_CONNECT;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

void HttpProxyConnectJob::ResumeAfterHostResolved() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The transport job answers through the callback Connect gave it.
  transport_.ResumeAfterHostResolved();
}

void HttpProxyConnectJob::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv == ERR_IO_PENDING) return;
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(rv);
}

int HttpProxyConnectJob::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_TRANSPORT_CONNECT:
        rv = DoTransportConnect();
        break;
      case STATE_TRANSPORT_CONNECT_COMPLETE:
        rv = DoTransportConnectComplete(rv);
        break;
      case STATE_SEND_REQUEST:
        rv = DoSendRequest();
        break;
      case STATE_SEND_REQUEST_COMPLETE:
        rv = DoSendRequestComplete(rv);
        break;
      case STATE_READ_REPLY:
        rv = DoReadReply();
        break;
      case STATE_READ_REPLY_COMPLETE:
        rv = DoReadReplyComplete(rv);
        break;
      default:
        NET_NOTREACHED();
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  if (rv != ERR_IO_PENDING) tunnel_timer_.Stop();
  if (rv == OK) {
    done_ = true;
    connect_end_ = clock_->NowTicks();
  }
  return rv;
}

int HttpProxyConnectJob::DoTransportConnect() {
  next_state_ = STATE_TRANSPORT_CONNECT_COMPLETE;
  return transport_.Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  });
}

int HttpProxyConnectJob::DoTransportConnectComplete(int result) {
  if (result != OK) {
    // The hook's own verdict (a pooled session found) is not a failure to
    // reach the proxy.
    if (transport_.phase() == Phase::kHostResolved) {
      error_detail_ = transport_.error_detail();
      return result;
    }
    error_detail_ =
        absl::StrCat("could not connect to the proxy ",
                     params_.proxy.ToString(), ": ", transport_.error_detail());
    return ERR_PROXY_CONNECTION_FAILED;
  }
  socket_ = transport_.TakeSocket();
  if (!params_.tunnel) return OK;
  in_tunnel_ = true;
  tunnel_timer_.Start(params_.connect_timeout, [this] { OnTunnelTimeout(); });
  request_buf_ =
      std::make_shared<DrainableIOBuffer>(BuildConnectRequest(params_));
  next_state_ = STATE_SEND_REQUEST;
  return OK;
}

int HttpProxyConnectJob::DoSendRequest() {
  next_state_ = STATE_SEND_REQUEST_COMPLETE;
  return socket_->Write(request_buf_,
                        static_cast<int>(request_buf_->BytesRemaining()),
                        [weak = weak_factory_.GetWeakPtr()](int rv) {
                          if (weak) weak->OnIOComplete(rv);
                        });
}

int HttpProxyConnectJob::DoSendRequestComplete(int result) {
  if (result < 0) {
    return FailTunnel(ERR_TUNNEL_CONNECTION_FAILED,
                      absl::StrCat("sending CONNECT failed (",
                                   ErrorToShortString(result), ")"));
  }
  request_buf_->DidConsume(static_cast<size_t>(result));
  next_state_ = request_buf_->BytesRemaining() > 0 ? STATE_SEND_REQUEST
                                                   : STATE_READ_REPLY;
  if (next_state_ == STATE_READ_REPLY) {
    request_buf_.reset();
    read_buf_ = std::make_shared<IOBuffer>(kReadSize);
  }
  return OK;
}

int HttpProxyConnectJob::DoReadReply() {
  next_state_ = STATE_READ_REPLY_COMPLETE;
  return socket_->Read(read_buf_, static_cast<int>(kReadSize),
                       [weak = weak_factory_.GetWeakPtr()](int rv) {
                         if (weak) weak->OnIOComplete(rv);
                       });
}

int HttpProxyConnectJob::DoReadReplyComplete(int result) {
  if (result < 0) {
    return FailTunnel(ERR_TUNNEL_CONNECTION_FAILED,
                      absl::StrCat("reading the reply to CONNECT failed after ",
                                   reply_.size(), " bytes (",
                                   ErrorToShortString(result), ")"));
  }
  if (result == 0) {
    return FailTunnel(
        ERR_TUNNEL_CONNECTION_FAILED,
        reply_.empty()
            ? std::string("the proxy closed the connection without answering "
                          "CONNECT")
            : absl::StrCat("the proxy closed the connection after ",
                           reply_.size(),
                           " bytes of an incomplete reply to CONNECT"));
  }
  const absl::string_view data(read_buf_->data(), static_cast<size_t>(result));
  const int consumed = scanner_.Scan(data);
  if (consumed < 0) {
    if (consumed == ERR_RESPONSE_HEADERS_TOO_BIG) {
      return FailTunnel(
          ERR_RESPONSE_HEADERS_TOO_BIG,
          absl::StrCat("the reply to CONNECT passed ", kMaxReplyBytes,
                       " bytes without ending its headers"));
    }
    return FailTunnel(
        ERR_TUNNEL_CONNECTION_FAILED,
        absl::StrCat("malformed reply to CONNECT: ", scanner_.error_detail()));
  }
  reply_.append(data.data(), static_cast<size_t>(consumed));
  if (!scanner_.block_complete()) {
    next_state_ = STATE_READ_REPLY;
    return OK;
  }
  return HandleReply(static_cast<size_t>(result - consumed));
}

int HttpProxyConnectJob::HandleReply(size_t extra) {
  absl::StatusOr<HttpResponseHeaders> headers =
      HttpResponseHeaders::Parse(reply_);
  if (!headers.ok()) {
    return FailTunnel(ERR_TUNNEL_CONNECTION_FAILED,
                      absl::StrCat("malformed reply to CONNECT: ",
                                   headers.status().message()));
  }
  tunnel_status_ = headers->status_code();
  const std::string status =
      absl::StrCat(headers->status_code(), headers->reason().empty() ? "" : " ",
                   absl::CHexEscape(headers->reason().substr(0, 100)));
  if (tunnel_status_ == 407) {
    std::string why = params_.proxy.has_credentials()
                          ? "it refused the Basic credentials given"
                          : "no credentials were given (put them in the "
                            "proxy URL: http://user:password@host:port)";
    if (std::optional<std::string> challenge =
            headers->GetHeader("proxy-authenticate")) {
      absl::StrAppend(
          &why, "; it asks for: ", absl::CHexEscape(challenge->substr(0, 200)));
    }
    return FailTunnel(
        ERR_PROXY_AUTH_REQUESTED,
        absl::StrCat("answered CONNECT with ", status, ": ", why));
  }
  if (tunnel_status_ < 200 || tunnel_status_ > 299) {
    return FailTunnel(ERR_TUNNEL_CONNECTION_FAILED,
                      absl::StrCat("answered CONNECT with ", status));
  }
  // RFC 9110 9.3.6: a client ignores Content-Length and Transfer-Encoding
  // in a 2xx to CONNECT; what follows the blank line is the tunnel's. The
  // TLS client speaks first, so a byte from the far end before it is not
  // the origin's: refuse rather than hand it to TLS (Chromium does too).
  if (extra > 0) {
    return FailTunnel(
        ERR_TUNNEL_CONNECTION_FAILED,
        absl::StrCat("answered CONNECT with ", status, " and then sent ", extra,
                     " more bytes before the client spoke"));
  }
  in_tunnel_ = false;
  read_buf_.reset();
  return OK;
}

int HttpProxyConnectJob::FailTunnel(int error, absl::string_view why) {
  error_detail_ =
      absl::StrCat("the proxy ", params_.proxy.ToString(), " (tunnel to ",
                   HostPortOf(params_.host, params_.port), "): ", why);
  socket_.reset();
  return error;
}

void HttpProxyConnectJob::OnTunnelTimeout() {
  // The socket goes, and with it the pending read or write.
  FailTunnel(ERR_TIMED_OUT,
             absl::StrCat("no complete reply to CONNECT within ",
                          absl::FormatDuration(params_.connect_timeout), " (",
                          reply_.size(), " bytes of it received)"));
  next_state_ = STATE_NONE;
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(ERR_TIMED_OUT);
}

}  // namespace net
