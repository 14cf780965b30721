// HttpServerProperties: what an HttpNetworkSession has learned about servers
// (Chromium's HttpServerProperties, cut down), for choosing how to connect:
//  - whether a server requires HTTP/1.1 (it answered HTTP/2 with
//    HTTP_1_1_REQUIRED): its requests then offer only http/1.1 in ALPN;
//  - whether its last handshake chose a multiplexed protocol (h2, spdy/3)
//    or HTTP/1.1: the transaction's connection waiting policy reads it.
// Servers are keyed by the connection group ("https://host:port", with
// " via PROXY"; HttpNetworkSession::GroupKey) or by an address key
// ("ip:1.2.3.4:443"). Memory is bounded: at most max_entries servers, the
// least recently changed forgotten first. In memory only, like a private
// profile's; owned by the HttpNetworkSession, network thread only.

#ifndef NET_HTTP_HTTP_SERVER_PROPERTIES_H_
#define NET_HTTP_HTTP_SERVER_PROPERTIES_H_

#include <cstddef>
#include <list>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace net {

class HttpServerProperties {
 public:
  enum class Multiplexing { kUnknown, kYes, kNo };
  static constexpr size_t kDefaultMaxEntries = 1024;

  explicit HttpServerProperties(size_t max_entries = kDefaultMaxEntries);
  HttpServerProperties(const HttpServerProperties&) = delete;
  HttpServerProperties& operator=(const HttpServerProperties&) = delete;

  // |server| answered HTTP/2 with HTTP_1_1_REQUIRED.
  void SetHttp11Required(const std::string& server);
  bool RequiresHttp11(const std::string& server) const;
  // |server|'s last handshake chose a multiplexed protocol (true) or
  // HTTP/1.1 (false).
  void SetMultiplexing(const std::string& server, bool multiplexed);
  Multiplexing GetMultiplexing(const std::string& server) const;

  size_t size() const { return entries_.size(); }
  size_t max_entries() const { return max_entries_; }

 private:
  struct Entry {
    bool http11_required = false;
    Multiplexing multiplexing = Multiplexing::kUnknown;
    std::list<std::string>::iterator lru;
  };
  // |server|'s entry, made the most recent (created, evicting the least
  // recent past max_entries, if new).
  Entry& Touch(const std::string& server);

  const size_t max_entries_;
  std::list<std::string> lru_;  // most recent first
  absl::flat_hash_map<std::string, Entry> entries_;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_SERVER_PROPERTIES_H_
