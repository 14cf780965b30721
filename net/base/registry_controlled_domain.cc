#include "net/base/registry_controlled_domain.h"

#include <libpsl.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/ip_endpoint.h"

namespace net {
namespace {

const psl_ctx_t* PslContext() {
  // psl_latest picks the newer of the distribution's list and libpsl's
  // built-in one. Loaded once; intentionally never freed.
  static const psl_ctx_t* const context = [] {
    const psl_ctx_t* latest = psl_latest(nullptr);
    return latest != nullptr ? latest : psl_builtin();
  }();
  return context;
}

}  // namespace

bool LastLabelLooksNumeric(absl::string_view name) {
  size_t dot = name.rfind('.');
  absl::string_view last =
      dot == absl::string_view::npos ? name : name.substr(dot + 1);
  if (last.empty()) return false;
  if (absl::StartsWith(last, "0x")) return true;
  for (char c : last) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

std::optional<std::string> RegistrableDomain(absl::string_view host) {
  if (IPAddress::Parse(host).has_value()) return std::nullopt;
  absl::string_view name = host;
  if (absl::EndsWith(name, ".")) name.remove_suffix(1);
  if (name.empty() || LastLabelLooksNumeric(name)) return std::nullopt;
  std::string copy(name);
  const char* domain = psl_registrable_domain(PslContext(), copy.c_str());
  if (domain == nullptr) return std::nullopt;
  return std::string(domain);
}

std::string PublicSuffixListInfo() {
  const psl_ctx_t* context = PslContext();
  return absl::StrCat(
      context == psl_builtin() ? "libpsl builtin list" : psl_dist_filename(),
      " (libpsl ", psl_get_version(), ", ", psl_suffix_count(context),
      " suffixes)");
}

}  // namespace net
