#include "net/http2/http2_session_pool.h"

#include <algorithm>
#include <utility>

namespace net {

const char* CoalescedByToString(CoalescedBy by) {
  switch (by) {
    case CoalescedBy::kNone:
      return "";
    case CoalescedBy::kDns:
      return "dns";
    case CoalescedBy::kOriginFrame:
      return "originFrame";
  }
  return "unknown";
}

Http2SessionPool::Http2SessionPool(CanCoalesceCallback can_coalesce)
    : can_coalesce_(std::move(can_coalesce)) {}

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
    available_[Http2SessionKey{raw->origin(), raw->proxy()}] = Entry{raw};
  return raw;
}

bool Http2SessionPool::Usable(const Http2Session& session,
                              bool replay_safe) const {
  if (session.state() == Http2Session::State::kNew) return true;
  return session.IsAvailable(replay_safe);
}

Http2Session* Http2SessionPool::FindAvailableSession(const Http2SessionKey& key,
                                                     bool replay_safe,
                                                     CoalescedBy* by) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = available_.find(key);
  if (it == available_.end()) return nullptr;
  Http2Session* session = it->second.session;
  if (by) *by = it->second.by;
  if (session->state() != Http2Session::State::kNew &&
      !session->IsAvailable()) {
    available_.erase(it);
    return nullptr;
  }
  // An alias: the session may have learned since that it must not carry
  // the origin (a 421, an ORIGIN frame that leaves it out).
  if (session->origin() != key.origin && !session->MayCarry(key.origin)) {
    available_.erase(it);
    return nullptr;
  }
  return Usable(*session, replay_safe) ? session : nullptr;
}

std::string Http2SessionPool::CoalesceRefusal(const Http2Session& session,
                                              const Origin& origin) const {
  if (session.WasMisdirected(origin)) return "misdirected";
  if (!session.MayCarry(origin)) return "originFrame";
  return can_coalesce_(session, origin);
}

Http2SessionPool::CoalesceResult Http2SessionPool::FindSessionByOriginFrame(
    const Origin& origin, bool replay_safe) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  CoalesceResult result;
  if (!can_coalesce_) return result;
  for (const auto& session : sessions_) {
    if (!session->IsAvailable() || !session->proxy().empty() ||
        session->origin() == origin || !session->origin_frame_received() ||
        !session->origin_set().count(origin))
      continue;
    std::string refusal = CoalesceRefusal(*session, origin);
    if (refusal.empty() && !Usable(*session, replay_safe)) continue;
    if (!refusal.empty()) {
      if (result.not_coalesced_reason.empty())
        result.not_coalesced_reason = std::move(refusal);
      continue;
    }
    available_[Http2SessionKey{origin, ""}] =
        Entry{session.get(), CoalescedBy::kOriginFrame};
    ++coalesced_lookups_;
    result.session = session.get();
    result.by = CoalescedBy::kOriginFrame;
    result.not_coalesced_reason.clear();
    return result;
  }
  return result;
}

Http2SessionPool::CoalesceResult Http2SessionPool::FindSessionForCoalescing(
    const Origin& origin, const std::vector<IPEndPoint>& addresses,
    bool replay_safe) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  CoalesceResult result;
  if (!can_coalesce_) return result;
  for (const auto& session : sessions_) {
    if (!session->IsAvailable() || !session->proxy().empty() ||
        session->origin() == origin ||
        session->origin().scheme() != origin.scheme())
      continue;
    IPEndPoint peer;
    if (session->socket()->GetPeerAddress(&peer) != OK) continue;
    if (std::find(addresses.begin(), addresses.end(), peer) == addresses.end())
      continue;
    std::string refusal = CoalesceRefusal(*session, origin);
    if (refusal.empty() && !Usable(*session, replay_safe)) continue;
    if (!refusal.empty()) {
      if (result.not_coalesced_reason.empty())
        result.not_coalesced_reason = std::move(refusal);
      continue;
    }
    available_[Http2SessionKey{origin, ""}] =
        Entry{session.get(), CoalescedBy::kDns};
    ++coalesced_lookups_;
    result.session = session.get();
    result.by = CoalescedBy::kDns;
    result.not_coalesced_reason.clear();
    return result;
  }
  return result;
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
    if (it->second.session == session) {
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
