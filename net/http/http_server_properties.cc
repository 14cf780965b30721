#include "net/http/http_server_properties.h"

#include <algorithm>

namespace net {

HttpServerProperties::HttpServerProperties(size_t max_entries)
    : max_entries_(std::max<size_t>(max_entries, 1)) {}

HttpServerProperties::Entry& HttpServerProperties::Touch(
    const std::string& server) {
  auto it = entries_.find(server);
  if (it != entries_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second;
  }
  if (entries_.size() >= max_entries_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(server);
  Entry& entry = entries_[server];
  entry.lru = lru_.begin();
  return entry;
}

void HttpServerProperties::SetHttp11Required(const std::string& server) {
  Touch(server).http11_required = true;
}

bool HttpServerProperties::RequiresHttp11(const std::string& server) const {
  auto it = entries_.find(server);
  return it != entries_.end() && it->second.http11_required;
}

void HttpServerProperties::SetMultiplexing(const std::string& server,
                                           bool multiplexed) {
  Touch(server).multiplexing =
      multiplexed ? Multiplexing::kYes : Multiplexing::kNo;
}

HttpServerProperties::Multiplexing HttpServerProperties::GetMultiplexing(
    const std::string& server) const {
  auto it = entries_.find(server);
  return it == entries_.end() ? Multiplexing::kUnknown
                              : it->second.multiplexing;
}

}  // namespace net
