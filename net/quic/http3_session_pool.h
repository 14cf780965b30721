// Http3SessionPool: the HTTP/3 sessions of one HttpNetworkSession by origin
// (one per origin: its requests multiplex on it), and the origins whose
// QUIC recently failed (Chromium's "broken alternative service"): a request
// to one of those goes straight to TCP for broken_for, without waiting for
// another handshake timeout.
//
// Owns its sessions; a session that closes is destroyed from a posted task
// (its on_closed). Network-thread affine. Created by HttpNetworkSession.

#ifndef NET_QUIC_HTTP3_SESSION_POOL_H_
#define NET_QUIC_HTTP3_SESSION_POOL_H_

#include <map>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/base/url.h"
#include "net/quic/http3_session.h"

namespace net {

class Http3SessionPool {
 public:
  explicit Http3SessionPool(
      const TickClock* clock = DefaultTickClock::GetInstance(),
      absl::Duration broken_for = absl::Minutes(5));
  ~Http3SessionPool();
  Http3SessionPool(const Http3SessionPool&) = delete;
  Http3SessionPool& operator=(const Http3SessionPool&) = delete;

  // The origin's session, connecting or open (not going away), or null.
  Http3Session* Find(const Origin& origin);
  // Takes |session| as the origin's (a going-away one stays until closed).
  Http3Session* Insert(std::unique_ptr<Http3Session> session);

  // QUIC to |origin| failed for |reason|: TCP only, for broken_for.
  void MarkBroken(const Origin& origin, const std::string& reason);
  // Why QUIC to |origin| is off ("" if it is not).
  std::string BrokenReason(const Origin& origin);

  // Closes (CONNECTION_CLOSE, H3_NO_ERROR) and destroys every session that
  // carries no request now (HttpNetworkSession::CloseIdleSockets: fetch
  // --repeat's next round then makes a new connection, resuming with the
  // ticket the old one got). Connecting sessions stay.
  void CloseIdleSessions();

  size_t session_count() const { return sessions_.size(); }

 private:
  struct Broken {
    TimeTicks until;
    std::string reason;
  };
  void OnClosed(Http3Session* session);

  const TickClock* const clock_;
  const absl::Duration broken_for_;
  std::multimap<std::string, std::unique_ptr<Http3Session>> sessions_;
  std::map<std::string, Broken> broken_;
};

}  // namespace net

#endif  // NET_QUIC_HTTP3_SESSION_POOL_H_
