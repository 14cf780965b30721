// Http2SessionPool: the client's open HTTP/2 sessions, found by origin, for
// the HTTP layer (HttpNetworkTransaction takes a stream from here, or puts
// a new session here when a handshake chose h2). One available session per
// origin: requests to the origin share it and multiplex. Coalescing other
// origins onto a session (RFC 9113 9.1.1, the ORIGIN frame) is not done yet:
// a session serves the origin it was made for.
//
// Owns its sessions. A session that goes away (GOAWAY, idle, error) is no
// longer found; once closed it is destroyed from a posted task. Inserting a
// second session for an origin makes it the origin's; the old one drains.
// Network-thread affine.

#ifndef NET_HTTP2_HTTP2_SESSION_POOL_H_
#define NET_HTTP2_HTTP2_SESSION_POOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "net/base/thread_checker.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http2/http2_session.h"

namespace net {

class Http2SessionPool {
 public:
  Http2SessionPool();
  ~Http2SessionPool();
  Http2SessionPool(const Http2SessionPool&) = delete;
  Http2SessionPool& operator=(const Http2SessionPool&) = delete;

  // InsertSession takes |session| (started or not) and makes it the
  // available session for its origin. Returns it.
  Http2Session* InsertSession(std::unique_ptr<Http2Session> session);
  // The available session for |origin|, or null. A session whose TLS
  // handshake is not yet confirmed (early data) serves only |replay_safe|
  // requests.
  Http2Session* FindAvailableSession(const Origin& origin,
                                     bool replay_safe = true);
  // Closes every session with |error|.
  void CloseAll(int error);

  size_t session_count() const { return sessions_.size(); }
  size_t available_session_count() const;
  // Sessions ever inserted.
  uint64_t sessions_created() const { return sessions_created_; }

 private:
  void OnGoingAway(Http2Session* session);
  void OnClosed(Http2Session* session);

  std::vector<std::unique_ptr<Http2Session>> sessions_;
  std::map<Origin, Http2Session*> available_;
  uint64_t sessions_created_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<Http2SessionPool> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP2_HTTP2_SESSION_POOL_H_
