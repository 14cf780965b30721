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
// An attempt that cannot even be built (say the predicted leaf key is not
// RSA) is rejected too: the first Write returns ERR_SNAP_START_REJECTED, and
// so does every later Read and Write.
// Without information, Connect() runs a normal handshake offering the empty
// extension, so the server's orbit is learned for next time; a server without
// Snap Start is simply a TLS 1.2 peer. Full handshakes offer the extended
// master secret (RFC 7627).
//
// The socket copies the server's information and session from the context
// when it connects and works from the copies: another socket's update cannot
// change them mid-handshake.
//
// Handshake states run as a DoLoop. Owns the transport; the context must
// outlive the socket. Network-thread affine.

#ifndef NET_SNAP_START_SNAP_START_CLIENT_SOCKET_H_
#define NET_SNAP_START_SNAP_START_CLIENT_SOCKET_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cert/cert_verifier.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/snap_start/snap_start_flight.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_socket_base.h"
#include "net/ssl/ssl_info.h"

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

  // For the trace; ssl_info().snap_start is snap_start_outcome().
  const SSLInfo& ssl_info() const { return ssl_info_; }
  const SSLInfo* GetSSLInfo() const override { return &ssl_info_; }
  SnapStartOutcome snap_start_outcome() const { return outcome_; }
  // Whether the session's master secret is the extended one (RFC 7627).
  bool extended_master_secret() const { return extended_master_secret_; }
  // The raw ClientHello records of a Snap Start attempt (tests replay them).
  const std::string& sent_client_hello() const { return sent_client_hello_; }

 private:
  enum State {
    STATE_NONE,
    STATE_VERIFY_PREDICTED,
    STATE_VERIFY_PREDICTED_COMPLETE,
    STATE_SEND_CLIENT_HELLO,
    STATE_SEND_CLIENT_HELLO_COMPLETE,
    STATE_SEND_SNAP_CLIENT_HELLO,
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

  // Where the socket stands with a Snap Start attempt.
  enum class SnapPhase {
    kNone,     // no attempt (a normal handshake, or none yet)
    kReady,    // Connect() done; the first Write() carries the attempt
    kSending,  // the ClientHello carrying it is being written
    kSent,     // it went out; the handshake completes behind Read()/Write()
  };

  // The kind of handshake under way.
  enum class HandshakeKind {
    kFull,
    kResumption,           // a ticket, abbreviated handshake
    kSnapStartFull,        // an attempt in the full form
    kSnapStartResumption,  // an attempt in the ticket form
  };

  int DoHandshakeLoop(int result);
  int DoVerifyPredicted();
  int DoVerifyPredictedComplete(int result);
  int DoSendClientHello();
  int DoSendClientHelloComplete(int result);
  int DoSendSnapClientHello();
  int DoSendSnapClientHelloComplete(int result);
  int DoReadSnapOutcome(int result);
  int DoReadServerHello(int result);
  int ProcessServerHello(const HandshakeMessage& message);
  int DoReadCertificate(int result);
  int DoReadServerHelloDone(int result);
  int DoVerifyCert();
  int DoVerifyCertComplete(int result);
  int DoSendClientFlight();
  int DoSendClientFlightComplete(int result);
  int DoReadServerCcs(int result);
  int ProcessNewSessionTicket(const HandshakeMessage& message);
  int ProcessServerCcs();
  int DoReadServerFinished(int result);
  int DoSendClientFinishedComplete(int result);
  int DoRetransmitEarlyDataComplete(int result);
  void OnHandshakeIOComplete(int result) override;

  // Verifies |chain_der| for host_; completes through OnHandshakeIOComplete.
  int StartVerify(const std::vector<std::string>& chain_der);
  // Records the end of a handshake run: OK once it is done, an error that
  // every later Read and Write returns.
  void SetHandshakeResult(int result);
  // Runs the Read and Write that waited for the attempt's outcome.
  void ResumeWaitingIO(int result);
  void FinishHandshake();
  void SetOutcome(SnapStartOutcome outcome);
  // Forgets the server's information and fails with ERR_SNAP_START_REJECTED.
  int Rejected(std::string why);
  // The session_ticket extension's content: the ticket when |resume|, else
  // empty; unset when tickets are off.
  std::optional<std::string> OfferedTicket(bool resume) const;

  const std::string host_;
  const uint16_t port_;
  const std::string key_;  // host:port
  SnapStartClientContext* const context_;

  // Copied from the context at Connect().
  std::optional<SnapStartInfo> info_;
  std::optional<Tls12ClientSession> session_;

  State next_state_ = STATE_NONE;
  SnapPhase phase_ = SnapPhase::kNone;
  HandshakeKind kind_ = HandshakeKind::kFull;
  SnapStartOutcome outcome_ = SnapStartOutcome::kNone;
  // OK, or the error a failed handshake left for every later call.
  int handshake_error_ = OK;
  CompletionOnceCallback connect_callback_;

  // Snap Start.
  std::string early_data_;
  int early_data_len_ = 0;  // bytes of the first Write embedded
  std::string sent_client_hello_;
  std::string original_client_hello_;     // raw handshake message, with ext
  std::string expected_server_finished_;  // resumption form

  // Handshake state.
  ClientHello offered_hello_;
  std::string offered_session_id_;
  bool expect_ticket_ = false;
  bool extended_master_secret_ = false;
  std::string server_hello_body_;
  ServerHello server_hello_;
  std::vector<std::string> chain_der_;
  bool client_cert_requested_ = false;
  std::unique_ptr<CertVerifier::Request> verify_request_;
  Tls12ClientSession new_session_;

  // The first Write while its ClientHello is being written, and a Read or
  // Write waiting for the attempt's outcome.
  CompletionOnceCallback first_write_callback_;
  std::shared_ptr<IOBuffer> pending_read_buf_;
  int pending_read_len_ = 0;
  CompletionOnceCallback pending_read_callback_;
  std::shared_ptr<IOBuffer> pending_write_buf_;
  int pending_write_len_ = 0;
  CompletionOnceCallback pending_write_callback_;

  SSLInfo ssl_info_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SnapStartClientSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_CLIENT_SOCKET_H_
