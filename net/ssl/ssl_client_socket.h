// SSLClientSocket: a TLS 1.2/1.3 client connection over BoringSSL on top of
// a connected transport StreamSocket.
//
// Connect() runs the handshake as a DoLoop state machine:
//   WAIT_FOR_SESSION  -> (coalescing) resume, lead, or wait for a leader
//   HANDSHAKE         -> SSL_do_handshake until done or blocked
//   VERIFY_CERT       -> the CertVerifier (BoringSSL pauses with
//                        SSL_ERROR_WANT_CERTIFICATE_VERIFY meanwhile)
// Encrypted ClientHello (draft-13): with SSLConfig::ech_config_list the
// real host goes in the encrypted inner ClientHello and the configuration's
// public name in the clear; without one a GREASE extension (ech_grease). A
// server that cannot use the configuration authenticates its rejection as
// the public name (the verifier is asked about that name then) and the
// handshake fails with ERR_ECH_NOT_NEGOTIATED, its retry configurations in
// ssl_info().ech_retry_configs for the caller's retry (SSLConnectJob); a
// certificate not valid for the public name is
// ERR_ECH_FALLBACK_CERTIFICATE_INVALID.
//
// It completes early under False Start when BoringSSL allows it (TLS 1.2,
// ECDHE, AEAD, ALPN), and right after the ClientHello when it offers TLS 1.3
// early data (config.early_data_enabled and a 0-RTT-capable session not yet
// used for early data); Read/Write then finish the handshake transparently.
// Until then ssl_info() says early_data "offered" and
// awaiting_server_response; if the server rejects the early data, Read and
// Write fail with ERR_EARLY_DATA_REJECTED (ERR_WRONG_VERSION_ON_EARLY_DATA
// if it chose TLS 1.2) and the caller retries on a new connection.
//
// Owns the transport. The SSLClientContext is not owned and must outlive the
// socket. Network-thread affine.

#ifndef NET_SSL_SSL_CLIENT_SOCKET_H_
#define NET_SSL_SSL_CLIENT_SOCKET_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "cert/obc/client_cert_provider.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_config.h"
#include "net/ssl/ssl_socket_base.h"

namespace net {

class SSLClientSocket : public SSLSocketBase {
 public:
  // |host| is the SNI and verification name; |port| completes the session
  // key.
  SSLClientSocket(std::unique_ptr<StreamSocket> transport, std::string host,
                  uint16_t port, const SSLConfig& config,
                  SSLClientContext* context);
  ~SSLClientSocket() override;

  // StreamSocket: Connect runs the TLS handshake (transport already
  // connected). Errors are ERR_CERT_*, ERR_SSL_*, ERR_OBC_* (the server asked
  // for a client certificate and the OBC could not be had), or transport
  // errors.
  int Connect(CompletionOnceCallback callback) override;
  void Disconnect() override;

  // Valid after Connect succeeds (and for cert errors, cert_verify).
  const SSLInfo& ssl_info() const { return ssl_info_; }
  const SSLInfo* GetSSLInfo() const override { return &ssl_info_; }
  std::string session_key() const { return session_key_; }

  // Called from BoringSSL callbacks.
  int OnNewSession(SSL_SESSION* session);
  ssl_verify_result_t OnVerifyCallback(uint8_t* out_alert);
  int OnClientCertCallback();

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
  // Encrypted ClientHello: the configuration to offer, or GREASE.
  int InitializeEch();
  // ssl_info_.ech and its detail once the handshake completed.
  void FillEchInfo();
  int DoHandshakeLoop(int result);
  int DoWaitForSession();
  int DoWaitForSessionComplete();
  int DoHandshake();
  int DoVerifyCert();
  int DoVerifyCertComplete(int result);
  void OnHandshakeIOComplete(int result);
  void FinishHandshake();
  // ssl_info_.early_data and its reason, once decided.
  void FillEarlyDataInfo();
  void ReleaseLeadership();

  // SSLSocketBase:
  void OnHandshakeIOReady() override;
  void OnEarlyDataResolved(bool rejected) override;

  const std::string host_;
  const uint16_t port_;
  const std::string session_key_;
  const SSLConfig config_;
  SSLClientContext* const context_;
  const uint64_t connection_id_;

  State next_state_ = STATE_NONE;
  CompletionOnceCallback connect_callback_;
  bool is_leader_ = false;
  bool waiting_for_session_ = false;
  TimeTicks handshake_start_;
  TimeTicks wait_start_;

  void OnClientCertReady(int result);
  // Records why no OBC can be presented (kept as the handshake's error).
  void SetClientCertError(int error);

  // The CertVerifier has answered (ssl_info_.cert_verify.error says how).
  bool cert_verify_done_ = false;
  // OBC: requested from the provider when the server asks for a certificate.
  ClientCert client_cert_;
  std::unique_ptr<ClientCertProvider::Request> client_cert_request_;
  bool client_cert_ready_ = false;
  bool waiting_for_client_cert_ = false;
  // Set once the OBC failed: an ERR_OBC_* error and its explanation.
  int client_cert_error_ = OK;
  std::string client_cert_detail_;
  std::unique_ptr<CertVerifier::Request> verify_request_;

  // Early data went out with the ClientHello.
  bool early_data_offered_ = false;
  // Why early data was not offered, when we decided it (else BoringSSL's).
  std::string early_data_reason_;

  // ECH: a configuration was offered (BoringSSL can use one in the list),
  // or GREASE was sent instead; why not, when neither; and the public name
  // the server authenticated a rejection with.
  bool ech_offered_ = false;
  bool ech_greased_ = false;
  std::string ech_detail_;
  std::string ech_name_override_;

  SSLInfo ssl_info_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SSLClientSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SSL_SSL_CLIENT_SOCKET_H_
