// SSLServerSocket: the server end of a TLS connection over BoringSSL, for the
// test server. Handshake() runs the server handshake; Read/Write carry
// application data. It records what the test server logs: full or resumed,
// and whether the client's first application data arrived together with its
// Finished (the sign of False Start in TLS 1.2).
//
// Owns the transport; the SSLServerContext must outlive it.

#ifndef NET_SSL_SSL_SERVER_SOCKET_H_
#define NET_SSL_SSL_SERVER_SOCKET_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/ssl/ssl_config.h"
#include "net/ssl/ssl_server_context.h"
#include "net/ssl/ssl_transport_adapter.h"
#include "net/socket/stream_socket.h"

namespace net {

class SSLServerSocket : public StreamSocket, public SSLTransportAdapter::Delegate {
 public:
  SSLServerSocket(std::unique_ptr<StreamSocket> transport, SSLServerContext* context);
  ~SSLServerSocket() override;

  // Handshake runs the TLS server handshake: OK, a net error, or
  // ERR_IO_PENDING.
  int Handshake(CompletionOnceCallback callback);

  // StreamSocket (Connect is Handshake).
  int Connect(CompletionOnceCallback callback) override {
    return Handshake(std::move(callback));
  }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;

  const SSLInfo& ssl_info() const { return ssl_info_; }
  const std::string& error_detail() const { return error_detail_; }
  TimeTicks handshake_start() const { return handshake_start_; }
  TimeTicks handshake_end() const { return handshake_end_; }
  // Whether application data was already buffered when the handshake
  // completed, i.e. it travelled in the client's Finished flight.
  bool app_data_with_finished() const { return app_data_with_finished_; }

  void OnTransportIOComplete() override;

 private:
  int DoHandshake();
  int DoPayloadRead();
  int DoPayloadWrite();
  void FinishHandshake();

  std::unique_ptr<StreamSocket> transport_;
  SSLTransportAdapter adapter_;
  bssl::UniquePtr<SSL> ssl_;
  bool handshake_done_ = false;
  CompletionOnceCallback handshake_callback_;
  TimeTicks handshake_start_;
  TimeTicks handshake_end_;
  bool app_data_with_finished_ = false;

  std::shared_ptr<IOBuffer> user_read_buf_;
  int user_read_len_ = 0;
  CompletionOnceCallback user_read_callback_;
  std::shared_ptr<IOBuffer> user_write_buf_;
  int user_write_len_ = 0;
  CompletionOnceCallback user_write_callback_;

  SSLInfo ssl_info_;
  std::string error_detail_;
  WeakPtrFactory<SSLServerSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SSL_SSL_SERVER_SOCKET_H_
