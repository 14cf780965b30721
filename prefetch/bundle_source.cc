#include "prefetch/bundle_source.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace net {

const char* BundleSourceTypeToString(BundleSourceType type) {
  switch (type) {
    case BundleSourceType::kDns:
      return "dns";
    case BundleSourceType::kWellKnown:
      return "well-known";
    case BundleSourceType::kCdn:
      return "cdn";
    case BundleSourceType::kTruncated:
      return "truncated";
  }
  return "unknown";
}

std::optional<BundleSourceType> ParseBundleSourceType(absl::string_view name) {
  for (BundleSourceType type :
       {BundleSourceType::kDns, BundleSourceType::kWellKnown,
        BundleSourceType::kCdn, BundleSourceType::kTruncated}) {
    if (name == BundleSourceTypeToString(type)) return type;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<BundleSourceType>> ParseBundleSourceList(
    absl::string_view list) {
  std::vector<BundleSourceType> types;
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    name = absl::StripAsciiWhitespace(name);
    std::optional<BundleSourceType> type = ParseBundleSourceType(name);
    if (!type)
      return absl::InvalidArgumentError(
          absl::StrCat("unknown bundle source '", name,
                       "' (known: dns, well-known, cdn, truncated)"));
    for (BundleSourceType seen : types) {
      if (seen == *type)
        return absl::InvalidArgumentError(
            absl::StrCat("bundle source '", name, "' given twice"));
    }
    types.push_back(*type);
  }
  return types;
}

}  // namespace net
