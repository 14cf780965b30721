#include "net/context/prevalidate_job.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace net {

int PrevalidateJob::ChainRecorder::Verify(const CertVerifyParams& params,
                                          CertVerifyResult* result,
                                          CompletionOnceCallback,
                                          std::unique_ptr<Request>*) {
  chain_ = params.chain_der;
  result->error = OK;
  return OK;
}

PrevalidateJob::PrevalidateJob(HostResolver* resolver,
                               ClientSocketFactory* factory,
                               Prevalidator* prevalidator, std::string host,
                               uint16_t port, absl::Duration connect_timeout,
                               std::string* error_detail)
    : resolver_(resolver),
      factory_(factory),
      prevalidator_(prevalidator),
      host_(std::move(host)),
      port_(port),
      connect_timeout_(connect_timeout),
      error_detail_(error_detail),
      probe_context_(&recorder_) {}

PrevalidateJob::~PrevalidateJob() = default;

int PrevalidateJob::Start(CompletionOnceCallback callback) {
  next_state_ = STATE_CONNECT;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int PrevalidateJob::DoLoop(int rv) {
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_CONNECT:
        rv = DoConnect();
        break;
      case STATE_CONNECT_COMPLETE:
        rv = DoConnectComplete(rv);
        break;
      case STATE_PREVALIDATE:
        rv = DoPrevalidate();
        break;
      case STATE_PREVALIDATE_COMPLETE:
        rv = DoPrevalidateComplete(rv);
        break;
      default:
        NET_NOTREACHED();
        SetDetail("PrevalidateJob: bad state");
        return ERR_UNEXPECTED;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

int PrevalidateJob::DoConnect() {
  SSLConnectJobParams params;
  params.host = host_;
  params.port = port_;
  params.connect_timeout = connect_timeout_;
  params.ssl_config.session_resumption_enabled = false;
  params.ssl_context = &probe_context_;
  connect_job_ =
      std::make_unique<SSLConnectJob>(resolver_, factory_, std::move(params));
  next_state_ = STATE_CONNECT_COMPLETE;
  return connect_job_->Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  });
}

int PrevalidateJob::DoConnectComplete(int rv) {
  const bool handshake_ran =
      connect_job_->phase() == ConnectJob::Phase::kSSLHandshake ||
      connect_job_->phase() == ConnectJob::Phase::kDone;
  if (rv != OK && !handshake_ran) {
    SetDetail(connect_job_->error_detail());
    return rv;
  }
  // Only the chain was wanted: the connection goes.
  connect_job_.reset();
  if (rv != OK || recorder_.chain().empty()) {
    if (rv == OK) rv = ERR_SSL_PROTOCOL_ERROR;
    SetDetail(absl::StrCat("probe handshake with ", host_, ": ",
                           ErrorToShortString(rv)));
    return rv;
  }
  next_state_ = STATE_PREVALIDATE;
  return OK;
}

int PrevalidateJob::DoPrevalidate() {
  next_state_ = STATE_PREVALIDATE_COMPLETE;
  prevalidator_->Prevalidate(recorder_.chain(), host_,
                             [weak = weak_factory_.GetWeakPtr()](int rv) {
                               if (weak) weak->OnIOComplete(rv);
                             });
  return ERR_IO_PENDING;
}

int PrevalidateJob::DoPrevalidateComplete(int rv) {
  if (rv != OK)
    SetDetail(absl::StrCat("prevalidating ", host_,
                           "'s chain: ", ErrorToShortString(rv)));
  return rv;
}

void PrevalidateJob::OnIOComplete(int rv) {
  rv = DoLoop(rv);
  if (rv == ERR_IO_PENDING) return;
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(rv);
}

void PrevalidateJob::SetDetail(const std::string& detail) {
  if (error_detail_) *error_detail_ = detail;
}

}  // namespace net
