#include "dns/host_cache.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace net {

HostCache::HostCache(size_t max_entries, const TickClock* clock,
                     absl::Duration max_negative_ttl)
    : max_entries_(std::max<size_t>(max_entries, 1)),
      clock_(clock),
      max_negative_ttl_(max_negative_ttl) {}

std::string HostCache::KeyFor(const std::string& name, Kind kind) {
  const char* prefix = kind == Kind::kTxt     ? "txt:"
                       : kind == Kind::kHttps ? "https:"
                                              : "addr:";
  return absl::StrCat(prefix, absl::AsciiStrToLower(name));
}

const HostCache::Entry* HostCache::Lookup(const std::string& name, Kind kind,
                                          bool* was_prefetched) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = entries_.find(KeyFor(name, kind));
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  if (clock_->NowTicks() >= it->second.entry.expires) {
    lru_.erase(it->second.lru);
    entries_.erase(it);
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  if (was_prefetched) *was_prefetched = it->second.entry.from_prefetch;
  it->second.entry.from_prefetch = false;
  return &it->second.entry;
}

void HostCache::Set(const std::string& name, Kind kind, Entry entry,
                    absl::Duration ttl) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (entry.error != OK) ttl = std::min(ttl, max_negative_ttl_);
  if (ttl <= absl::ZeroDuration()) return;  // TTL 0: do not cache.
  entry.expires = clock_->NowTicks() + ttl;
  std::string key = KeyFor(name, kind);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    it->second.entry = std::move(entry);
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return;
  }
  if (entries_.size() >= max_entries_) Evict();
  lru_.push_front(key);
  entries_.emplace(key, Slot{std::move(entry), lru_.begin()});
}

void HostCache::Evict() {
  // Least recently used first; expired entries are dropped when looked up.
  entries_.erase(lru_.back());
  lru_.pop_back();
  ++evictions_;
}

void HostCache::Clear() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  entries_.clear();
  lru_.clear();
}

}  // namespace net
