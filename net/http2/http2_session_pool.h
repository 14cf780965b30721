// Http2SessionPool: the client's open HTTP/2 sessions, for the HTTP layer
// (HttpNetworkTransaction takes a stream from here, or puts a new session
// here when a handshake chose h2). One available session per key (origin and
// route): requests to the origin share it and multiplex.
//
// Coalescing (RFC 9113 9.1.1, as Chromium does; RFC 8336, as Firefox does):
// a session made for one origin may carry another one's requests when
//  - by DNS: the other origin resolves to the session's peer address (and
//    port), or
//  - by the ORIGIN frame: the session received ORIGIN frames that list the
//    other origin; no DNS lookup is needed (RFC 8336 2.4; Firefox's rule:
//    Chromium does not act on ORIGIN frames),
// and, either way, the session may carry it (Http2Session::MayCarry: not
// answered 421 for it, listed by its ORIGIN frames if any) and the
// CanCoalesce callback accepts it — the HTTP layer checks that the
// session's verified certificate covers the origin's host and that the
// origin would present the same origin-bound certificate. Only direct
// sessions coalesce, and only for direct requests: through a proxy the
// peer address is the proxy's. Sessions of other keys (another proxy) and
// of other HttpNetworkSessions (an incognito profile's, the context's
// credential-less one) are never seen.
//
// Owns its sessions. A session that goes away (GOAWAY, idle, error) is no
// longer found; once closed it is destroyed from a posted task. Inserting a
// second session for a key makes it the key's; the old one drains.
// Network-thread affine.

#ifndef NET_HTTP2_HTTP2_SESSION_POOL_H_
#define NET_HTTP2_HTTP2_SESSION_POOL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "net/base/ip_endpoint.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http2/http2_session.h"

namespace net {

// Http2SessionKey: what a request may share a session on without
// coalescing: its origin and its route ("" direct, else the proxy's URL).
struct Http2SessionKey {
  Origin origin;
  std::string proxy;

  bool operator==(const Http2SessionKey& o) const {
    return origin == o.origin && proxy == o.proxy;
  }
  bool operator<(const Http2SessionKey& o) const {
    return std::tie(origin, proxy) < std::tie(o.origin, o.proxy);
  }
};

// How a request came to use another origin's session.
enum class CoalescedBy {
  kNone,
  kDns,          // its addresses include the session's peer
  kOriginFrame,  // the session's ORIGIN frames list it
};
// The trace's word: "", "dns" or "originFrame".
const char* CoalescedByToString(CoalescedBy by);

class Http2SessionPool {
 public:
  // CanCoalesce: "" if |session| may carry |origin| as far as its TLS
  // connection goes (certificate, client certificate), else the reason, a
  // word for the trace ("certificate", "obc"). Null: never coalesce.
  using CanCoalesceCallback = std::function<std::string(
      const Http2Session& session, const Origin& origin)>;

  struct CoalesceResult {
    Http2Session* session = nullptr;
    CoalescedBy by = CoalescedBy::kNone;
    // When no session was found: why the first session that could have
    // carried the origin did not ("certificate", "obc", "misdirected",
    // "originFrame"); "" if there was none.
    std::string not_coalesced_reason;
  };

  explicit Http2SessionPool(CanCoalesceCallback can_coalesce = nullptr);
  ~Http2SessionPool();
  Http2SessionPool(const Http2SessionPool&) = delete;
  Http2SessionPool& operator=(const Http2SessionPool&) = delete;

  // InsertSession takes |session| (started or not) and makes it the
  // available session for its key (origin and proxy). Returns it.
  Http2Session* InsertSession(std::unique_ptr<Http2Session> session);
  // The available session for |key| — its own, or another origin's it was
  // coalesced onto earlier and that still may carry it (then |*by|, if
  // given, says how it was found) — or null. A session whose TLS handshake
  // is not yet confirmed (early data) serves only |replay_safe| requests.
  Http2Session* FindAvailableSession(const Http2SessionKey& key,
                                     bool replay_safe = true,
                                     CoalescedBy* by = nullptr);
  // A direct origin's (FindAvailableSession with no proxy).
  Http2Session* FindAvailableSession(const Origin& origin,
                                     bool replay_safe = true) {
    return FindAvailableSession(Http2SessionKey{origin, ""}, replay_safe);
  }

  // FindSessionByOriginFrame: an available direct session to another
  // origin whose ORIGIN frames list |origin| and which may carry it, found
  // without DNS. On success |origin| is aliased to it (FindAvailableSession
  // finds it next time).
  CoalesceResult FindSessionByOriginFrame(const Origin& origin,
                                          bool replay_safe = true);
  // FindSessionForCoalescing: an available direct session to another origin
  // whose peer (address and port) is one of |addresses| and which may carry
  // |origin|. On success |origin| is aliased to it.
  CoalesceResult FindSessionForCoalescing(
      const Origin& origin, const std::vector<IPEndPoint>& addresses,
      bool replay_safe = true);

  // Closes every session with |error|.
  void CloseAll(int error);

  size_t session_count() const { return sessions_.size(); }
  size_t available_session_count() const;
  // Sessions ever inserted; lookups answered by coalescing.
  uint64_t sessions_created() const { return sessions_created_; }
  uint64_t coalesced_lookups() const { return coalesced_lookups_; }

 private:
  // Whether |session| (another origin's, direct, available) may carry
  // |origin|: "" or the reason.
  std::string CoalesceRefusal(const Http2Session& session,
                              const Origin& origin) const;
  bool Usable(const Http2Session& session, bool replay_safe) const;
  void OnGoingAway(Http2Session* session);
  void OnClosed(Http2Session* session);

  CanCoalesceCallback can_coalesce_;
  std::vector<std::unique_ptr<Http2Session>> sessions_;
  // Key -> its available session (its own, or a coalesced alias and how
  // it was found).
  struct Entry {
    Http2Session* session = nullptr;
    CoalescedBy by = CoalescedBy::kNone;
  };
  std::map<Http2SessionKey, Entry> available_;
  uint64_t sessions_created_ = 0;
  uint64_t coalesced_lookups_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<Http2SessionPool> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP2_HTTP2_SESSION_POOL_H_
