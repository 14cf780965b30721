#include "net/snap_start/snap_start_server_context.h"

#include <openssl/aead.h>
#include <openssl/bytestring.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_record.h"

namespace net {
namespace {

constexpr size_t kTicketNonceSize = 12;
constexpr absl::Duration kTicketLifetime = absl::Hours(24);

}  // namespace

SnapStartServerContext::SnapStartServerContext(
    const SnapStartServerConfig& config, const WallClock* clock,
    const TickClock* tick_clock)
    : config_(config),
      clock_(clock ? clock : SystemWallClock::GetInstance()),
      tick_clock_(tick_clock ? tick_clock : DefaultTickClock::GetInstance()) {}

SnapStartServerContext::~SnapStartServerContext() {
  if (key_) EVP_PKEY_free(key_);
}

absl::StatusOr<std::unique_ptr<SnapStartServerContext>>
SnapStartServerContext::Create(const SnapStartServerConfig& config,
                               const WallClock* clock,
                               const TickClock* tick_clock) {
  std::unique_ptr<SnapStartServerContext> context(
      new SnapStartServerContext(config, clock, tick_clock));
  const absl::Time now = context->clock()->Now();
  FILE* f = fopen(config.cert_chain_file.c_str(), "r");
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open certificate chain ", config.cert_chain_file));
  }
  while (X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr)) {
    uint8_t* der = nullptr;
    int len = i2d_X509(cert, &der);
    if (len > 0) {
      context->chain_der_.emplace_back(reinterpret_cast<char*>(der), len);
      OPENSSL_free(der);
    }
    X509_free(cert);
  }
  fclose(f);
  ERR_clear_error();
  if (context->chain_der_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no certificate in ", config.cert_chain_file));
  }
  f = fopen(config.key_file.c_str(), "r");
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open key ", config.key_file));
  }
  context->key_ = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  fclose(f);
  if (!context->key_ || EVP_PKEY_id(context->key_) != EVP_PKEY_RSA) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Snap Start needs static-RSA key exchange: ", config.key_file,
        " is not an RSA private key"));
  }
  // The key must match the leaf.
  const uint8_t* p =
      reinterpret_cast<const uint8_t*>(context->chain_der_[0].data());
  X509* leaf = d2i_X509(nullptr, &p, context->chain_der_[0].size());
  const bool match = leaf && X509_check_private_key(leaf, context->key_);
  X509_free(leaf);
  ERR_clear_error();
  if (!match) {
    return absl::InvalidArgumentError(
        "the private key does not match the leaf certificate");
  }
  if (config.orbit) {
    StrikeRegisterConfig strike;
    strike.orbit = *config.orbit;
    strike.window = config.window;
    strike.max_entries = config.strike_max_entries;
    strike.state_file = config.strike_state_file;
    absl::StatusOr<std::unique_ptr<StrikeRegister>> reg =
        StrikeRegister::Create(strike, now);
    if (!reg.ok()) return reg.status();
    context->strike_register_ = std::move(*reg);
  }
  context->ticket_key_name_ = RandomBytes(16);
  context->ticket_key_ = RandomBytes(16);
  return context;
}

std::string SnapStartServerContext::SealTicket(
    const Tls12ServerSession& session, absl::Time now) {
  EVP_AEAD_CTX ctx;
  EVP_AEAD_CTX_init(&ctx, EVP_aead_aes_128_gcm(),
                    reinterpret_cast<const uint8_t*>(ticket_key_.data()),
                    ticket_key_.size(), EVP_AEAD_DEFAULT_TAG_LENGTH, nullptr);
  std::string plaintext = session.master_secret;
  plaintext.push_back(static_cast<char>(session.cipher_suite >> 8));
  plaintext.push_back(static_cast<char>(session.cipher_suite & 0xff));
  plaintext.push_back(session.extended_master_secret ? 1 : 0);
  const int64_t issued = absl::ToUnixSeconds(now);
  for (int i = 0; i < 8; ++i)
    plaintext.push_back(static_cast<char>(issued >> (56 - 8 * i)));
  const std::string nonce = RandomBytes(kTicketNonceSize);
  std::string sealed(
      plaintext.size() + EVP_AEAD_max_overhead(EVP_aead_aes_128_gcm()), '\0');
  size_t sealed_len = 0;
  EVP_AEAD_CTX_seal(
      &ctx, reinterpret_cast<uint8_t*>(sealed.data()), &sealed_len,
      sealed.size(), reinterpret_cast<const uint8_t*>(nonce.data()),
      nonce.size(), reinterpret_cast<const uint8_t*>(plaintext.data()),
      plaintext.size(),
      reinterpret_cast<const uint8_t*>(ticket_key_name_.data()),
      ticket_key_name_.size());
  EVP_AEAD_CTX_cleanup(&ctx);
  sealed.resize(sealed_len);
  counters_.tickets_issued++;
  return absl::StrCat(ticket_key_name_, nonce, sealed);
}

std::optional<Tls12ServerSession> SnapStartServerContext::OpenTicket(
    absl::string_view ticket, absl::Time now) const {
  if (ticket.size() < 16 + kTicketNonceSize ||
      ticket.substr(0, 16) != ticket_key_name_) {
    return std::nullopt;
  }
  absl::string_view nonce = ticket.substr(16, kTicketNonceSize);
  absl::string_view sealed = ticket.substr(16 + kTicketNonceSize);
  EVP_AEAD_CTX ctx;
  EVP_AEAD_CTX_init(&ctx, EVP_aead_aes_128_gcm(),
                    reinterpret_cast<const uint8_t*>(ticket_key_.data()),
                    ticket_key_.size(), EVP_AEAD_DEFAULT_TAG_LENGTH, nullptr);
  std::string plaintext(sealed.size(), '\0');
  size_t len = 0;
  const bool ok = EVP_AEAD_CTX_open(
      &ctx, reinterpret_cast<uint8_t*>(plaintext.data()), &len,
      plaintext.size(), reinterpret_cast<const uint8_t*>(nonce.data()),
      nonce.size(), reinterpret_cast<const uint8_t*>(sealed.data()),
      sealed.size(), reinterpret_cast<const uint8_t*>(ticket_key_name_.data()),
      ticket_key_name_.size());
  EVP_AEAD_CTX_cleanup(&ctx);
  ERR_clear_error();
  // master secret (48), suite (2), extended master secret flag (1), issue
  // time (8).
  if (!ok || len != kMasterSecretSize + 2 + 1 + 8) return std::nullopt;
  Tls12ServerSession session;
  session.master_secret = plaintext.substr(0, kMasterSecretSize);
  session.cipher_suite =
      static_cast<uint16_t>((static_cast<uint8_t>(plaintext[48]) << 8) |
                            static_cast<uint8_t>(plaintext[49]));
  if (static_cast<uint8_t>(plaintext[50]) > 1) return std::nullopt;
  session.extended_master_secret = plaintext[50] == 1;
  int64_t issued = 0;
  for (int i = 0; i < 8; ++i)
    issued = (issued << 8) | static_cast<uint8_t>(plaintext[51 + i]);
  const int64_t age = absl::ToUnixSeconds(now) - issued;
  if (age < 0 || age > absl::ToInt64Seconds(kTicketLifetime)) {
    return std::nullopt;
  }
  return session;
}

SnapStartServerContext::Route SnapStartServerContext::ClassifyClientHello(
    absl::string_view bytes) {
  RecordBuffer records;
  records.Append(bytes);
  HandshakeBuffer handshake;
  while (true) {
    absl::StatusOr<std::optional<HandshakeMessage>> message = handshake.Next();
    if (!message.ok()) return Route::kOther;
    if (message->has_value()) {
      const HandshakeMessage& hello_message = **message;
      if (hello_message.type != kClientHelloType) return Route::kOther;
      absl::StatusOr<ClientHello> hello = ParseClientHello(hello_message.body);
      if (!hello.ok() || !hello->FindExtension(kSnapStartExtension) ||
          !hello->OffersSuite(kTlsRsaWithAes128GcmSha256) ||
          hello->compression_methods.find('\0') == std::string::npos ||
          hello->version < kTls12Version) {
        return Route::kOther;
      }
      return Route::kSnapStartCore;
    }
    absl::StatusOr<std::optional<TlsRecord>> record = records.Next();
    if (!record.ok()) return Route::kOther;
    if (!record->has_value()) return Route::kNeedMoreData;
    if ((*record)->type != kTlsHandshake) return Route::kOther;
    handshake.Append((*record)->fragment);
  }
}

}  // namespace net
