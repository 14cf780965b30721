#include "net/ssl/ssl_test_util.h"

#include <utility>

#include "net/base/event_loop.h"

namespace net {

std::unique_ptr<StreamSocket> SSLSocketDataProvider::CreateSocket(
    Kind kind, std::unique_ptr<StreamSocket> transport,
    const std::string& host_arg, uint16_t port_arg) {
  created_as = kind;
  host = host_arg;
  port = port_arg;
  return std::make_unique<MockSSLClientSocket>(std::move(transport), this);
}

MockSSLClientSocket::MockSSLClientSocket(
    std::unique_ptr<StreamSocket> transport, SSLSocketDataProvider* data)
    : transport_(std::move(transport)), data_(data) {}

MockSSLClientSocket::~MockSSLClientSocket() = default;

int MockSSLClientSocket::Connect(CompletionOnceCallback callback) {
  ssl_info_ = data_->ssl_info;
  const int result = data_->connect.result;
  connected_ = result == OK;
  if (data_->connect.mode == SYNC) return result;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(),
                                  callback = std::move(callback),
                                  result]() mutable {
    if (weak) std::move(callback)(result);
  });
  return ERR_IO_PENDING;
}

void MockSSLClientSocket::OnRead(int result) {
  if (result > 0 && data_->ssl_info_after_first_read) {
    ssl_info_ = *data_->ssl_info_after_first_read;
    data_->ssl_info_after_first_read.reset();
  }
}

int MockSSLClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                              CompletionOnceCallback callback) {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  int rv =
      transport_->Read(std::move(buf), len,
                       [weak = weak_factory_.GetWeakPtr(),
                        callback = std::move(callback)](int result) mutable {
                         if (!weak) return;
                         weak->OnRead(result);
                         std::move(callback)(result);
                       });
  if (rv != ERR_IO_PENDING) OnRead(rv);
  return rv;
}

int MockSSLClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                               CompletionOnceCallback callback) {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  return transport_->Write(std::move(buf), len, std::move(callback));
}

void MockSSLClientSocket::Disconnect() {
  connected_ = false;
  transport_->Disconnect();
}

bool MockSSLClientSocket::IsConnected() const {
  return connected_ && transport_->IsConnected();
}

bool MockSSLClientSocket::IsConnectedAndIdle() const {
  return connected_ && transport_->IsConnectedAndIdle();
}

int MockSSLClientSocket::GetPeerAddress(IPEndPoint* address) const {
  return transport_->GetPeerAddress(address);
}

int MockSSLClientSocket::GetLocalAddress(IPEndPoint* address) const {
  return transport_->GetLocalAddress(address);
}

}  // namespace net
