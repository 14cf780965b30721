// WorldClient: what a client of the local world (tools/world) needs from its
// world.json — trust anchor, DNS server or static addresses, the default
// URL, bundle CDNs, each origin's https port, the connect-to rules that
// reach servers the certificates name on other ports, the revocation filter
// it publishes — and whether the
// world is still running. fetch --world reads it; the world itself (netem,
// the servers) is never linked into the client: this is a file reader.

#ifndef TOOLS_FETCH_WORLD_CLIENT_H_
#define TOOLS_FETCH_WORLD_CLIENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "net/socket/connect_to.h"

namespace net {

struct WorldFile {
  std::string path;
  std::string trust_anchors;
  std::string dns_server;  // "addr:port", empty if the world has none
  // curl --resolve entries: every endpoint's static address.
  std::vector<std::string> resolve;
  // curl --connect-to rules: the OCSP responder, CRL and bundle servers
  // where they listen on ports other than the ones their URLs name.
  std::vector<ConnectToRule> connect_to;
  std::string default_url;
  // Certificate-bundle CDNs, and each https origin's host -> port.
  std::vector<std::string> bundle_cdns;
  std::map<std::string, uint16_t> https_ports;
  // The world's revocation filter file (revocation_filter.file), if it
  // publishes one: what --revocation filter uses without --revocation-filter.
  std::string revocation_filter;
  // The world's server processes (name -> pid), to tell a stopped world
  // from a slow one.
  std::map<std::string, int> pids;
};

// Reads and checks a world.json. Errors name the file and the field.
[[nodiscard]] absl::StatusOr<WorldFile> LoadWorldFile(const std::string& path);

// OK while any of the world's processes runs; else FailedPrecondition
// "world not running? ..." (a stopped world would otherwise look like a
// DNS timeout). A world.json without pids is taken as running.
[[nodiscard]] absl::Status CheckWorldRunning(const WorldFile& world);

}  // namespace net

#endif  // TOOLS_FETCH_WORLD_CLIENT_H_
