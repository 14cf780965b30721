// SnapStartClientSocket: the TLS 1.2 client of the Snap Start core
// (draft-agl-tls-snapstart carried onto TLS 1.2: SHA-256 PRF and transcript,
// TLS_RSA_WITH_AES_128_GCM_SHA256, static RSA, so no forward secrecy).
//
// With verified Snap Start information for the server (SnapStartClientContext)
// Connect() completes at once without I/O, and the first Write() sends the
// whole handshake and that data inside the ClientHello: the predicted server
// flight's FNV-1a-64 hash, ClientKeyExchange, ChangeCipherSpec, Finished and
// the request (or, with a ticket, the resumption form: CCS, Finished, data).
// Reads then see one of:
//   accepted  — [NewSessionTicket], CCS, Finished: zero extra round trips;
//   recovered — a ServerHello: a normal handshake over the original
//               ClientHello follows and the data is sent again;
//   rejected  — an alert or a close: ERR_SNAP_START_REJECTED and the
//               information is forgotten (the caller retries afresh).
// Without information, Connect() runs a normal handshake offering the empty
// extension, so the server's orbit is learned for next time; a server without
// Snap Start is simply a TLS 1.2 peer.
//
// Handshake states run as a DoLoop. Owns the transport; the context must
// outlive the socket. Network-thread affine.

#ifndef NET_SNAP_START_SNAP_START_CLIENT_SOCKET_H_
#define NET_SNAP_START_SNAP_START_CLIENT_SOCKET_H_

#include <memory>
#include <string>
#include <vector>

#include "cert/cert_verifier.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/snap_start/fnv1a64.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_socket_base.h"
#include "net/ssl/ssl_config.h"

namespace net {

class SnapStartClientSocket : public Tls12SocketBase {
 public:
  // At most this much of the first Write travels inside the ClientHello.
  static constexpr size_t kMaxEarlyData = 8192;

  SnapStartClientSocket(std::unique_ptr<StreamSocket> transport,
                        std::string host, uint16_t port,
                        SnapStartClientContext* context);
  ~SnapStartClientSocket() override;

  // StreamSocket:
  int Connect(CompletionOnceCallback callback) override;
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;

  // For the trace; ssl_info().snap_start says none / learned / attempted /
  // accepted / recovered / rejected.
  const SSLInfo& ssl_info() const { return ssl_info_; }
  // The raw ClientHello records of a Snap Start attempt (tests replay them).
  const std::string& sent_client_hello() const { return sent_client_hello_; }

 private:
  enum State {
    STATE_NONE,
    STATE_VERIFY_PREDICTED,
    STATE_VERIFY_PREDICTED_COMPLETE,
    STATE_SEND_CLIENT_HELLO,
    STATE_SEND_CLIENT_HELLO_COMPLETE,
    STATE_SEND_SNAP_CLIENT_HELLO_COMPLETE,
    STATE_READ_SNAP_OUTCOME,
    STATE_READ_SERVER_HELLO,
    STATE_READ_CERTIFICATE,
    STATE_READ_SERVER_HELLO_DONE,
    STATE_VERIFY_CERT,
    STATE_VERIFY_CERT_COMPLETE,
    STATE_SEND_CLIENT_FLIGHT,
    STATE_SEND_CLIENT_FLIGHT_COMPLETE,
    STATE_READ_SERVER_CCS,
    STATE_READ_SERVER_FINISHED,
    STATE_SEND_CLIENT_FINISHED_COMPLETE,
    STATE_RETRANSMIT_EARLY_DATA_COMPLETE,
  };

  int DoHandshakeLoop(int result);
  int DoVerifyPredicted();
  int DoVerifyPredictedComplete(int result);
  int DoSendClientHello();
  int DoSendClientHelloComplete(int result);
  int DoSendSnapClientHelloComplete(int result);
  int DoReadSnapOutcome(int result);
  int DoReadServerHello(int result);
  int ProcessServerHello(const HandshakeMessage& message);
  int DoReadCertificate(int result);
  int DoReadServerHelloDone(int result);
  int DoVerifyCert();
  // Verifies |chain_der| for host_; completes through OnHandshakeIOComplete.
  int StartVerify(const std::vector<std::string>& chain_der);
  int DoVerifyCertComplete(int result);
  int DoSendClientFlight();
  int DoSendClientFlightComplete(int result);
  int DoReadServerCcs(int result);
  int DoReadServerFinished(int result);
  int DoSendClientFinishedComplete(int result);
  int DoRetransmitEarlyDataComplete(int result);
  void OnHandshakeIOComplete(int result) override;
  void OnHandshakeDone(int result);

  // The ClientHello without the Snap Start extension (|session_id| set).
  ClientHello BuildClientHello(const std::string& session_id) const;
  // Builds and sends the Snap Start ClientHello carrying |early_data|.
  int StartSnapStart(absl::string_view early_data);
  int InstallKeys(const std::string& server_random);
  void FinishHandshake();
  int Rejected(std::string why);

  const std::string host_;
  const uint16_t port_;
  const std::string key_;  // host:port
  SnapStartClientContext* const context_;

  State next_state_ = STATE_NONE;
  CompletionOnceCallback connect_callback_;

  // Snap Start: Connect() done, waiting for the first Write.
  bool snap_ready_ = false;
  // The attempt went out; its outcome is not known yet.
  bool snap_outcome_pending_ = false;
  bool snap_resume_ = false;
  bool snap_accepted_ = false;
  // The outcome's first message, handed to STATE_READ_SERVER_CCS.
  bool pending_ccs_ = false;
  bool has_pending_message_ = false;
  HandshakeMessage pending_message_;
  // The handshake's result once a Snap Start attempt has resolved.
  int handshake_result_ = ERR_IO_PENDING;
  std::string early_data_;
  std::string sent_client_hello_;
  std::string original_client_hello_;     // raw handshake message, with ext
  std::string expected_server_finished_;  // resumption form

  // Handshake state.
  std::string client_random_;
  std::string server_random_;
  std::string offered_session_id_;
  bool offered_ticket_ = false;
  bool abbreviated_ = false;
  bool expect_ticket_ = false;
  std::string server_hello_body_;
  ServerHello server_hello_;
  std::vector<std::string> chain_der_;
  std::string master_secret_;
  Tls12KeyBlock keys_;
  Transcript transcript_;
  bool client_cert_requested_ = false;
  std::unique_ptr<CertVerifier::Request> verify_request_;
  Tls12ClientSession new_session_;

  // A user Read or Write waiting for the Snap Start outcome.
  std::shared_ptr<IOBuffer> pending_read_buf_;
  int pending_read_len_ = 0;
  CompletionOnceCallback pending_read_callback_;
  std::shared_ptr<IOBuffer> pending_write_buf_;
  int pending_write_len_ = 0;
  CompletionOnceCallback pending_write_callback_;
  int snap_write_len_ = 0;  // bytes of the first Write embedded

  SSLInfo ssl_info_;
  WeakPtrFactory<SnapStartClientSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_CLIENT_SOCKET_H_
