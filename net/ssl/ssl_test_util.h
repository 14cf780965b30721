// Scripted TLS client sockets for tests (testonly): an
// SSLSocketDataProvider given to MockClientSocketFactory::AddTlsSocketProvider
// answers one CreateSSLClientSocket or CreateSnapStartClientSocket with a
// MockSSLClientSocket. Its Connect() returns the scripted result (at once, or
// through a posted task), GetSSLInfo() and error_detail() report what the
// provider says, and application data passes through to the transport's
// script unencrypted, so a test scripts the HTTP exchange as over TCP.
//
//   SSLSocketDataProvider ssl(ASYNC, ERR_SSL_PROTOCOL_ERROR);
//   ssl.error_detail = "scripted: bad record";
//   factory.AddTlsSocketProvider(&ssl);

#ifndef NET_SSL_SSL_TEST_UTIL_H_
#define NET_SSL_SSL_TEST_UTIL_H_

#include <memory>
#include <optional>
#include <string>

#include "net/base/weak_ptr.h"
#include "net/socket/socket_test_util.h"
#include "net/ssl/ssl_info.h"

namespace net {

class SSLSocketDataProvider : public MockTlsSocketProvider {
 public:
  SSLSocketDataProvider(IoMode mode, int connect_result)
      : connect(mode, connect_result) {}

  MockConnect connect;
  // What GetSSLInfo() reports from Connect() on (also on failure).
  SSLInfo ssl_info;
  // When set, what GetSSLInfo() reports once the first Read() returned
  // data (a Snap Start attempt's outcome arrives with the response).
  std::optional<SSLInfo> ssl_info_after_first_read;
  std::string error_detail;

  // Filled in by CreateSocket: which factory method asked, for what.
  std::optional<Kind> created_as;
  std::string host;
  uint16_t port = 0;

  // MockTlsSocketProvider:
  std::unique_ptr<StreamSocket> CreateSocket(
      Kind kind, std::unique_ptr<StreamSocket> transport,
      const std::string& host, uint16_t port) override;
};

class MockSSLClientSocket : public StreamSocket {
 public:
  // |data| is not owned and must outlive the socket.
  MockSSLClientSocket(std::unique_ptr<StreamSocket> transport,
                      SSLSocketDataProvider* data);
  ~MockSSLClientSocket() override;

  // StreamSocket:
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
  const SSLInfo* GetSSLInfo() const override { return &ssl_info_; }
  const std::string& error_detail() const override {
    return data_->error_detail;
  }

 private:
  void OnRead(int result);

  std::unique_ptr<StreamSocket> transport_;
  SSLSocketDataProvider* const data_;
  SSLInfo ssl_info_;
  bool connected_ = false;
  WeakPtrFactory<MockSSLClientSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SSL_SSL_TEST_UTIL_H_
