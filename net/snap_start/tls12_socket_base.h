// Tls12SocketBase: what the Snap Start core's client, server and probe share
// — record I/O over the transport during the handshake (handshake messages,
// ChangeCipherSpec, alerts), the handshake's secrets and keys (transcript,
// master secret, pending and active record ciphers, Finished), whole-write of
// handshake flights, and, once the handshake is done, application data
// Read/Write as a StreamSocket.
//
// It answers like a TLS stack (RFC 5246 section 7.2): an alert goes out
// under the write state in force, so in plaintext until this side has sent
// its ChangeCipherSpec; after a fatal alert, sent or received, nothing more is
// sent (no close_notify, no data); a handshake message after the handshake
// gets a fatal no_renegotiation (a client's HelloRequest) or is refused as
// BoringSSL refuses it.
//
// Subclasses run their handshake as a DoLoop; a handshake read or write that
// blocks returns ERR_IO_PENDING and later calls OnHandshakeIOComplete(rv).
// Owns the transport. Network-thread affine.

#ifndef NET_SNAP_START_TLS12_SOCKET_BASE_H_
#define NET_SNAP_START_TLS12_SOCKET_BASE_H_

#include <memory>
#include <optional>
#include <string>

#include "net/base/io_buffer.h"
#include "net/base/thread_checker.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_handshake.h"
#include "net/snap_start/tls12_record.h"
#include "net/socket/stream_socket.h"

namespace net {

// RunDoLoop is the skeleton of every DoLoop in the core: it resets
// |*next_state| to the none state (the enum's zero) before each turn, runs
// |step(state, rv)|, and stops when a step blocks (ERR_IO_PENDING) or sets no
// next state. A step that blocks without naming a next state — a read
// waiting for the peer — runs again when the I/O completes, as BoringSSL's
// handshake re-enters a state that waits for a message. Each socket's |step|
// is its switch over its own states.
template <typename State, typename Step>
int RunDoLoop(State* next_state, int rv, Step step) {
  do {
    const State state = *next_state;
    *next_state = State{};
    rv = step(state, rv);
    if (rv == ERR_IO_PENDING && *next_state == State{}) *next_state = state;
  } while (rv != ERR_IO_PENDING && *next_state != State{});
  return rv;
}

class Tls12SocketBase : public StreamSocket {
 public:
  enum class Side { kClient, kServer };

  // |initial_bytes| were already read from |transport| (the server's
  // ClientHello dispatch peeks at them).
  Tls12SocketBase(Side side, std::unique_ptr<StreamSocket> transport,
                  std::string initial_bytes);
  ~Tls12SocketBase() override;

  // StreamSocket (application data once the handshake is done):
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;
  TcpFastOpenInfo GetTcpFastOpenInfo() const override {
    return transport_ ? transport_->GetTcpFastOpenInfo() : TcpFastOpenInfo();
  }

  // Why the last failure happened, for logs and the trace.
  const std::string& error_detail() const override { return error_detail_; }
  bool handshake_done() const { return handshake_done_; }

 protected:
  Side side() const { return side_; }

  // Handshake record I/O. ReadHandshakeOrCcs yields a handshake message, or
  // a ChangeCipherSpec (|*is_ccs| true).
  int ReadHandshakeOrCcs(HandshakeMessage* out, bool* is_ccs);
  // Expects a handshake message (a CCS here is unexpected_message).
  int ReadHandshakeMessage(HandshakeMessage* out);
  // Expects a handshake message of |type|; another is unexpected_message,
  // reported as "expected |name|".
  int ReadHandshakeMessageOfType(uint8_t type, const char* name,
                                 HandshakeMessage* out);
  // Writes |bytes| entirely.
  int WriteFlight(std::string bytes);
  virtual void OnHandshakeIOComplete(int result) = 0;

  // Fail records |detail| (the first detail wins), sends |alert| as a fatal
  // alert when there is one, and returns |error|. From then on the socket
  // sends nothing, and Read and Write return |error|.
  int Fail(int error, std::string detail,
           std::optional<TlsAlert> alert = std::nullopt);
  int Fail(const HandshakeFailure& failure);
  // SendAlert sends one alert (best effort) under the current write state.
  // A fatal one closes the sending side.
  void SendAlert(uint8_t level, TlsAlert description);

  // The handshake's secrets. The transcript hashes every handshake message
  // (4-byte headers included) in order.
  Transcript& transcript() { return transcript_; }
  void set_randoms(std::string client_random, std::string server_random);
  const std::string& client_random() const { return client_random_; }
  const std::string& server_random() const { return server_random_; }
  void set_master_secret(std::string master_secret) {
    master_secret_ = std::move(master_secret);
  }
  const std::string& master_secret() const { return master_secret_; }
  // DeriveMasterSecret computes the master secret from |premaster|: the
  // extended one (RFC 7627, session hash = the transcript so far, which must
  // end with the ClientKeyExchange) when |extended|, else the classic one.
  void DeriveMasterSecret(absl::string_view premaster, bool extended);
  // InstallPendingKeys derives the key block from the master secret and the
  // randoms and readies a cipher for each direction. Each takes effect at a
  // ChangeCipherSpec: ours (ChangeCipherSpecRecord) or the peer's
  // (ReceiveChangeCipherSpec). ERR_UNEXPECTED (internal_error) on failure.
  int InstallPendingKeys();
  // ChangeCipherSpecRecord returns our CCS record and switches our writes to
  // the pending cipher.
  std::string ChangeCipherSpecRecord();
  // ReceiveChangeCipherSpec switches reads to the pending cipher: the peer
  // sent its CCS. unexpected_message if no keys are pending (a CCS before the
  // key exchange).
  int ReceiveChangeCipherSpec();
  // OwnFinished returns our Finished message over the transcript so far and
  // appends it to the transcript.
  std::string OwnFinished();
  // ExpectedPeerFinished returns the Finished the peer must send over the
  // transcript so far (not appended).
  std::string ExpectedPeerFinished() const;
  // CcsAndFinished returns our CCS record, then |finished| sealed under the
  // new write cipher: the end of either side's flight.
  std::string CcsAndFinished(absl::string_view finished);
  // VerifyPeerFinished checks the peer's Finished |message| against
  // |*precomputed| (already in the transcript) or, when null, against
  // ExpectedPeerFinished(), which it then appends. decrypt_error on mismatch.
  int VerifyPeerFinished(const HandshakeMessage& message,
                         const std::string* precomputed = nullptr);
  // ResetHandshakeKeys forgets ciphers, master secret and transcript: Snap
  // Start recovery starts the handshake over.
  void ResetHandshakeKeys();

  RecordCipher* write_cipher() { return write_cipher_.get(); }
  RecordCipher* read_cipher() { return read_cipher_.get(); }
  void set_handshake_done() { handshake_done_ = true; }
  // Decrypted application data the handshake already received (Snap Start
  // carries it inside the ClientHello).
  void AppendAppData(absl::string_view data) {
    app_data_.append(data.data(), data.size());
  }
  StreamSocket* transport() { return transport_.get(); }

 private:
  // One record, decrypted if the read cipher is active. Alerts become errors
  // (close_notify: ERR_CONNECTION_CLOSED).
  int ReadRecord(TlsRecord* out, bool for_handshake);
  void OnTransportRead(int result);
  int DoWriteLoop();
  void OnTransportWrite(int result);
  int ReadAppData();
  // A handshake record after the handshake: renegotiation, refused.
  int OnPostHandshakeRecord(const TlsRecord& record);

  const Side side_;
  std::unique_ptr<StreamSocket> transport_;
  RecordBuffer records_;
  HandshakeBuffer handshake_buffer_;

  Transcript transcript_;
  std::string client_random_;
  std::string server_random_;
  std::string master_secret_;
  std::unique_ptr<RecordCipher> pending_read_cipher_;
  std::unique_ptr<RecordCipher> pending_write_cipher_;
  std::unique_ptr<RecordCipher> read_cipher_;
  std::unique_ptr<RecordCipher> write_cipher_;

  bool handshake_done_ = false;
  bool peer_closed_ = false;
  // A fatal alert was sent or received, or the socket failed otherwise:
  // nothing more goes out.
  bool write_closed_ = false;
  int fatal_error_ = OK;
  std::string error_detail_;

  // Transport read in flight, for the handshake or for a user Read.
  std::shared_ptr<IOBuffer> transport_read_buf_;
  bool transport_read_for_handshake_ = false;
  int transport_read_error_ = 0;  // sticky transport error or 0/EOF marker
  bool transport_eof_ = false;
  bool clean_eof_ = false;  // the transport closed between records

  // Outgoing bytes for the handshake flight or a user Write.
  std::shared_ptr<DrainableIOBuffer> write_buf_;
  bool write_for_handshake_ = false;

  std::string app_data_;
  std::shared_ptr<IOBuffer> user_read_buf_;
  int user_read_len_ = 0;
  CompletionOnceCallback user_read_callback_;
  int user_write_len_ = 0;
  CompletionOnceCallback user_write_callback_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SNAP_START_TLS12_SOCKET_BASE_H_
