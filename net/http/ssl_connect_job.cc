#include "net/http/ssl_connect_job.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/http/http_proxy_connect_job.h"
#include "net/snap_start/snap_start_client_context.h"

namespace net {

SSLConnectJob::SSLConnectJob(HostResolver* resolver,
                             ClientSocketFactory* factory,
                             SSLConnectJobParams params)
    : factory_(factory),
      params_(std::move(params)),
      clock_(params_.transport.clock) {
  if (params_.proxy) {
    HttpProxyConnectJobParams tunnel;
    tunnel.proxy = *params_.proxy;
    tunnel.host = params_.host;
    tunnel.port = params_.port;
    tunnel.tunnel = true;
    tunnel.connect_timeout = params_.connect_timeout;
    tunnel.transport = std::move(params_.transport);
    transport_ = std::make_unique<HttpProxyConnectJob>(resolver, factory,
                                                       std::move(tunnel));
  } else {
    transport_ = std::make_unique<TransportConnectJob>(
        resolver, factory, params_.host, params_.port, params_.connect_timeout,
        std::move(params_.transport));
  }
}

SSLConnectJob::~SSLConnectJob() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

ConnectJob::Phase SSLConnectJob::phase() const {
  if (done_) return Phase::kDone;
  if (in_handshake_) return Phase::kSSLHandshake;
  return transport_->phase();
}

int SSLConnectJob::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  next_state_ = STATE_TRANSPORT_CONNECT;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

void SSLConnectJob::ResumeAfterHostResolved() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The transport job answers through the callback Connect gave it.
  transport_->ResumeAfterHostResolved();
}

void SSLConnectJob::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv == ERR_IO_PENDING) return;
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(rv);
}

int SSLConnectJob::DoLoop(int result) {
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
      case STATE_SSL_CONNECT:
        rv = DoSSLConnect();
        break;
      case STATE_SSL_CONNECT_COMPLETE:
        rv = DoSSLConnectComplete(rv);
        break;
      default:
        NET_NOTREACHED();
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

ConnectTiming SSLConnectJob::timing() const {
  // The transport step's stamps, read live (the OnHostResolved hook reads
  // them from inside it); its connect_end is the TCP connection's, not this
  // job's.
  ConnectTiming timing = transport_->timing();
  timing.ssl_start = ssl_start_;
  timing.connect_end = connect_end_;
  return timing;
}

int SSLConnectJob::DoTransportConnect() {
  next_state_ = STATE_TRANSPORT_CONNECT_COMPLETE;
  return transport_->Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  });
}

int SSLConnectJob::DoTransportConnectComplete(int result) {
  if (result != OK) {
    error_detail_ = transport_->error_detail();
    return result;
  }
  next_state_ = STATE_SSL_CONNECT;
  return OK;
}

void SSLConnectJob::ChooseHandshake() {
  const std::string key = absl::StrCat(params_.host, ":", params_.port);
  SnapStartClientContext* snap = params_.snap_start_context;
  const bool snap_known = snap && snap->GetInfo(key);
  if (snap && params_.snap_start_learn_in_handshake) {
    // Every connection goes through the core (testing it): no choice.
    choice_ = {snap_known ? "snap_start" : "snap_start_core_full",
               snap_known ? 2 : 4, "", 0};
    return;
  }
  const SSLClientContext::Resumable resumable =
      params_.ssl_context->PeekSession(key, absl::Now());
  // In the order a tie is broken.
  std::vector<std::pair<const char*, int>> candidates;
  if (resumable == SSLClientContext::Resumable::kEarlyData &&
      params_.ssl_config.early_data_enabled)
    candidates.emplace_back("tls13_0rtt", 2);
  if (snap_known) candidates.emplace_back("snap_start", 2);
  candidates.emplace_back(resumable == SSLClientContext::Resumable::kNone
                              ? "tls_full"
                              : "tls_resumption",
                          3);
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const auto& a, const auto& b) { return a.second < b.second; });
  choice_.chosen = candidates[0].first;
  choice_.rtts = candidates[0].second;
  if (candidates.size() > 1) {
    choice_.runner_up = candidates[1].first;
    choice_.runner_up_rtts = candidates[1].second;
  }
}

int SSLConnectJob::DoSSLConnect() {
  in_handshake_ = true;
  ssl_start_ = clock_->NowTicks();
  SnapStartClientContext* snap = params_.snap_start_context;
  ChooseHandshake();
  if (snap && (params_.snap_start_learn_in_handshake ||
               choice_.chosen == "snap_start")) {
    used_snap_start_core_ = true;
    socket_ = factory_->CreateSnapStartClientSocket(
        transport_->TakeSocket(), params_.host, params_.port, snap);
  } else {
    socket_ = factory_->CreateSSLClientSocket(
        transport_->TakeSocket(), params_.host, params_.port,
        params_.ssl_config, params_.ssl_context);
  }
  if (!socket_) {
    error_detail_ = "the socket factory made no TLS socket";
    return ERR_UNEXPECTED;
  }
  next_state_ = STATE_SSL_CONNECT_COMPLETE;
  int rv = socket_->Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  });
  if (rv == ERR_IO_PENDING) {
    handshake_timer_.Start(params_.handshake_timeout,
                           [this] { OnHandshakeTimeout(); });
  }
  return rv;
}

void SSLConnectJob::OnHandshakeTimeout() {
  // The socket goes, and with it the handshake's pending callback.
  error_detail_ = absl::StrCat("the TLS handshake did not finish within ",
                               absl::FormatDuration(params_.handshake_timeout));
  socket_.reset();
  next_state_ = STATE_NONE;
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(ERR_TIMED_OUT);
}

int SSLConnectJob::DoSSLConnectComplete(int result) {
  handshake_timer_.Stop();
  const SSLInfo* info = socket_->GetSSLInfo();
  ssl_info_ = info ? *info : SSLInfo();
  if (result != OK) {
    error_detail_ = socket_->error_detail();
    socket_.reset();
    return result;
  }
  connect_end_ = clock_->NowTicks();
  done_ = true;
  return OK;
}

}  // namespace net
