#include "net/ssl/ssl_client_socket.h"

#include <openssl/err.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cert/obc/ssl_client_cert.h"
#include "net/base/check.h"
#include "net/base/event_loop.h"
#include "net/base/ip_endpoint.h"
#include "net/ssl/ech_config.h"
#include "net/ssl/openssl_util.h"

namespace net {
namespace {

int SocketExDataIndex() {
  static int index =
      SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

SSLClientSocket* FromSSL(const SSL* ssl) {
  return static_cast<SSLClientSocket*>(
      SSL_get_ex_data(ssl, SocketExDataIndex()));
}

// Marks a session whose ticket has carried early data once: a TLS 1.3
// ticket is for one use (RFC 8446 C.4), and a server with a replay defence
// rejects a second 0-RTT attempt on it anyway. The session cache may hand
// out its last session more than once; only the first use sends early data.
int SessionEarlyDataUsedIndex() {
  return SSLClientContext::SessionEarlyDataUsedIndex();
}

int NewSessionCallback(SSL* ssl, SSL_SESSION* session) {
  return FromSSL(ssl)->OnNewSession(session);
}

ssl_verify_result_t VerifyCallback(SSL* ssl, uint8_t* out_alert) {
  return FromSSL(ssl)->OnVerifyCallback(out_alert);
}

int ClientCertCallback(SSL* ssl, void* arg) {
  return static_cast<SSLClientSocket*>(arg)->OnClientCertCallback();
}

uint8_t AlertForCertError(int error) {
  switch (error) {
    case ERR_CERT_DATE_INVALID:
      return SSL_AD_CERTIFICATE_EXPIRED;
    case ERR_CERT_AUTHORITY_INVALID:
      return SSL_AD_UNKNOWN_CA;
    case ERR_CERT_REVOKED:
      return SSL_AD_CERTIFICATE_REVOKED;
    default:
      return SSL_AD_BAD_CERTIFICATE;
  }
}

}  // namespace

SSLClientSocket::SSLClientSocket(std::unique_ptr<StreamSocket> transport,
                                 std::string host, uint16_t port,
                                 const SSLConfig& config,
                                 SSLClientContext* context)
    : SSLSocketBase(std::move(transport)),
      host_(std::move(host)),
      port_(port),
      session_key_(host_ + ":" + std::to_string(port)),
      config_(config),
      context_(context),
      connection_id_(context->NextConnectionId()) {}

SSLClientSocket::~SSLClientSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (waiting_for_session_) context_->CancelWait(session_key_, connection_id_);
  ReleaseLeadership();
}

void SSLClientSocket::ReleaseLeadership() {
  if (!is_leader_) return;
  is_leader_ = false;
  context_->OnLeaderGone(session_key_, connection_id_);
}

int SSLClientSocket::InitializeSSL() {
  SSL_CTX* ctx = context_->ssl_ctx();
  SSL_CTX_sess_set_new_cb(ctx, NewSessionCallback);
  bssl::UniquePtr<SSL> new_ssl(SSL_new(ctx));
  if (!new_ssl) return ERR_OUT_OF_MEMORY;
  AttachSSL(std::move(new_ssl));
  SSL_set_ex_data(ssl(), SocketExDataIndex(), this);
  AttachSSLInfo(ssl(), &ssl_info_);
  SSL_set_connect_state(ssl());

  int rv;
  if (!SSL_set_min_proto_version(ssl(), config_.version_min) ||
      !SSL_set_max_proto_version(ssl(), config_.version_max)) {
    return ERR_INVALID_ARGUMENT;
  }
  if (!config_.cipher_list.empty() &&
      !SSL_set_strict_cipher_list(ssl(), config_.cipher_list.c_str())) {
    ERR_clear_error();
    error_detail_ = "bad cipher list: " + config_.cipher_list;
    return ERR_INVALID_ARGUMENT;
  }
  // SNI only for names, never for IP literals (RFC 6066 section 3).
  if (!IPAddress::Parse(host_)) SSL_set_tlsext_host_name(ssl(), host_.c_str());
  if (!config_.alpn_protos.empty()) {
    std::string wire;
    for (const std::string& proto : config_.alpn_protos) {
      if (proto.empty() || proto.size() > 255) return ERR_INVALID_ARGUMENT;
      wire.push_back(static_cast<char>(proto.size()));
      wire += proto;
    }
    if (SSL_set_alpn_protos(ssl(),
                            reinterpret_cast<const uint8_t*>(wire.data()),
                            wire.size()) != 0) {
      return ERR_INVALID_ARGUMENT;
    }
  }
  rv = InitializeEch();
  if (rv != OK) return rv;
  if (config_.false_start_enabled)
    SSL_set_mode(ssl(), SSL_MODE_ENABLE_FALSE_START);
  SSL_set_early_data_enabled(ssl(), config_.early_data_enabled);
  SSL_enable_ocsp_stapling(ssl());
  SSL_set_custom_verify(ssl(), SSL_VERIFY_PEER, VerifyCallback);
  // BoringSSL calls this only when the server sent a CertificateRequest.
  SSL_set_cert_cb(ssl(), ClientCertCallback, this);
  return OK;
}

int SSLClientSocket::InitializeEch() {
  const bool literal = IPAddress::Parse(host_).has_value();
  if (!literal) ssl_info_.sni_on_wire = host_;
  if (config_.version_max < TLS1_3_VERSION) {
    if (!config_.ech_config_list.empty() || config_.ech_grease)
      ech_detail_ = "not offered: ECH needs TLS 1.3 (--tls-max is 1.2)";
    return OK;
  }
  if (!config_.ech_config_list.empty()) {
    const std::string& list = config_.ech_config_list;
    if (!SSL_set1_ech_config_list(ssl(),
                                  reinterpret_cast<const uint8_t*>(list.data()),
                                  list.size())) {
      ERR_clear_error();
      error_detail_ =
          absl::StrCat("the ECHConfigList for ", host_, " (", list.size(),
                       " bytes) is not one BoringSSL accepts");
      return ERR_INVALID_ECH_CONFIG_LIST;
    }
    // BoringSSL offers ECH with the first configuration it can use, and
    // that configuration's public name goes in the clear.
    if (std::optional<std::string> public_name = EchOuterServerName(list)) {
      ech_offered_ = true;
      if (!literal) ssl_info_.sni_on_wire = *public_name;
    } else {
      ech_detail_ =
          "the ECHConfigList has no configuration this client supports "
          "(draft-13, X25519)";
    }
  }
  // BoringSSL greases only when it offers no real configuration.
  if (config_.ech_grease) {
    SSL_set_enable_ech_grease(ssl(), 1);
    ech_greased_ = !ech_offered_;
  }
  return OK;
}

void SSLClientSocket::FillEchInfo() {
  if (ssl_info_.ech == EchOutcome::kAccepted) {
    ssl_info_.ech_detail = absl::StrCat("accepted: ", host_,
                                        " went encrypted in the inner "
                                        "ClientHello; the outer one named ",
                                        ssl_info_.sni_on_wire);
    return;
  }
  ssl_info_.ech = ech_greased_ ? EchOutcome::kGrease : EchOutcome::kNone;
  if (ech_greased_) {
    ssl_info_.ech_detail = absl::StrCat(
        "GREASE: no ECH configuration for ", host_,
        ech_detail_.empty() ? "" : " (", ech_detail_,
        ech_detail_.empty() ? "" : ")", "; the name went in the clear");
  } else {
    ssl_info_.ech_detail = ech_detail_.empty() && !config_.ech_grease &&
                                   config_.ech_config_list.empty()
                               ? "off"
                               : ech_detail_;
  }
}

int SSLClientSocket::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  int rv = InitializeSSL();
  if (rv != OK) return rv;
  handshake_start_ = TimeTicks::Now();
  next_state_ = config_.session_resumption_enabled ? STATE_WAIT_FOR_SESSION
                                                   : STATE_HANDSHAKE;
  rv = DoHandshakeLoop(OK);
  if (rv == ERR_IO_PENDING) {
    connect_callback_ = std::move(callback);
  } else if (rv == OK) {
    FinishHandshake();
  }
  return rv > OK ? OK : rv;
}

int SSLClientSocket::DoHandshakeLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_WAIT_FOR_SESSION:
        rv = DoWaitForSession();
        break;
      case STATE_WAIT_FOR_SESSION_COMPLETE:
        rv = DoWaitForSessionComplete();
        break;
      case STATE_HANDSHAKE:
        rv = DoHandshake();
        break;
      case STATE_VERIFY_CERT:
        rv = DoVerifyCert();
        break;
      case STATE_VERIFY_CERT_COMPLETE:
        rv = DoVerifyCertComplete(rv);
        break;
      case STATE_NONE:
      default:
        NET_NOTREACHED();
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  if (rv != ERR_IO_PENDING && rv != OK) {
    ReleaseLeadership();
  }
  return rv;
}

int SSLClientSocket::DoWaitForSession() {
  if (!config_.coalesce_handshakes) {
    next_state_ = STATE_WAIT_FOR_SESSION_COMPLETE;
    return OK;
  }
  if (wait_start_.is_null()) wait_start_ = TimeTicks::Now();
  SSLClientContext::SessionDecision decision = context_->DecideSession(
      session_key_, connection_id_, [weak = weak_factory_.GetWeakPtr()] {
        if (weak) weak->OnHandshakeIOComplete(OK);
      });
  switch (decision) {
    case SSLClientContext::SessionDecision::kResume:
      next_state_ = STATE_WAIT_FOR_SESSION_COMPLETE;
      return OK;
    case SSLClientContext::SessionDecision::kLead:
      is_leader_ = true;
      next_state_ = STATE_WAIT_FOR_SESSION_COMPLETE;
      return OK;
    case SSLClientContext::SessionDecision::kWait:
      waiting_for_session_ = true;
      ssl_info_.waited_for_session = true;
      // Woken: decide again.
      next_state_ = STATE_WAIT_FOR_SESSION;
      return ERR_IO_PENDING;
  }
  return ERR_UNEXPECTED;
}

int SSLClientSocket::DoWaitForSessionComplete() {
  waiting_for_session_ = false;
  if (ssl_info_.waited_for_session)
    ssl_info_.session_wait = TimeTicks::Now() - wait_start_;
  bssl::UniquePtr<SSL_SESSION> session =
      context_->session_cache()->Lookup(session_key_, absl::Now());
  if (session && config_.early_data_enabled &&
      SSL_SESSION_early_data_capable(session.get())) {
    if (SSL_SESSION_get_ex_data(session.get(), SessionEarlyDataUsedIndex())) {
      SSL_set_early_data_enabled(ssl(), 0);
      early_data_reason_ = "ticket_already_used_for_early_data";
    } else {
      SSL_SESSION_set_ex_data(session.get(), SessionEarlyDataUsedIndex(),
                              reinterpret_cast<void*>(1));
    }
  }
  if (session) SSL_set_session(ssl(), session.get());
  // The handshake proper starts now; a coalesced wait is reported apart.
  handshake_start_ = TimeTicks::Now();
  next_state_ = STATE_HANDSHAKE;
  return OK;
}

int SSLClientSocket::DoHandshake() {
  int rv = SSL_do_handshake(ssl());
  if (rv == 1) {
    adapter()->Pump();  // Flush our Finished (and anything else queued).
    // 0-RTT: only the ClientHello has gone; the first Write goes with it as
    // early data, and Read finishes the handshake (OnEarlyDataResolved).
    early_data_pending_ = SSL_in_early_data(ssl());
    return OK;
  }
  int ssl_error = SSL_get_error(ssl(), rv);
  if (ssl_error == SSL_ERROR_WANT_CERTIFICATE_VERIFY) {
    next_state_ = STATE_VERIFY_CERT;
    return OK;
  }
  if (ssl_error == SSL_ERROR_WANT_X509_LOOKUP) {
    // Waiting for the OBC; OnClientCertReady re-enters the handshake.
    next_state_ = STATE_HANDSHAKE;
    return ERR_IO_PENDING;
  }
  if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
    next_state_ = STATE_HANDSHAKE;
    if (adapter()->Pump()) return OK;  // Bytes moved: try again now.
    if (adapter()->read_eof() || adapter()->read_error() != OK ||
        adapter()->write_error() != OK) {
      next_state_ = STATE_NONE;
      if (adapter()->write_error() != OK) return adapter()->write_error();
      if (adapter()->read_error() != OK) return adapter()->read_error();
      error_detail_ = "server closed the connection during the TLS handshake";
      return ERR_SSL_HANDSHAKE_CLOSED;
    }
    return ERR_IO_PENDING;
  }
  int error = MapError(rv, /*in_handshake=*/true);
  if (cert_verify_done_ && ssl_info_.cert_verify.error != OK &&
      !ech_name_override_.empty()) {
    // ECH was rejected and the server's certificate does not cover the
    // configuration's public name: its retry configurations are not to be
    // trusted (Chromium's rule).
    ssl_info_.ech = EchOutcome::kRejected;
    error_detail_ = absl::StrCat(
        "the server rejected ECH, and its certificate is not valid for the "
        "ECH public name ",
        ech_name_override_, ": ", ssl_info_.cert_verify.detail);
    ssl_info_.ech_detail = error_detail_;
    return ERR_ECH_FALLBACK_CERTIFICATE_INVALID;
  }
  if (error == ERR_ECH_NOT_NEGOTIATED) {
    // Only now may the retry configurations be read (BoringSSL's rule: in
    // response to SSL_R_ECH_REJECTED, after the public name was verified).
    const uint8_t* retry = nullptr;
    size_t retry_len = 0;
    SSL_get0_ech_retry_configs(ssl(), &retry, &retry_len);
    ssl_info_.ech = EchOutcome::kRejected;
    ssl_info_.ech_retry_configs.assign(reinterpret_cast<const char*>(retry),
                                       retry_len);
    error_detail_ = absl::StrCat(
        "the server rejected the ECH configuration offered for ", host_,
        " (it authenticated as the public name ", ech_name_override_,
        ") and sent ",
        retry_len > 0
            ? absl::StrCat("retry configurations (", retry_len, " bytes)")
            : std::string("no retry configurations: it rolled ECH "
                          "back"));
    ssl_info_.ech_detail = error_detail_;
    return error;
  }
  // The client-certificate callback failed (it returned 0, so BoringSSL
  // reports a generic SSL_ERROR_SSL): the OBC's own error says why.
  if (client_cert_error_ != OK) {
    error_detail_ = client_cert_detail_;
    return client_cert_error_;
  }
  if (cert_verify_done_ && ssl_info_.cert_verify.error != OK) {
    error_detail_ = ssl_info_.cert_verify.detail;
    return ssl_info_.cert_verify.error;
  }
  return error;
}

int SSLClientSocket::DoVerifyCert() {
  next_state_ = STATE_VERIFY_CERT_COMPLETE;
  CertVerifyParams params;
  const STACK_OF(CRYPTO_BUFFER)* chain = SSL_get0_peer_certificates(ssl());
  if (chain) {
    for (size_t i = 0; i < sk_CRYPTO_BUFFER_num(chain); ++i) {
      const CRYPTO_BUFFER* buf = sk_CRYPTO_BUFFER_value(chain, i);
      params.chain_der.emplace_back(
          reinterpret_cast<const char*>(CRYPTO_BUFFER_data(buf)),
          CRYPTO_BUFFER_len(buf));
    }
  }
  ssl_info_.peer_cert_count = static_cast<int>(params.chain_der.size());
  params.hostname = host_;
  // ECH rejected: this handshake only authenticates the rejection, with a
  // certificate for the configuration's public name (then it fails with
  // SSL_R_ECH_REJECTED and the retry configurations may be used).
  const char* override_name = nullptr;
  size_t override_len = 0;
  SSL_get0_ech_name_override(ssl(), &override_name, &override_len);
  if (override_len > 0) {
    ech_name_override_.assign(override_name, override_len);
    params.hostname = ech_name_override_;
  }
  params.now = absl::Now();
  const uint8_t* ocsp = nullptr;
  size_t ocsp_len = 0;
  SSL_get0_ocsp_response(ssl(), &ocsp, &ocsp_len);
  if (ocsp_len > 0)
    params.stapled_ocsp_response.assign(reinterpret_cast<const char*>(ocsp),
                                        ocsp_len);
  return context_->cert_verifier()->Verify(
      params, &ssl_info_.cert_verify,
      [weak = weak_factory_.GetWeakPtr()](int result) {
        if (weak) weak->OnHandshakeIOComplete(result);
      },
      &verify_request_);
}

int SSLClientSocket::DoVerifyCertComplete(int result) {
  verify_request_.reset();
  ssl_info_.cert_verify.error = result;
  cert_verify_done_ = true;
  // Resume either way: on failure BoringSSL sends the alert the verify
  // callback names, and DoHandshake reports the certificate error.
  next_state_ = STATE_HANDSHAKE;
  return OK;
}

ssl_verify_result_t SSLClientSocket::OnVerifyCallback(uint8_t* out_alert) {
  if (!cert_verify_done_) return ssl_verify_retry;
  if (ssl_info_.cert_verify.error == OK) return ssl_verify_ok;
  *out_alert = AlertForCertError(ssl_info_.cert_verify.error);
  return ssl_verify_invalid;
}

void SSLClientSocket::OnHandshakeIOComplete(int result) {
  int rv = DoHandshakeLoop(result);
  if (rv == ERR_IO_PENDING) return;
  if (rv == OK) FinishHandshake();
  CompletionOnceCallback callback = std::move(connect_callback_);
  connect_callback_ = nullptr;
  if (callback) std::move(callback)(rv);
}

void SSLClientSocket::FinishHandshake() {
  handshake_done_ = true;
  FillNegotiatedInfo(&ssl_info_);
  FillEchInfo();
  ssl_info_.false_start = SSL_in_false_start(ssl());
  if (ssl_info_.resumed) ssl_info_.cert_verify = CertVerifyResult{OK};
  if (early_data_pending_) {
    // Final once the server's answer has been read (OnEarlyDataResolved).
    ssl_info_.early_data = EarlyDataState::kOffered;
    ssl_info_.awaiting_server_response = true;
  } else {
    FillEarlyDataInfo();
  }
  if (is_leader_) {
    is_leader_ = false;
    context_->OnLeaderHandshakeDone(session_key_, connection_id_,
                                    TimeTicks::Now() - handshake_start_);
  }
  // TLS 1.3 tickets come after the handshake: take them in even while the
  // socket sits idle (preconnected, or kept alive between requests).
  ProcessInputWhileIdle();
}

void SSLClientSocket::FillEarlyDataInfo() {
  ssl_info_.early_data = SSL_early_data_accepted(ssl())
                             ? EarlyDataState::kAccepted
                         : early_data_offered_ ? EarlyDataState::kRejected
                                               : EarlyDataState::kNotOffered;
  if (!early_data_reason_.empty()) {
    ssl_info_.early_data_reason = early_data_reason_;
  } else if (const char* reason = SSL_early_data_reason_string(
                 SSL_get_early_data_reason(ssl()))) {
    ssl_info_.early_data_reason = reason;
  }
}

void SSLClientSocket::OnEarlyDataResolved(bool rejected) {
  early_data_offered_ = true;
  ssl_info_.awaiting_server_response = false;
  // Accepted: the handshake is complete, with what was predicted from the
  // session. Rejected: the connection is dead (ERR_EARLY_DATA_REJECTED).
  if (!rejected) {
    FillNegotiatedInfo(&ssl_info_);
    FillEchInfo();
    if (ssl_info_.resumed) ssl_info_.cert_verify = CertVerifyResult{OK};
  }
  FillEarlyDataInfo();
}

int SSLClientSocket::OnClientCertCallback() {
  if (!config_.client_cert_provider) return 1;  // OBC off: send no certificate.
  if (client_cert_error_ != OK) return 0;  // Failed before; do not ask again.
  if (!client_cert_ready_) {
    if (waiting_for_client_cert_) return -1;
    int rv = config_.client_cert_provider->GetClientCert(
        Origin("https", host_, port_), &client_cert_,
        [weak = weak_factory_.GetWeakPtr()](int rv) {
          if (weak) weak->OnClientCertReady(rv);
        },
        &client_cert_request_);
    if (rv == ERR_IO_PENDING) {
      waiting_for_client_cert_ = true;
      return -1;  // SSL_ERROR_WANT_X509_LOOKUP
    }
    if (rv != OK) {
      SetClientCertError(rv);
      return 0;
    }
    client_cert_ready_ = true;
  }
  absl::Status installed = InstallClientCert(ssl(), client_cert_);
  if (!installed.ok()) {
    client_cert_error_ = ERR_OBC_CERT_INSTALL_FAILED;
    client_cert_detail_ =
        absl::StrCat("the origin-bound certificate for ", host_, ":", port_,
                     " could not be installed: ", installed.message());
    return 0;
  }
  ssl_info_.obc = client_cert_.facts;
  ssl_info_.client_cert_der = client_cert_.cert_der;
  return 1;
}

void SSLClientSocket::SetClientCertError(int error) {
  // Errors from the OBC code keep their name (a key that could not be
  // generated says so); anything else the provider returns is reported as
  // the OBC being unavailable, with the provider's error in the detail.
  client_cert_error_ = GetNetErrorArea(error) == NetErrorArea::kObc
                           ? error
                           : ERR_OBC_CERT_UNAVAILABLE;
  client_cert_detail_ =
      absl::StrCat("no origin-bound certificate for ", host_, ":", port_,
                   " (the server asked for a client certificate): ",
                   ErrorToShortString(error));
}

void SSLClientSocket::OnClientCertReady(int result) {
  waiting_for_client_cert_ = false;
  client_cert_request_.reset();
  if (result == OK) {
    client_cert_ready_ = true;
  } else {
    SetClientCertError(result);
  }
  OnHandshakeIOComplete(OK);
}

int SSLClientSocket::OnNewSession(SSL_SESSION* session) {
  context_->OnNewSession(session_key_, bssl::UniquePtr<SSL_SESSION>(session));
  return 1;  // We took ownership.
}

void SSLClientSocket::Disconnect() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  connect_callback_ = nullptr;
  DisconnectTransport();
}

void SSLClientSocket::OnHandshakeIOReady() {
  if (next_state_ == STATE_HANDSHAKE) OnHandshakeIOComplete(OK);
}

}  // namespace net
