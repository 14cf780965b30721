#include "tools/netem/connect_delay_socket_factory.h"

#include "net/base/event_loop.h"
#include "net/base/weak_ptr.h"

namespace net {
namespace {

// Forwards everything to the wrapped socket, except that a successful
// Connect reports completion one emulated round trip later.
class DelayedConnectSocket : public StreamSocket {
 public:
  DelayedConnectSocket(std::unique_ptr<StreamSocket> socket,
                       absl::Duration delay)
      : socket_(std::move(socket)), delay_(delay) {}

  int Connect(CompletionOnceCallback callback) override {
    callback_ = std::move(callback);
    int rv = socket_->Connect([weak = weak_factory_.GetWeakPtr()](int rv) {
      if (weak) weak->OnConnected(rv);
    });
    if (rv == ERR_IO_PENDING) return rv;
    if (rv != OK) {
      callback_ = nullptr;
      return rv;
    }
    OnConnected(OK);
    return ERR_IO_PENDING;
  }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback cb) override {
    return socket_->Read(std::move(buf), len, std::move(cb));
  }
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback cb) override {
    return socket_->Write(std::move(buf), len, std::move(cb));
  }
  void Disconnect() override {
    timer_.Stop();
    socket_->Disconnect();
  }
  bool IsConnected() const override { return socket_->IsConnected(); }
  bool IsConnectedAndIdle() const override {
    return socket_->IsConnectedAndIdle();
  }
  int GetPeerAddress(IPEndPoint* a) const override {
    return socket_->GetPeerAddress(a);
  }
  int GetLocalAddress(IPEndPoint* a) const override {
    return socket_->GetLocalAddress(a);
  }

 private:
  void OnConnected(int rv) {
    if (rv != OK) {
      std::move(callback_)(rv);
      return;
    }
    timer_.Start(delay_, [this] { std::move(callback_)(OK); });
  }

  std::unique_ptr<StreamSocket> socket_;
  const absl::Duration delay_;
  CompletionOnceCallback callback_;
  OneShotTimer timer_;
  WeakPtrFactory<DelayedConnectSocket> weak_factory_{this};
};

}  // namespace

std::unique_ptr<StreamSocket>
ConnectDelaySocketFactory::CreateTransportClientSocket(
    const IPEndPoint& address, absl::Duration connect_timeout) {
  std::unique_ptr<StreamSocket> socket =
      base_->CreateTransportClientSocket(address, connect_timeout);
  auto it = links_.find(address);
  if (it == links_.end() || !socket) return socket;
  return std::make_unique<DelayedConnectSocket>(std::move(socket), it->second);
}

std::unique_ptr<StreamSocket> ConnectDelaySocketFactory::CreateSSLClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host,
    uint16_t port, const SSLConfig& config, SSLClientContext* context) {
  return base_->CreateSSLClientSocket(std::move(transport), host, port, config,
                                      context);
}

std::unique_ptr<StreamSocket>
ConnectDelaySocketFactory::CreateSnapStartClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host,
    uint16_t port, SnapStartClientContext* context) {
  return base_->CreateSnapStartClientSocket(std::move(transport), host, port,
                                            context);
}

}  // namespace net
