#include "net/snap_start/snap_start_server_socket.h"

#include <openssl/mem.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "net/snap_start/fnv1a64.h"

namespace net {
namespace {

constexpr uint16_t kRecordVersion = 0x0303;
constexpr uint32_t kTicketLifetimeHint = 3600;

}  // namespace

SnapStartServerSocket::SnapStartServerSocket(
    std::unique_ptr<StreamSocket> transport, std::string initial_bytes,
    SnapStartServerContext* context)
    : Tls12SocketBase(std::move(transport), std::move(initial_bytes)),
      context_(context) {}

SnapStartServerSocket::~SnapStartServerSocket() = default;

int SnapStartServerSocket::Handshake(CompletionOnceCallback callback) {
  handshake_start_ = TimeTicks::Now();
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
  handshake_end_ = TimeTicks::Now();
  if (result != OK) context_->counters().handshakes_failed++;
}

void SnapStartServerSocket::OnHandshakeIOComplete(int result) {
  int rv = DoHandshakeLoop(result);
  if (rv == ERR_IO_PENDING) return;
  Done(rv);
  std::move(callback_)(rv);
}

int SnapStartServerSocket::DoHandshakeLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_READ_CLIENT_HELLO:
        rv = DoReadClientHello(rv);
        break;
      case STATE_SEND_FLIGHT_COMPLETE:
        rv = DoSendFlightComplete(rv);
        break;
      case STATE_READ_CLIENT_KEY_EXCHANGE:
        rv = DoReadClientKeyExchange(rv);
        break;
      case STATE_READ_CLIENT_CCS:
        rv = DoReadClientCcs(rv);
        break;
      case STATE_READ_CLIENT_FINISHED:
        rv = DoReadClientFinished(rv);
        break;
      case STATE_SEND_FINISHED_COMPLETE:
        rv = DoSendFinishedComplete(rv);
        break;
      case STATE_NONE:
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

std::string SnapStartServerSocket::BuildServerHello(const ClientHello& hello,
                                                    const std::string& random,
                                                    bool resuming) const {
  ServerHello server_hello;
  server_hello.version = kTls12Version;
  server_hello.random = random;
  // No session cache: a full handshake gets no session ID; a resumption
  // echoes the client's (RFC 5077 section 3.4).
  server_hello.session_id = resuming ? hello.session_id : std::string();
  server_hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  server_hello.compression_method = 0;
  server_hello.has_extensions = true;
  if (hello.FindExtension(kRenegotiationInfoExtension) ||
      hello.OffersSuite(kEmptyRenegotiationInfoScsv)) {
    server_hello.extensions.emplace_back(kRenegotiationInfoExtension,
                                         std::string(1, '\0'));
  }
  if (!resuming && send_ticket_) {
    server_hello.extensions.emplace_back(kSessionTicketExtension,
                                         std::string());
  }
  if (hello.FindExtension(kSnapStartExtension) && context_->config().orbit) {
    SnapStartServerInfo info;
    info.orbit = *context_->config().orbit;
    info.cipher_suite = kTlsRsaWithAes128GcmSha256;
    server_hello.extensions.emplace_back(
        kSnapStartExtension, SerializeSnapStartServerExtension(info));
  }
  if (server_hello.extensions.empty()) server_hello.has_extensions = false;
  return SerializeHandshake(kServerHelloType,
                            SerializeServerHello(server_hello));
}

int SnapStartServerSocket::DoReadClientHello(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kClientHelloType, "ClientHello", &message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_CLIENT_HELLO;
  if (rv != OK) return rv;
  absl::StatusOr<ClientHello> hello = ParseClientHello(message.body);
  if (!hello.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, std::string(hello.status().message()),
                kAlertDecodeError);
  }
  if (hello->version < kTls12Version) {
    return Fail(ERR_SSL_VERSION_OR_CIPHER_MISMATCH, "client offers no TLS 1.2",
                kAlertProtocolVersion);
  }
  if (!hello->OffersSuite(kTlsRsaWithAes128GcmSha256) ||
      hello->compression_methods.find('\0') == std::string::npos) {
    return Fail(ERR_SSL_VERSION_OR_CIPHER_MISMATCH,
                "client does not offer TLS_RSA_WITH_AES_128_GCM_SHA256 with "
                "null compression",
                kAlertHandshakeFailure);
  }
  client_hello_ = std::move(*hello);
  client_hello_raw_ = message.raw;
  const absl::Time now = absl::Now();
  const std::string* ticket_ext =
      client_hello_.FindExtension(kSessionTicketExtension);
  if (ticket_ext && !ticket_ext->empty() && context_->config().tickets &&
      !client_hello_.session_id.empty()) {
    resumed_session_ = context_->OpenTicket(*ticket_ext, now);
  }
  send_ticket_ = ticket_ext != nullptr && context_->config().tickets;

  const std::string* snap = client_hello_.FindExtension(kSnapStartExtension);
  if (snap) {
    absl::StatusOr<std::optional<SnapStartAttempt>> attempt =
        ParseSnapStartClientExtension(*snap);
    if (!attempt.ok()) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  std::string(attempt.status().message()), kAlertDecodeError);
    }
    if (attempt->has_value()) {
      std::string reason;
      rv = TrySnapStart(client_hello_, client_hello_raw_, **attempt, &reason);
      if (rv != ERR_FAILED) return rv;  // accepted (or a fatal error)
      ssl_info_.snap_start = "recovered";
      ssl_info_.snap_start_detail = reason;
      context_->counters().snap_start_recovered++;
    } else if (context_->config().orbit) {
      ssl_info_.snap_start = "learned";
    }
  }
  return StartNormalHandshake();
}

// Returns OK (or ERR_IO_PENDING) on acceptance, a fatal error, or ERR_FAILED
// for recovery with |*reason| set.
int SnapStartServerSocket::TrySnapStart(const ClientHello& hello,
                                        const std::string& raw,
                                        const SnapStartAttempt& attempt,
                                        std::string* reason) {
  StrikeRegister* strikes = context_->strike_register();
  if (!strikes) {
    *reason = "no orbit configured";
    return ERR_FAILED;
  }
  if (hello.extensions.back().first != kSnapStartExtension) {
    *reason = "Snap Start extension is not the last extension";
    return ERR_FAILED;
  }
  if (!resumed_session_ && !hello.session_id.empty()) {
    *reason = "full-handshake attempt with a session ID";
    return ERR_FAILED;
  }
  const std::string suggested =
      SuggestedServerRandom(hello.random, attempt.orbit, attempt.random_bytes);
  StrikeRegister::Result strike = strikes->Insert(suggested, absl::Now());
  if (strike != StrikeRegister::Result::kAccepted) {
    *reason = StrikeRegister::ResultToString(strike);
    return ERR_FAILED;
  }
  // The flight this server would send, hashed as the client predicted it.
  const bool resuming = resumed_session_.has_value();
  const std::string sh_raw = BuildServerHello(hello, suggested, resuming);
  Fnv1a64 fnv;
  fnv.Update(sh_raw);
  std::string cert_raw, done_raw;
  if (!resuming) {
    cert_raw = SerializeHandshake(kCertificateType,
                                  SerializeCertificate(context_->chain_der()));
    done_raw = SerializeHandshake(kServerHelloDoneType, "");
    fnv.Update(cert_raw);
    fnv.Update(done_raw);
  }
  if (fnv.Digest() != attempt.predicted_hash) {
    *reason = "misprediction (FNV-1a-64 of the server flight differs)";
    return ERR_FAILED;
  }
  // The ClientHello is hashed as if the extension were absent.
  ClientHello stripped = hello;
  stripped.extensions.pop_back();
  transcript_.Reset();
  transcript_.Update(
      SerializeHandshake(kClientHelloType, SerializeClientHello(stripped)));
  transcript_.Update(sh_raw);
  transcript_.Update(cert_raw);
  transcript_.Update(done_raw);
  server_random_ = suggested;
  int rv = ProcessEmbeddedRecords(attempt, reason);
  if (rv != OK) return rv;
  // Accepted: only [NewSessionTicket], CCS, Finished go out.
  ssl_info_.snap_start = "accepted";
  ssl_info_.resumed = resuming;
  context_->counters().snap_start_accepted++;
  std::string flight;
  if (resuming) {
    flight = SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
    flight += write_cipher()->Seal(kTlsHandshake, expected_server_finished_);
  } else {
    flight = FinalFlight(send_ticket_);
  }
  abbreviated_ = false;
  next_state_ = STATE_SEND_FINISHED_COMPLETE;
  return WriteFlight(std::move(flight));
}

int SnapStartServerSocket::ProcessEmbeddedRecords(
    const SnapStartAttempt& attempt, std::string* reason) {
  RecordBuffer records;
  records.Append(attempt.records);
  auto next = [&records](TlsRecord* out) {
    absl::StatusOr<std::optional<TlsRecord>> r = records.Next();
    if (!r.ok() || !r->has_value()) return false;
    *out = std::move(**r);
    return true;
  };
  TlsRecord record;
  if (resumed_session_) {
    master_secret_ = resumed_session_->master_secret;
  } else {
    // ClientKeyExchange, in plaintext.
    if (!next(&record) || record.type != kTlsHandshake) {
      *reason = "embedded records: no ClientKeyExchange";
      return ERR_FAILED;
    }
    HandshakeBuffer handshake;
    handshake.Append(record.fragment);
    absl::StatusOr<std::optional<HandshakeMessage>> cke = handshake.Next();
    if (!cke.ok() || !cke->has_value() || !handshake.empty() ||
        (*cke)->type != kClientKeyExchangeType) {
      *reason = "embedded records: malformed ClientKeyExchange";
      return ERR_FAILED;
    }
    absl::StatusOr<std::string> encrypted =
        ParseRsaClientKeyExchange((*cke)->body);
    if (!encrypted.ok()) {
      *reason = "embedded records: malformed ClientKeyExchange";
      return ERR_FAILED;
    }
    transcript_.Update((*cke)->raw);
    const std::string premaster =
        RsaDecryptPremaster(context_->private_key(), *encrypted);
    master_secret_ =
        Tls12MasterSecret(premaster, client_hello_.random, server_random_);
  }
  int rv = InstallKeys();
  if (rv != OK) return rv;
  if (resumed_session_) {
    expected_server_finished_ = SerializeHandshake(
        kFinishedType,
        Tls12FinishedVerifyData(master_secret_, true, transcript_.Hash()));
    transcript_.Update(expected_server_finished_);
  }
  if (!next(&record) || record.type != kTlsChangeCipherSpec ||
      record.fragment != "\x01") {
    *reason = "embedded records: no ChangeCipherSpec";
    return ERR_FAILED;
  }
  absl::StatusOr<std::unique_ptr<RecordCipher>> read_cipher =
      RecordCipher::Create(keys_.client_write_key, keys_.client_write_iv);
  if (!read_cipher.ok()) return ERR_UNEXPECTED;
  if (!next(&record) || record.type != kTlsHandshake) {
    *reason = "embedded records: no Finished";
    return ERR_FAILED;
  }
  absl::StatusOr<std::string> finished = (*read_cipher)->Open(record);
  const std::string expected = SerializeHandshake(
      kFinishedType,
      Tls12FinishedVerifyData(master_secret_, false, transcript_.Hash()));
  if (!finished.ok() || finished->size() != expected.size() ||
      CRYPTO_memcmp(finished->data(), expected.data(), expected.size()) != 0) {
    *reason = "embedded client Finished does not verify";
    return ERR_FAILED;
  }
  transcript_.Update(*finished);
  std::string app_data;
  while (next(&record)) {
    absl::StatusOr<std::string> data = (*read_cipher)->Open(record);
    if (record.type != kTlsApplicationData || !data.ok()) {
      *reason = "embedded application data does not authenticate";
      return ERR_FAILED;
    }
    app_data += *data;
  }
  if (!records.empty()) {
    *reason = "embedded records: trailing bytes";
    return ERR_FAILED;
  }
  set_read_cipher(std::move(*read_cipher));
  AppendAppData(app_data);
  return OK;
}

int SnapStartServerSocket::InstallKeys() {
  keys_ = Tls12DeriveKeys(master_secret_, client_hello_.random, server_random_);
  absl::StatusOr<std::unique_ptr<RecordCipher>> cipher =
      RecordCipher::Create(keys_.server_write_key, keys_.server_write_iv);
  if (!cipher.ok()) return ERR_UNEXPECTED;
  set_write_cipher(std::move(*cipher));
  return OK;
}

int SnapStartServerSocket::StartNormalHandshake() {
  // A recovered attempt may have installed keys; start clean.
  set_write_cipher(nullptr);
  set_read_cipher(nullptr);
  server_random_ = NewHelloRandom();
  transcript_.Reset();
  transcript_.Update(client_hello_raw_);
  const bool resuming = resumed_session_.has_value();
  const std::string sh_raw =
      BuildServerHello(client_hello_, server_random_, resuming);
  transcript_.Update(sh_raw);
  std::string flight = SerializeRecord(kTlsHandshake, kRecordVersion, sh_raw);
  if (resuming) {
    abbreviated_ = true;
    ssl_info_.resumed = true;
    master_secret_ = resumed_session_->master_secret;
    int rv = InstallKeys();
    if (rv != OK) return rv;
    const std::string finished_raw = SerializeHandshake(
        kFinishedType,
        Tls12FinishedVerifyData(master_secret_, true, transcript_.Hash()));
    transcript_.Update(finished_raw);
    flight += SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
    flight += write_cipher()->Seal(kTlsHandshake, finished_raw);
  } else {
    const std::string cert_raw = SerializeHandshake(
        kCertificateType, SerializeCertificate(context_->chain_der()));
    const std::string done_raw = SerializeHandshake(kServerHelloDoneType, "");
    transcript_.Update(cert_raw);
    transcript_.Update(done_raw);
    flight += SerializeHandshakeRecords(cert_raw + done_raw);
  }
  next_state_ = STATE_SEND_FLIGHT_COMPLETE;
  return WriteFlight(std::move(flight));
}

int SnapStartServerSocket::DoSendFlightComplete(int result) {
  if (result != OK) return result;
  next_state_ =
      abbreviated_ ? STATE_READ_CLIENT_CCS : STATE_READ_CLIENT_KEY_EXCHANGE;
  return OK;
}

int SnapStartServerSocket::DoReadClientKeyExchange(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessageOfType(kClientKeyExchangeType,
                                      "ClientKeyExchange", &message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_CLIENT_KEY_EXCHANGE;
  if (rv != OK) return rv;
  absl::StatusOr<std::string> encrypted =
      ParseRsaClientKeyExchange(message.body);
  if (!encrypted.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                std::string(encrypted.status().message()), kAlertDecodeError);
  }
  transcript_.Update(message.raw);
  const std::string premaster =
      RsaDecryptPremaster(context_->private_key(), *encrypted);
  master_secret_ =
      Tls12MasterSecret(premaster, client_hello_.random, server_random_);
  rv = InstallKeys();
  if (rv != OK) return rv;
  next_state_ = STATE_READ_CLIENT_CCS;
  return OK;
}

int SnapStartServerSocket::DoReadClientCcs(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  bool is_ccs = false;
  int rv = ReadHandshakeOrCcs(&message, &is_ccs);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_CLIENT_CCS;
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
  absl::StatusOr<std::unique_ptr<RecordCipher>> cipher =
      RecordCipher::Create(keys_.client_write_key, keys_.client_write_iv);
  if (!cipher.ok()) return ERR_UNEXPECTED;
  set_read_cipher(std::move(*cipher));
  next_state_ = STATE_READ_CLIENT_FINISHED;
  return OK;
}

int SnapStartServerSocket::DoReadClientFinished(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_CLIENT_FINISHED;
  if (rv != OK) return rv;
  const std::string expected = SerializeHandshake(
      kFinishedType,
      Tls12FinishedVerifyData(master_secret_, false, transcript_.Hash()));
  if (message.type != kFinishedType || message.raw.size() != expected.size() ||
      CRYPTO_memcmp(message.raw.data(), expected.data(), expected.size()) !=
          0) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, "client Finished does not verify",
                kAlertDecryptError);
  }
  transcript_.Update(message.raw);
  if (abbreviated_) return DoSendFinishedComplete(OK);
  next_state_ = STATE_SEND_FINISHED_COMPLETE;
  return WriteFlight(FinalFlight(send_ticket_));
}

std::string SnapStartServerSocket::FinalFlight(bool with_ticket) {
  std::string flight;
  if (with_ticket) {
    Tls12ServerSession session;
    session.master_secret = master_secret_;
    session.cipher_suite = kTlsRsaWithAes128GcmSha256;
    NewSessionTicket ticket;
    ticket.lifetime_hint = kTicketLifetimeHint;
    ticket.ticket = context_->SealTicket(session, absl::Now());
    const std::string ticket_raw = SerializeHandshake(
        kNewSessionTicketType, SerializeNewSessionTicket(ticket));
    transcript_.Update(ticket_raw);
    flight += SerializeRecord(kTlsHandshake, kRecordVersion, ticket_raw);
  }
  flight += SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
  const std::string finished_raw = SerializeHandshake(
      kFinishedType,
      Tls12FinishedVerifyData(master_secret_, true, transcript_.Hash()));
  transcript_.Update(finished_raw);
  flight += write_cipher()->Seal(kTlsHandshake, finished_raw);
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
