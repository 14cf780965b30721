#include "net/socket/prefixed_stream_socket.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace net {

PrefixedStreamSocket::PrefixedStreamSocket(
    std::unique_ptr<StreamSocket> transport, std::string prefix)
    : transport_(std::move(transport)), prefix_(std::move(prefix)) {}

PrefixedStreamSocket::~PrefixedStreamSocket() = default;

int PrefixedStreamSocket::Connect(CompletionOnceCallback callback) {
  return transport_->Connect(std::move(callback));
}

int PrefixedStreamSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                               CompletionOnceCallback callback) {
  if (!prefix_.empty()) {
    const size_t n = std::min(prefix_.size(), static_cast<size_t>(len));
    memcpy(buf->data(), prefix_.data(), n);
    prefix_.erase(0, n);
    return static_cast<int>(n);
  }
  return transport_->Read(std::move(buf), len, std::move(callback));
}

int PrefixedStreamSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                                CompletionOnceCallback callback) {
  return transport_->Write(std::move(buf), len, std::move(callback));
}

void PrefixedStreamSocket::Disconnect() { transport_->Disconnect(); }

bool PrefixedStreamSocket::IsConnected() const {
  return transport_->IsConnected();
}

bool PrefixedStreamSocket::IsConnectedAndIdle() const {
  return prefix_.empty() && transport_->IsConnectedAndIdle();
}

int PrefixedStreamSocket::GetPeerAddress(IPEndPoint* address) const {
  return transport_->GetPeerAddress(address);
}

int PrefixedStreamSocket::GetLocalAddress(IPEndPoint* address) const {
  return transport_->GetLocalAddress(address);
}

}  // namespace net
