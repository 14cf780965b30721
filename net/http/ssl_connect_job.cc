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
    : resolver_(resolver),
      factory_(factory),
      params_(std::move(params)),
      tcp_options_(params_.transport.tcp),
      connect_to_(params_.transport.connect_to),
      https_record_(params_.transport.https_record),
      clock_(params_.transport.clock) {
  // (GREASE offers no configuration: nothing to keep hidden.)
  params_.transport.ech = OffersEchConfiguration(params_.ssl_config.ech_mode);
  transport_ = MakeTransport(std::move(params_.transport));
}

std::unique_ptr<ConnectJob> SSLConnectJob::MakeTransport(
    TransportConnectJob::Options options) {
  if (params_.proxy) {
    HttpProxyConnectJobParams tunnel;
    tunnel.proxy = *params_.proxy;
    tunnel.host = params_.host;
    tunnel.port = params_.port;
    tunnel.tunnel = true;
    tunnel.connect_timeout = params_.connect_timeout;
    tunnel.transport = std::move(options);
    return std::make_unique<HttpProxyConnectJob>(resolver_, factory_,
                                                 std::move(tunnel));
  }
  return std::make_unique<TransportConnectJob>(
      resolver_, factory_, params_.host, params_.port, params_.connect_timeout,
      std::move(options));
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
  if (first_timing_) {
    // An ECH retry: the lookup and the first TCP attempt were the first
    // connection's.
    timing.dns_start = first_timing_->dns_start;
    timing.dns_end = first_timing_->dns_end;
    timing.dns_source = first_timing_->dns_source;
    timing.dns_https = first_timing_->dns_https;
    timing.connect_start = first_timing_->connect_start;
  }
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

void SSLConnectJob::ChooseHandshake(bool ech) {
  const std::string key = absl::StrCat(params_.host, ":", params_.port);
  SnapStartClientContext* snap = params_.snap_start_context;
  // Snap Start's TLS 1.2 core cannot encrypt the ClientHello: with an ECH
  // configuration to offer it is no candidate.
  const bool snap_known = snap && !ech && snap->GetInfo(key);
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

int SSLConnectJob::PrepareEch(SSLConfig* config) {
  switch (config->ech_mode) {
    case EchMode::kOff:
      config->ech_config_list.clear();
      config->ech_grease = false;
      return OK;
    case EchMode::kGrease:
      config->ech_config_list.clear();
      config->ech_grease = true;
      return OK;
    case EchMode::kOn:
    case EchMode::kHard:
      break;
  }
  if (ech_attempt_ == EchAttempt::kRetryWithConfigs) {
    config->ech_config_list = ech_retry_configs_;
  } else if (ech_attempt_ == EchAttempt::kRetryWithoutEch) {
    config->ech_config_list.clear();
  } else if (config->ech_config_list.empty()) {
    // The origin's HTTPS record (never a proxy's lookup: it did not ask).
    const HttpsRecordInfo& https = transport_->resolve_result().https;
    if (https.used()) config->ech_config_list = https.ech_config_list;
  }
  if (config->ech_mode == EchMode::kHard && config->ech_config_list.empty() &&
      ech_attempt_ == EchAttempt::kFirst) {
    const HttpsRecordInfo& https = transport_->resolve_result().https;
    error_detail_ = absl::StrCat(
        "--ech hard: no ECH configuration for ", params_.host, " (",
        https.status == HttpsRecordStatus::kNotQueried
            ? std::string("its HTTPS record was not queried")
        : https.used()
            ? std::string("its HTTPS record has no ech")
            : absl::StrCat(
                  "HTTPS record: ", HttpsRecordStatusToString(https.status),
                  https.detail.empty() ? "" : ", ", https.detail),
        ")");
    return ERR_ECH_NOT_NEGOTIATED;
  }
  return OK;
}

int SSLConnectJob::DoSSLConnect() {
  in_handshake_ = true;
  // A retry's handshake is part of the first one's cost.
  if (ssl_start_.is_null()) ssl_start_ = clock_->NowTicks();
  SSLConfig ssl_config = params_.ssl_config;
  int rv = PrepareEch(&ssl_config);
  if (rv != OK) return rv;
  SnapStartClientContext* snap = params_.snap_start_context;
  ChooseHandshake(!ssl_config.ech_config_list.empty());
  if (snap && (params_.snap_start_learn_in_handshake ||
               choice_.chosen == "snap_start")) {
    used_snap_start_core_ = true;
    socket_ = factory_->CreateSnapStartClientSocket(
        transport_->TakeSocket(), params_.host, params_.port, snap);
  } else {
    socket_ = factory_->CreateSSLClientSocket(transport_->TakeSocket(),
                                              params_.host, params_.port,
                                              ssl_config, params_.ssl_context);
  }
  if (!socket_) {
    error_detail_ = "the socket factory made no TLS socket";
    return ERR_UNEXPECTED;
  }
  next_state_ = STATE_SSL_CONNECT_COMPLETE;
  rv = socket_->Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
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
  if (result == ERR_ECH_NOT_NEGOTIATED && ech_attempt_ == EchAttempt::kFirst)
    return RetryAfterEchRejection(result);
  if (ech_attempt_ != EchAttempt::kFirst) NoteEchRetry(result);
  if (result != OK) {
    error_detail_ = socket_->error_detail();
    socket_.reset();
    return result;
  }
  connect_end_ = clock_->NowTicks();
  done_ = true;
  return OK;
}

int SSLConnectJob::RetryAfterEchRejection(int result) {
  error_detail_ = socket_->error_detail();
  first_ech_detail_ = ssl_info_->ech_detail;
  ech_retry_configs_ = ssl_info_->ech_retry_configs;
  socket_.reset();
  if (ech_retry_configs_.empty() &&
      params_.ssl_config.ech_mode == EchMode::kHard) {
    // The server rolled ECH back: --ech hard does not go on without it.
    error_detail_ += " (--ech hard: no retry without ECH)";
    ssl_info_->ech_retry = EchRetry::kNone;
    return result;
  }
  ech_attempt_ = ech_retry_configs_.empty() ? EchAttempt::kRetryWithoutEch
                                            : EchAttempt::kRetryWithConfigs;
  // A new connection to the address just used: the lookup (and its HTTPS
  // record, whose port it keeps) stands.
  first_timing_ = transport_->timing();
  TransportConnectJob::Options options;
  options.clock = clock_;
  options.resolved = transport_->resolve_result();
  options.first_address = transport_->address_index();
  options.tcp = tcp_options_;
  options.connect_to = connect_to_;
  options.https_record = https_record_;
  options.ech = OffersEchConfiguration(params_.ssl_config.ech_mode);
  transport_ = MakeTransport(std::move(options));
  in_handshake_ = false;
  next_state_ = STATE_TRANSPORT_CONNECT;
  return OK;
}

void SSLConnectJob::NoteEchRetry(int result) {
  EchRetry retry;
  if (result == OK) {
    retry = ssl_info_->ech == EchOutcome::kAccepted ? EchRetry::kAccepted
                                                    : EchRetry::kWithoutEch;
  } else {
    retry = result == ERR_ECH_NOT_NEGOTIATED ? EchRetry::kRejected
                                             : EchRetry::kFailed;
  }
  const std::string retry_detail = ssl_info_->ech_detail;
  ssl_info_->ech = EchOutcome::kRejected;
  ssl_info_->ech_retry = retry;
  ssl_info_->ech_detail = absl::StrCat(
      first_ech_detail_, "; retried once on a new connection ",
      ech_attempt_ == EchAttempt::kRetryWithConfigs
          ? "with the server's retry configurations"
          : "without ECH",
      ": ", EchRetryToString(retry),
      result == OK ? "" : absl::StrCat(" (", ErrorToShortString(result), ")"),
      retry_detail.empty() ? "" : " - ", retry_detail);
}

}  // namespace net
