#include "tools/testserver/channel_bound_cookie.h"

#include <openssl/hmac.h>
#include <openssl/mem.h>
#include <openssl/rand.h>

#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace net {
namespace {

constexpr size_t kRandomBytes = 16;
constexpr size_t kSpkiBytes = 32;
constexpr size_t kMacBytes = 32;
constexpr char kContext[] = "obc1";

}  // namespace

ChannelBoundCookies::ChannelBoundCookies() : secret_(32, '\0') {
  RAND_bytes(reinterpret_cast<uint8_t*>(secret_.data()), secret_.size());
}

ChannelBoundCookies::ChannelBoundCookies(std::string secret)
    : secret_(std::move(secret)) {}

std::string ChannelBoundCookies::Mac(absl::string_view random,
                                     absl::string_view spki) const {
  std::string message =
      std::string(kContext) + std::string(random) + std::string(spki);
  uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned mac_len = 0;
  HMAC(EVP_sha256(), secret_.data(), secret_.size(),
       reinterpret_cast<const uint8_t*>(message.data()), message.size(), mac,
       &mac_len);
  return std::string(reinterpret_cast<const char*>(mac), mac_len);
}

std::string ChannelBoundCookies::Issue(absl::string_view spki_sha256) const {
  std::string random(kRandomBytes, '\0');
  RAND_bytes(reinterpret_cast<uint8_t*>(random.data()), random.size());
  std::string raw =
      random + std::string(spki_sha256) + Mac(random, spki_sha256);
  return absl::WebSafeBase64Escape(raw);
}

absl::StatusOr<std::string> ChannelBoundCookies::Verify(
    absl::string_view token) const {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(token, &raw) ||
      raw.size() != kRandomBytes + kSpkiBytes + kMacBytes)
    return absl::InvalidArgumentError("malformed channel-bound cookie");
  absl::string_view view(raw);
  absl::string_view random = view.substr(0, kRandomBytes);
  absl::string_view spki = view.substr(kRandomBytes, kSpkiBytes);
  absl::string_view mac = view.substr(kRandomBytes + kSpkiBytes);
  std::string expected = Mac(random, spki);
  if (CRYPTO_memcmp(expected.data(), mac.data(), kMacBytes) != 0)
    return absl::InvalidArgumentError(
        "channel-bound cookie not issued by this server (or it restarted)");
  return std::string(spki);
}

std::optional<std::string> FindCookie(absl::string_view cookie_header,
                                      absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(cookie_header, ';')) {
    pair = absl::StripAsciiWhitespace(pair);
    size_t eq = pair.find('=');
    if (eq == absl::string_view::npos) continue;
    if (absl::StripAsciiWhitespace(pair.substr(0, eq)) == name)
      return std::string(absl::StripAsciiWhitespace(pair.substr(eq + 1)));
  }
  return std::nullopt;
}

std::string HexEncode(absl::string_view bytes) {
  return absl::BytesToHexString(bytes);
}

}  // namespace net
