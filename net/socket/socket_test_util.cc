#include "net/socket/socket_test_util.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/event_loop.h"

namespace net {

StaticSocketDataProvider::StaticSocketDataProvider(
    absl::Span<const MockRead> reads, absl::Span<const MockWrite> writes)
    : reads_(reads.begin(), reads.end()),
      writes_(writes.begin(), writes.end()) {}

MockRead StaticSocketDataProvider::NextRead() {
  if (read_index_ >= reads_.size()) return MockRead(SYNC, OK);
  return reads_[read_index_++];
}

MockWrite StaticSocketDataProvider::NextWrite(absl::string_view data) {
  if (write_index_ >= writes_.size()) {
    mismatches_.push_back(absl::StrCat("unexpected write: ", data));
    return MockWrite(SYNC, ERR_UNEXPECTED);
  }
  MockWrite step = writes_[write_index_];
  if (step.data.empty()) {
    ++write_index_;
    return step;  // A scripted result.
  }
  absl::string_view expected =
      absl::string_view(step.data).substr(write_offset_);
  if (data.size() > expected.size()) data = data.substr(0, expected.size());
  if (expected.substr(0, data.size()) != data) {
    mismatches_.push_back(absl::StrCat("write mismatch: expected '", expected,
                                       "' got '", data, "'"));
    ++write_index_;
    return MockWrite(step.mode, ERR_UNEXPECTED);
  }
  write_offset_ += data.size();
  if (write_offset_ == step.data.size()) {
    ++write_index_;
    write_offset_ = 0;
  }
  MockWrite result(step.mode, static_cast<int>(data.size()));
  return result;
}

MockTCPClientSocket::MockTCPClientSocket(StaticSocketDataProvider* data,
                                         const IPEndPoint& peer)
    : data_(data), peer_(peer) {}

void MockTCPClientSocket::PostResult(CompletionOnceCallback callback,
                                     int result) {
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(),
                                  callback = std::move(callback),
                                  result]() mutable {
    if (weak) std::move(callback)(result);
  });
}

int MockTCPClientSocket::Connect(CompletionOnceCallback callback) {
  const MockConnect& connect = data_->connect_data();
  if (connect.result == OK) connected_ = true;
  if (connect.mode == SYNC) return connect.result;
  PostResult(std::move(callback), connect.result);
  return ERR_IO_PENDING;
}

int MockTCPClientSocket::CompleteRead(const std::shared_ptr<IOBuffer>& buf,
                                      int len, const MockRead& step) {
  if (step.data.empty()) return step.result;
  pending_read_ += step.data;
  size_t n = std::min<size_t>(len, pending_read_.size());
  std::memcpy(buf->data(), pending_read_.data(), n);
  pending_read_.erase(0, n);
  return static_cast<int>(n);
}

int MockTCPClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                              CompletionOnceCallback callback) {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  if (!pending_read_.empty()) {
    size_t n = std::min<size_t>(len, pending_read_.size());
    std::memcpy(buf->data(), pending_read_.data(), n);
    pending_read_.erase(0, n);
    return static_cast<int>(n);
  }
  MockRead step = data_->NextRead();
  if (step.data.empty() && step.result == ERR_IO_PENDING) return ERR_IO_PENDING;
  if (step.mode == SYNC) return CompleteRead(buf, len, step);
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), buf, len,
                                  step,
                                  callback = std::move(callback)]() mutable {
    if (!weak) return;
    int rv = weak->CompleteRead(buf, len, step);
    std::move(callback)(rv);
  });
  return ERR_IO_PENDING;
}

int MockTCPClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                               CompletionOnceCallback callback) {
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  MockWrite step = data_->NextWrite(absl::string_view(buf->data(), len));
  if (step.mode == SYNC) return step.result;
  PostResult(std::move(callback), step.result);
  return ERR_IO_PENDING;
}

std::unique_ptr<StreamSocket>
MockClientSocketFactory::CreateTransportClientSocket(
    const IPEndPoint& address, absl::Duration connect_timeout,
    const TcpConnectOptions& options) {
  tcp_options_.push_back(options);
  if (providers_.empty()) return nullptr;
  StaticSocketDataProvider* data = providers_.front();
  providers_.pop_front();
  ++created_;
  return std::make_unique<MockTCPClientSocket>(data, address);
}

std::unique_ptr<StreamSocket> MockClientSocketFactory::CreateSSLClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host,
    uint16_t port, const SSLConfig& config, SSLClientContext* context) {
  ssl_configs_.push_back(config);
  return CreateTlsSocket(MockTlsSocketProvider::Kind::kSSL,
                         std::move(transport), host, port);
}

std::unique_ptr<StreamSocket>
MockClientSocketFactory::CreateSnapStartClientSocket(
    std::unique_ptr<StreamSocket> transport, const std::string& host,
    uint16_t port, SnapStartClientContext* context) {
  return CreateTlsSocket(MockTlsSocketProvider::Kind::kSnapStart,
                         std::move(transport), host, port);
}

std::unique_ptr<StreamSocket> MockClientSocketFactory::CreateTlsSocket(
    MockTlsSocketProvider::Kind kind, std::unique_ptr<StreamSocket> transport,
    const std::string& host, uint16_t port) {
  tls_requested_.push_back(absl::StrCat(
      kind == MockTlsSocketProvider::Kind::kSSL ? "ssl " : "snap_start ", host,
      ":", port));
  if (tls_providers_.empty()) return nullptr;
  MockTlsSocketProvider* provider = tls_providers_.front();
  tls_providers_.pop_front();
  return provider->CreateSocket(kind, std::move(transport), host, port);
}

}  // namespace net
