// SSLClientSessionCache: TLS sessions (session IDs, TLS 1.2 tickets, TLS 1.3
// tickets) keyed by "host:port", bounded in size with least-recently-used
// eviction.
//
// TLS 1.3 sessions are meant for one use (RFC 8446 C.4), so the cache keeps
// several per key and Lookup() consumes one. When only one is left it is
// handed out without being removed: a burst of parallel connections then
// resumes from it rather than paying full handshakes; the server's fresh
// tickets replace it right away. Owned by SSLClientContext; network thread.

#ifndef NET_SSL_SSL_CLIENT_SESSION_CACHE_H_
#define NET_SSL_SSL_CLIENT_SESSION_CACHE_H_

#include <openssl/ssl.h>

#include <deque>
#include <list>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "net/base/thread_checker.h"

namespace net {

class SSLClientSessionCache {
 public:
  explicit SSLClientSessionCache(size_t max_keys = 1024,
                                 size_t max_sessions_per_key = 8);
  ~SSLClientSessionCache();

  // Lookup returns a session usable at |now| for |key|, or null.
  bssl::UniquePtr<SSL_SESSION> Lookup(const std::string& key, absl::Time now);
  // Insert adds a resumable session for |key|.
  void Insert(const std::string& key, bssl::UniquePtr<SSL_SESSION> session);
  bool Has(const std::string& key, absl::Time now);
  // Peek returns the session Lookup would hand out next, without taking it
  // (valid until the cache changes), or null.
  const SSL_SESSION* Peek(const std::string& key, absl::Time now);
  void Flush();
  size_t size() const { return entries_.size(); }

  // Counters for tests and traces.
  size_t lookups() const { return lookups_; }
  size_t hits() const { return hits_; }

 private:
  struct Entry {
    std::deque<bssl::UniquePtr<SSL_SESSION>> sessions;  // Newest at back.
    std::list<std::string>::iterator lru;
  };
  void DropExpired(Entry* entry, absl::Time now);

  const size_t max_keys_;
  const size_t max_sessions_per_key_;
  absl::flat_hash_map<std::string, Entry> entries_;
  std::list<std::string> lru_;  // Most recent at front.
  size_t lookups_ = 0;
  size_t hits_ = 0;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SSL_SSL_CLIENT_SESSION_CACHE_H_
