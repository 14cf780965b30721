// SSLServerSocket: the server end of a TLS connection over BoringSSL, for the
// test server. Handshake() runs the server handshake; Read/Write (from
// SSLSocketBase) carry application data. It records what the test server
// logs: full or resumed, and whether the client's first application data
// arrived together with its Finished.
//
// Owns the transport; the SSLServerContext must outlive it.

#ifndef NET_SSL_SSL_SERVER_SOCKET_H_
#define NET_SSL_SSL_SERVER_SOCKET_H_

#include <memory>

#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/ssl/ssl_server_context.h"
#include "net/ssl/ssl_socket_base.h"

namespace net {

class SSLServerSocket : public SSLSocketBase {
 public:
  SSLServerSocket(std::unique_ptr<StreamSocket> transport,
                  SSLServerContext* context);
  ~SSLServerSocket() override;

  // Handshake runs the TLS server handshake: OK, a net error, or
  // ERR_IO_PENDING.
  int Handshake(CompletionOnceCallback callback);

  // StreamSocket: Connect is Handshake; Disconnect sends close_notify first.
  int Connect(CompletionOnceCallback callback) override {
    return Handshake(std::move(callback));
  }
  void Disconnect() override;

  // Also after a failed handshake: early_data and its reason (a client whose
  // early data was rejected gives up on the connection).
  const SSLInfo& ssl_info() const { return ssl_info_; }
  const SSLInfo* GetSSLInfo() const override { return &ssl_info_; }
  TimeTicks handshake_start() const { return handshake_start_; }
  TimeTicks handshake_end() const { return handshake_end_; }
  // Whether application data was already buffered when the handshake
  // completed, i.e. it travelled in the client's Finished flight (or, with
  // early data accepted, in its ClientHello flight).
  bool app_data_with_finished() const { return app_data_with_finished_; }
  // The handshake completed early for accepted 0-RTT and the client's
  // Finished has not arrived: what Read returns now is early data
  // (replayable). ssl_info().early_data says "accepted" from the start.
  bool in_early_data() const {
    return handshake_done_ && SSL_in_early_data(ssl());
  }
  // The connection's session after the handshake (new or resumed; owned by
  // the SSL object, valid while the socket lives), for
  // SSLServerContext::SetNextConnect. Null before the handshake.
  SSL_SESSION* session() const {
    return handshake_done_ ? SSL_get_session(ssl()) : nullptr;
  }

 private:
  void OnHandshakeIOReady() override;
  int DoHandshake();
  void FinishHandshake();
  // ssl_info_.early_data: "accepted", "rejected" (offered, and the server
  // has answered without accepting), or as the ClientHello callback left it.
  void FillEarlyDataInfo();

  CompletionOnceCallback handshake_callback_;
  TimeTicks handshake_start_;
  TimeTicks handshake_end_;
  bool app_data_with_finished_ = false;
  const bool tickets_at_handshake_;
  SSLInfo ssl_info_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SSL_SSL_SERVER_SOCKET_H_
