#include "net/spdy/spdy_session_pool.h"

#include <algorithm>

namespace net {

SpdySessionPool::SpdySessionPool(CanPoolCallback can_pool)
    : can_pool_(std::move(can_pool)) {}

SpdySessionPool::~SpdySessionPool() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

SpdySession* SpdySessionPool::InsertSession(
    std::unique_ptr<SpdySession> session) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  SpdySession* raw = session.get();
  raw->set_on_going_away([weak = weak_factory_.GetWeakPtr()](SpdySession* s) {
    if (SpdySessionPool* self = weak.get()) self->OnGoingAway(s);
  });
  raw->set_on_closed([weak = weak_factory_.GetWeakPtr()](SpdySession* s) {
    if (SpdySessionPool* self = weak.get()) self->OnClosed(s);
  });
  sessions_.push_back(std::move(session));
  if (raw->state() == SpdySession::State::kNew || raw->IsAvailable())
    available_[raw->origin()] = raw;
  return raw;
}

SpdySession* SpdySessionPool::FindAvailableSession(const Origin& origin) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = available_.find(origin);
  if (it == available_.end()) return nullptr;
  SpdySession* session = it->second;
  if (session->state() != SpdySession::State::kNew && !session->IsAvailable()) {
    available_.erase(it);
    return nullptr;
  }
  return session;
}

SpdySession* SpdySessionPool::FindSessionForPooling(
    const Origin& origin, const std::vector<IPEndPoint>& addresses) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!can_pool_) return nullptr;
  if (SpdySession* own = FindAvailableSession(origin)) return own;
  for (const auto& session : sessions_) {
    if (!session->IsAvailable() ||
        session->origin().scheme() != origin.scheme())
      continue;
    IPEndPoint peer;
    if (session->socket()->GetPeerAddress(&peer) != OK) continue;
    if (std::find(addresses.begin(), addresses.end(), peer) == addresses.end())
      continue;
    if (!can_pool_(*session, origin)) continue;
    available_[origin] = session.get();
    ++pooled_lookups_;
    return session.get();
  }
  return nullptr;
}

void SpdySessionPool::CloseAll(int error) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  std::vector<SpdySession*> all;
  for (const auto& session : sessions_) all.push_back(session.get());
  for (SpdySession* session : all)
    session->CloseWithError(error, "pool closed");
  available_.clear();
}

size_t SpdySessionPool::available_session_count() const {
  return std::count_if(sessions_.begin(), sessions_.end(),
                       [](const auto& s) { return s->IsAvailable(); });
}

void SpdySessionPool::RemoveAliases(SpdySession* session) {
  for (auto it = available_.begin(); it != available_.end();) {
    if (it->second == session) {
      it = available_.erase(it);
    } else {
      ++it;
    }
  }
}

void SpdySessionPool::OnGoingAway(SpdySession* session) {
  RemoveAliases(session);
}

void SpdySessionPool::OnClosed(SpdySession* session) {
  RemoveAliases(session);
  // Called from a posted task (SpdySession::FinishClose), with nothing of
  // the session's on the stack: it may go now.
  sessions_.erase(
      std::remove_if(sessions_.begin(), sessions_.end(),
                     [session](const auto& s) { return s.get() == session; }),
      sessions_.end());
}

}  // namespace net
