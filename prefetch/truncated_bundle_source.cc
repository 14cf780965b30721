#include "prefetch/truncated_bundle_source.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cert/cert_verifier.h"
#include "net/base/check.h"
#include "net/base/net_errors.h"
#include "net/http/ssl_connect_job.h"
#include "net/snap_start/snap_start_probe.h"
#include "net/socket/transport_connect_job.h"
#include "net/ssl/ssl_client_context.h"

namespace net {
namespace {

// Captures the server's chain and refuses it, so the handshake stops before
// the client authenticates anything or the server keeps a session.
class ChainCapture : public CertVerifier {
 public:
  int Verify(const CertVerifyParams& params, CertVerifyResult* result,
             CompletionOnceCallback, std::unique_ptr<Request>*) override {
    chain_ = params.chain_der;
    result->error = ERR_CERT_INVALID;
    result->detail = "chain captured; the handshake stops here";
    return ERR_CERT_INVALID;
  }
  const std::vector<std::string>& chain() const { return chain_; }

 private:
  std::vector<std::string> chain_;
};

size_t ChainBytes(const std::vector<std::string>& chain) {
  size_t n = 0;
  for (const std::string& der : chain) n += der.size();
  return n;
}

}  // namespace

// ProbeRequest: connect, SnapStartProbe; on failure an SSLConnectJob (a new
// connection) runs the aborted BoringSSL handshake. A DoLoop over those
// steps.
class TruncatedBundleSource::ProbeRequest : public BundleSource::Request {
 public:
  ProbeRequest(TruncatedBundleSource* source, std::string host, uint16_t port,
               Callback callback)
      : source_(source),
        host_(std::move(host)),
        port_(port),
        callback_(std::move(callback)),
        capture_context_(&capture_) {}

  void Start() {
    next_state_ = STATE_CONNECT;
    // Always answer from a task, even when every step completes at once.
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (weak) weak->OnIOComplete(OK);
    });
  }

 private:
  enum State {
    STATE_NONE,
    STATE_CONNECT,
    STATE_CONNECT_COMPLETE,
    STATE_PROBE,
    STATE_PROBE_COMPLETE,
    STATE_ABORTED_HANDSHAKE,
    STATE_ABORTED_HANDSHAKE_COMPLETE,
  };

  int DoLoop(int rv) {
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
        case STATE_PROBE:
          rv = DoProbe();
          break;
        case STATE_PROBE_COMPLETE:
          rv = DoProbeComplete(rv);
          break;
        case STATE_ABORTED_HANDSHAKE:
          rv = DoAbortedHandshake();
          break;
        case STATE_ABORTED_HANDSHAKE_COMPLETE:
          rv = DoAbortedHandshakeComplete(rv);
          break;
        default:
          NET_NOTREACHED();
          Finish(absl::InternalError("truncated handshake: bad state"));
          return ERR_UNEXPECTED;
      }
    } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
    return rv;
  }

  int DoConnect() {
    TransportConnectJob::Options options;
    if (source_->fast_open_) options.tcp.fast_open = TcpFastOpenMode::kNoCookie;
    options.connect_to = source_->connect_to_;
    connect_job_ = std::make_unique<TransportConnectJob>(
        source_->resolver_, source_->factory_, host_, port_,
        source_->connect_timeout_, std::move(options));
    next_state_ = STATE_CONNECT_COMPLETE;
    return connect_job_->Connect([this](int rv) { OnIOComplete(rv); });
  }

  int DoConnectComplete(int rv) {
    if (rv != OK) {
      Finish(absl::UnavailableError(connect_job_->error_detail()));
      return rv;
    }
    next_state_ = STATE_PROBE;
    return OK;
  }

  int DoProbe() {
    probe_ =
        std::make_unique<SnapStartProbe>(connect_job_->TakeSocket(), host_);
    next_state_ = STATE_PROBE_COMPLETE;
    return probe_->Run([this](int rv) { OnIOComplete(rv); });
  }

  int DoProbeComplete(int rv) {
    const ConnectTiming t = connect_job_->timing();
    NoteRtt(probe_->GetTcpFastOpenInfo(), t.connect_start, t.connect_end);
    if (rv != OK) {
      // Not a TLS 1.2 static-RSA server: read the chain from a normal
      // handshake instead.
      probe_error_ =
          absl::StrCat(ErrorToShortString(rv), " ", probe_->error_detail());
      probe_.reset();
      next_state_ = STATE_ABORTED_HANDSHAKE;
      return OK;
    }
    const SnapStartProbeResult& result = probe_->result();
    // The probe's ClientHello rode in the SYN without a cookie, and the
    // server took it.
    const TcpFastOpenInfo tfo = probe_->GetTcpFastOpenInfo();
    no_cookie_ = tfo.mode == TcpFastOpenMode::kNoCookie &&
                 tfo.outcome == TcpFastOpenOutcome::kAccepted;
    std::optional<std::string> orbit;
    if (result.orbit)
      orbit = std::string(result.orbit->begin(), result.orbit->end());
    Deliver(result.chain_der, result.cipher_suite, std::move(orbit),
            ChainBytes(result.chain_der) + result.server_hello.size(),
            result.orbit ? result.server_hello : std::string());
    return OK;
  }

  int DoAbortedHandshake() {
    // A new connection, and a BoringSSL handshake through the factory whose
    // verifier captures the chain and stops it.
    SSLConnectJobParams params;
    params.host = host_;
    params.port = port_;
    params.connect_timeout = source_->connect_timeout_;
    params.ssl_config.session_resumption_enabled = false;
    params.ssl_config.false_start_enabled = false;
    params.ssl_context = &capture_context_;
    params.transport.connect_to = source_->connect_to_;
    tls_job_ = std::make_unique<SSLConnectJob>(
        source_->resolver_, source_->factory_, std::move(params));
    next_state_ = STATE_ABORTED_HANDSHAKE_COMPLETE;
    return tls_job_->Connect([this](int rv) { OnIOComplete(rv); });
  }

  int DoAbortedHandshakeComplete(int rv) {
    const bool handshake_ran =
        tls_job_->phase() == ConnectJob::Phase::kSSLHandshake ||
        tls_job_->phase() == ConnectJob::Phase::kDone;
    if (!handshake_ran) {
      Finish(absl::UnavailableError(tls_job_->error_detail()));
      return rv;
    }
    // No Fast Open on this connection: its TCP handshake is the sample.
    const ConnectTiming t = tls_job_->timing();
    NoteRtt(TcpFastOpenInfo(), t.connect_start, t.ssl_start);
    tls_job_.reset();
    if (capture_.chain().empty()) {
      Finish(absl::UnavailableError(
          absl::StrCat("truncated handshake with ", host_, ":", port_,
                       ": no certificate (probe: ", probe_error_,
                       "; TLS: ", ErrorToShortString(rv), ")")));
      return rv == OK ? ERR_SSL_PROTOCOL_ERROR : rv;
    }
    Deliver(capture_.chain(), 0, std::nullopt, ChainBytes(capture_.chain()),
            std::string());
    return OK;
  }

  void Deliver(const std::vector<std::string>& chain, uint16_t cipher,
               std::optional<std::string> orbit, size_t bytes,
               std::string server_hello) {
    absl::StatusOr<CertBundle> bundle = MakeCertBundle(
        host_, port_, chain, cipher, std::move(orbit), absl::Now());
    if (!bundle.ok()) {
      Finish(absl::Status(bundle.status().code(),
                          absl::StrCat("truncated handshake with ", host_, ": ",
                                       bundle.status().message())));
      return;
    }
    if (no_cookie_) SetTcpFastOpenNoCookie(&*bundle);
    FetchedBundle fetched;
    fetched.bundle = *std::move(bundle);
    fetched.source = BundleSourceType::kTruncated;
    fetched.bytes = bytes;
    fetched.via = absl::StrCat("tls://", host_, ":", port_);
    fetched.server_hello = std::move(server_hello);
    Finish(std::move(fetched));
  }

  void OnIOComplete(int rv) { DoLoop(rv); }

  // A probe connection's round trip (ConnectionRttSample), to the observer.
  void NoteRtt(const TcpFastOpenInfo& info, TimeTicks connect_start,
               TimeTicks transport_end) {
    if (!source_->rtt_observer_) return;
    const absl::Duration handshake =
        connect_start.is_null() || transport_end.is_null()
            ? absl::ZeroDuration()
            : transport_end - connect_start;
    const absl::Duration rtt = ConnectionRttSample(info, handshake);
    if (rtt > absl::ZeroDuration())
      source_->rtt_observer_->OnServerRttSample(host_, rtt);
  }

  void Finish(absl::StatusOr<FetchedBundle> result) {
    if (!callback_) return;
    // The callback may destroy this request: run it from a local.
    Callback callback = std::move(callback_);
    std::move(callback)(std::move(result));
  }

  TruncatedBundleSource* const source_;
  const std::string host_;
  const uint16_t port_;
  Callback callback_;
  State next_state_ = STATE_NONE;
  std::string probe_error_;
  bool no_cookie_ = false;
  std::unique_ptr<TransportConnectJob> connect_job_;
  std::unique_ptr<SnapStartProbe> probe_;
  ChainCapture capture_;
  SSLClientContext capture_context_;
  std::unique_ptr<SSLConnectJob> tls_job_;
  WeakPtrFactory<ProbeRequest> weak_factory_{this};
};

void TruncatedBundleSource::Fetch(const std::string& host, uint16_t port,
                                  Callback callback,
                                  std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto request =
      std::make_unique<ProbeRequest>(this, host, port, std::move(callback));
  request->Start();
  *out_request = std::move(request);
}

}  // namespace net
