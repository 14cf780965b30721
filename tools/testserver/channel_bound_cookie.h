// ChannelBoundCookies: the test server's session cookies bound to the
// client's origin-bound certificate (the TLS-OBC paper's channel-bound
// cookies). A token is stateless:
//
//   base64url( random[16] || spki_sha256[32] || HMAC-SHA256(secret, "obc1" ||
//              random || spki_sha256)[32] )
//
// so the server needs no table, recognises its own tokens, and can say
// which OBC a token is bound to. The secret is random per server process:
// tokens do not survive a restart (Verify then says they are invalid).
//
// Owned by the TestServer; immutable after construction, so any thread may
// use it.

#ifndef TOOLS_TESTSERVER_CHANNEL_BOUND_COOKIE_H_
#define TOOLS_TESTSERVER_CHANNEL_BOUND_COOKIE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

class ChannelBoundCookies {
 public:
  static constexpr char kCookieName[] = "obc_session";

  // A fresh random 32-byte secret.
  ChannelBoundCookies();
  // A given secret (tests).
  explicit ChannelBoundCookies(std::string secret);

  // Issue returns a new token bound to |spki_sha256| (the 32-byte SHA-256
  // of the client certificate's SubjectPublicKeyInfo).
  std::string Issue(absl::string_view spki_sha256) const;

  // Verify returns the SPKI hash |token| is bound to, or InvalidArgument if
  // it is malformed or was not issued with this secret.
  [[nodiscard]] absl::StatusOr<std::string> Verify(
      absl::string_view token) const;

 private:
  std::string Mac(absl::string_view random, absl::string_view spki) const;

  std::string secret_;
};

// FindCookie returns the value of the first cookie named |name| in a Cookie
// request header value ("a=1; b=2"), or nullopt.
std::optional<std::string> FindCookie(absl::string_view cookie_header,
                                      absl::string_view name);

// HexEncode returns lower-case hex.
std::string HexEncode(absl::string_view bytes);

}  // namespace net

#endif  // TOOLS_TESTSERVER_CHANNEL_BOUND_COOKIE_H_
