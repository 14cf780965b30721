// Tls12SocketBase: what the Snap Start core's client and server sockets share
// — record I/O over the transport during the handshake (handshake messages,
// ChangeCipherSpec, alerts, with the read cipher once activated), whole-write
// of handshake flights, and, once the handshake is done, application data
// Read/Write as a StreamSocket.
//
// Subclasses run their handshake as a DoLoop; a handshake read or write that
// blocks returns ERR_IO_PENDING and later calls OnHandshakeIOComplete(rv).
// Owns the transport. Network-thread affine.

#ifndef NET_SNAP_START_TLS12_SOCKET_BASE_H_
#define NET_SNAP_START_TLS12_SOCKET_BASE_H_

#include <memory>
#include <string>

#include "net/base/io_buffer.h"
#include "net/snap_start/tls12_record.h"
#include "net/socket/stream_socket.h"

namespace net {

// TLS alert descriptions the core sends.
enum TlsAlert : uint8_t {
  kAlertCloseNotify = 0,
  kAlertUnexpectedMessage = 10,
  kAlertBadRecordMac = 20,
  kAlertHandshakeFailure = 40,
  kAlertBadCertificate = 42,
  kAlertIllegalParameter = 47,
  kAlertDecodeError = 50,
  kAlertDecryptError = 51,
  kAlertProtocolVersion = 70,
  kAlertInternalError = 80,
  kAlertUnsupportedExtension = 110,
};

class Tls12SocketBase : public StreamSocket {
 public:
  // |initial_bytes| were already read from |transport| (the server's
  // ClientHello dispatch peeks at them).
  Tls12SocketBase(std::unique_ptr<StreamSocket> transport,
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

  // Why the last failure happened, for logs and the trace.
  const std::string& error_detail() const { return error_detail_; }
  bool handshake_done() const { return handshake_done_; }

 protected:
  // A handshake message, or a ChangeCipherSpec (|*is_ccs| true).
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

  // Fail records |detail|, sends a fatal |alert| (best effort, unless 0xff)
  // and returns |error|.
  int Fail(int error, std::string detail, uint8_t alert);
  void SendAlertBestEffort(uint8_t level, uint8_t description);

  // Activates record protection in one direction.
  void set_read_cipher(std::unique_ptr<RecordCipher> cipher) {
    read_cipher_ = std::move(cipher);
  }
  void set_write_cipher(std::unique_ptr<RecordCipher> cipher) {
    write_cipher_ = std::move(cipher);
  }
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

  std::unique_ptr<StreamSocket> transport_;
  RecordBuffer records_;
  HandshakeBuffer handshake_buffer_;
  std::unique_ptr<RecordCipher> read_cipher_;
  std::unique_ptr<RecordCipher> write_cipher_;
  bool handshake_done_ = false;
  bool peer_closed_ = false;
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
};

}  // namespace net

#endif  // NET_SNAP_START_TLS12_SOCKET_BASE_H_
