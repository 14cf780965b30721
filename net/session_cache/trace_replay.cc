#include "net/session_cache/trace_replay.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "net/session_cache/session_cache.h"

namespace net {
namespace {

struct NoValue {};

}  // namespace

std::vector<TimeTicks> NextRequestTimes(
    const std::vector<TraceRequest>& trace) {
  std::vector<TimeTicks> next(trace.size(), kNoNextConnect);
  absl::flat_hash_map<uint32_t, TimeTicks> seen_later;
  for (size_t i = trace.size(); i-- > 0;) {
    auto [it, inserted] =
        seen_later.try_emplace(trace[i].client, trace[i].time);
    if (!inserted) {
      next[i] = it->second;
      it->second = trace[i].time;
    }
  }
  return next;
}

absl::StatusOr<ReplayResult> Replay(const std::vector<TraceRequest>& trace,
                                    const SessionCacheConfig& config) {
  auto cache = SessionCache<NoValue>::Create(config);
  if (!cache.ok()) return cache.status();
  std::vector<TimeTicks> oracle;
  if (config.policy == EvictionPolicy::kBelady)
    oracle = NextRequestTimes(trace);
  ReplayResult result;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceRequest& r = trace[i];
    absl::string_view key(reinterpret_cast<const char*>(&r.client),
                          sizeof(r.client));
    bool hit = (*cache)->Lookup(key).has_value();
    ++result.requests;
    if (r.counted) {
      ++result.counted;
      if (hit) ++result.hits;
    }
    TimeTicks next = oracle.empty() ? r.announced_next : oracle[i];
    (*cache)->Put(key, NoValue(), next, r.time);
  }
  result.stats = (*cache)->stats();
  return result;
}

}  // namespace net
