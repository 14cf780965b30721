#include "net/snap_start/tls12_test_util.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "net/base/ip_endpoint.h"
#include "net/snap_start/tls12_handshake.h"

namespace net {

// ---------------------------------------------------------------------------
// FakeTransport

void FakeTransport::Wire::Feed(absl::string_view bytes) {
  incoming_.append(bytes.data(), bytes.size());
  CompleteRead();
}

void FakeTransport::Wire::FeedEof() {
  eof_ = true;
  CompleteRead();
}

std::string FakeTransport::Wire::TakeWritten() {
  std::string out;
  out.swap(written_);
  return out;
}

void FakeTransport::Wire::CompleteRead() {
  if (!read_callback_ || (incoming_.empty() && !eof_)) return;
  const int n = static_cast<int>(
      std::min<size_t>(incoming_.size(), static_cast<size_t>(read_len_)));
  memcpy(read_buf_->data(), incoming_.data(), n);
  incoming_.erase(0, n);
  CompletionOnceCallback callback = std::move(read_callback_);
  read_callback_ = nullptr;
  read_buf_.reset();
  std::move(callback)(n);
}

FakeTransport::FakeTransport(std::shared_ptr<Wire> wire)
    : wire_(std::move(wire)) {}

FakeTransport::~FakeTransport() {
  // A pending Read dies with the socket: its callback never runs.
  wire_->read_callback_ = nullptr;
  wire_->read_buf_.reset();
}

int FakeTransport::Read(std::shared_ptr<IOBuffer> buf, int len,
                        CompletionOnceCallback callback) {
  if (wire_->disconnected_) return ERR_SOCKET_NOT_CONNECTED;
  if (!wire_->incoming_.empty()) {
    const int n = static_cast<int>(
        std::min<size_t>(wire_->incoming_.size(), static_cast<size_t>(len)));
    memcpy(buf->data(), wire_->incoming_.data(), n);
    wire_->incoming_.erase(0, n);
    return n;
  }
  if (wire_->eof_) return 0;
  wire_->read_buf_ = std::move(buf);
  wire_->read_len_ = len;
  wire_->read_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int FakeTransport::Write(std::shared_ptr<IOBuffer> buf, int len,
                         CompletionOnceCallback callback) {
  if (wire_->disconnected_) return ERR_SOCKET_NOT_CONNECTED;
  wire_->written_.append(buf->data(), len);
  return len;
}

void FakeTransport::Disconnect() {
  wire_->disconnected_ = true;
  wire_->read_callback_ = nullptr;
  wire_->read_buf_.reset();
}

int FakeTransport::GetPeerAddress(IPEndPoint* address) const {
  *address = IPEndPoint(IPAddress::IPv4Localhost(), 443);
  return OK;
}

int FakeTransport::GetLocalAddress(IPEndPoint* address) const {
  *address = IPEndPoint(IPAddress::IPv4Localhost(), 50000);
  return OK;
}

// ---------------------------------------------------------------------------
// Helpers

absl::StatusOr<std::vector<TlsRecord>> ParseRecords(absl::string_view bytes) {
  RecordBuffer buffer;
  buffer.Append(bytes);
  std::vector<TlsRecord> out;
  for (;;) {
    absl::StatusOr<std::optional<TlsRecord>> record = buffer.Next();
    if (!record.ok()) return record.status();
    if (!record->has_value()) break;
    out.push_back(std::move(**record));
  }
  if (!buffer.empty()) return absl::InvalidArgumentError("truncated record");
  return out;
}

std::string PlaintextAlert(TlsAlert description) {
  const char body[2] = {static_cast<char>(kAlertLevelFatal),
                        static_cast<char>(description)};
  return SerializeRecord(kTlsAlert, kRecordVersion, absl::string_view(body, 2));
}

std::vector<std::string> ReadPemChain(const std::string& path) {
  std::vector<std::string> out;
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return out;
  while (X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr)) {
    uint8_t* der = nullptr;
    int len = i2d_X509(cert, &der);
    if (len > 0) out.emplace_back(reinterpret_cast<char*>(der), len);
    OPENSSL_free(der);
    X509_free(cert);
  }
  fclose(f);
  ERR_clear_error();
  return out;
}

std::string RawRsaEncrypt(absl::string_view leaf_der, absl::string_view block) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(leaf_der.data());
  X509* cert = d2i_X509(nullptr, &p, static_cast<long>(leaf_der.size()));
  EVP_PKEY* key = cert ? X509_get_pubkey(cert) : nullptr;
  RSA* rsa = key ? EVP_PKEY_get0_RSA(key) : nullptr;
  std::string out(rsa ? RSA_size(rsa) : 0, '\0');
  size_t out_len = 0;
  if (!rsa ||
      !RSA_encrypt(rsa, &out_len, reinterpret_cast<uint8_t*>(out.data()),
                   out.size(), reinterpret_cast<const uint8_t*>(block.data()),
                   block.size(), RSA_NO_PADDING)) {
    out.clear();
  }
  EVP_PKEY_free(key);
  X509_free(cert);
  ERR_clear_error();
  return out;
}

std::string Pkcs1Block(size_t modulus_len, absl::string_view message) {
  std::string block(modulus_len, '\0');
  block[1] = 2;
  const size_t padding_end = modulus_len - message.size() - 1;
  for (size_t i = 2; i < padding_end; ++i) {
    uint8_t b = 0;
    while (b == 0) RAND_bytes(&b, 1);
    block[i] = static_cast<char>(b);
  }
  block[padding_end] = 0;
  block.replace(padding_end + 1, message.size(), message.data(),
                message.size());
  return block;
}

namespace {

// A flight as read off the wire: its records, and the handshake messages of
// its leading plaintext handshake records; |next| is the first record after
// them.
struct Flight {
  std::vector<TlsRecord> records;
  std::vector<HandshakeMessage> messages;
  size_t next = 0;
};

absl::StatusOr<Flight> ReadFlight(absl::string_view bytes) {
  absl::StatusOr<std::vector<TlsRecord>> records = ParseRecords(bytes);
  if (!records.ok()) return records.status();
  Flight flight;
  flight.records = std::move(*records);
  HandshakeBuffer buffer;
  while (flight.next < flight.records.size() &&
         flight.records[flight.next].type == kTlsHandshake) {
    buffer.Append(flight.records[flight.next].fragment);
    ++flight.next;
    for (;;) {
      absl::StatusOr<std::optional<HandshakeMessage>> message = buffer.Next();
      if (!message.ok() || !message->has_value()) break;
      flight.messages.push_back(std::move(**message));
    }
  }
  return flight;
}

}  // namespace

// ---------------------------------------------------------------------------
// ScriptedClient

ScriptedClient::ScriptedClient()
    : ScriptedClient(NewClientHello("www.example.test",
                                    NewHelloRandom(absl::Now()), std::string(),
                                    std::string())) {}

ScriptedClient::ScriptedClient(ClientHello hello) : hello_(std::move(hello)) {}

void ScriptedClient::OfferSession(std::string ticket,
                                  std::string master_secret) {
  hello_.session_id = RandomBytes(32);
  for (Extension& ext : hello_.extensions) {
    if (ext.first == kSessionTicketExtension) ext.second = ticket;
  }
  session_master_secret_ = std::move(master_secret);
}

std::string ScriptedClient::ClientHelloRecords() {
  const std::string raw =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello_));
  transcript_.Update(raw);
  return SerializeHandshakeRecords(raw);
}

void ScriptedClient::InstallKeys() {
  Tls12KeyBlock keys =
      Tls12DeriveKeys(master_secret_, hello_.random, server_hello_.random);
  pending_write_ = std::move(
      *RecordCipher::Create(keys.client_write_key, keys.client_write_iv));
  pending_read_ = std::move(
      *RecordCipher::Create(keys.server_write_key, keys.server_write_iv));
}

bool ScriptedClient::Failed(std::string why) {
  why_ = std::move(why);
  return false;
}

bool ScriptedClient::CheckServerFinished(const TlsRecord& record) {
  read_ = std::move(pending_read_);
  absl::StatusOr<std::string> finished = read_->Open(record);
  const std::string expected =
      Tls12FinishedMessage(master_secret_, true, transcript_.Hash());
  if (!finished.ok() || !FinishedMatches(*finished, expected)) {
    return Failed("server Finished does not verify");
  }
  transcript_.Update(*finished);
  return true;
}

bool ScriptedClient::ReadServerFlight(absl::string_view bytes) {
  absl::StatusOr<Flight> flight = ReadFlight(bytes);
  if (!flight.ok()) return Failed(std::string(flight.status().message()));
  const std::vector<HandshakeMessage>& messages = flight->messages;
  absl::StatusOr<ServerHello> hello =
      !messages.empty() && messages[0].type == kServerHelloType
          ? ParseServerHello(messages[0].body)
          : absl::InvalidArgumentError(
                absl::StrCat("no ServerHello in ", absl::CEscape(bytes)));
  if (!hello.ok()) return Failed(std::string(hello.status().message()));
  server_hello_ = *hello;
  transcript_.Update(messages[0].raw);
  ems_ = hello->FindExtension(kExtendedMasterSecretExtension) != nullptr;
  resumed_ = !hello_.session_id.empty() &&
             hello->session_id == hello_.session_id &&
             !session_master_secret_.empty();
  const size_t next = flight->next;
  if (resumed_) {
    // ServerHello, CCS, Finished.
    master_secret_ = session_master_secret_;
    InstallKeys();
    if (messages.size() != 1 || next + 2 != flight->records.size() ||
        flight->records[next].type != kTlsChangeCipherSpec) {
      return Failed("resumption: expected ServerHello, CCS, Finished");
    }
    return CheckServerFinished(flight->records[next + 1]);
  }
  if (messages.size() != 3 || next != flight->records.size() ||
      messages[1].type != kCertificateType ||
      messages[2].type != kServerHelloDoneType) {
    return Failed("expected ServerHello, Certificate, ServerHelloDone");
  }
  absl::StatusOr<std::vector<std::string>> chain =
      ParseCertificate(messages[1].body);
  if (!chain.ok() || chain->empty()) return Failed("bad Certificate");
  chain_ = std::move(*chain);
  transcript_.Update(messages[1].raw);
  transcript_.Update(messages[2].raw);
  return true;
}

std::string ScriptedClient::NewPremaster() const {
  return NewPremasterSecret(hello_.version);
}

std::string ScriptedClient::ClientKeyExchange(
    const std::string& premaster, std::optional<std::string> encrypted) {
  if (!encrypted) encrypted = *RsaEncryptPremaster(chain_[0], premaster);
  const std::string raw = SerializeHandshake(
      kClientKeyExchangeType, SerializeRsaClientKeyExchange(*encrypted));
  transcript_.Update(raw);
  master_secret_ =
      ems_ ? Tls12ExtendedMasterSecret(premaster, transcript_.Hash())
           : Tls12MasterSecret(premaster, hello_.random, server_hello_.random);
  InstallKeys();
  return SerializeRecord(kTlsHandshake, kRecordVersion, raw);
}

std::string ScriptedClient::ChangeCipherSpec() {
  write_ = std::move(pending_write_);
  return SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
}

std::string ScriptedClient::Finished(bool corrupt) {
  std::string finished =
      Tls12FinishedMessage(master_secret_, false, transcript_.Hash());
  if (corrupt) {
    finished.back() ^= 1;
  } else {
    transcript_.Update(finished);
  }
  // Sealed under the new keys even when the test skipped the CCS.
  RecordCipher* cipher = write_ ? write_.get() : pending_write_.get();
  return cipher->Seal(kTlsHandshake, finished);
}

std::string ScriptedClient::Seal(uint8_t type, absl::string_view plaintext) {
  return write_->Seal(type, plaintext);
}

bool ScriptedClient::ReadServerFinish(absl::string_view bytes) {
  absl::StatusOr<Flight> flight = ReadFlight(bytes);
  if (!flight.ok()) return Failed(std::string(flight.status().message()));
  for (const HandshakeMessage& message : flight->messages) {
    absl::StatusOr<NewSessionTicket> ticket =
        message.type == kNewSessionTicketType
            ? ParseNewSessionTicket(message.body)
            : absl::InvalidArgumentError("not a NewSessionTicket");
    if (!ticket.ok()) return Failed("bad message before the server's CCS");
    ticket_ = ticket->ticket;
    transcript_.Update(message.raw);
  }
  const size_t next = flight->next;
  if (next + 2 != flight->records.size() ||
      flight->records[next].type != kTlsChangeCipherSpec) {
    return Failed(
        absl::StrCat("expected CCS, Finished in ", absl::CEscape(bytes)));
  }
  return CheckServerFinished(flight->records[next + 1]);
}

absl::StatusOr<std::string> ScriptedClient::Open(const TlsRecord& record) {
  if (!read_) return absl::FailedPreconditionError("no read keys");
  return read_->Open(record);
}

// ---------------------------------------------------------------------------
// ScriptedServer

ScriptedServer::ScriptedServer(const std::string& chain_file,
                               const std::string& key_file)
    : chain_(ReadPemChain(chain_file)) {
  FILE* f = fopen(key_file.c_str(), "r");
  if (f) {
    key_ = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
    fclose(f);
  }
}

ScriptedServer::~ScriptedServer() { EVP_PKEY_free(key_); }

bool ScriptedServer::ReadClientHello(absl::string_view bytes) {
  absl::StatusOr<Flight> flight = ReadFlight(bytes);
  absl::StatusOr<ClientHello> hello =
      flight.ok() && flight->messages.size() == 1 &&
              flight->messages[0].type == kClientHelloType
          ? ParseClientHello(flight->messages[0].body)
          : absl::InvalidArgumentError("expected one ClientHello");
  if (!hello.ok()) {
    why_ = std::string(hello.status().message());
    return false;
  }
  client_hello_ = *hello;
  transcript_.Update(flight->messages[0].raw);
  return true;
}

std::string ScriptedServer::ServerFlight(std::vector<Extension> extra,
                                         bool echo_ems) {
  server_random_ = NewHelloRandom(absl::Now());
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = server_random_;
  hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.has_extensions = true;
  hello.extensions.emplace_back(kRenegotiationInfoExtension,
                                std::string(1, '\0'));
  ems_ =
      echo_ems && client_hello_.FindExtension(kExtendedMasterSecretExtension);
  if (ems_) {
    hello.extensions.emplace_back(kExtendedMasterSecretExtension, "");
  }
  for (Extension& ext : extra) hello.extensions.push_back(std::move(ext));
  const std::string messages = absl::StrCat(
      SerializeHandshake(kServerHelloType, SerializeServerHello(hello)),
      SerializeHandshake(kCertificateType, SerializeCertificate(chain_)),
      SerializeHandshake(kServerHelloDoneType, ""));
  transcript_.Update(messages);
  return SerializeHandshakeRecords(messages);
}

bool ScriptedServer::ReadClientFlight(absl::string_view bytes) {
  absl::StatusOr<Flight> flight = ReadFlight(bytes);
  const bool shape = flight.ok() && flight->messages.size() == 1 &&
                     flight->messages[0].type == kClientKeyExchangeType &&
                     flight->next + 2 == flight->records.size() &&
                     flight->records[flight->next].type == kTlsChangeCipherSpec;
  absl::StatusOr<std::string> encrypted =
      shape ? ParseRsaClientKeyExchange(flight->messages[0].body)
            : absl::InvalidArgumentError("not CKE, CCS, Finished");
  if (!encrypted.ok()) {
    why_ = "expected ClientKeyExchange, CCS, Finished";
    return false;
  }
  transcript_.Update(flight->messages[0].raw);
  const std::string premaster =
      RsaDecryptPremaster(key_, *encrypted, client_hello_.version);
  master_secret_ =
      ems_ ? Tls12ExtendedMasterSecret(premaster, transcript_.Hash())
           : Tls12MasterSecret(premaster, client_hello_.random, server_random_);
  Tls12KeyBlock keys =
      Tls12DeriveKeys(master_secret_, client_hello_.random, server_random_);
  write_ = std::move(
      *RecordCipher::Create(keys.server_write_key, keys.server_write_iv));
  read_ = std::move(
      *RecordCipher::Create(keys.client_write_key, keys.client_write_iv));
  absl::StatusOr<std::string> finished =
      read_->Open(flight->records[flight->next + 1]);
  if (!finished.ok() ||
      !FinishedMatches(*finished, Tls12FinishedMessage(master_secret_, false,
                                                       transcript_.Hash()))) {
    why_ = "client Finished does not verify";
    return false;
  }
  transcript_.Update(*finished);
  return true;
}

std::string ScriptedServer::Finish() {
  const std::string finished =
      Tls12FinishedMessage(master_secret_, true, transcript_.Hash());
  transcript_.Update(finished);
  return absl::StrCat(
      SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01"),
      write_->Seal(kTlsHandshake, finished));
}

std::string ScriptedServer::Seal(uint8_t type, absl::string_view plaintext) {
  return write_->Seal(type, plaintext);
}

absl::StatusOr<std::string> ScriptedServer::Open(const TlsRecord& record) {
  if (!read_) return absl::FailedPreconditionError("no read keys");
  return read_->Open(record);
}

}  // namespace net
