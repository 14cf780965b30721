#include "tools/fetch/world_client.h"

#include <errno.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <signal.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/file_util.h"

namespace net {
namespace {

using google::protobuf::Value;

const Value* Field(const google::protobuf::Struct& s, const char* name,
                   Value::KindCase kind) {
  auto it = s.fields().find(name);
  if (it == s.fields().end() || it->second.kind_case() != kind) return nullptr;
  return &it->second;
}

std::string StringField(const google::protobuf::Struct& s, const char* name) {
  const Value* v = Field(s, name, Value::kStringValue);
  return v ? v->string_value() : std::string();
}

std::vector<std::string> StringList(const google::protobuf::Struct& s,
                                    const char* name) {
  std::vector<std::string> out;
  if (const Value* v = Field(s, name, Value::kListValue)) {
    for (const Value& item : v->list_value().values()) {
      if (item.kind_case() == Value::kStringValue)
        out.push_back(item.string_value());
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<WorldFile> LoadWorldFile(const std::string& path) {
  // A world.json is a few KB; 4 MB is not one.
  absl::StatusOr<std::string> text = ReadFileToString(path, 4 << 20);
  if (!text.ok()) return text.status();
  google::protobuf::Struct root;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto status =
      google::protobuf::util::JsonStringToMessage(*text, &root, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not valid JSON: ", status.message().as_string()));
  }
  WorldFile world;
  world.path = path;
  world.trust_anchors = StringField(root, "trust_anchors");
  if (world.trust_anchors.empty())
    return absl::InvalidArgumentError(absl::StrCat(path, ": no trust_anchors"));
  if (const Value* dns = Field(root, "dns", Value::kStructValue))
    world.dns_server = StringField(dns->struct_value(), "server");
  world.default_url = StringField(root, "default_url");
  world.bundle_cdns = StringList(root, "bundle_cdns");
  world.resolve = StringList(root, "resolve");
  for (const std::string& text : StringList(root, "connect_to")) {
    absl::StatusOr<ConnectToRule> rule = ConnectToRule::Parse(text);
    if (!rule.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": connect_to: ", rule.status().message()));
    world.connect_to.push_back(*rule);
  }
  if (const Value* origins = Field(root, "origins", Value::kStructValue)) {
    for (const auto& [name, origin] : origins->struct_value().fields()) {
      if (origin.kind_case() != Value::kStructValue) continue;
      const google::protobuf::Struct& o = origin.struct_value();
      const Value* port = Field(o, "port", Value::kNumberValue);
      const std::string host = StringField(o, "host");
      if (StringField(o, "scheme") == "https" && !host.empty() && port &&
          port->number_value() > 0 && port->number_value() < 65536)
        world.https_ports.emplace(host,
                                  static_cast<uint16_t>(port->number_value()));
    }
  }
  if (const Value* filter =
          Field(root, "revocation_filter", Value::kStructValue))
    world.revocation_filter = StringField(filter->struct_value(), "file");
  if (const Value* pids = Field(root, "pids", Value::kStructValue)) {
    for (const auto& [name, pid] : pids->struct_value().fields()) {
      if (pid.kind_case() == Value::kNumberValue && pid.number_value() > 1)
        world.pids[name] = static_cast<int>(pid.number_value());
    }
  }
  return world;
}

absl::Status CheckWorldRunning(const WorldFile& world) {
  if (world.pids.empty()) return absl::OkStatus();
  std::vector<std::string> names;
  for (const auto& [name, pid] : world.pids) {
    // Signal 0: only whether the process exists (EPERM: it does, someone
    // else's).
    if (kill(pid, 0) == 0 || errno == EPERM) return absl::OkStatus();
    names.push_back(name);
  }
  return absl::FailedPreconditionError(
      absl::StrCat("world not running? none of the processes ", world.path,
                   " names (", absl::StrJoin(names, ", "),
                   ") is alive; start it again (tools/world/README.md)"));
}

}  // namespace net
