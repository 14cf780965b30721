#include "net/snap_start/snap_start_client_socket.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "net/base/check.h"
#include "net/snap_start/tls12_handshake.h"

namespace net {
namespace {

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
    : Tls12SocketBase(Side::kClient, std::move(transport), std::string()),
      host_(std::move(host)),
      port_(port),
      key_(absl::StrCat(host_, ":", port_)),
      context_(context) {}

SnapStartClientSocket::~SnapStartClientSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int SnapStartClientSocket::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // A TLS 1.2 ClientHello: the name goes in the clear (no ECH), whatever
  // the bundle or the orbit say.
  if (!IPAddress::Parse(host_)) ssl_info_.sni_on_wire = host_;
  ssl_info_.ech_detail = "not offered: Snap Start's TLS 1.2 core has no ECH";
  // Copies: the context's entries may change while this socket waits.
  if (const SnapStartInfo* info = context_->GetInfo(key_)) info_ = *info;
  if (context_->options().tickets) {
    if (const Tls12ClientSession* session = context_->GetSession(key_)) {
      session_ = *session;
    }
  }
  std::string why;
  if (info_ && context_->options().attempt && context_->options().tickets &&
      Usable(*info_, &why)) {
    if (info_->verified) {
      // An earlier connection verified this chain: its answer is this
      // connection's too (the trace's cert object says what it was).
      ssl_info_.cert_verify = info_->verify_result;
      phase_ = SnapPhase::kReady;
      SetOutcome(SnapStartOutcome::kAttempted);
      return OK;
    }
    next_state_ = STATE_VERIFY_PREDICTED;
  } else {
    if (info_ && !why.empty()) {
      ssl_info_.snap_start_detail = why;
      context_->RemoveInfo(key_, *info_);
    } else if (info_ && !context_->options().tickets) {
      ssl_info_.snap_start_detail =
          "Snap Start needs session tickets enabled on the client";
    }
    info_.reset();
    next_state_ = STATE_SEND_CLIENT_HELLO;
  }
  const int rv = DoHandshakeLoop(OK);
  SetHandshakeResult(rv);
  if (rv == ERR_IO_PENDING) connect_callback_ = std::move(callback);
  return rv;
}

int SnapStartClientSocket::DoHandshakeLoop(int result) {
  return RunDoLoop(&next_state_, result, [this](State state, int rv) -> int {
    switch (state) {
      case STATE_VERIFY_PREDICTED:
        return DoVerifyPredicted();
      case STATE_VERIFY_PREDICTED_COMPLETE:
        return DoVerifyPredictedComplete(rv);
      case STATE_SEND_CLIENT_HELLO:
        return DoSendClientHello();
      case STATE_SEND_CLIENT_HELLO_COMPLETE:
        return DoSendClientHelloComplete(rv);
      case STATE_SEND_SNAP_CLIENT_HELLO:
        return DoSendSnapClientHello();
      case STATE_SEND_SNAP_CLIENT_HELLO_COMPLETE:
        return DoSendSnapClientHelloComplete(rv);
      case STATE_READ_SNAP_OUTCOME:
        return DoReadSnapOutcome(rv);
      case STATE_READ_SERVER_HELLO:
        return DoReadServerHello(rv);
      case STATE_READ_CERTIFICATE:
        return DoReadCertificate(rv);
      case STATE_READ_SERVER_HELLO_DONE:
        return DoReadServerHelloDone(rv);
      case STATE_VERIFY_CERT:
        return DoVerifyCert();
      case STATE_VERIFY_CERT_COMPLETE:
        return DoVerifyCertComplete(rv);
      case STATE_SEND_CLIENT_FLIGHT:
        return DoSendClientFlight();
      case STATE_SEND_CLIENT_FLIGHT_COMPLETE:
        return DoSendClientFlightComplete(rv);
      case STATE_READ_SERVER_CCS:
        return DoReadServerCcs(rv);
      case STATE_READ_SERVER_FINISHED:
        return DoReadServerFinished(rv);
      case STATE_SEND_CLIENT_FINISHED_COMPLETE:
        return DoSendClientFinishedComplete(rv);
      case STATE_RETRANSMIT_EARLY_DATA_COMPLETE:
        return DoRetransmitEarlyDataComplete(rv);
      case STATE_NONE:
      default:
        NET_NOTREACHED();
        return ERR_UNEXPECTED;
    }
  });
}

void SnapStartClientSocket::OnHandshakeIOComplete(int result) {
  const bool was_sending = phase_ == SnapPhase::kSending;
  int rv = DoHandshakeLoop(result);
  const bool hello_out = phase_ == SnapPhase::kSent;
  if (rv != ERR_IO_PENDING) SetHandshakeResult(rv);
  WeakPtr<SnapStartClientSocket> weak = weak_factory_.GetWeakPtr();
  if (was_sending && (hello_out || rv != ERR_IO_PENDING) &&
      first_write_callback_) {
    // The ClientHello carrying the first Write went out, or failed to.
    CompletionOnceCallback callback = std::move(first_write_callback_);
    first_write_callback_ = nullptr;
    std::move(callback)(hello_out ? early_data_len_ : rv);
    if (!weak) return;
  }
  if (rv == ERR_IO_PENDING) return;
  if (connect_callback_) {
    CompletionOnceCallback callback = std::move(connect_callback_);
    connect_callback_ = nullptr;
    std::move(callback)(rv);
    return;
  }
  ResumeWaitingIO(rv);
}

void SnapStartClientSocket::SetHandshakeResult(int result) {
  if (result != OK && result != ERR_IO_PENDING) handshake_error_ = result;
}

void SnapStartClientSocket::ResumeWaitingIO(int result) {
  WeakPtr<SnapStartClientSocket> weak = weak_factory_.GetWeakPtr();
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
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (handshake_done()) {
    return Tls12SocketBase::Read(std::move(buf), len, std::move(callback));
  }
  if (handshake_error_ != OK) return handshake_error_;
  const bool attempt_running =
      phase_ == SnapPhase::kSending || phase_ == SnapPhase::kSent;
  if (!attempt_running || pending_read_callback_) {
    return ERR_SOCKET_NOT_CONNECTED;
  }
  pending_read_buf_ = std::move(buf);
  pending_read_len_ = len;
  pending_read_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int SnapStartClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                                 CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (handshake_done()) {
    return Tls12SocketBase::Write(std::move(buf), len, std::move(callback));
  }
  // A failed handshake (a rejected attempt included) answers every later
  // call with its error.
  if (handshake_error_ != OK) return handshake_error_;
  if (len <= 0) return ERR_INVALID_ARGUMENT;
  switch (phase_) {
    case SnapPhase::kReady: {
      early_data_len_ = static_cast<int>(
          std::min<size_t>(static_cast<size_t>(len), kMaxEarlyData));
      early_data_.assign(buf->data(), early_data_len_);
      phase_ = SnapPhase::kSending;
      next_state_ = STATE_SEND_SNAP_CLIENT_HELLO;
      int rv = DoHandshakeLoop(OK);
      const bool hello_out = phase_ == SnapPhase::kSent;
      if (rv != ERR_IO_PENDING) SetHandshakeResult(rv);
      // Once the ClientHello is out the Write is done; the outcome shows in
      // later Reads and Writes.
      if (hello_out) return early_data_len_;
      if (rv == ERR_IO_PENDING) {
        first_write_callback_ = std::move(callback);
        return ERR_IO_PENDING;
      }
      // The attempt failed before anything went out.
      return rv;
    }
    case SnapPhase::kSent:
      if (pending_write_callback_) return ERR_SOCKET_NOT_CONNECTED;
      // More data before the outcome is known: it waits for the handshake.
      pending_write_buf_ = std::move(buf);
      pending_write_len_ = len;
      pending_write_callback_ = std::move(callback);
      return ERR_IO_PENDING;
    case SnapPhase::kSending:  // the first Write is still pending
    case SnapPhase::kNone:
      return ERR_SOCKET_NOT_CONNECTED;
  }
  NET_NOTREACHED();
  return ERR_UNEXPECTED;
}

void SnapStartClientSocket::SetOutcome(SnapStartOutcome outcome) {
  outcome_ = outcome;
  ssl_info_.snap_start = outcome;
  ssl_info_.awaiting_server_response = outcome == SnapStartOutcome::kAttempted;
}

int SnapStartClientSocket::DoVerifyPredicted() {
  next_state_ = STATE_VERIFY_PREDICTED_COMPLETE;
  return StartVerify(info_->chain_der);
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
    info_->verified = true;
    info_->verify_result = ssl_info_.cert_verify;
    context_->MarkVerified(key_, *info_);
    phase_ = SnapPhase::kReady;
    SetOutcome(SnapStartOutcome::kAttempted);
    return OK;  // Connect completes; the first Write carries the attempt.
  }
  ssl_info_.snap_start_detail = absl::StrCat(
      "predicted chain failed verification: ", ssl_info_.cert_verify.detail);
  ssl_info_.cert_verify = CertVerifyResult();
  context_->RemoveInfo(key_, *info_);
  info_.reset();
  next_state_ = STATE_SEND_CLIENT_HELLO;
  return OK;
}

std::optional<std::string> SnapStartClientSocket::OfferedTicket(
    bool resume) const {
  if (!context_->options().tickets) return std::nullopt;
  return resume && session_ ? session_->ticket : std::string();
}

int SnapStartClientSocket::DoSendClientHello() {
  std::string random = NewHelloRandom(absl::Now());
  offered_session_id_ = session_ ? RandomBytes(32) : std::string();
  offered_hello_ = NewClientHello(host_, random, offered_session_id_,
                                  OfferedTicket(session_.has_value()));
  // The empty extension: learn the server's orbit.
  offered_hello_.extensions.emplace_back(kSnapStartExtension, std::string());
  const std::string raw = SerializeHandshake(
      kClientHelloType, SerializeClientHello(offered_hello_));
  set_randoms(std::move(random), std::string());
  transcript().Reset();
  transcript().Update(raw);
  next_state_ = STATE_SEND_CLIENT_HELLO_COMPLETE;
  return WriteFlight(SerializeHandshakeRecords(raw));
}

int SnapStartClientSocket::DoSendClientHelloComplete(int result) {
  if (result != OK) return result;
  next_state_ = STATE_READ_SERVER_HELLO;
  return OK;
}

int SnapStartClientSocket::DoSendSnapClientHello() {
  // The ticket form needs a session whose master secret is of the kind the
  // predicted ServerHello announces (RFC 7627 section 5.3); otherwise the
  // full form.
  absl::StatusOr<ServerHello> saved = ParseServerHello(info_->server_hello);
  const bool predicted_ems =
      saved.ok() &&
      saved->FindExtension(kExtendedMasterSecretExtension) != nullptr;
  const bool resume =
      session_ && session_->extended_master_secret == predicted_ems;
  std::string random = NewHelloRandom(absl::Now());
  offered_session_id_ = resume ? RandomBytes(32) : std::string();
  ClientHello hello =
      NewClientHello(host_, random, offered_session_id_, OfferedTicket(resume));
  // The transcript hashes the ClientHello without the extension, which goes
  // last (SPECS.md section 1.5).
  const std::string stripped_raw =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello));

  SnapStartAttempt attempt;
  attempt.orbit = info_->orbit;
  attempt.random_bytes = RandomBytes(kSnapStartRandomBytesSize);
  const std::string suggested =
      SuggestedServerRandom(random, info_->orbit, attempt.random_bytes);
  absl::StatusOr<ServerHello> predicted = PredictServerHello(
      info_->server_hello, suggested, offered_session_id_, resume);
  if (!predicted.ok()) {
    return Rejected(std::string(predicted.status().message()));
  }
  const ServerFlight flight =
      BuildServerFlight(*predicted, resume ? nullptr : &info_->chain_der);
  transcript().Reset();
  transcript().Update(stripped_raw);
  transcript().Update(flight.Messages());
  set_randoms(std::move(random), suggested);
  server_hello_ = *predicted;
  server_hello_body_ = SerializeServerHello(*predicted);

  std::string records;
  if (resume) {
    kind_ = HandshakeKind::kSnapStartResumption;
    set_master_secret(session_->master_secret);
    extended_master_secret_ = session_->extended_master_secret;
    chain_der_ = session_->chain_der;
    // The client computes the server's Finished itself (SPECS.md 1.4).
    expected_server_finished_ = ExpectedPeerFinished();
    transcript().Update(expected_server_finished_);
  } else {
    kind_ = HandshakeKind::kSnapStartFull;
    const std::string premaster = NewPremasterSecret(hello.version);
    absl::StatusOr<std::string> encrypted =
        RsaEncryptPremaster(info_->chain_der[0], premaster);
    if (!encrypted.ok()) {
      return Rejected(std::string(encrypted.status().message()));
    }
    const std::string cke_raw = SerializeHandshake(
        kClientKeyExchangeType, SerializeRsaClientKeyExchange(*encrypted));
    transcript().Update(cke_raw);
    // RFC 7627's session hash is this transcript: the stripped ClientHello,
    // the predicted flight and the ClientKeyExchange. The server matches the
    // flight byte for byte before it accepts, so both sides hash the same.
    extended_master_secret_ = predicted_ems;
    DeriveMasterSecret(premaster, extended_master_secret_);
    chain_der_ = info_->chain_der;
    expect_ticket_ =
        predicted->FindExtension(kSessionTicketExtension) != nullptr;
    records += SerializeRecord(kTlsHandshake, kRecordVersion, cke_raw);
  }
  int rv = InstallPendingKeys();
  if (rv != OK) return rv;
  records += CcsAndFinished(OwnFinished());
  records += write_cipher()->SealAll(kTlsApplicationData, early_data_);
  attempt.predicted_hash = flight.Hash();
  attempt.records = std::move(records);
  hello.extensions.emplace_back(kSnapStartExtension,
                                SerializeSnapStartAttempt(attempt));
  offered_hello_ = hello;
  original_client_hello_ =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello));
  sent_client_hello_ = SerializeHandshakeRecords(original_client_hello_);
  next_state_ = STATE_SEND_SNAP_CLIENT_HELLO_COMPLETE;
  return WriteFlight(sent_client_hello_);
}

int SnapStartClientSocket::DoSendSnapClientHelloComplete(int result) {
  if (result != OK) return result;
  phase_ = SnapPhase::kSent;
  next_state_ = STATE_READ_SNAP_OUTCOME;
  return OK;
}

int SnapStartClientSocket::Rejected(std::string why) {
  if (info_) context_->RemoveInfo(key_, *info_);
  SetOutcome(SnapStartOutcome::kRejected);
  ssl_info_.snap_start_detail = why;
  return Fail(ERR_SNAP_START_REJECTED, std::move(why));
}

int SnapStartClientSocket::DoReadSnapOutcome(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  bool is_ccs = false;
  int rv = ReadHandshakeOrCcs(&message, &is_ccs);
  if (IsRejection(rv)) {
    return Rejected(absl::StrCat(
        "server refused the Snap Start ClientHello (", ErrorToShortString(rv),
        error_detail().empty() ? "" : ": ", error_detail(), ")"));
  }
  if (rv != OK) return rv;
  if (!is_ccs && message.type == kServerHelloType) {
    // Recovery: a normal handshake over the original ClientHello; the
    // early data is sent again once it completes.
    SetOutcome(SnapStartOutcome::kRecovered);
    ssl_info_.snap_start_detail =
        "server answered with a ServerHello (wrong orbit, time outside its "
        "window, replay, or misprediction)";
    ResetHandshakeKeys();
    transcript().Update(original_client_hello_);
    transcript().Update(message.raw);
    chain_der_.clear();
    expected_server_finished_.clear();
    return ProcessServerHello(message);
  }
  SetOutcome(SnapStartOutcome::kAccepted);
  if (is_ccs) return ProcessServerCcs();
  if (message.type == kNewSessionTicketType && expect_ticket_) {
    return ProcessNewSessionTicket(message);  // the ticket comes first
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
  if (rv != OK) return rv;
  transcript().Update(message.raw);
  return ProcessServerHello(message);
}

int SnapStartClientSocket::ProcessServerHello(const HandshakeMessage& message) {
  if (std::optional<HandshakeFailure> failure = ParseAndCheckServerHello(
          message.body, offered_hello_, &server_hello_)) {
    return Fail(*failure);
  }
  set_randoms(client_random(), server_hello_.random);
  server_hello_body_ = message.body;
  const bool server_ems =
      server_hello_.FindExtension(kExtendedMasterSecretExtension) != nullptr;
  expect_ticket_ =
      server_hello_.FindExtension(kSessionTicketExtension) != nullptr;
  if (session_ && !offered_session_id_.empty() &&
      server_hello_.session_id == offered_session_id_) {
    // RFC 7627 section 5.3: a resumption must keep the session's kind of
    // master secret.
    if (server_ems != session_->extended_master_secret) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  "server resumed a session with a different extended "
                  "master secret state (RFC 7627 section 5.3)",
                  kAlertHandshakeFailure);
    }
    kind_ = HandshakeKind::kResumption;
    set_master_secret(session_->master_secret);
    extended_master_secret_ = session_->extended_master_secret;
    chain_der_ = session_->chain_der;
    int rv = InstallPendingKeys();
    if (rv != OK) return rv;
    next_state_ = STATE_READ_SERVER_CCS;
    return OK;
  }
  // The server declined the ticket.
  if (!offered_session_id_.empty()) context_->RemoveSession(key_);
  kind_ = HandshakeKind::kFull;
  extended_master_secret_ = server_ems;
  next_state_ = STATE_READ_CERTIFICATE;
  return OK;
}

int SnapStartClientSocket::DoReadCertificate(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv != OK) return rv;
  if (std::optional<HandshakeFailure> failure =
          ParseServerCertificate(message, &chain_der_)) {
    return Fail(*failure);
  }
  transcript().Update(message.raw);
  next_state_ = STATE_READ_SERVER_HELLO_DONE;
  return OK;
}

int SnapStartClientSocket::DoReadServerHelloDone(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv != OK) return rv;
  transcript().Update(message.raw);
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
    transcript().Update(cert_raw);
    flight += SerializeRecord(kTlsHandshake, kRecordVersion, cert_raw);
  }
  // The premaster carries the version the ClientHello offered
  // (RFC 5246 section 7.4.7.1).
  const std::string premaster = NewPremasterSecret(offered_hello_.version);
  absl::StatusOr<std::string> encrypted =
      RsaEncryptPremaster(chain_der_[0], premaster);
  if (!encrypted.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                std::string(encrypted.status().message()),
                kAlertHandshakeFailure);
  }
  const std::string cke_raw = SerializeHandshake(
      kClientKeyExchangeType, SerializeRsaClientKeyExchange(*encrypted));
  transcript().Update(cke_raw);
  flight += SerializeRecord(kTlsHandshake, kRecordVersion, cke_raw);
  DeriveMasterSecret(premaster, extended_master_secret_);
  int rv = InstallPendingKeys();
  if (rv != OK) return rv;
  flight += CcsAndFinished(OwnFinished());
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
  int rv = ReadHandshakeOrCcs(&message, &is_ccs);
  if (rv != OK) return rv;
  if (is_ccs) return ProcessServerCcs();
  if (message.type == kNewSessionTicketType && expect_ticket_) {
    return ProcessNewSessionTicket(message);
  }
  return Fail(ERR_SSL_PROTOCOL_ERROR,
              absl::StrCat("unexpected handshake message ", message.type,
                           " before the server's ChangeCipherSpec"),
              kAlertUnexpectedMessage);
}

int SnapStartClientSocket::ProcessNewSessionTicket(
    const HandshakeMessage& message) {
  absl::StatusOr<NewSessionTicket> ticket = ParseNewSessionTicket(message.body);
  if (!ticket.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, std::string(ticket.status().message()),
                kAlertDecodeError);
  }
  expect_ticket_ = false;
  transcript().Update(message.raw);
  new_session_.ticket = std::move(ticket->ticket);
  next_state_ = STATE_READ_SERVER_CCS;
  return OK;
}

int SnapStartClientSocket::ProcessServerCcs() {
  int rv = ReceiveChangeCipherSpec();
  if (rv != OK) return rv;
  next_state_ = STATE_READ_SERVER_FINISHED;
  return OK;
}

int SnapStartClientSocket::DoReadServerFinished(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kFinishedType, "server Finished", &message);
  if (rv != OK) return rv;
  // In the Snap Start ticket form the client computed the server's Finished
  // (and its own) when it built the attempt.
  rv = VerifyPeerFinished(message, kind_ == HandshakeKind::kSnapStartResumption
                                       ? &expected_server_finished_
                                       : nullptr);
  if (rv != OK) return rv;
  next_state_ = STATE_SEND_CLIENT_FINISHED_COMPLETE;
  if (kind_ == HandshakeKind::kResumption) {
    // Resumption: the client's CCS and Finished follow the server's.
    return WriteFlight(CcsAndFinished(OwnFinished()));
  }
  return OK;
}

int SnapStartClientSocket::DoSendClientFinishedComplete(int result) {
  if (result != OK) return result;
  FinishHandshake();
  if (outcome_ == SnapStartOutcome::kRecovered && !early_data_.empty()) {
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
  const bool resumed = kind_ == HandshakeKind::kResumption ||
                       kind_ == HandshakeKind::kSnapStartResumption;
  ssl_info_.version = "TLSv1.2";
  ssl_info_.cipher = "TLS_RSA_WITH_AES_128_GCM_SHA256";
  ssl_info_.group = "RSA";
  ssl_info_.alpn = "";
  ssl_info_.resumed = resumed;
  ssl_info_.peer_cert_count = static_cast<int>(chain_der_.size());
  // Verified before: in the session's handshake or before the prediction.
  if (kind_ != HandshakeKind::kFull) ssl_info_.cert_verify.error = OK;
  if (outcome_ == SnapStartOutcome::kNone) {
    SetOutcome(SnapStartOutcome::kLearned);
  }
  if (!new_session_.ticket.empty() && context_->options().tickets) {
    new_session_.master_secret = master_secret();
    new_session_.cipher_suite = kTlsRsaWithAes128GcmSha256;
    new_session_.chain_der = chain_der_;
    new_session_.extended_master_secret = extended_master_secret_;
    context_->PutSession(key_, std::move(new_session_));
  }
  // Learn (or refresh) the server's Snap Start information from a full
  // handshake whose chain was just verified.
  if (kind_ != HandshakeKind::kFull) return;
  const std::string* ext = server_hello_.FindExtension(kSnapStartExtension);
  absl::StatusOr<SnapStartServerInfo> server_info =
      ext ? ParseSnapStartServerExtension(*ext)
          : absl::InvalidArgumentError("no Snap Start extension");
  const bool learned = outcome_ == SnapStartOutcome::kLearned;
  if (server_info.ok()) {
    SnapStartInfo info;
    info.chain_der = chain_der_;
    info.cipher_suite = server_info->cipher_suite;
    info.orbit = server_info->orbit;
    info.server_hello = server_hello_body_;
    info.verified = true;
    info.verify_result = ssl_info_.cert_verify;
    context_->PutInfo(key_, std::move(info));
    if (learned) {
      ssl_info_.snap_start_detail =
          absl::StrCat("server orbit ", OrbitToHex(server_info->orbit));
    }
  } else {
    context_->RemoveInfo(key_);
    if (learned) {
      ssl_info_.snap_start_detail = "server does not support Snap Start";
    }
  }
}

}  // namespace net
