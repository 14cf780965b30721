#include "net/ssl/ssl_client_session_cache.h"

namespace net {

SSLClientSessionCache::SSLClientSessionCache(size_t max_keys,
                                             size_t max_sessions_per_key)
    : max_keys_(max_keys), max_sessions_per_key_(max_sessions_per_key) {}

SSLClientSessionCache::~SSLClientSessionCache() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

void SSLClientSessionCache::DropExpired(Entry* entry, absl::Time now) {
  uint64_t now_s = static_cast<uint64_t>(absl::ToUnixSeconds(now));
  auto& sessions = entry->sessions;
  for (auto it = sessions.begin(); it != sessions.end();) {
    uint64_t start = SSL_SESSION_get_time(it->get());
    uint64_t timeout = SSL_SESSION_get_timeout(it->get());
    if (now_s < start || now_s >= start + timeout) {
      it = sessions.erase(it);
    } else {
      ++it;
    }
  }
}

bssl::UniquePtr<SSL_SESSION> SSLClientSessionCache::Lookup(
    const std::string& key, absl::Time now) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  ++lookups_;
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  Entry& entry = it->second;
  DropExpired(&entry, now);
  if (entry.sessions.empty()) {
    lru_.erase(entry.lru);
    entries_.erase(it);
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, entry.lru);
  ++hits_;
  bssl::UniquePtr<SSL_SESSION>& newest = entry.sessions.back();
  if (SSL_SESSION_should_be_single_use(newest.get()) &&
      entry.sessions.size() > 1) {
    bssl::UniquePtr<SSL_SESSION> session = std::move(newest);
    entry.sessions.pop_back();
    return session;
  }
  SSL_SESSION_up_ref(newest.get());
  return bssl::UniquePtr<SSL_SESSION>(newest.get());
}

bool SSLClientSessionCache::Has(const std::string& key, absl::Time now) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  DropExpired(&it->second, now);
  return !it->second.sessions.empty();
}

const SSL_SESSION* SSLClientSessionCache::Peek(const std::string& key,
                                               absl::Time now) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  DropExpired(&it->second, now);
  return it->second.sessions.empty() ? nullptr
                                     : it->second.sessions.back().get();
}

void SSLClientSessionCache::Insert(const std::string& key,
                                   bssl::UniquePtr<SSL_SESSION> session) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!session || !SSL_SESSION_is_resumable(session.get())) return;
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= max_keys_ && !lru_.empty()) {
      entries_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(key);
    it = entries_.emplace(key, Entry{{}, lru_.begin()}).first;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  Entry& entry = it->second;
  // A reusable (TLS 1.2) session supersedes everything before it.
  if (!SSL_SESSION_should_be_single_use(session.get())) entry.sessions.clear();
  entry.sessions.push_back(std::move(session));
  while (entry.sessions.size() > max_sessions_per_key_)
    entry.sessions.pop_front();
}

void SSLClientSessionCache::Flush() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  entries_.clear();
  lru_.clear();
}

}  // namespace net
