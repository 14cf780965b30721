// HTTP/2 priorities as Chromium sends them, for a request's RequestPriority
// (net/base/request_priority.h):
//
// - RFC 7540 5.3 priorities in HEADERS: the request priority becomes a SPDY/3
//   priority (HIGHEST 0, MEDIUM 1, LOW 2, LOWEST 3, IDLE 4, THROTTLED 5) and
//   that a weight (256, 220, 183, 147, 110, 74); the stream depends,
//   exclusively, on the newest open stream of the same or a more urgent
//   priority, so a session's streams form one chain ordered by urgency, then
//   by age (Chromium's Http2PriorityDependencies, net/spdy there).
// - RFC 9218's "priority" header: urgency 0 for HIGHEST down to 5 for
//   THROTTLED (urgency 3, LOWEST, is the default and not written), "i" for an
//   incremental response.
//
// Http2PriorityDependencies is owned by one Http2Session, which tells it of
// every stream it opens and closes. Plain values, no I/O.

#ifndef NET_HTTP2_HTTP2_PRIORITY_H_
#define NET_HTTP2_HTTP2_PRIORITY_H_

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <utility>

#include "net/base/request_priority.h"

namespace net {

// The SPDY/3 priority (0 most urgent .. 7) Chromium gives |priority|.
int RequestPriorityToSpdyPriority(RequestPriority priority);
// The HTTP/2 weight (1..256) of a SPDY/3 priority (clamped to 0..7): the
// weight range cut in seven equal steps, 256 for 0 down to 1 for 7.
int SpdyPriorityToHttp2Weight(int spdy_priority);
// The RFC 9218 urgency of |priority| (0 most urgent .. 7; HIGHEST 0,
// THROTTLED 5).
int RequestPriorityToUrgency(RequestPriority priority);
// The RFC 9218 Structured Field value of the "priority" header: "u=0, i",
// "u=5", "i"; "" when urgency and incremental are both defaults (u=3, not
// incremental), in which case no header is sent.
std::string PriorityFieldValue(RequestPriority priority, bool incremental);

// What a stream's HEADERS frame says of its priority.
struct Http2StreamPriority {
  int32_t parent = 0;  // the stream it depends on; 0 for the root
  int weight = 16;
  bool exclusive = false;
  bool operator==(const Http2StreamPriority& o) const {
    return parent == o.parent && weight == o.weight && exclusive == o.exclusive;
  }
};

class Http2PriorityDependencies {
 public:
  Http2PriorityDependencies() = default;
  Http2PriorityDependencies(const Http2PriorityDependencies&) = delete;
  Http2PriorityDependencies& operator=(const Http2PriorityDependencies&) =
      delete;

  // OnStreamCreation records the new stream |id| of |priority| and returns
  // its HEADERS priority: exclusive, weight by priority, parent the newest
  // open stream of the same priority, else of the nearest more urgent one,
  // else the root. Recording one |id| twice is the caller's mistake: the
  // second call changes nothing and answers the root, with the weight.
  Http2StreamPriority OnStreamCreation(int32_t id, RequestPriority priority);
  // OnStreamDestruction forgets |id| (closed or cancelled); no-op if
  // unknown. Streams that depended on it are left to the server's tree
  // (RFC 7540 5.3.4 moves them to its parent), as Chromium does.
  void OnStreamDestruction(int32_t id);
  size_t size() const { return by_id_.size(); }

 private:
  using IdList = std::list<int32_t>;
  // Open streams by SPDY/3 priority (0..5), oldest first.
  std::array<IdList, 6> by_priority_;
  std::map<int32_t, std::pair<int, IdList::iterator>> by_id_;
};

}  // namespace net

#endif  // NET_HTTP2_HTTP2_PRIORITY_H_
