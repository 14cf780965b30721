#include "dns/https_record_info.h"

#include <algorithm>

namespace net {

const char* HttpsRecordStatusToString(HttpsRecordStatus status) {
  switch (status) {
    case HttpsRecordStatus::kNotQueried:
      return "";
    case HttpsRecordStatus::kNone:
      return "none";
    case HttpsRecordStatus::kUsed:
      return "used";
    case HttpsRecordStatus::kIgnored:
      return "ignored";
    case HttpsRecordStatus::kFailed:
      return "failed";
    case HttpsRecordStatus::kNotInTime:
      return "not_in_time";
  }
  return "";
}

std::vector<std::string> HttpsRecordInfo::AlpnSet() const {
  std::vector<std::string> set = alpn;
  if (!no_default_alpn &&
      std::find(set.begin(), set.end(), "http/1.1") == set.end())
    set.push_back("http/1.1");
  return set;
}

bool HttpsRecordInfo::SupportsAlpn(absl::string_view protocol) const {
  if (!used()) return false;
  const std::vector<std::string> set = AlpnSet();
  return std::find(set.begin(), set.end(), protocol) != set.end();
}

}  // namespace net
