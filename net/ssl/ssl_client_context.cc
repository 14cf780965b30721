#include "net/ssl/ssl_client_context.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "net/ssl/cert_compression.h"

namespace net {

SSLClientContext::SSLClientContext(
    CertVerifier* verifier,
    const std::vector<CertCompressionAlgorithm>& cert_compression)
    : ssl_ctx_(SSL_CTX_new(TLS_method())), verifier_(verifier) {
  // Sessions live in our cache, not BoringSSL's internal one.
  SSL_CTX_set_session_cache_mode(
      ssl_ctx_.get(), SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
  // Fails only for a duplicate, which ParseCertCompressionList refuses.
  AddCertDecompressionAlgorithms(ssl_ctx_.get(), cert_compression);
}

SSLClientContext::~SSLClientContext() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

SSLClientContext::SessionDecision SSLClientContext::DecideSession(
    const std::string& key, uint64_t connection_id,
    absl::AnyInvocable<void()> wake) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (session_cache_.Has(key, absl::Now())) return SessionDecision::kResume;
  Group& group = groups_[key];
  if (group.leader_id == 0 || group.leader_id == connection_id) {
    group.leader_id = connection_id;
    return SessionDecision::kLead;
  }
  group.waiters.push_back(Waiter{connection_id, std::move(wake)});
  ++coalesced_waits_;
  return SessionDecision::kWait;
}

void SSLClientContext::OnLeaderHandshakeDone(const std::string& key,
                                             uint64_t connection_id,
                                             absl::Duration handshake_time) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = groups_.find(key);
  if (it == groups_.end() || it->second.leader_id != connection_id) return;
  // The group stays open even with nobody waiting yet: connections whose TCP
  // connect completes only now must still wait for this session rather than
  // start full handshakes of their own. A TLS 1.3 ticket (or a False Start
  // TLS 1.2 session) arrives about one round trip after the client's
  // handshake completes; the handshake time bounds that round trip.
  absl::Duration grace = std::max(2 * handshake_time, absl::Milliseconds(20));
  it->second.leader_done = true;
  it->second.grace_timer = std::make_unique<OneShotTimer>();
  it->second.grace_timer->Start(grace, [this, key] { WakeAll(key); });
}

void SSLClientContext::OnLeaderGone(const std::string& key,
                                    uint64_t connection_id) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = groups_.find(key);
  if (it == groups_.end() || it->second.leader_id != connection_id) return;
  // A leader that finished its handshake keeps the group open for its
  // session's grace period even if its socket goes away.
  if (it->second.leader_done) return;
  WakeAll(key);
}

void SSLClientContext::CancelWait(const std::string& key,
                                  uint64_t connection_id) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  it->second.waiters.remove_if([connection_id](const Waiter& w) {
    return w.connection_id == connection_id;
  });
}

void SSLClientContext::OnNewSession(const std::string& key,
                                    bssl::UniquePtr<SSL_SESSION> session) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  session_cache_.Insert(key, std::move(session));
  if (groups_.contains(key)) WakeAll(key);
}

void SSLClientContext::WakeAll(const std::string& key) {
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  std::list<Waiter> waiters = std::move(it->second.waiters);
  groups_.erase(it);
  // Post, so no waiter runs inside BoringSSL's callback or the leader's
  // stack, and each one re-decides (resume, lead or wait again).
  for (Waiter& waiter : waiters)
    EventLoop::Current()->PostTask(std::move(waiter.wake));
}

int SSLClientContext::SessionEarlyDataUsedIndex() {
  static int index =
      SSL_SESSION_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

SSLClientContext::Resumable SSLClientContext::PeekSession(
    const std::string& key, absl::Time now) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  const SSL_SESSION* session = session_cache_.Peek(key, now);
  if (!session) return Resumable::kNone;
  if (SSL_SESSION_early_data_capable(session) &&
      !SSL_SESSION_get_ex_data(session, SessionEarlyDataUsedIndex()))
    return Resumable::kEarlyData;
  return Resumable::kSession;
}

}  // namespace net
