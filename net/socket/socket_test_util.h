// Scripted sockets for tests (testonly).
//
// A SocketDataProvider holds a script of reads and writes. Each step is
// synchronous (the call returns the result) or asynchronous (the call
// returns ERR_IO_PENDING and the result arrives through a posted task).
// Writes are checked against the script: a write whose bytes differ from the
// expected ones fails the test. MockClientSocketFactory hands out one
// MockTCPClientSocket per provider, in order.
//
// TLS is scripted too: each CreateSSLClientSocket / CreateSnapStartClientSocket
// takes the next MockTlsSocketProvider, which wraps the transport.
// net/ssl/ssl_test_util.h has the usual one, SSLSocketDataProvider (a
// scripted handshake result and SSLInfo; application data passes through to
// the transport's script in plaintext):
//
//   SSLSocketDataProvider ssl(ASYNC, OK);
//   ssl.ssl_info.version = "TLSv1.3";
//   factory.AddTlsSocketProvider(&ssl);
//
//   MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 200 OK\r\n..."),
//                       MockRead(SYNC, OK)};  // EOF
//   MockWrite writes[] = {MockWrite(SYNC, "GET / HTTP/1.1\r\n...")};
//   StaticSocketDataProvider data(reads, writes);
//   factory.AddSocketDataProvider(&data);
//   ...
//   EXPECT_TRUE(data.AllReadDataConsumed());

#ifndef NET_SOCKET_SOCKET_TEST_UTIL_H_
#define NET_SOCKET_SOCKET_TEST_UTIL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "net/base/weak_ptr.h"
#include "net/socket/client_socket_factory.h"
#include "net/ssl/ssl_config.h"

namespace net {

enum IoMode { SYNC, ASYNC };

// MockConnect is the scripted outcome of Connect().
struct MockConnect {
  MockConnect() = default;
  MockConnect(IoMode mode, int result) : mode(mode), result(result) {}
  IoMode mode = SYNC;
  int result = OK;
};

// MockRead is one read step: data, or a result (0 = EOF, or an error), or
// ERR_IO_PENDING to stall forever (for timeout tests).
struct MockRead {
  MockRead(IoMode mode, const char* data) : mode(mode), data(data) {}
  MockRead(IoMode mode, std::string data) : mode(mode), data(std::move(data)) {}
  MockRead(IoMode mode, int result) : mode(mode), result(result) {}
  IoMode mode;
  int result = OK;
  std::string data;
};

// MockWrite is one expected write: the bytes, or a result to return.
struct MockWrite {
  MockWrite(IoMode mode, const char* data) : mode(mode), data(data) {}
  MockWrite(IoMode mode, std::string data)
      : mode(mode), data(std::move(data)) {}
  MockWrite(IoMode mode, int result) : mode(mode), result(result) {}
  IoMode mode;
  int result = OK;
  std::string data;
};

class StaticSocketDataProvider {
 public:
  StaticSocketDataProvider(absl::Span<const MockRead> reads,
                           absl::Span<const MockWrite> writes);
  void set_connect_data(MockConnect connect) { connect_ = connect; }
  const MockConnect& connect_data() const { return connect_; }

  // Next steps; an exhausted script reads as EOF and fails writes.
  MockRead NextRead();
  // Returns the expected write step, with |data| checked against it.
  MockWrite NextWrite(absl::string_view data);

  bool AllReadDataConsumed() const { return read_index_ == reads_.size(); }
  bool AllWriteDataConsumed() const { return write_index_ == writes_.size(); }
  const std::vector<std::string>& write_mismatches() const {
    return mismatches_;
  }

 private:
  MockConnect connect_;
  std::vector<MockRead> reads_;
  std::vector<MockWrite> writes_;
  size_t read_index_ = 0;
  size_t write_index_ = 0;
  // A write that only partially matched a long expected step.
  size_t write_offset_ = 0;
  std::vector<std::string> mismatches_;
};

class MockTCPClientSocket : public StreamSocket {
 public:
  explicit MockTCPClientSocket(StaticSocketDataProvider* data,
                               const IPEndPoint& peer);
  ~MockTCPClientSocket() override = default;

  int Connect(CompletionOnceCallback callback) override;
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override { connected_ = false; }
  bool IsConnected() const override { return connected_; }
  bool IsConnectedAndIdle() const override {
    return connected_ && pending_read_.empty();
  }
  int GetPeerAddress(IPEndPoint* address) const override {
    *address = peer_;
    return OK;
  }
  int GetLocalAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 50000);
    return OK;
  }

 private:
  int CompleteRead(const std::shared_ptr<IOBuffer>& buf, int len,
                   const MockRead& step);
  void PostResult(CompletionOnceCallback callback, int result);

  StaticSocketDataProvider* data_;
  IPEndPoint peer_;
  bool connected_ = false;
  // Bytes of a scripted read larger than the caller's buffer.
  std::string pending_read_;
  WeakPtrFactory<MockTCPClientSocket> weak_factory_{this};
};

// MockTlsSocketProvider makes the TLS client socket of one
// CreateSSLClientSocket or CreateSnapStartClientSocket call.
class MockTlsSocketProvider {
 public:
  // Which factory method asked.
  enum class Kind { kSSL, kSnapStart };
  virtual ~MockTlsSocketProvider() = default;
  virtual std::unique_ptr<StreamSocket> CreateSocket(
      Kind kind, std::unique_ptr<StreamSocket> transport,
      const std::string& host, uint16_t port) = 0;
};

class MockClientSocketFactory : public ClientSocketFactory {
 public:
  void AddSocketDataProvider(StaticSocketDataProvider* data) {
    providers_.push_back(data);
  }
  void AddTlsSocketProvider(MockTlsSocketProvider* provider) {
    tls_providers_.push_back(provider);
  }
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& address, absl::Duration connect_timeout,
      const TcpConnectOptions& options) override;
  // The options of every transport socket asked for, in order.
  const std::vector<TcpConnectOptions>& tcp_options() const {
    return tcp_options_;
  }
  // Both take the next TLS provider; with none left they return null.
  std::unique_ptr<StreamSocket> CreateSSLClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, const SSLConfig& config,
      SSLClientContext* context) override;
  std::unique_ptr<StreamSocket> CreateSnapStartClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, SnapStartClientContext* context) override;
  size_t sockets_created() const { return created_; }
  // The TLS sockets asked for, in order: "ssl host:port" or
  // "snap_start host:port".
  const std::vector<std::string>& tls_sockets_requested() const {
    return tls_requested_;
  }
  // The SSLConfig of each CreateSSLClientSocket call, in order.
  const std::vector<SSLConfig>& ssl_configs() const { return ssl_configs_; }

 private:
  std::unique_ptr<StreamSocket> CreateTlsSocket(
      MockTlsSocketProvider::Kind kind, std::unique_ptr<StreamSocket> transport,
      const std::string& host, uint16_t port);

  std::deque<StaticSocketDataProvider*> providers_;
  std::vector<TcpConnectOptions> tcp_options_;
  std::deque<MockTlsSocketProvider*> tls_providers_;
  size_t created_ = 0;
  std::vector<std::string> tls_requested_;
  std::vector<SSLConfig> ssl_configs_;
};

}  // namespace net

#endif  // NET_SOCKET_SOCKET_TEST_UTIL_H_
