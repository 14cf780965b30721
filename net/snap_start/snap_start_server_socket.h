// SnapStartServerSocket: the TLS 1.2 server of the Snap Start core. It takes
// a ClientHello the test server routed here (ClassifyClientHello) and either
//   - accepts a Snap Start attempt: the suggested random passes the strike
//     register, the FNV-1a-64 of the flight it would send matches the
//     client's prediction, and the embedded ClientKeyExchange / CCS / Finished
//     check out; it then sends only [NewSessionTicket], CCS and Finished, and
//     the embedded request is already readable: zero extra round trips; or
//   - recovers: a normal TLS 1.2 handshake over the original ClientHello
//     (full with static RSA, or abbreviated with a ticket), the reason kept
//     for the log; or
//   - serves a client that offered no attempt the same normal handshake,
//     announcing its orbit when the client sent the empty extension.
// Full handshakes use the extended master secret (RFC 7627) when the client
// offers it; tickets remember which kind a session has.
// The server keeps no session state (tickets only), so a probe that stops
// after ServerHelloDone leaves nothing behind.
//
// Owns the transport; the context must outlive it. Network-thread affine.

#ifndef NET_SNAP_START_SNAP_START_SERVER_SOCKET_H_
#define NET_SNAP_START_SNAP_START_SERVER_SOCKET_H_

#include <memory>
#include <optional>
#include <string>

#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/snap_start/snap_start_flight.h"
#include "net/snap_start/snap_start_server_context.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_socket_base.h"
#include "net/ssl/ssl_info.h"

namespace net {

class SnapStartServerSocket : public Tls12SocketBase {
 public:
  // |initial_bytes|: what the dispatcher already read from |transport|.
  SnapStartServerSocket(std::unique_ptr<StreamSocket> transport,
                        std::string initial_bytes,
                        SnapStartServerContext* context);
  ~SnapStartServerSocket() override;

  int Handshake(CompletionOnceCallback callback);
  int Connect(CompletionOnceCallback callback) override {
    return Handshake(std::move(callback));
  }

  // For the log: ssl_info().snap_start is kNone (no extension), kLearned
  // (empty extension: orbit announced), kAccepted or kRecovered, with the
  // reason in snap_start_detail.
  const SSLInfo& ssl_info() const { return ssl_info_; }
  const SSLInfo* GetSSLInfo() const override { return &ssl_info_; }
  SnapStartOutcome snap_start_outcome() const { return outcome_; }
  // Whether the session's master secret is the extended one (RFC 7627).
  bool extended_master_secret() const { return extended_master_secret_; }
  TimeTicks handshake_start() const { return handshake_start_; }
  TimeTicks handshake_end() const { return handshake_end_; }

 private:
  enum State {
    STATE_NONE,
    STATE_READ_CLIENT_HELLO,
    STATE_SEND_FLIGHT_COMPLETE,
    STATE_READ_CLIENT_KEY_EXCHANGE,
    STATE_READ_CLIENT_CCS,
    STATE_READ_CLIENT_FINISHED,
    STATE_SEND_FINISHED_COMPLETE,
  };

  // What the server does with a Snap Start attempt.
  enum class SnapStartDecision {
    kAccept,   // the embedded handshake checks out: answer CCS + Finished
    kRecover,  // a normal handshake over the original ClientHello
    kFatal,    // the connection fails (already reported through Fail)
  };

  int DoHandshakeLoop(int result);
  int DoReadClientHello(int result);
  // Decides on an attempt. kRecover sets |*reason|; kFatal sets
  // |*fatal_error|.
  SnapStartDecision EvaluateSnapStart(const SnapStartAttempt& attempt,
                                      std::string* reason, int* fatal_error);
  SnapStartDecision CheckEmbeddedRecords(const SnapStartAttempt& attempt,
                                         std::string* reason, int* fatal_error);
  int SendSnapStartAcceptance();
  int StartNormalHandshake();
  int DoSendFlightComplete(int result);
  int DoReadClientKeyExchange(int result);
  int DoReadClientCcs(int result);
  int DoReadClientFinished(int result);
  int DoSendFinishedComplete(int result);
  void OnHandshakeIOComplete(int result) override;
  void Done(int result);
  void SetOutcome(SnapStartOutcome outcome, std::string detail);

  // The ServerHello this server sends for the ClientHello with |random|.
  ServerHello BuildServerHello(const std::string& random) const;
  // The flight BuildServerHello(|random|) starts.
  ServerFlight BuildFlight(const std::string& random) const;
  // [NewSessionTicket], CCS, Finished: the server's last flight of a full
  // handshake.
  std::string FinalFlight();

  SnapStartServerContext* const context_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;

  ClientHello client_hello_;
  std::string client_hello_raw_;
  // The session a ticket resumes; unset for a full handshake.
  std::optional<Tls12ServerSession> resumed_session_;
  bool send_ticket_ = false;
  // The client offered extended_master_secret.
  bool ems_offered_ = false;
  bool extended_master_secret_ = false;
  // Snap Start resumption form: the server Finished the client computed.
  std::string expected_server_finished_;

  SnapStartOutcome outcome_ = SnapStartOutcome::kNone;
  SSLInfo ssl_info_;
  TimeTicks handshake_start_;
  TimeTicks handshake_end_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_SERVER_SOCKET_H_
