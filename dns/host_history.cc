#include "dns/host_history.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "dns/host_history.pb.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"

namespace net {
namespace {

constexpr char kRemedy[] = "move it away to start a new history";

}  // namespace

absl::StatusOr<HostHistory> HostHistory::Parse(const std::string& bytes,
                                               const std::string& name) {
  // Version 1 files were a bare HostHistory message starting with its
  // version field (varint 1).
  if (absl::StartsWith(bytes, absl::string_view("\x08\x01", 2))) {
    return CorruptFileError(name,
                            "unframed format of an older version, no longer "
                            "read",
                            kRemedy);
  }
  absl::StatusOr<std::string> payload =
      UnframeFileContents(bytes, kMagic, kVersion);
  if (!payload.ok())
    return CorruptFileError(name, payload.status().message(), kRemedy);
  netstack::dns::HostHistory proto;
  if (!proto.ParseFromString(*payload))
    return CorruptFileError(name, "payload does not parse", kRemedy);
  HostHistory history;
  for (const auto& visit : proto.hosts()) {
    if (visit.host().empty())
      return CorruptFileError(name, "empty host", kRemedy);
    if (!history.visits_
             .emplace(visit.host(),
                      Visits{visit.visits(), visit.last_visit_unix_seconds()})
             .second) {
      return CorruptFileError(
          name, absl::StrCat("duplicate host ", visit.host()), kRemedy);
    }
  }
  return history;
}

absl::StatusOr<HostHistory> HostHistory::Load(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (absl::IsNotFound(bytes.status())) return HostHistory();  // None yet.
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

std::string HostHistory::Serialize() const {
  netstack::dns::HostHistory proto;
  for (const std::string& host : TopHosts(visits_.size())) {
    const Visits& v = visits_.at(host);
    auto* visit = proto.add_hosts();
    visit->set_host(host);
    visit->set_visits(v.count);
    visit->set_last_visit_unix_seconds(v.last_unix);
  }
  return FrameFileContents(kMagic, kVersion, proto.SerializeAsString());
}

absl::Status HostHistory::Save(const std::string& path) const {
  return WriteFileAtomically(path, Serialize());
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
