#include "net/snap_start/snap_start_client_socket.h"

#include <openssl/mem.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "net/base/ip_endpoint.h"

namespace net {
namespace {

constexpr uint16_t kRecordVersion = 0x0303;

bool IsRejection(int rv) {
  return rv == ERR_SSL_PEER_ALERT || rv == ERR_SSL_HANDSHAKE_CLOSED ||
         rv == ERR_CONNECTION_CLOSED || rv == ERR_CONNECTION_RESET;
}

// Whether |info| can drive a prediction: our suite, a ServerHello template
// with null compression and a well-formed extension naming the same orbit.
bool Usable(const SnapStartInfo& info, std::string* why) {
  if (info.cipher_suite != kTlsRsaWithAes128GcmSha256) {
    *why = "server's Snap Start suite is not TLS_RSA_WITH_AES_128_GCM_SHA256";
    return false;
  }
  if (info.chain_der.empty()) {
    *why = "no predicted certificate chain";
    return false;
  }
  absl::StatusOr<ServerHello> hello = ParseServerHello(info.server_hello);
  if (!hello.ok() || hello->version != kTls12Version ||
      hello->compression_method != 0 ||
      hello->cipher_suite != info.cipher_suite) {
    *why = "unusable ServerHello template";
    return false;
  }
  const std::string* ext = hello->FindExtension(kSnapStartExtension);
  absl::StatusOr<SnapStartServerInfo> server_info =
      ext ? ParseSnapStartServerExtension(*ext)
          : absl::InvalidArgumentError("none");
  if (!server_info.ok() || server_info->orbit != info.orbit) {
    *why = "ServerHello template carries no matching orbit";
    return false;
  }
  return true;
}

}  // namespace

SnapStartClientSocket::SnapStartClientSocket(
    std::unique_ptr<StreamSocket> transport, std::string host, uint16_t port,
    SnapStartClientContext* context)
    : Tls12SocketBase(std::move(transport), std::string()),
      host_(std::move(host)),
      port_(port),
      key_(absl::StrCat(host_, ":", port_)),
      context_(context) {}

SnapStartClientSocket::~SnapStartClientSocket() = default;

int SnapStartClientSocket::Connect(CompletionOnceCallback callback) {
  const SnapStartInfo* info = context_->GetInfo(key_);
  std::string why;
  if (info && context_->options().attempt && context_->options().tickets &&
      Usable(*info, &why)) {
    if (info->verified) {
      snap_ready_ = true;
      ssl_info_.snap_start = "attempted";
      return OK;
    }
    next_state_ = STATE_VERIFY_PREDICTED;
  } else {
    if (info && !why.empty()) {
      ssl_info_.snap_start_detail = why;
      context_->RemoveInfo(key_);
    } else if (info && !context_->options().tickets) {
      ssl_info_.snap_start_detail =
          "Snap Start needs session tickets enabled on the client";
    }
    next_state_ = STATE_SEND_CLIENT_HELLO;
  }
  int rv = DoHandshakeLoop(OK);
  if (rv == ERR_IO_PENDING) connect_callback_ = std::move(callback);
  return rv;
}

int SnapStartClientSocket::DoHandshakeLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_VERIFY_PREDICTED:
        rv = DoVerifyPredicted();
        break;
      case STATE_VERIFY_PREDICTED_COMPLETE:
        rv = DoVerifyPredictedComplete(rv);
        break;
      case STATE_SEND_CLIENT_HELLO:
        rv = DoSendClientHello();
        break;
      case STATE_SEND_CLIENT_HELLO_COMPLETE:
        rv = DoSendClientHelloComplete(rv);
        break;
      case STATE_SEND_SNAP_CLIENT_HELLO_COMPLETE:
        rv = DoSendSnapClientHelloComplete(rv);
        break;
      case STATE_READ_SNAP_OUTCOME:
        rv = DoReadSnapOutcome(rv);
        break;
      case STATE_READ_SERVER_HELLO:
        rv = DoReadServerHello(rv);
        break;
      case STATE_READ_CERTIFICATE:
        rv = DoReadCertificate(rv);
        break;
      case STATE_READ_SERVER_HELLO_DONE:
        rv = DoReadServerHelloDone(rv);
        break;
      case STATE_VERIFY_CERT:
        rv = DoVerifyCert();
        break;
      case STATE_VERIFY_CERT_COMPLETE:
        rv = DoVerifyCertComplete(rv);
        break;
      case STATE_SEND_CLIENT_FLIGHT:
        rv = DoSendClientFlight();
        break;
      case STATE_SEND_CLIENT_FLIGHT_COMPLETE:
        rv = DoSendClientFlightComplete(rv);
        break;
      case STATE_READ_SERVER_CCS:
        rv = DoReadServerCcs(rv);
        break;
      case STATE_READ_SERVER_FINISHED:
        rv = DoReadServerFinished(rv);
        break;
      case STATE_SEND_CLIENT_FINISHED_COMPLETE:
        rv = DoSendClientFinishedComplete(rv);
        break;
      case STATE_RETRANSMIT_EARLY_DATA_COMPLETE:
        rv = DoRetransmitEarlyDataComplete(rv);
        break;
      case STATE_NONE:
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

void SnapStartClientSocket::OnHandshakeIOComplete(int result) {
  const bool was_writing_first =
      static_cast<bool>(pending_write_callback_) && !snap_outcome_pending_;
  int rv = DoHandshakeLoop(result);
  WeakPtr<SnapStartClientSocket> weak = weak_factory_.GetWeakPtr();
  if (was_writing_first && snap_outcome_pending_) {
    // The Snap Start ClientHello, and with it the first Write, went out.
    CompletionOnceCallback callback = std::move(pending_write_callback_);
    pending_write_callback_ = nullptr;
    pending_write_buf_.reset();
    std::move(callback)(snap_write_len_);
    if (!weak) return;
  }
  if (rv == ERR_IO_PENDING) return;
  OnHandshakeDone(rv);
}

void SnapStartClientSocket::OnHandshakeDone(int result) {
  if (connect_callback_) {
    CompletionOnceCallback callback = std::move(connect_callback_);
    connect_callback_ = nullptr;
    std::move(callback)(result);
    return;
  }
  WeakPtr<SnapStartClientSocket> weak = weak_factory_.GetWeakPtr();
  snap_outcome_pending_ = false;
  handshake_result_ = result;
  if (pending_write_callback_) {
    auto callback = std::make_shared<CompletionOnceCallback>(
        std::move(pending_write_callback_));
    pending_write_callback_ = nullptr;
    std::shared_ptr<IOBuffer> buf = std::move(pending_write_buf_);
    int rv = result;
    if (result == OK) {
      rv = Tls12SocketBase::Write(buf, pending_write_len_,
                                  [callback](int rv) { (*callback)(rv); });
    }
    if (rv != ERR_IO_PENDING) (*callback)(rv);
    if (!weak) return;
  }
  if (pending_read_callback_) {
    auto callback = std::make_shared<CompletionOnceCallback>(
        std::move(pending_read_callback_));
    pending_read_callback_ = nullptr;
    std::shared_ptr<IOBuffer> buf = std::move(pending_read_buf_);
    int rv = result;
    if (result == OK) {
      rv = Tls12SocketBase::Read(buf, pending_read_len_,
                                 [callback](int rv) { (*callback)(rv); });
    }
    if (rv != ERR_IO_PENDING) (*callback)(rv);
  }
}

int SnapStartClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                                CompletionOnceCallback callback) {
  if (handshake_done()) {
    return Tls12SocketBase::Read(std::move(buf), len, std::move(callback));
  }
  if (handshake_result_ != ERR_IO_PENDING) return handshake_result_;
  if (!snap_outcome_pending_ || pending_read_callback_) {
    return ERR_SOCKET_NOT_CONNECTED;
  }
  pending_read_buf_ = std::move(buf);
  pending_read_len_ = len;
  pending_read_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int SnapStartClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                                 CompletionOnceCallback callback) {
  if (handshake_done()) {
    return Tls12SocketBase::Write(std::move(buf), len, std::move(callback));
  }
  if (len <= 0) return ERR_INVALID_ARGUMENT;
  if (snap_ready_ && sent_client_hello_.empty()) {
    snap_write_len_ = static_cast<int>(
        std::min<size_t>(static_cast<size_t>(len), kMaxEarlyData));
    int rv = StartSnapStart(absl::string_view(buf->data(), snap_write_len_));
    if (rv != ERR_IO_PENDING) rv = DoHandshakeLoop(rv);
    if (snap_outcome_pending_) {
      // The ClientHello is out; the loop now waits for the outcome.
      if (rv != ERR_IO_PENDING) OnHandshakeDone(rv);
      return snap_write_len_;
    }
    if (rv == ERR_IO_PENDING) {
      pending_write_buf_ = std::move(buf);
      pending_write_callback_ = std::move(callback);
    }
    return rv;
  }
  if (handshake_result_ != ERR_IO_PENDING) return handshake_result_;
  if (!snap_outcome_pending_ || pending_write_callback_) {
    return ERR_SOCKET_NOT_CONNECTED;
  }
  // More data before the outcome is known: it waits for the handshake.
  pending_write_buf_ = std::move(buf);
  pending_write_len_ = len;
  pending_write_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int SnapStartClientSocket::DoVerifyPredicted() {
  next_state_ = STATE_VERIFY_PREDICTED_COMPLETE;
  return StartVerify(context_->GetInfo(key_)->chain_der);
}

int SnapStartClientSocket::StartVerify(
    const std::vector<std::string>& chain_der) {
  CertVerifyParams params;
  params.chain_der = chain_der;
  params.hostname = host_;
  params.now = absl::Now();
  return context_->cert_verifier()->Verify(
      params, &ssl_info_.cert_verify,
      [weak = weak_factory_.GetWeakPtr()](int result) {
        if (weak) weak->OnHandshakeIOComplete(result);
      },
      &verify_request_);
}

int SnapStartClientSocket::DoVerifyPredictedComplete(int result) {
  verify_request_.reset();
  if (result == OK) {
    context_->MarkVerified(key_);
    snap_ready_ = true;
    ssl_info_.snap_start = "attempted";
    return OK;  // Connect completes; the first Write carries the attempt.
  }
  ssl_info_.snap_start_detail = absl::StrCat(
      "predicted chain failed verification: ", ssl_info_.cert_verify.detail);
  ssl_info_.cert_verify = CertVerifyResult();
  context_->RemoveInfo(key_);
  next_state_ = STATE_SEND_CLIENT_HELLO;
  return OK;
}

ClientHello SnapStartClientSocket::BuildClientHello(
    const std::string& session_id) const {
  ClientHello hello;
  hello.version = kTls12Version;
  hello.random = client_random_;
  hello.session_id = session_id;
  hello.cipher_suites = {kTlsRsaWithAes128GcmSha256,
                         kEmptyRenegotiationInfoScsv};
  hello.compression_methods = std::string(1, '\0');
  hello.has_extensions = true;
  // No SNI for IP literals (RFC 6066 section 3).
  if (!IPAddress::Parse(host_)) {
    hello.extensions.emplace_back(kServerNameExtension,
                                  ServerNameExtension(host_));
  }
  // rsa_pkcs1_sha256, rsa_pss_rsae_sha256, ecdsa_secp256r1_sha256: unused by
  // static RSA, but servers choose certificates by them.
  hello.extensions.emplace_back(
      kSignatureAlgorithmsExtension,
      std::string("\x00\x06\x04\x01\x08\x04\x04\x03", 8));
  if (context_->options().tickets) {
    const Tls12ClientSession* session = context_->GetSession(key_);
    hello.extensions.emplace_back(
        kSessionTicketExtension,
        session && !session_id.empty() ? session->ticket : std::string());
  }
  return hello;
}

int SnapStartClientSocket::DoSendClientHello() {
  client_random_ = NewHelloRandom();
  const Tls12ClientSession* session =
      context_->options().tickets ? context_->GetSession(key_) : nullptr;
  offered_session_id_ = session ? RandomBytes(32) : std::string();
  offered_ticket_ = session != nullptr;
  ClientHello hello = BuildClientHello(offered_session_id_);
  // The empty extension: learn the server's orbit.
  hello.extensions.emplace_back(kSnapStartExtension, std::string());
  const std::string raw =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello));
  transcript_.Reset();
  transcript_.Update(raw);
  next_state_ = STATE_SEND_CLIENT_HELLO_COMPLETE;
  return WriteFlight(SerializeHandshakeRecords(raw));
}

int SnapStartClientSocket::DoSendClientHelloComplete(int result) {
  if (result != OK) return result;
  next_state_ = STATE_READ_SERVER_HELLO;
  return OK;
}

int SnapStartClientSocket::StartSnapStart(absl::string_view early_data) {
  const SnapStartInfo* info = context_->GetInfo(key_);
  const Tls12ClientSession* session = context_->GetSession(key_);
  early_data_ = std::string(early_data);
  client_random_ = NewHelloRandom();
  snap_resume_ = session != nullptr;
  offered_session_id_ = snap_resume_ ? RandomBytes(32) : std::string();
  offered_ticket_ = snap_resume_;
  ClientHello hello = BuildClientHello(offered_session_id_);
  const std::string stripped_raw =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello));

  SnapStartAttempt attempt;
  attempt.orbit = info->orbit;
  attempt.random_bytes = RandomBytes(kSnapStartRandomBytesSize);
  const std::string suggested =
      SuggestedServerRandom(client_random_, info->orbit, attempt.random_bytes);

  // The predicted server flight.
  absl::StatusOr<ServerHello> predicted = ParseServerHello(info->server_hello);
  if (!predicted.ok()) return Rejected("ServerHello template does not parse");
  predicted->random = suggested;
  predicted->session_id = offered_session_id_;
  if (snap_resume_) {
    // A resuming server sends neither server_name nor session_ticket.
    std::vector<Extension> kept;
    for (Extension& ext : predicted->extensions) {
      if (ext.first != kServerNameExtension &&
          ext.first != kSessionTicketExtension) {
        kept.push_back(std::move(ext));
      }
    }
    predicted->extensions = std::move(kept);
  }
  const std::string sh_raw =
      SerializeHandshake(kServerHelloType, SerializeServerHello(*predicted));
  Fnv1a64 fnv;
  fnv.Update(sh_raw);
  transcript_.Reset();
  transcript_.Update(stripped_raw);
  transcript_.Update(sh_raw);
  server_random_ = suggested;
  server_hello_ = *predicted;
  server_hello_body_ = SerializeServerHello(*predicted);

  std::string records;
  if (!snap_resume_) {
    const std::string cert_raw = SerializeHandshake(
        kCertificateType, SerializeCertificate(info->chain_der));
    const std::string done_raw = SerializeHandshake(kServerHelloDoneType, "");
    fnv.Update(cert_raw);
    fnv.Update(done_raw);
    transcript_.Update(cert_raw);
    transcript_.Update(done_raw);
    const std::string premaster = NewPremasterSecret();
    absl::StatusOr<std::string> encrypted =
        RsaEncryptPremaster(info->chain_der[0], premaster);
    if (!encrypted.ok()) {
      context_->RemoveInfo(key_);
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  std::string(encrypted.status().message()), 0xff);
    }
    const std::string cke_raw = SerializeHandshake(
        kClientKeyExchangeType, SerializeRsaClientKeyExchange(*encrypted));
    transcript_.Update(cke_raw);
    master_secret_ = Tls12MasterSecret(premaster, client_random_, suggested);
    chain_der_ = info->chain_der;
    expect_ticket_ =
        predicted->FindExtension(kSessionTicketExtension) != nullptr;
    records += SerializeRecord(kTlsHandshake, kRecordVersion, cke_raw);
  } else {
    master_secret_ = session->master_secret;
    chain_der_ = session->chain_der;
    abbreviated_ = true;
    expected_server_finished_ = SerializeHandshake(
        kFinishedType,
        Tls12FinishedVerifyData(master_secret_, true, transcript_.Hash()));
    transcript_.Update(expected_server_finished_);
  }
  attempt.predicted_hash = fnv.Digest();
  int rv = InstallKeys(suggested);
  if (rv != OK) return rv;
  records += SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
  const std::string finished_raw = SerializeHandshake(
      kFinishedType,
      Tls12FinishedVerifyData(master_secret_, false, transcript_.Hash()));
  transcript_.Update(finished_raw);
  records += write_cipher()->Seal(kTlsHandshake, finished_raw);
  if (!early_data_.empty()) {
    records += write_cipher()->SealAll(kTlsApplicationData, early_data_);
  }
  attempt.records = std::move(records);
  hello.extensions.emplace_back(kSnapStartExtension,
                                SerializeSnapStartAttempt(attempt));
  original_client_hello_ =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello));
  sent_client_hello_ = SerializeHandshakeRecords(original_client_hello_);
  next_state_ = STATE_SEND_SNAP_CLIENT_HELLO_COMPLETE;
  return WriteFlight(sent_client_hello_);
}

int SnapStartClientSocket::InstallKeys(const std::string& server_random) {
  keys_ = Tls12DeriveKeys(master_secret_, client_random_, server_random);
  absl::StatusOr<std::unique_ptr<RecordCipher>> cipher =
      RecordCipher::Create(keys_.client_write_key, keys_.client_write_iv);
  if (!cipher.ok()) {
    return Fail(ERR_UNEXPECTED, std::string(cipher.status().message()),
                kAlertInternalError);
  }
  set_write_cipher(std::move(*cipher));
  return OK;
}

int SnapStartClientSocket::DoSendSnapClientHelloComplete(int result) {
  if (result != OK) return result;
  snap_outcome_pending_ = true;
  next_state_ = STATE_READ_SNAP_OUTCOME;
  return OK;
}

int SnapStartClientSocket::Rejected(std::string why) {
  context_->RemoveInfo(key_);
  ssl_info_.snap_start = "rejected";
  ssl_info_.snap_start_detail = why;
  return Fail(ERR_SNAP_START_REJECTED, std::move(why), 0xff);
}

int SnapStartClientSocket::DoReadSnapOutcome(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  bool is_ccs = false;
  int rv = ReadHandshakeOrCcs(&message, &is_ccs);
  if (rv == ERR_IO_PENDING) {
    next_state_ = STATE_READ_SNAP_OUTCOME;
    return rv;
  }
  if (IsRejection(rv)) {
    return Rejected(absl::StrCat(
        "server refused the Snap Start ClientHello (", ErrorToShortString(rv),
        error_detail().empty() ? "" : ": ", error_detail(), ")"));
  }
  if (rv != OK) return rv;
  if (!is_ccs && message.type == kServerHelloType) {
    // Recovery: a normal handshake over the original ClientHello; the
    // early data is sent again once it completes.
    ssl_info_.snap_start = "recovered";
    ssl_info_.snap_start_detail =
        "server answered with a ServerHello (wrong orbit, time outside its "
        "window, replay, or misprediction)";
    set_write_cipher(nullptr);
    transcript_.Reset();
    transcript_.Update(original_client_hello_);
    transcript_.Update(message.raw);
    abbreviated_ = false;
    master_secret_.clear();
    chain_der_.clear();
    return ProcessServerHello(message);
  }
  ssl_info_.snap_start = "accepted";
  snap_accepted_ = true;
  if (is_ccs) {
    next_state_ = STATE_READ_SERVER_CCS;
    pending_ccs_ = true;
    return OK;
  }
  if (message.type == kNewSessionTicketType && !snap_resume_) {
    // Accepted; the ticket comes first.
    next_state_ = STATE_READ_SERVER_CCS;
    pending_message_ = std::move(message);
    has_pending_message_ = true;
    return OK;
  }
  return Fail(ERR_SSL_PROTOCOL_ERROR,
              absl::StrCat("unexpected handshake message ", message.type,
                           " answering Snap Start"),
              kAlertUnexpectedMessage);
}

int SnapStartClientSocket::DoReadServerHello(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kServerHelloType, "ServerHello", &message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_SERVER_HELLO;
  if (rv != OK) return rv;
  transcript_.Update(message.raw);
  return ProcessServerHello(message);
}

int SnapStartClientSocket::ProcessServerHello(const HandshakeMessage& message) {
  if (message.raw.empty()) return ERR_UNEXPECTED;
  absl::StatusOr<ServerHello> hello = ParseServerHello(message.body);
  if (!hello.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, std::string(hello.status().message()),
                kAlertDecodeError);
  }
  if (hello->version != kTls12Version) {
    return Fail(
        ERR_SSL_VERSION_OR_CIPHER_MISMATCH,
        absl::StrCat("server chose version 0x", absl::Hex(hello->version),
                     "; the Snap Start core speaks TLS 1.2 only"),
        kAlertProtocolVersion);
  }
  if (hello->cipher_suite != kTlsRsaWithAes128GcmSha256 ||
      hello->compression_method != 0) {
    return Fail(ERR_SSL_VERSION_OR_CIPHER_MISMATCH,
                "server chose a cipher suite or compression not offered",
                kAlertIllegalParameter);
  }
  for (const Extension& ext : hello->extensions) {
    const bool ok = (ext.first == kRenegotiationInfoExtension &&
                     ext.second == std::string(1, '\0')) ||
                    (ext.first == kServerNameExtension && ext.second.empty()) ||
                    (ext.first == kSessionTicketExtension &&
                     ext.second.empty() && context_->options().tickets) ||
                    (ext.first == kSnapStartExtension &&
                     ParseSnapStartServerExtension(ext.second).ok());
    if (!ok) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  absl::StrCat("server sent extension ", ext.first,
                               " that was not offered or is malformed"),
                  kAlertUnsupportedExtension);
    }
  }
  server_random_ = hello->random;
  server_hello_ = *hello;
  server_hello_body_ = message.body;
  const Tls12ClientSession* session = context_->GetSession(key_);
  if (offered_ticket_ && session && !offered_session_id_.empty() &&
      hello->session_id == offered_session_id_) {
    abbreviated_ = true;
    master_secret_ = session->master_secret;
    chain_der_ = session->chain_der;
    int rv = InstallKeys(server_random_);
    if (rv != OK) return rv;
    next_state_ = STATE_READ_SERVER_CCS;
    return OK;
  }
  if (offered_ticket_) context_->RemoveSession(key_);
  expect_ticket_ = hello->FindExtension(kSessionTicketExtension) != nullptr;
  next_state_ = STATE_READ_CERTIFICATE;
  return OK;
}

int SnapStartClientSocket::DoReadCertificate(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_CERTIFICATE;
  if (rv != OK) return rv;
  if (message.type == kServerKeyExchangeType) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                "server sent a ServerKeyExchange: not static RSA",
                kAlertUnexpectedMessage);
  }
  if (message.type != kCertificateType) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, "expected Certificate",
                kAlertUnexpectedMessage);
  }
  absl::StatusOr<std::vector<std::string>> chain =
      ParseCertificate(message.body);
  if (!chain.ok() || chain->empty()) {
    return Fail(ERR_SSL_SERVER_CERT_MISSING,
                chain.ok() ? "server sent no certificate"
                           : std::string(chain.status().message()),
                kAlertDecodeError);
  }
  chain_der_ = std::move(*chain);
  transcript_.Update(message.raw);
  next_state_ = STATE_READ_SERVER_HELLO_DONE;
  return OK;
}

int SnapStartClientSocket::DoReadServerHelloDone(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_SERVER_HELLO_DONE;
  if (rv != OK) return rv;
  transcript_.Update(message.raw);
  if (message.type == kCertificateRequestType && !client_cert_requested_) {
    client_cert_requested_ = true;  // answered with an empty Certificate
    next_state_ = STATE_READ_SERVER_HELLO_DONE;
    return OK;
  }
  if (message.type == kServerKeyExchangeType) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                "server sent a ServerKeyExchange: not static RSA",
                kAlertUnexpectedMessage);
  }
  if (message.type != kServerHelloDoneType || !message.body.empty()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, "expected ServerHelloDone",
                kAlertUnexpectedMessage);
  }
  next_state_ = STATE_VERIFY_CERT;
  return OK;
}

int SnapStartClientSocket::DoVerifyCert() {
  next_state_ = STATE_VERIFY_CERT_COMPLETE;
  ssl_info_.peer_cert_count = static_cast<int>(chain_der_.size());
  return StartVerify(chain_der_);
}

int SnapStartClientSocket::DoVerifyCertComplete(int result) {
  verify_request_.reset();
  ssl_info_.cert_verify.error = result;
  if (result != OK) {
    return Fail(result, ssl_info_.cert_verify.detail, kAlertBadCertificate);
  }
  next_state_ = STATE_SEND_CLIENT_FLIGHT;
  return OK;
}

int SnapStartClientSocket::DoSendClientFlight() {
  std::string flight;
  if (client_cert_requested_) {
    const std::string cert_raw =
        SerializeHandshake(kCertificateType, SerializeCertificate({}));
    transcript_.Update(cert_raw);
    flight += SerializeRecord(kTlsHandshake, kRecordVersion, cert_raw);
  }
  const std::string premaster = NewPremasterSecret();
  absl::StatusOr<std::string> encrypted =
      RsaEncryptPremaster(chain_der_[0], premaster);
  if (!encrypted.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                std::string(encrypted.status().message()),
                kAlertHandshakeFailure);
  }
  const std::string cke_raw = SerializeHandshake(
      kClientKeyExchangeType, SerializeRsaClientKeyExchange(*encrypted));
  transcript_.Update(cke_raw);
  flight += SerializeRecord(kTlsHandshake, kRecordVersion, cke_raw);
  master_secret_ = Tls12MasterSecret(premaster, client_random_, server_random_);
  int rv = InstallKeys(server_random_);
  if (rv != OK) return rv;
  flight += SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
  const std::string finished_raw = SerializeHandshake(
      kFinishedType,
      Tls12FinishedVerifyData(master_secret_, false, transcript_.Hash()));
  transcript_.Update(finished_raw);
  flight += write_cipher()->Seal(kTlsHandshake, finished_raw);
  next_state_ = STATE_SEND_CLIENT_FLIGHT_COMPLETE;
  return WriteFlight(std::move(flight));
}

int SnapStartClientSocket::DoSendClientFlightComplete(int result) {
  if (result != OK) return result;
  next_state_ = STATE_READ_SERVER_CCS;
  return OK;
}

int SnapStartClientSocket::DoReadServerCcs(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  bool is_ccs = false;
  if (pending_ccs_) {
    pending_ccs_ = false;
    is_ccs = true;
  } else if (has_pending_message_) {
    has_pending_message_ = false;
    message = std::move(pending_message_);
  } else {
    int rv = ReadHandshakeOrCcs(&message, &is_ccs);
    if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_SERVER_CCS;
    if (rv != OK) return rv;
  }
  if (!is_ccs) {
    if (message.type != kNewSessionTicketType || !expect_ticket_ ||
        abbreviated_) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  absl::StrCat("unexpected handshake message ", message.type,
                               " before the server's ChangeCipherSpec"),
                  kAlertUnexpectedMessage);
    }
    absl::StatusOr<NewSessionTicket> ticket =
        ParseNewSessionTicket(message.body);
    if (!ticket.ok()) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  std::string(ticket.status().message()), kAlertDecodeError);
    }
    expect_ticket_ = false;
    transcript_.Update(message.raw);
    new_session_.ticket = std::move(ticket->ticket);
    next_state_ = STATE_READ_SERVER_CCS;
    return OK;
  }
  absl::StatusOr<std::unique_ptr<RecordCipher>> cipher =
      RecordCipher::Create(keys_.server_write_key, keys_.server_write_iv);
  if (!cipher.ok()) return ERR_UNEXPECTED;
  set_read_cipher(std::move(*cipher));
  next_state_ = STATE_READ_SERVER_FINISHED;
  return OK;
}

int SnapStartClientSocket::DoReadServerFinished(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kFinishedType, "server Finished", &message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_SERVER_FINISHED;
  if (rv != OK) return rv;
  std::string expected;
  if (snap_accepted_ && snap_resume_) {
    expected = expected_server_finished_;
  } else {
    expected = SerializeHandshake(
        kFinishedType,
        Tls12FinishedVerifyData(master_secret_, true, transcript_.Hash()));
    transcript_.Update(message.raw);
  }
  if (message.raw.size() != expected.size() ||
      CRYPTO_memcmp(message.raw.data(), expected.data(), expected.size()) !=
          0) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, "server Finished does not verify",
                kAlertDecryptError);
  }
  if (abbreviated_ && !snap_accepted_) {
    // Resumption: the client's CCS and Finished follow the server's.
    std::string flight =
        SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
    const std::string finished_raw = SerializeHandshake(
        kFinishedType,
        Tls12FinishedVerifyData(master_secret_, false, transcript_.Hash()));
    transcript_.Update(finished_raw);
    flight += write_cipher()->Seal(kTlsHandshake, finished_raw);
    next_state_ = STATE_SEND_CLIENT_FINISHED_COMPLETE;
    return WriteFlight(std::move(flight));
  }
  return DoSendClientFinishedComplete(OK);
}

int SnapStartClientSocket::DoSendClientFinishedComplete(int result) {
  if (result != OK) return result;
  FinishHandshake();
  if (ssl_info_.snap_start == "recovered" && !early_data_.empty()) {
    next_state_ = STATE_RETRANSMIT_EARLY_DATA_COMPLETE;
    return WriteFlight(
        write_cipher()->SealAll(kTlsApplicationData, early_data_));
  }
  return OK;
}

int SnapStartClientSocket::DoRetransmitEarlyDataComplete(int result) {
  if (result != OK) return result;
  early_data_.clear();
  return OK;
}

void SnapStartClientSocket::FinishHandshake() {
  set_handshake_done();
  ssl_info_.version = "TLSv1.2";
  ssl_info_.cipher = "TLS_RSA_WITH_AES_128_GCM_SHA256";
  ssl_info_.group = "RSA";
  ssl_info_.alpn = "";
  ssl_info_.resumed = abbreviated_;
  ssl_info_.peer_cert_count = static_cast<int>(chain_der_.size());
  if (abbreviated_ || snap_accepted_) ssl_info_.cert_verify.error = OK;
  if (ssl_info_.snap_start.empty()) ssl_info_.snap_start = "learned";
  if (!new_session_.ticket.empty() && context_->options().tickets) {
    new_session_.master_secret = master_secret_;
    new_session_.cipher_suite = kTlsRsaWithAes128GcmSha256;
    new_session_.chain_der = chain_der_;
    context_->PutSession(key_, std::move(new_session_));
  }
  // Learn (or refresh) the server's Snap Start information from a full
  // handshake whose chain was just verified.
  if (!abbreviated_ && !snap_accepted_) {
    const std::string* ext = server_hello_.FindExtension(kSnapStartExtension);
    absl::StatusOr<SnapStartServerInfo> server_info =
        ext ? ParseSnapStartServerExtension(*ext)
            : absl::InvalidArgumentError("no Snap Start extension");
    if (server_info.ok()) {
      SnapStartInfo info;
      info.chain_der = chain_der_;
      info.cipher_suite = server_info->cipher_suite;
      info.orbit = server_info->orbit;
      info.server_hello = server_hello_body_;
      info.verified = true;
      context_->PutInfo(key_, std::move(info));
      if (ssl_info_.snap_start == "learned") {
        ssl_info_.snap_start_detail =
            absl::StrCat("server orbit ", OrbitToHex(server_info->orbit));
      }
    } else {
      context_->RemoveInfo(key_);
      if (ssl_info_.snap_start == "learned") {
        ssl_info_.snap_start_detail = "server does not support Snap Start";
      }
    }
  }
}

}  // namespace net
