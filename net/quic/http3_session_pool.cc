#include "net/quic/http3_session_pool.h"

#include <utility>

namespace net {
namespace {

// At most this many origins remembered as broken (the oldest entries go).
constexpr size_t kMaxBroken = 256;

}  // namespace

Http3SessionPool::Http3SessionPool(const TickClock* clock,
                                   absl::Duration broken_for)
    : clock_(clock), broken_for_(broken_for) {}

Http3SessionPool::~Http3SessionPool() = default;

Http3Session* Http3SessionPool::Find(const Origin& origin) {
  auto range = sessions_.equal_range(origin.Serialize());
  for (auto it = range.first; it != range.second; ++it) {
    Http3Session::State state = it->second->state();
    if (state == Http3Session::State::kConnecting ||
        state == Http3Session::State::kOpen) {
      return it->second.get();
    }
  }
  return nullptr;
}

Http3Session* Http3SessionPool::Insert(std::unique_ptr<Http3Session> session) {
  Http3Session* raw = session.get();
  raw->set_on_closed([this](Http3Session* s) { OnClosed(s); });
  sessions_.emplace(raw->origin().Serialize(), std::move(session));
  return raw;
}

void Http3SessionPool::OnClosed(Http3Session* session) {
  auto range = sessions_.equal_range(session->origin().Serialize());
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.get() == session) {
      sessions_.erase(it);
      return;
    }
  }
}

void Http3SessionPool::CloseIdleSessions() {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second->IsIdle()) {
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void Http3SessionPool::MarkBroken(const Origin& origin,
                                  const std::string& reason) {
  if (broken_.size() >= kMaxBroken) {
    auto oldest = broken_.begin();
    for (auto it = broken_.begin(); it != broken_.end(); ++it) {
      if (it->second.until < oldest->second.until) oldest = it;
    }
    broken_.erase(oldest);
  }
  broken_[origin.Serialize()] = {clock_->NowTicks() + broken_for_, reason};
}

std::string Http3SessionPool::BrokenReason(const Origin& origin) {
  auto it = broken_.find(origin.Serialize());
  if (it == broken_.end()) return "";
  if (clock_->NowTicks() >= it->second.until) {
    broken_.erase(it);
    return "";
  }
  return it->second.reason;
}

}  // namespace net
