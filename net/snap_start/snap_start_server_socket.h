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
// The server keeps no session state (tickets only), so a probe that stops
// after ServerHelloDone leaves nothing behind.
//
// Owns the transport; the context must outlive it. Network-thread affine.

#ifndef NET_SNAP_START_SNAP_START_SERVER_SOCKET_H_
#define NET_SNAP_START_SNAP_START_SERVER_SOCKET_H_

#include <memory>
#include <optional>
#include <string>

#include "net/base/tick_clock.h"
#include "net/snap_start/snap_start_server_context.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_socket_base.h"
#include "net/ssl/ssl_config.h"

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

  // For the log: ssl_info().snap_start is "" (no extension), "learned"
  // (empty extension: orbit announced), "accepted" or "recovered", with the
  // reason in snap_start_detail.
  const SSLInfo& ssl_info() const { return ssl_info_; }
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

  int DoHandshakeLoop(int result);
  int DoReadClientHello(int result);
  int TrySnapStart(const ClientHello& hello, const std::string& raw,
                   const SnapStartAttempt& attempt, std::string* reason);
  int ProcessEmbeddedRecords(const SnapStartAttempt& attempt,
                             std::string* reason);
  int StartNormalHandshake();
  int DoSendFlightComplete(int result);
  int DoReadClientKeyExchange(int result);
  int DoReadClientCcs(int result);
  int DoReadClientFinished(int result);
  int DoSendFinishedComplete(int result);
  void OnHandshakeIOComplete(int result) override;
  void Done(int result);

  // The ServerHello this server sends for |hello| with |random|.
  std::string BuildServerHello(const ClientHello& hello,
                               const std::string& random, bool resuming) const;
  // [NewSessionTicket], CCS, Finished: the server's last flight.
  std::string FinalFlight(bool with_ticket);
  int InstallKeys();

  SnapStartServerContext* const context_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;

  ClientHello client_hello_;
  std::string client_hello_raw_;
  std::string server_random_;
  std::optional<Tls12ServerSession> resumed_session_;
  bool send_ticket_ = false;
  std::string master_secret_;
  Tls12KeyBlock keys_;
  Transcript transcript_;
  // After the server's Finished in an abbreviated handshake, the client's
  // CCS and Finished complete it.
  bool abbreviated_ = false;
  // Snap Start resumption form: the server Finished the client computed.
  std::string expected_server_finished_;

  SSLInfo ssl_info_;
  TimeTicks handshake_start_;
  TimeTicks handshake_end_;
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_SERVER_SOCKET_H_
