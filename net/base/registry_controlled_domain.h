// Registry-controlled domains: a host's eTLD+1 ("registrable domain") by the
// Public Suffix List, through libpsl (Debian's list in /usr/share/publicsuffix,
// private registries included). Cookies (net/http) and origin-bound
// certificate scopes (cert/obc) both need it, so it lives here, below both, as
// Chromium's net/base/registry_controlled_domains does.
//
// Free functions; thread-safe (libpsl's list is loaded once and never freed).

#ifndef NET_BASE_REGISTRY_CONTROLLED_DOMAIN_H_
#define NET_BASE_REGISTRY_CONTROLLED_DOMAIN_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace net {

// RegistrableDomain returns |host|'s eTLD+1 by the Public Suffix List, or
// nullopt if |host| is an IP literal, ends in a numeric label, or is itself a
// public suffix. |host| must be lower case; one trailing dot is ignored. A TLD
// the list does not name (.test) is a public suffix by the implicit "*" rule.
std::optional<std::string> RegistrableDomain(absl::string_view host);

// LastLabelLooksNumeric: the last label of |name| is all digits (or 0x-hex).
// Such a host is an IPv4 address in some spelling, never a name under a TLD,
// and libpsl would happily call "0.1" the registrable domain of 127.0.0.1.
bool LastLabelLooksNumeric(absl::string_view name);

// PublicSuffixListInfo names the list libpsl loaded (file and version), for
// diagnostics.
std::string PublicSuffixListInfo();

}  // namespace net

#endif  // NET_BASE_REGISTRY_CONTROLLED_DOMAIN_H_
