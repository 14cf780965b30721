#include "net/http2/http2_session_pool.h"

#include <algorithm>
#include <utility>

namespace net {

Http2SessionPool::Http2SessionPool() = default;

Http2SessionPool::~Http2SessionPool() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

Http2Session* Http2SessionPool::InsertSession(
    std::unique_ptr<Http2Session> session) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  Http2Session* raw = session.get();
  raw->set_on_going_away([weak = weak_factory_.GetWeakPtr()](Http2Session* s) {
    if (Http2SessionPool* self = weak.get()) self->OnGoingAway(s);
  });
  raw->set_on_closed([weak = weak_factory_.GetWeakPtr()](Http2Session* s) {
    if (Http2SessionPool* self = weak.get()) self->OnClosed(s);
  });
  sessions_.push_back(std::move(session));
  ++sessions_created_;
  if (raw->state() == Http2Session::State::kNew || raw->IsAvailable())
    available_[raw->origin()] = raw;
  return raw;
}

Http2Session* Http2SessionPool::FindAvailableSession(const Origin& origin,
                                                     bool replay_safe) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = available_.find(origin);
  if (it == available_.end()) return nullptr;
  Http2Session* session = it->second;
  if (session->state() == Http2Session::State::kNew) return session;
  if (!session->IsAvailable()) {
    available_.erase(it);
    return nullptr;
  }
  return session->IsAvailable(replay_safe) ? session : nullptr;
}

void Http2SessionPool::CloseAll(int error) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  std::vector<Http2Session*> all;
  for (const auto& session : sessions_) all.push_back(session.get());
  for (Http2Session* session : all)
    session->CloseWithError(error, "the HTTP/2 session pool closed");
  available_.clear();
}

size_t Http2SessionPool::available_session_count() const {
  return std::count_if(sessions_.begin(), sessions_.end(),
                       [](const auto& s) { return s->IsAvailable(); });
}

void Http2SessionPool::OnGoingAway(Http2Session* session) {
  for (auto it = available_.begin(); it != available_.end();) {
    if (it->second == session) {
      it = available_.erase(it);
    } else {
      ++it;
    }
  }
}

void Http2SessionPool::OnClosed(Http2Session* session) {
  OnGoingAway(session);
  // From a posted task, nothing of the session on the stack: it may go.
  sessions_.erase(
      std::remove_if(sessions_.begin(), sessions_.end(),
                     [session](const auto& s) { return s.get() == session; }),
      sessions_.end());
}

}  // namespace net
