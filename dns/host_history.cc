#include "dns/host_history.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dns/host_history.pb.h"
#include "net/base/file_util.h"

namespace net {
namespace {

constexpr uint32_t kVersion = 1;

}  // namespace

absl::StatusOr<HostHistory> HostHistory::Load(const std::string& path) {
  HostHistory history;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (access(path.c_str(), F_OK) != 0) return history;  // No history yet.
    return absl::PermissionDeniedError(absl::StrCat("cannot read ", path));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  netstack::dns::HostHistory proto;
  if (!proto.ParseFromString(bytes.str()) || proto.version() != kVersion) {
    return absl::DataLossError(
        absl::StrCat(path,
                     " is corrupt or of an unknown version; it was left "
                     "untouched (move it away to "
                     "start a new history)"));
  }
  for (const auto& visit : proto.hosts()) {
    if (visit.host().empty())
      return absl::DataLossError(absl::StrCat(path, ": empty host"));
    history.visits_[visit.host()] =
        Visits{visit.visits(), visit.last_visit_unix_seconds()};
  }
  return history;
}

absl::Status HostHistory::Save(const std::string& path) const {
  netstack::dns::HostHistory proto;
  proto.set_version(kVersion);
  for (const std::string& host : TopHosts(visits_.size())) {
    const Visits& v = visits_.at(host);
    auto* visit = proto.add_hosts();
    visit->set_host(host);
    visit->set_visits(v.count);
    visit->set_last_visit_unix_seconds(v.last_unix);
  }
  std::string data;
  if (!proto.SerializeToString(&data))
    return absl::InternalError("serialize failed");
  return WriteFileAtomically(path, data);
}

void HostHistory::RecordVisit(const std::string& host, absl::Time when) {
  Visits& v = visits_[absl::AsciiStrToLower(host)];
  ++v.count;
  v.last_unix = std::max(v.last_unix, absl::ToUnixSeconds(when));
}

std::vector<std::string> HostHistory::TopHosts(size_t n) const {
  std::vector<std::pair<std::string, Visits>> all(visits_.begin(),
                                                  visits_.end());
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    if (a.second.count != b.second.count)
      return a.second.count > b.second.count;
    if (a.second.last_unix != b.second.last_unix)
      return a.second.last_unix > b.second.last_unix;
    return a.first < b.first;
  });
  std::vector<std::string> hosts;
  for (size_t i = 0; i < all.size() && i < n; ++i)
    hosts.push_back(all[i].first);
  return hosts;
}

uint64_t HostHistory::visits(const std::string& host) const {
  auto it = visits_.find(absl::AsciiStrToLower(host));
  return it == visits_.end() ? 0 : it->second.count;
}

}  // namespace net
