#include "net/http2/http2_priority.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace net {

int RequestPriorityToSpdyPriority(RequestPriority priority) {
  const int p =
      std::clamp(static_cast<int>(priority), static_cast<int>(MINIMUM_PRIORITY),
                 static_cast<int>(MAXIMUM_PRIORITY));
  return MAXIMUM_PRIORITY - p;
}

int SpdyPriorityToHttp2Weight(int spdy_priority) {
  const int p = std::clamp(spdy_priority, 0, 7);
  // 255.9 / 7 per step, in integers: floor(2559 * (7 - p) / 70) + 1.
  return 2559 * (7 - p) / 70 + 1;
}

int RequestPriorityToUrgency(RequestPriority priority) {
  return RequestPriorityToSpdyPriority(priority);
}

std::string PriorityFieldValue(RequestPriority priority, bool incremental) {
  const int urgency = RequestPriorityToUrgency(priority);
  std::string value;
  if (urgency != 3) value = absl::StrCat("u=", urgency);
  if (incremental) absl::StrAppend(&value, value.empty() ? "" : ", ", "i");
  return value;
}

Http2StreamPriority Http2PriorityDependencies::OnStreamCreation(
    int32_t id, RequestPriority priority) {
  const int spdy = RequestPriorityToSpdyPriority(priority);
  Http2StreamPriority result;
  result.exclusive = true;
  result.weight = SpdyPriorityToHttp2Weight(spdy);
  if (by_id_.count(id)) return result;
  for (int p = spdy; p >= 0; --p) {
    if (!by_priority_[p].empty()) {
      result.parent = by_priority_[p].back();
      break;
    }
  }
  IdList& list = by_priority_[spdy];
  list.push_back(id);
  by_id_[id] = {spdy, std::prev(list.end())};
  return result;
}

void Http2PriorityDependencies::OnStreamDestruction(int32_t id) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  by_priority_[it->second.first].erase(it->second.second);
  by_id_.erase(it);
}

}  // namespace net
