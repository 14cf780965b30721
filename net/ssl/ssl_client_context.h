// SSLClientContext: what every client TLS connection shares — the SSL_CTX,
// the session cache, the certificate verifier, and the handshake
// coalescing table.
//
// Handshake coalescing: when a connection to host:port starts with no cached
// session and another connection to the same key is already doing a full
// handshake (the leader), it waits until the leader's session arrives, the
// leader fails or goes away, or a grace period after the leader's handshake
// passes with no session; then it looks again (and resumes, or leads).
//
// Certificate compression (RFC 8879): the context's SSL_CTX offers and
// decompresses the algorithms it was created with (cert_compression.h).
//
// Owned by the network session; outlives every SSLClientSocket created with
// it. The verifier is not owned and must outlive the context.

#ifndef NET_SSL_SSL_CLIENT_CONTEXT_H_
#define NET_SSL_SSL_CLIENT_CONTEXT_H_

#include <openssl/ssl.h>

#include <list>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "cert/cert_verifier.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/ssl/ssl_client_session_cache.h"
#include "net/ssl/ssl_config.h"

namespace net {

class SSLClientContext {
 public:
  // |cert_compression|: the algorithms offered, in preference order (empty:
  // none).
  explicit SSLClientContext(
      CertVerifier* verifier,
      const std::vector<CertCompressionAlgorithm>& cert_compression =
          SSLConfig().cert_compression);
  ~SSLClientContext();
  SSLClientContext(const SSLClientContext&) = delete;
  SSLClientContext& operator=(const SSLClientContext&) = delete;

  SSL_CTX* ssl_ctx() { return ssl_ctx_.get(); }
  SSLClientSessionCache* session_cache() { return &session_cache_; }
  CertVerifier* cert_verifier() { return verifier_; }

  // Coalescing. Each connection has a unique id (NextConnectionId).
  uint64_t NextConnectionId() { return next_connection_id_++; }

  enum class SessionDecision { kResume, kLead, kWait };
  // DecideSession returns kResume if a session is cached, kLead if this
  // connection should do the full handshake (it becomes the leader), or kWait
  // after queuing |wake| to run when the leader's outcome is known.
  SessionDecision DecideSession(const std::string& key, uint64_t connection_id,
                                absl::AnyInvocable<void()> wake);
  // A leader's handshake finished after |handshake_time|; waiters get a
  // grace period for the session (TLS 1.3 tickets come after the handshake).
  void OnLeaderHandshakeDone(const std::string& key, uint64_t connection_id,
                             absl::Duration handshake_time);
  // The leader failed or was destroyed: wake its waiters now.
  void OnLeaderGone(const std::string& key, uint64_t connection_id);
  // A connection waiting for a session was destroyed.
  void CancelWait(const std::string& key, uint64_t connection_id);

  // Called by BoringSSL's new-session callback through the socket.
  void OnNewSession(const std::string& key,
                    bssl::UniquePtr<SSL_SESSION> session);

  size_t coalesced_waits() const { return coalesced_waits_; }

  // What a new connection to |key| could resume with: nothing, a session,
  // or one whose ticket allows 0-RTT early data not yet used for it (the
  // session cache's next one). Takes nothing from the cache.
  enum class Resumable { kNone, kSession, kEarlyData };
  Resumable PeekSession(const std::string& key, absl::Time now);
  // The SSL_SESSION ex_data slot marking a ticket already used for early
  // data (one 0-RTT attempt per ticket).
  static int SessionEarlyDataUsedIndex();

 private:
  struct Waiter {
    uint64_t connection_id;
    absl::AnyInvocable<void()> wake;
  };
  struct Group {
    uint64_t leader_id = 0;
    bool leader_done = false;  // handshake finished; waiting for its session
    std::list<Waiter> waiters;
    std::unique_ptr<OneShotTimer> grace_timer;
  };
  void WakeAll(const std::string& key);

  bssl::UniquePtr<SSL_CTX> ssl_ctx_;
  SSLClientSessionCache session_cache_;
  CertVerifier* verifier_;
  absl::flat_hash_map<std::string, Group> groups_;
  uint64_t next_connection_id_ = 1;
  size_t coalesced_waits_ = 0;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SSL_SSL_CLIENT_CONTEXT_H_
