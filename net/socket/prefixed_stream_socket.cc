#include "net/socket/prefixed_stream_socket.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace net {

PrefixedStreamSocket::PrefixedStreamSocket(
    std::unique_ptr<StreamSocket> transport, std::string prefix)
    : transport_(std::move(transport)), prefix_(std::move(prefix)) {}

PrefixedStreamSocket::~PrefixedStreamSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int PrefixedStreamSocket::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->Connect(std::move(callback));
}

int PrefixedStreamSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                               CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
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
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->Write(std::move(buf), len, std::move(callback));
}

void PrefixedStreamSocket::Disconnect() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  transport_->Disconnect();
}

bool PrefixedStreamSocket::IsConnected() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->IsConnected();
}

bool PrefixedStreamSocket::IsConnectedAndIdle() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return prefix_.empty() && transport_->IsConnectedAndIdle();
}

int PrefixedStreamSocket::GetPeerAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->GetPeerAddress(address);
}

int PrefixedStreamSocket::GetLocalAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->GetLocalAddress(address);
}

}  // namespace net
