// SpdySessionPool: the client's open SPDY sessions, found by origin, for
// the HTTP layer (HttpNetworkTransaction picks a stream from here when ALPN
// chose spdy/3; issue 13 items 3-4).
//
// A session is found for its own origin, and for every origin pooled onto
// it (an alias). IP pooling is Chromium's rule: a new origin may use an
// open session whose peer address is among the origin's resolved addresses
// and whose server certificate covers the origin's host. The pool checks
// the address; the certificate check is the caller's (CanPoolCallback), as
// the HTTP layer holds the verifier and the session's SSLInfo.
//
// Owns its sessions. A session that goes away (GOAWAY, idle, error) is no
// longer found; once closed it is destroyed (from a posted task). At most
// one available session per origin: inserting another makes the new one
// the origin's, and the old one drains. Network-thread affine.

#ifndef NET_SPDY_SPDY_SESSION_POOL_H_
#define NET_SPDY_SPDY_SESSION_POOL_H_

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "net/base/ip_endpoint.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"
#include "net/spdy/spdy_session.h"

namespace net {

class SpdySessionPool {
 public:
  // CanPool says whether |session| may carry requests for |origin| (its
  // server certificate covers |origin|'s host). Null: never pool.
  using CanPoolCallback =
      std::function<bool(const SpdySession& session, const Origin& origin)>;

  explicit SpdySessionPool(CanPoolCallback can_pool = nullptr);
  ~SpdySessionPool();
  SpdySessionPool(const SpdySessionPool&) = delete;
  SpdySessionPool& operator=(const SpdySessionPool&) = delete;

  // InsertSession takes |session| (started or not) and makes it the
  // available session for its origin. Returns it.
  SpdySession* InsertSession(std::unique_ptr<SpdySession> session);

  // FindAvailableSession returns the available session for |origin| (its
  // own or one it was pooled onto), or null.
  SpdySession* FindAvailableSession(const Origin& origin);

  // FindSessionForPooling looks for an available session to another origin
  // whose peer is one of |addresses| (address and port) and which
  // can_pool accepts for |origin|; on success |origin| is aliased to it
  // (later FindAvailableSession calls find it) and it is returned. Null if
  // none.
  SpdySession* FindSessionForPooling(const Origin& origin,
                                     const std::vector<IPEndPoint>& addresses);

  // CloseAll closes every session with |error|.
  void CloseAll(int error);

  size_t session_count() const { return sessions_.size(); }
  size_t available_session_count() const;
  // How many lookups were answered by IP pooling.
  uint64_t pooled_lookups() const { return pooled_lookups_; }

 private:
  void OnGoingAway(SpdySession* session);
  void OnClosed(SpdySession* session);
  void RemoveAliases(SpdySession* session);

  CanPoolCallback can_pool_;
  std::vector<std::unique_ptr<SpdySession>> sessions_;
  // Origin -> its available session (own origin or pooled alias).
  std::map<Origin, SpdySession*> available_;
  uint64_t pooled_lookups_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SpdySessionPool> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SPDY_SPDY_SESSION_POOL_H_
