#include "net/snap_start/snap_start_server_socket.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace net {
namespace {

constexpr uint32_t kTicketLifetimeHint = 3600;

// Reads the records a Snap Start extension embeds, telling the end of them
// from a malformed one.
class EmbeddedRecords {
 public:
  enum class Next { kRecord, kEnd, kMalformed };
  explicit EmbeddedRecords(absl::string_view bytes) { buffer_.Append(bytes); }
  Next Read(TlsRecord* out) {
    absl::StatusOr<std::optional<TlsRecord>> record = buffer_.Next();
    if (!record.ok()) return Next::kMalformed;
    if (!record->has_value()) {
      // Nothing left, or a truncated record.
      return buffer_.empty() ? Next::kEnd : Next::kMalformed;
    }
    *out = std::move(**record);
    return Next::kRecord;
  }

 private:
  RecordBuffer buffer_;
};

}  // namespace

SnapStartServerSocket::SnapStartServerSocket(
    std::unique_ptr<StreamSocket> transport, std::string initial_bytes,
    SnapStartServerContext* context)
    : Tls12SocketBase(Side::kServer, std::move(transport),
                      std::move(initial_bytes)),
      context_(context) {}

SnapStartServerSocket::~SnapStartServerSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int SnapStartServerSocket::Handshake(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  handshake_start_ = context_->tick_clock()->NowTicks();
  next_state_ = STATE_READ_CLIENT_HELLO;
  int rv = DoHandshakeLoop(OK);
  if (rv == ERR_IO_PENDING) {
    callback_ = std::move(callback);
  } else {
    Done(rv);
  }
  return rv;
}

void SnapStartServerSocket::Done(int result) {
  handshake_end_ = context_->tick_clock()->NowTicks();
  if (result != OK) context_->counters().handshakes_failed++;
}

void SnapStartServerSocket::OnHandshakeIOComplete(int result) {
  int rv = DoHandshakeLoop(result);
  if (rv == ERR_IO_PENDING) return;
  Done(rv);
  std::move(callback_)(rv);
}

int SnapStartServerSocket::DoHandshakeLoop(int result) {
  return RunDoLoop(&next_state_, result, [this](State state, int rv) -> int {
    switch (state) {
      case STATE_READ_CLIENT_HELLO:
        return DoReadClientHello(rv);
      case STATE_SEND_FLIGHT_COMPLETE:
        return DoSendFlightComplete(rv);
      case STATE_READ_CLIENT_KEY_EXCHANGE:
        return DoReadClientKeyExchange(rv);
      case STATE_READ_CLIENT_CCS:
        return DoReadClientCcs(rv);
      case STATE_READ_CLIENT_FINISHED:
        return DoReadClientFinished(rv);
      case STATE_SEND_FINISHED_COMPLETE:
        return DoSendFinishedComplete(rv);
      case STATE_NONE:
      default:
        NET_NOTREACHED();
        return ERR_UNEXPECTED;
    }
  });
}

void SnapStartServerSocket::SetOutcome(SnapStartOutcome outcome,
                                       std::string detail) {
  outcome_ = outcome;
  ssl_info_.snap_start = outcome;
  ssl_info_.snap_start_detail = std::move(detail);
}

ServerHello SnapStartServerSocket::BuildServerHello(
    const std::string& random) const {
  const bool resuming = resumed_session_.has_value();
  ServerHello server_hello;
  server_hello.version = kTls12Version;
  server_hello.random = random;
  // No session cache: a full handshake gets no session ID; a resumption
  // echoes the client's (RFC 5077 section 3.4).
  server_hello.session_id = resuming ? client_hello_.session_id : std::string();
  server_hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  server_hello.compression_method = 0;
  server_hello.has_extensions = true;
  if (client_hello_.FindExtension(kRenegotiationInfoExtension) ||
      client_hello_.OffersSuite(kEmptyRenegotiationInfoScsv)) {
    server_hello.extensions.emplace_back(kRenegotiationInfoExtension,
                                         std::string(1, '\0'));
  }
  // RFC 7627 sections 5.2 and 5.3: echoed whenever offered, resumption
  // included (a resumption that disagrees never gets here).
  if (ems_offered_) {
    server_hello.extensions.emplace_back(kExtendedMasterSecretExtension,
                                         std::string());
  }
  if (!resuming && send_ticket_) {
    server_hello.extensions.emplace_back(kSessionTicketExtension,
                                         std::string());
  }
  if (client_hello_.FindExtension(kSnapStartExtension) &&
      context_->config().orbit) {
    SnapStartServerInfo info;
    info.orbit = *context_->config().orbit;
    info.cipher_suite = kTlsRsaWithAes128GcmSha256;
    server_hello.extensions.emplace_back(
        kSnapStartExtension, SerializeSnapStartServerExtension(info));
  }
  if (server_hello.extensions.empty()) server_hello.has_extensions = false;
  return server_hello;
}

ServerFlight SnapStartServerSocket::BuildFlight(
    const std::string& random) const {
  return BuildServerFlight(BuildServerHello(random),
                           resumed_session_ ? nullptr : &context_->chain_der());
}

int SnapStartServerSocket::DoReadClientHello(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kClientHelloType, "ClientHello", &message);
  if (rv != OK) return rv;
  if (std::optional<HandshakeFailure> failure =
          ParseAndCheckClientHello(message.body, &client_hello_)) {
    return Fail(*failure);
  }
  client_hello_raw_ = message.raw;
  ems_offered_ =
      client_hello_.FindExtension(kExtendedMasterSecretExtension) != nullptr;
  const std::string* ticket_ext =
      client_hello_.FindExtension(kSessionTicketExtension);
  if (ticket_ext && !ticket_ext->empty() && context_->config().tickets &&
      !client_hello_.session_id.empty()) {
    resumed_session_ =
        context_->OpenTicket(*ticket_ext, context_->clock()->Now());
  }
  // RFC 7627 section 5.3, as BoringSSL applies it: a session with the
  // extended master secret resumed without the extension is fatal; a session
  // without it is not resumed when the client now offers it.
  if (resumed_session_ && resumed_session_->extended_master_secret &&
      !ems_offered_) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                "resumption of an extended-master-secret session without "
                "the extension (RFC 7627 section 5.3)",
                kAlertHandshakeFailure);
  }
  if (resumed_session_ && !resumed_session_->extended_master_secret &&
      ems_offered_) {
    resumed_session_.reset();
  }
  send_ticket_ = ticket_ext != nullptr && context_->config().tickets;

  const std::string* snap = client_hello_.FindExtension(kSnapStartExtension);
  if (snap) {
    // Well-formed: CheckClientHello checked it.
    absl::StatusOr<std::optional<SnapStartAttempt>> attempt =
        ParseSnapStartClientExtension(*snap);
    if (attempt.ok() && attempt->has_value()) {
      std::string reason;
      int fatal_error = ERR_UNEXPECTED;
      switch (EvaluateSnapStart(**attempt, &reason, &fatal_error)) {
        case SnapStartDecision::kAccept:
          return SendSnapStartAcceptance();
        case SnapStartDecision::kFatal:
          return fatal_error;
        case SnapStartDecision::kRecover:
          SetOutcome(SnapStartOutcome::kRecovered, std::move(reason));
          context_->counters().snap_start_recovered++;
          break;
      }
    } else if (context_->config().orbit) {
      SetOutcome(SnapStartOutcome::kLearned, std::string());
    }
  }
  return StartNormalHandshake();
}

SnapStartServerSocket::SnapStartDecision
SnapStartServerSocket::EvaluateSnapStart(const SnapStartAttempt& attempt,
                                         std::string* reason,
                                         int* fatal_error) {
  StrikeRegister* strikes = context_->strike_register();
  if (!strikes) {
    *reason = "no orbit configured";
    return SnapStartDecision::kRecover;
  }
  if (client_hello_.extensions.back().first != kSnapStartExtension) {
    *reason = "Snap Start extension is not the last extension";
    return SnapStartDecision::kRecover;
  }
  if (!resumed_session_ && !client_hello_.session_id.empty()) {
    *reason = "full-handshake attempt with a session ID";
    return SnapStartDecision::kRecover;
  }
  const std::string suggested = SuggestedServerRandom(
      client_hello_.random, attempt.orbit, attempt.random_bytes);
  StrikeRegister::Result strike =
      strikes->Insert(suggested, context_->clock()->Now());
  if (strike != StrikeRegister::Result::kAccepted) {
    *reason = StrikeRegister::ResultToString(strike);
    return SnapStartDecision::kRecover;
  }
  // The flight this server would send, hashed as the client predicted it.
  const ServerFlight flight = BuildFlight(suggested);
  if (flight.Hash() != attempt.predicted_hash) {
    *reason = "misprediction (FNV-1a-64 of the server flight differs)";
    return SnapStartDecision::kRecover;
  }
  // The ClientHello is hashed as if the extension were absent.
  ClientHello stripped = client_hello_;
  stripped.extensions.pop_back();
  transcript().Reset();
  transcript().Update(
      SerializeHandshake(kClientHelloType, SerializeClientHello(stripped)));
  transcript().Update(flight.Messages());
  set_randoms(client_hello_.random, suggested);
  return CheckEmbeddedRecords(attempt, reason, fatal_error);
}

SnapStartServerSocket::SnapStartDecision
SnapStartServerSocket::CheckEmbeddedRecords(const SnapStartAttempt& attempt,
                                            std::string* reason,
                                            int* fatal_error) {
  EmbeddedRecords records(attempt.records);
  TlsRecord record;
  auto expect = [&](uint8_t type, const char* what) {
    EmbeddedRecords::Next next = records.Read(&record);
    if (next == EmbeddedRecords::Next::kRecord && record.type == type) {
      return true;
    }
    *reason = next == EmbeddedRecords::Next::kMalformed
                  ? "embedded records: malformed record"
                  : absl::StrCat("embedded records: no ", what);
    return false;
  };
  if (resumed_session_) {
    set_master_secret(resumed_session_->master_secret);
    extended_master_secret_ = resumed_session_->extended_master_secret;
  } else {
    // ClientKeyExchange, in plaintext.
    if (!expect(kTlsHandshake, "ClientKeyExchange")) {
      return SnapStartDecision::kRecover;
    }
    HandshakeBuffer handshake;
    handshake.Append(record.fragment);
    absl::StatusOr<std::optional<HandshakeMessage>> cke = handshake.Next();
    absl::StatusOr<std::string> encrypted =
        cke.ok() && cke->has_value() && handshake.empty() &&
                (*cke)->type == kClientKeyExchangeType
            ? ParseRsaClientKeyExchange((*cke)->body)
            : absl::InvalidArgumentError("not a ClientKeyExchange");
    if (!encrypted.ok()) {
      *reason = "embedded records: malformed ClientKeyExchange";
      return SnapStartDecision::kRecover;
    }
    transcript().Update((*cke)->raw);
    // The session hash of RFC 7627 is this transcript: the ClientHello as
    // the handshake hashes it, the flight the client predicted and the
    // server just matched, and the ClientKeyExchange.
    extended_master_secret_ = ems_offered_;
    DeriveMasterSecret(RsaDecryptPremaster(context_->private_key(), *encrypted,
                                           client_hello_.version),
                       extended_master_secret_);
  }
  if (InstallPendingKeys() != OK) {
    *fatal_error = ERR_UNEXPECTED;
    return SnapStartDecision::kFatal;
  }
  if (resumed_session_) expected_server_finished_ = OwnFinished();
  if (!expect(kTlsChangeCipherSpec, "ChangeCipherSpec") ||
      record.fragment != "\x01") {
    if (reason->empty()) *reason = "embedded records: malformed CCS";
    return SnapStartDecision::kRecover;
  }
  ReceiveChangeCipherSpec();
  if (!expect(kTlsHandshake, "Finished")) return SnapStartDecision::kRecover;
  absl::StatusOr<std::string> finished = read_cipher()->Open(record);
  if (!finished.ok() || !FinishedMatches(*finished, ExpectedPeerFinished())) {
    *reason = "embedded client Finished does not verify";
    return SnapStartDecision::kRecover;
  }
  transcript().Update(*finished);
  std::string app_data;
  for (;;) {
    EmbeddedRecords::Next next = records.Read(&record);
    if (next == EmbeddedRecords::Next::kEnd) break;
    if (next == EmbeddedRecords::Next::kMalformed) {
      *reason = "embedded records: malformed record";
      return SnapStartDecision::kRecover;
    }
    absl::StatusOr<std::string> data =
        record.type == kTlsApplicationData
            ? read_cipher()->Open(record)
            : absl::InvalidArgumentError("not application data");
    if (!data.ok()) {
      *reason = "embedded application data does not authenticate";
      return SnapStartDecision::kRecover;
    }
    app_data += *data;
  }
  AppendAppData(app_data);
  return SnapStartDecision::kAccept;
}

int SnapStartServerSocket::SendSnapStartAcceptance() {
  // Accepted: only [NewSessionTicket], CCS, Finished go out.
  SetOutcome(SnapStartOutcome::kAccepted, std::string());
  ssl_info_.resumed = resumed_session_.has_value();
  context_->counters().snap_start_accepted++;
  next_state_ = STATE_SEND_FINISHED_COMPLETE;
  return WriteFlight(resumed_session_
                         ? CcsAndFinished(expected_server_finished_)
                         : FinalFlight());
}

int SnapStartServerSocket::StartNormalHandshake() {
  // A recovered attempt may have installed keys; start clean.
  ResetHandshakeKeys();
  set_randoms(client_hello_.random, NewHelloRandom(context_->clock()->Now()));
  transcript().Update(client_hello_raw_);
  const ServerFlight flight = BuildFlight(server_random());
  transcript().Update(flight.Messages());
  std::string bytes = SerializeHandshakeRecords(flight.Messages());
  if (resumed_session_) {
    ssl_info_.resumed = true;
    set_master_secret(resumed_session_->master_secret);
    extended_master_secret_ = resumed_session_->extended_master_secret;
    int rv = InstallPendingKeys();
    if (rv != OK) return rv;
    bytes += CcsAndFinished(OwnFinished());
  }
  next_state_ = STATE_SEND_FLIGHT_COMPLETE;
  return WriteFlight(std::move(bytes));
}

int SnapStartServerSocket::DoSendFlightComplete(int result) {
  if (result != OK) return result;
  next_state_ =
      resumed_session_ ? STATE_READ_CLIENT_CCS : STATE_READ_CLIENT_KEY_EXCHANGE;
  return OK;
}

int SnapStartServerSocket::DoReadClientKeyExchange(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessageOfType(kClientKeyExchangeType,
                                      "ClientKeyExchange", &message);
  if (rv != OK) return rv;
  absl::StatusOr<std::string> encrypted =
      ParseRsaClientKeyExchange(message.body);
  if (!encrypted.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                std::string(encrypted.status().message()), kAlertDecodeError);
  }
  transcript().Update(message.raw);
  // No alert and no branch on the decryption's outcome: a bad premaster
  // only shows as a Finished that does not verify (RFC 5246 7.4.7.1).
  extended_master_secret_ = ems_offered_;
  DeriveMasterSecret(RsaDecryptPremaster(context_->private_key(), *encrypted,
                                         client_hello_.version),
                     extended_master_secret_);
  rv = InstallPendingKeys();
  if (rv != OK) return rv;
  next_state_ = STATE_READ_CLIENT_CCS;
  return OK;
}

int SnapStartServerSocket::DoReadClientCcs(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  bool is_ccs = false;
  int rv = ReadHandshakeOrCcs(&message, &is_ccs);
  if (rv != OK) return rv;
  if (!is_ccs) {
    return Fail(
        ERR_SSL_PROTOCOL_ERROR,
        absl::StrCat("expected ChangeCipherSpec, got handshake message ",
                     message.type,
                     message.type == kCertificateType
                         ? " (client certificates are not requested)"
                         : ""),
        kAlertUnexpectedMessage);
  }
  rv = ReceiveChangeCipherSpec();
  if (rv != OK) return rv;
  next_state_ = STATE_READ_CLIENT_FINISHED;
  return OK;
}

int SnapStartServerSocket::DoReadClientFinished(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kFinishedType, "client Finished", &message);
  if (rv != OK) return rv;
  rv = VerifyPeerFinished(message);
  if (rv != OK) return rv;
  next_state_ = STATE_SEND_FINISHED_COMPLETE;
  if (resumed_session_) return OK;
  return WriteFlight(FinalFlight());
}

std::string SnapStartServerSocket::FinalFlight() {
  std::string flight;
  if (send_ticket_) {
    Tls12ServerSession session;
    session.master_secret = master_secret();
    session.cipher_suite = kTlsRsaWithAes128GcmSha256;
    session.extended_master_secret = extended_master_secret_;
    NewSessionTicket ticket;
    ticket.lifetime_hint = kTicketLifetimeHint;
    ticket.ticket = context_->SealTicket(session, context_->clock()->Now());
    const std::string ticket_raw = SerializeHandshake(
        kNewSessionTicketType, SerializeNewSessionTicket(ticket));
    transcript().Update(ticket_raw);
    flight += SerializeRecord(kTlsHandshake, kRecordVersion, ticket_raw);
  }
  flight += CcsAndFinished(OwnFinished());
  return flight;
}

int SnapStartServerSocket::DoSendFinishedComplete(int result) {
  if (result != OK) return result;
  set_handshake_done();
  if (ssl_info_.resumed) {
    context_->counters().resumed_handshakes++;
  } else {
    context_->counters().full_handshakes++;
  }
  ssl_info_.version = "TLSv1.2";
  ssl_info_.cipher = "TLS_RSA_WITH_AES_128_GCM_SHA256";
  ssl_info_.group = "RSA";
  return OK;
}

}  // namespace net
