// ObcScope: the set of origins that share one origin-bound certificate, and
// the rules that map an origin (or a URL) to it.
//
//   origin mode:  (scheme, host, port)   key "https://foo.example.test:443"
//   eTLD+1 mode:  the registrable domain  key "example.test"
//
// eTLD+1 comes from the Public Suffix List through libpsl (Debian's list in
// /usr/share/publicsuffix, private registries included: foo.github.io and
// bar.github.io are different scopes). A TLD the list does not name, such as
// .test, is a public suffix by the list's implicit "*" rule, so
// foo.example.test and bar.example.test share "example.test". eTLD+1 scopes
// ignore scheme and port, as cookies do. A host that is itself a public suffix
// (github.io, localhost) is its own scope. IP literals, and hosts whose last
// label is numeric, have no registrable domain: they always get an origin
// scope, whatever mode was asked for.
//
// Values; thread-safe (libpsl's list is loaded once and never freed).

#ifndef CERT_OBC_OBC_SCOPE_H_
#define CERT_OBC_OBC_SCOPE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cert/obc/obc_types.h"
#include "net/base/registry_controlled_domain.h"
#include "net/base/url.h"

namespace net {

class ObcScope {
 public:
  // An empty scope (empty key); no origin maps to it.
  ObcScope() = default;

  // ForOrigin returns |origin|'s scope under |mode|. Fails with
  // InvalidArgument on an empty or malformed host, a zero port or a bad
  // scheme.
  [[nodiscard]] static absl::StatusOr<ObcScope> ForOrigin(const Origin& origin,
                                                          ScopeMode mode);
  // ForInput accepts a URL ("https://h[:p]/path"), a serialized origin, or
  // "host[:port]" (https assumed), and returns its scope under |mode|.
  [[nodiscard]] static absl::StatusOr<ObcScope> ForInput(
      absl::string_view input, ScopeMode mode);
  // FromStorage rebuilds a scope from mode() and key() as persisted. It checks
  // the syntax only, not the Public Suffix List, so a list update never makes
  // a stored profile unreadable.
  [[nodiscard]] static absl::StatusOr<ObcScope> FromStorage(
      ScopeMode mode, absl::string_view key);

  // mode is the mode the scope is in: kOrigin for IP literals even when
  // kRegistrableDomain was asked for.
  ScopeMode mode() const { return mode_; }
  // key is "scheme://host:port" (explicit port, IPv6 in brackets) in origin
  // mode, the registrable domain in eTLD+1 mode.
  const std::string& key() const { return key_; }
  // ToString is "origin:<key>" or "etld:<key>": unique across modes, the
  // store's map key.
  std::string ToString() const;

  bool operator==(const ObcScope& o) const {
    return mode_ == o.mode_ && key_ == o.key_;
  }
  bool operator!=(const ObcScope& o) const { return !(*this == o); }
  bool operator<(const ObcScope& o) const {
    return mode_ != o.mode_ ? mode_ < o.mode_ : key_ < o.key_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const ObcScope& s) {
    return H::combine(std::move(h), s.mode_, s.key_);
  }

 private:
  ObcScope(ScopeMode mode, std::string key)
      : mode_(mode), key_(std::move(key)) {}
  ScopeMode mode_ = ScopeMode::kOrigin;
  std::string key_;
};

}  // namespace net

#endif  // CERT_OBC_OBC_SCOPE_H_
