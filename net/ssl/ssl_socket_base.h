// SSLSocketBase: what the TLS client and server sockets share — the
// transport and its BIO adapter, the SSL object, application-data Read and
// Write after the handshake, and the SSLInfo facts. Subclasses run their
// side's handshake and get OnHandshakeIOReady() when transport I/O they
// were blocked on completes.
//
// Owns the transport. Network-thread affine.

#ifndef NET_SSL_SSL_SOCKET_BASE_H_
#define NET_SSL_SSL_SOCKET_BASE_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"
#include "net/ssl/ssl_config.h"
#include "net/ssl/ssl_transport_adapter.h"

namespace net {

class SSLSocketBase : public StreamSocket,
                      public SSLTransportAdapter::Delegate {
 public:
  ~SSLSocketBase() override;

  // StreamSocket (Connect is the subclass's handshake).
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;
  TcpFastOpenInfo GetTcpFastOpenInfo() const override {
    return transport_ ? transport_->GetTcpFastOpenInfo() : TcpFastOpenInfo();
  }

  // BoringSSL's reason for the last failure, for messages.
  const std::string& error_detail() const override { return error_detail_; }

  // ExportKeyingMaterial writes |out_len| bytes of RFC 5705 keying material
  // for |label| (with |context| only if |has_context|; the two differ in
  // TLS 1.2) to |out|: OK, or ERR_SOCKET_NOT_CONNECTED before the handshake
  // (a False Start included) has completed, or ERR_SSL_PROTOCOL_ERROR.
  // For SPDY CREDENTIAL proofs (net/spdy/spdy_credential.h).
  int ExportKeyingMaterial(absl::string_view label, bool has_context,
                           absl::string_view context, uint8_t* out,
                           size_t out_len) const override;
  // server_name is the SNI host name the client sent ("" if none).
  std::string server_name() const;

  // SSLTransportAdapter::Delegate:
  void OnTransportIOComplete() override;

 protected:
  explicit SSLSocketBase(std::unique_ptr<StreamSocket> transport);

  // Takes |ssl| and connects it to the adapter's BIO.
  void AttachSSL(bssl::UniquePtr<SSL> ssl);
  // Called when transport I/O completes before the handshake is done.
  virtual void OnHandshakeIOReady() = 0;
  // Maps a failed SSL call (and flushes any alert BoringSSL queued).
  int MapError(int ssl_rv, bool in_handshake);
  // Fills version, cipher, group, ALPN and resumed from the SSL object.
  void FillNegotiatedInfo(SSLInfo* info) const;
  // Drops pending user callbacks and closes the transport.
  void DisconnectTransport();
  // Client 0-RTT: Connect() completed with the handshake still in early
  // data (early_data_pending_ set). Read and Write finish it; this is called
  // once it has finished (|rejected| false) or the server rejected the
  // early data (|rejected| true: they return ERR_EARLY_DATA_REJECTED).
  virtual void OnEarlyDataResolved(bool rejected) {}
  // Client, once the handshake is done: while no Read is pending, records
  // that arrive are processed as they come (Chromium's post-handshake peek),
  // so TLS 1.3 NewSessionTickets reach the session cache and an idle socket
  // (a preconnected or keep-alive one) stays idle. Application data is left
  // decrypted for the next Read; a close_notify or alert marks the socket
  // not connected. Starts with a posted pass over what is buffered.
  void ProcessInputWhileIdle();

  SSL* ssl() const { return ssl_.get(); }
  SSLTransportAdapter* adapter() { return &adapter_; }
  const SSLTransportAdapter* adapter() const { return &adapter_; }

  bool handshake_done_ = false;
  bool early_data_pending_ = false;
  std::string error_detail_;

 private:
  int DoPayloadRead();
  int DoPayloadWrite();
  // After SSL_read or SSL_write returned |ssl_rv|: tells the subclass when
  // a pending early-data handshake finished or was rejected.
  void CheckEarlyData(int ssl_rv);
  // One bounded pass of ProcessInputWhileIdle's processing.
  void ProcessIdleInput();

  std::unique_ptr<StreamSocket> transport_;
  SSLTransportAdapter adapter_;
  bssl::UniquePtr<SSL> ssl_;

  std::shared_ptr<IOBuffer> user_read_buf_;
  int user_read_len_ = 0;
  CompletionOnceCallback user_read_callback_;
  std::shared_ptr<IOBuffer> user_write_buf_;
  int user_write_len_ = 0;
  CompletionOnceCallback user_write_callback_;
  bool process_idle_input_ = false;
  // The peer closed (close_notify, an alert or a bad record) while no Read
  // was pending; the next Read reports it.
  bool closed_while_idle_ = false;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SSLSocketBase> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SSL_SSL_SOCKET_BASE_H_
