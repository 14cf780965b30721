// SSLClientSocket: a TLS 1.2/1.3 client connection over BoringSSL on top of
// a connected transport StreamSocket.
//
// Connect() runs the handshake as a DoLoop state machine:
//   WAIT_FOR_SESSION  -> (coalescing) resume, lead, or wait for a leader
//   HANDSHAKE         -> SSL_do_handshake until done or blocked
//   VERIFY_CERT       -> the CertVerifier (BoringSSL pauses with
//                        SSL_ERROR_WANT_CERTIFICATE_VERIFY meanwhile)
// It completes early under False Start when BoringSSL allows it (TLS 1.2,
// ECDHE, AEAD, ALPN); Read/Write then finish the handshake transparently.
//
// Owns the transport. The SSLClientContext is not owned and must outlive the
// socket. Network-thread affine.

#ifndef NET_SSL_SSL_CLIENT_SOCKET_H_
#define NET_SSL_SSL_CLIENT_SOCKET_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_config.h"
#include "net/ssl/ssl_transport_adapter.h"
#include "net/socket/stream_socket.h"

namespace net {

class SSLClientSocket : public StreamSocket, public SSLTransportAdapter::Delegate {
 public:
  // |host| is the SNI and verification name; |port| completes the session
  // key.
  SSLClientSocket(std::unique_ptr<StreamSocket> transport, std::string host,
                  uint16_t port, const SSLConfig& config, SSLClientContext* context);
  ~SSLClientSocket() override;

  // StreamSocket: Connect runs the TLS handshake (transport already
  // connected). Errors are ERR_CERT_*, ERR_SSL_*, or transport errors.
  int Connect(CompletionOnceCallback callback) override;
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;

  // Valid after Connect succeeds (and for cert errors, cert_verify).
  const SSLInfo& ssl_info() const { return ssl_info_; }
  // BoringSSL's reason for the last failure, for messages.
  const std::string& error_detail() const { return error_detail_; }
  std::string session_key() const { return session_key_; }

  // SSLTransportAdapter::Delegate:
  void OnTransportIOComplete() override;

  // Called from BoringSSL callbacks.
  int OnNewSession(SSL_SESSION* session);
  ssl_verify_result_t OnVerifyCallback(uint8_t* out_alert);

 private:
  enum State {
    STATE_NONE,
    STATE_WAIT_FOR_SESSION,
    STATE_WAIT_FOR_SESSION_COMPLETE,
    STATE_HANDSHAKE,
    STATE_VERIFY_CERT,
    STATE_VERIFY_CERT_COMPLETE,
  };

  int InitializeSSL();
  int DoHandshakeLoop(int result);
  int DoWaitForSession();
  int DoWaitForSessionComplete();
  int DoHandshake();
  int DoVerifyCert();
  int DoVerifyCertComplete(int result);
  void OnHandshakeIOComplete(int result);
  void FinishHandshake();
  void ReleaseLeadership();

  int DoPayloadRead();
  int DoPayloadWrite();
  // Maps a failed SSL call; records detail.
  int MapError(int ssl_rv, bool in_handshake);

  std::unique_ptr<StreamSocket> transport_;
  SSLTransportAdapter adapter_;
  const std::string host_;
  const std::string session_key_;
  const SSLConfig config_;
  SSLClientContext* const context_;
  const uint64_t connection_id_;
  bssl::UniquePtr<SSL> ssl_;

  State next_state_ = STATE_NONE;
  CompletionOnceCallback connect_callback_;
  bool completed_connect_ = false;
  bool is_leader_ = false;
  bool waiting_for_session_ = false;
  TimeTicks handshake_start_;
  TimeTicks wait_start_;

  bool cert_verified_ = false;
  std::unique_ptr<CertVerifier::Request> verify_request_;

  std::shared_ptr<IOBuffer> user_read_buf_;
  int user_read_len_ = 0;
  CompletionOnceCallback user_read_callback_;
  std::shared_ptr<IOBuffer> user_write_buf_;
  int user_write_len_ = 0;
  CompletionOnceCallback user_write_callback_;

  SSLInfo ssl_info_;
  std::string error_detail_;
  WeakPtrFactory<SSLClientSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SSL_SSL_CLIENT_SOCKET_H_
