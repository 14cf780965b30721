#include "net/ssl/ssl_client_socket.h"

#include <openssl/err.h>

#include "absl/time/clock.h"
#include "net/base/event_loop.h"
#include "net/base/ip_endpoint.h"
#include "net/ssl/openssl_util.h"

namespace net {
namespace {

int SocketExDataIndex() {
  static int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

SSLClientSocket* FromSSL(const SSL* ssl) {
  return static_cast<SSLClientSocket*>(SSL_get_ex_data(ssl, SocketExDataIndex()));
}

int NewSessionCallback(SSL* ssl, SSL_SESSION* session) {
  return FromSSL(ssl)->OnNewSession(session);
}

ssl_verify_result_t VerifyCallback(SSL* ssl, uint8_t* out_alert) {
  return FromSSL(ssl)->OnVerifyCallback(out_alert);
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
                                 const SSLConfig& config, SSLClientContext* context)
    : transport_(std::move(transport)),
      adapter_(transport_.get(), this),
      host_(std::move(host)),
      session_key_(host_ + ":" + std::to_string(port)),
      config_(config),
      context_(context),
      connection_id_(context->NextConnectionId()) {}

SSLClientSocket::~SSLClientSocket() {
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
  ssl_.reset(SSL_new(ctx));
  if (!ssl_) return ERR_OUT_OF_MEMORY;
  SSL_set_ex_data(ssl_.get(), SocketExDataIndex(), this);
  SSL_set_connect_state(ssl_.get());
  BIO* bio = adapter_.TakeSSLBio();
  SSL_set_bio(ssl_.get(), bio, bio);

  if (!SSL_set_min_proto_version(ssl_.get(), config_.version_min) ||
      !SSL_set_max_proto_version(ssl_.get(), config_.version_max)) {
    return ERR_INVALID_ARGUMENT;
  }
  if (!config_.cipher_list.empty() &&
      !SSL_set_strict_cipher_list(ssl_.get(), config_.cipher_list.c_str())) {
    ERR_clear_error();
    error_detail_ = "bad cipher list: " + config_.cipher_list;
    return ERR_INVALID_ARGUMENT;
  }
  // SNI only for names, never for IP literals (RFC 6066 section 3).
  if (!IPAddress::Parse(host_)) SSL_set_tlsext_host_name(ssl_.get(), host_.c_str());
  if (!config_.alpn_protos.empty()) {
    std::string wire;
    for (const std::string& proto : config_.alpn_protos) {
      if (proto.empty() || proto.size() > 255) return ERR_INVALID_ARGUMENT;
      wire.push_back(static_cast<char>(proto.size()));
      wire += proto;
    }
    if (SSL_set_alpn_protos(ssl_.get(), reinterpret_cast<const uint8_t*>(wire.data()),
                            wire.size()) != 0) {
      return ERR_INVALID_ARGUMENT;
    }
  }
  if (config_.false_start_enabled) SSL_set_mode(ssl_.get(), SSL_MODE_ENABLE_FALSE_START);
  SSL_enable_ocsp_stapling(ssl_.get());
  SSL_set_custom_verify(ssl_.get(), SSL_VERIFY_PEER, VerifyCallback);
  return OK;
}

int SSLClientSocket::Connect(CompletionOnceCallback callback) {
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
  if (ssl_info_.waited_for_session) ssl_info_.session_wait = TimeTicks::Now() - wait_start_;
  bssl::UniquePtr<SSL_SESSION> session =
      context_->session_cache()->Lookup(session_key_, absl::Now());
  if (session) SSL_set_session(ssl_.get(), session.get());
  // The handshake proper starts now; a coalesced wait is reported apart.
  handshake_start_ = TimeTicks::Now();
  next_state_ = STATE_HANDSHAKE;
  return OK;
}

int SSLClientSocket::DoHandshake() {
  int rv = SSL_do_handshake(ssl_.get());
  if (rv == 1) {
    adapter_.Pump();  // Flush our Finished (and anything else queued).
    return OK;
  }
  int ssl_error = SSL_get_error(ssl_.get(), rv);
  if (ssl_error == SSL_ERROR_WANT_CERTIFICATE_VERIFY) {
    next_state_ = STATE_VERIFY_CERT;
    return OK;
  }
  if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
    next_state_ = STATE_HANDSHAKE;
    if (adapter_.Pump()) return OK;  // Bytes moved: try again now.
    if (adapter_.read_eof() || adapter_.read_error() != OK ||
        adapter_.write_error() != OK) {
      next_state_ = STATE_NONE;
      if (adapter_.write_error() != OK) return adapter_.write_error();
      if (adapter_.read_error() != OK) return adapter_.read_error();
      error_detail_ = "server closed the connection during the TLS handshake";
      return ERR_SSL_HANDSHAKE_CLOSED;
    }
    return ERR_IO_PENDING;
  }
  return MapError(rv, /*in_handshake=*/true);
}

int SSLClientSocket::DoVerifyCert() {
  next_state_ = STATE_VERIFY_CERT_COMPLETE;
  CertVerifyParams params;
  const STACK_OF(CRYPTO_BUFFER)* chain = SSL_get0_peer_certificates(ssl_.get());
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
  params.now = absl::Now();
  const uint8_t* ocsp = nullptr;
  size_t ocsp_len = 0;
  SSL_get0_ocsp_response(ssl_.get(), &ocsp, &ocsp_len);
  if (ocsp_len > 0) params.stapled_ocsp_response.assign(reinterpret_cast<const char*>(ocsp), ocsp_len);
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
  if (result != OK) {
    error_detail_ = ssl_info_.cert_verify.detail;
    // Tell the server why, then fail: the handshake does not continue.
    uint8_t alert = AlertForCertError(result);
    (void)alert;
    return result;
  }
  cert_verified_ = true;
  next_state_ = STATE_HANDSHAKE;
  return OK;
}

ssl_verify_result_t SSLClientSocket::OnVerifyCallback(uint8_t* out_alert) {
  if (!cert_verified_) {
    if (ssl_info_.cert_verify.error != ERR_FAILED && ssl_info_.cert_verify.error != OK) {
      *out_alert = AlertForCertError(ssl_info_.cert_verify.error);
      return ssl_verify_invalid;
    }
    return ssl_verify_retry;
  }
  return ssl_verify_ok;
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
  completed_connect_ = true;
  SSL* ssl = ssl_.get();
  ssl_info_.version = SSL_get_version(ssl);
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  if (cipher) ssl_info_.cipher = SSL_CIPHER_standard_name(cipher);
  uint16_t group = SSL_get_curve_id(ssl);
  if (group != 0) {
    const char* name = SSL_get_curve_name(group);
    if (name) ssl_info_.group = name;
  }
  const uint8_t* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
  ssl_info_.alpn.assign(reinterpret_cast<const char*>(alpn), alpn_len);
  ssl_info_.resumed = SSL_session_reused(ssl);
  ssl_info_.false_start = SSL_in_false_start(ssl);
  if (ssl_info_.resumed) ssl_info_.cert_verify = CertVerifyResult{OK};
  if (is_leader_) {
    is_leader_ = false;
    context_->OnLeaderHandshakeDone(session_key_, connection_id_,
                                    TimeTicks::Now() - handshake_start_);
  }
}

int SSLClientSocket::OnNewSession(SSL_SESSION* session) {
  context_->OnNewSession(session_key_, bssl::UniquePtr<SSL_SESSION>(session));
  return 1;  // We took ownership.
}

int SSLClientSocket::MapError(int ssl_rv, bool in_handshake) {
  int ssl_error = SSL_get_error(ssl_.get(), ssl_rv);
  int error = MapOpenSSLError(ssl_error, adapter_.read_error(),
                              adapter_.read_eof(), in_handshake, &error_detail_);
  adapter_.Pump();  // Send the fatal alert BoringSSL queued, if any.
  return error;
}

int SSLClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                          CompletionOnceCallback callback) {
  if (!completed_connect_) return ERR_SOCKET_NOT_CONNECTED;
  user_read_buf_ = std::move(buf);
  user_read_len_ = len;
  int rv = DoPayloadRead();
  if (rv == ERR_IO_PENDING) {
    user_read_callback_ = std::move(callback);
  } else {
    user_read_buf_.reset();
  }
  return rv;
}

int SSLClientSocket::DoPayloadRead() {
  for (;;) {
    int rv = SSL_read(ssl_.get(), user_read_buf_->data(), user_read_len_);
    if (rv > 0) {
      adapter_.Pump();  // Post-handshake messages may have queued output.
      return rv;
    }
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter_.Pump()) continue;
      if (adapter_.read_error() != OK) return adapter_.read_error();
      return ERR_IO_PENDING;
    }
    if (ssl_error == SSL_ERROR_ZERO_RETURN) return 0;
    if (ssl_error == SSL_ERROR_SYSCALL && adapter_.read_eof() &&
        adapter_.read_error() == OK) {
      // Transport EOF without close_notify: report end of stream and let the
      // HTTP layer judge truncation from its framing.
      return 0;
    }
    return MapError(rv, /*in_handshake=*/SSL_in_init(ssl_.get()));
  }
}

int SSLClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  if (!completed_connect_) return ERR_SOCKET_NOT_CONNECTED;
  user_write_buf_ = std::move(buf);
  user_write_len_ = len;
  int rv = DoPayloadWrite();
  if (rv == ERR_IO_PENDING) {
    user_write_callback_ = std::move(callback);
  } else {
    user_write_buf_.reset();
  }
  return rv;
}

int SSLClientSocket::DoPayloadWrite() {
  for (;;) {
    int rv = SSL_write(ssl_.get(), user_write_buf_->data(), user_write_len_);
    if (rv > 0) {
      adapter_.Pump();
      if (adapter_.write_error() != OK) return adapter_.write_error();
      return rv;
    }
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter_.Pump()) continue;
      if (adapter_.write_error() != OK) return adapter_.write_error();
      return ERR_IO_PENDING;
    }
    return MapError(rv, /*in_handshake=*/SSL_in_init(ssl_.get()));
  }
}

void SSLClientSocket::OnTransportIOComplete() {
  if (!completed_connect_) {
    if (next_state_ == STATE_HANDSHAKE) OnHandshakeIOComplete(OK);
    return;
  }
  auto weak = weak_factory_.GetWeakPtr();
  if (user_read_callback_) {
    int rv = DoPayloadRead();
    if (rv != ERR_IO_PENDING) {
      user_read_buf_.reset();
      CompletionOnceCallback cb = std::move(user_read_callback_);
      user_read_callback_ = nullptr;
      std::move(cb)(rv);
      if (!weak) return;
    }
  }
  if (user_write_callback_) {
    int rv = DoPayloadWrite();
    if (rv != ERR_IO_PENDING) {
      user_write_buf_.reset();
      CompletionOnceCallback cb = std::move(user_write_callback_);
      user_write_callback_ = nullptr;
      std::move(cb)(rv);
    }
  }
}

void SSLClientSocket::Disconnect() {
  completed_connect_ = false;
  user_read_callback_ = nullptr;
  user_write_callback_ = nullptr;
  connect_callback_ = nullptr;
  transport_->Disconnect();
}

bool SSLClientSocket::IsConnected() const {
  return completed_connect_ && transport_->IsConnected() && !adapter_.read_eof() &&
         adapter_.read_error() == OK;
}

bool SSLClientSocket::IsConnectedAndIdle() const {
  // The adapter reads ahead, so check what it has buffered as well as the
  // transport; a TLS 1.3 ticket or an alert counts as unread data only if SSL
  // has not consumed it yet.
  return IsConnected() && adapter_.buffered_input() == 0 &&
         SSL_pending(ssl_.get()) == 0;
}

int SSLClientSocket::GetPeerAddress(IPEndPoint* address) const {
  return transport_->GetPeerAddress(address);
}

int SSLClientSocket::GetLocalAddress(IPEndPoint* address) const {
  return transport_->GetLocalAddress(address);
}

}  // namespace net
