// Test helpers for HTTP/2 through HttpNetworkTransaction (testonly): the
// mock socket factory's TLS socket "negotiates" h2 (or whatever SSLInfo the
// test gives it: a verified certificate chain, an OBC presented, a peer
// address) and carries the bytes over an in-memory socket pair to nghttp2's
// server side (net/http2's Http2TestServer); a fixture that makes the
// session, adds connections and runs requests to their end.

#ifndef NET_HTTP_HTTP2_TRANSACTION_TEST_UTIL_H_
#define NET_HTTP_HTTP2_TRANSACTION_TEST_UTIL_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/http/http_network_session.h"
#include "net/http/http_network_transaction.h"
#include "net/http2/http2_test_server.h"
#include "net/socket/socket_test_util.h"
#include "net/spdy/spdy_session_test_util.h"

namespace net {

// Every name is 127.0.0.1 (the fake socket pair's peer address); the
// names asked for are kept.
class FakeResolver : public HostResolver {
 public:
  int Resolve(const std::string& host, uint16_t, HostResolveResult* result,
              CompletionOnceCallback, std::unique_ptr<Request>*) override {
    resolved.push_back(host);
    result->source = DnsSource::kNetwork;
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
  std::vector<std::string> resolved;
};

class AcceptAllVerifier : public CertVerifier {
 public:
  int Verify(const CertVerifyParams&, CertVerifyResult* result,
             CompletionOnceCallback, std::unique_ptr<Request>*) override {
    result->error = OK;
    return OK;
  }
};

// A "TLS" socket whose handshake chose h2: bytes go through to one end of a
// FakeSocketPair.
class H2TlsSocket : public StreamSocket {
 public:
  H2TlsSocket(std::unique_ptr<StreamSocket> transport,
              std::unique_ptr<StreamSocket> pipe, SSLInfo info)
      : transport_(std::move(transport)),
        pipe_(std::move(pipe)),
        info_(std::move(info)) {}
  int Connect(CompletionOnceCallback) override { return OK; }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback cb) override {
    return pipe_->Read(std::move(buf), len, std::move(cb));
  }
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback cb) override {
    return pipe_->Write(std::move(buf), len, std::move(cb));
  }
  void Disconnect() override { pipe_->Disconnect(); }
  bool IsConnected() const override { return pipe_->IsConnected(); }
  bool IsConnectedAndIdle() const override {
    return pipe_->IsConnectedAndIdle();
  }
  int GetPeerAddress(IPEndPoint* a) const override {
    return pipe_->GetPeerAddress(a);
  }
  int GetLocalAddress(IPEndPoint* a) const override {
    return pipe_->GetLocalAddress(a);
  }
  const SSLInfo* GetSSLInfo() const override { return &info_; }

 private:
  std::unique_ptr<StreamSocket> transport_;
  std::unique_ptr<StreamSocket> pipe_;
  SSLInfo info_;
};

// The SSLInfo of a TLS 1.3 handshake that chose h2 (no verified chain:
// such a session carries no other origin).
inline SSLInfo H2Info() {
  SSLInfo info;
  info.version = "TLSv1.3";
  info.alpn = "h2";
  return info;
}

// Answers one CreateSSLClientSocket with an H2TlsSocket whose other end is
// an nghttp2 server running |handler| (or, without one, a RawHttp2Peer).
class H2ServerProvider : public MockTlsSocketProvider {
 public:
  explicit H2ServerProvider(Http2TestServer::Handler handler = nullptr,
                            SSLInfo info = H2Info())
      : handler_(std::move(handler)), info_(std::move(info)) {}
  std::unique_ptr<StreamSocket> CreateSocket(
      Kind, std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t) override {
    auto [client, server] = CreateFakeSocketPair();
    if (handler_) {
      server_ = std::make_unique<Http2TestServer>(std::move(server), handler_);
    } else {
      raw_ = std::make_unique<RawHttp2Peer>(std::move(server));
    }
    host_ = host;
    return std::make_unique<H2TlsSocket>(std::move(transport),
                                         std::move(client), info_);
  }
  Http2TestServer* server() { return server_.get(); }
  // The host the TLS socket was asked for (its SNI); "" if never.
  const std::string& host() const { return host_; }

 private:
  Http2TestServer::Handler handler_;
  SSLInfo info_;
  std::string host_;
  std::unique_ptr<Http2TestServer> server_;
  std::unique_ptr<RawHttp2Peer> raw_;
};

inline Http2TestServer::Response EchoPath(const TestHeaders& request,
                                          const std::string&) {
  Http2TestServer::Response r;
  for (const auto& [name, value] : request)
    if (name == ":path") r.body = "body of " + value;
  r.headers = {{"content-type", "text/plain"}};
  return r;
}

class Http2TransactionTest : public ::testing::Test {
 protected:
  void MakeSession(HttpNetworkSessionParams params = {}) {
    params.request_timeout = absl::Seconds(5);
    session_ = std::make_unique<HttpNetworkSession>(params, &resolver_,
                                                    &factory_, &verifier_);
  }
  // One TCP connection (scripted: nothing is read or written on it; the
  // TLS socket carries the bytes).
  void AddConnection(MockTlsSocketProvider* provider,
                     IoMode connect_mode = SYNC) {
    tcp_providers_.push_back(
        std::make_unique<StaticSocketDataProvider>(tcp_reads_, tcp_writes_));
    tcp_providers_.back()->set_connect_data(MockConnect(connect_mode, OK));
    factory_.AddSocketDataProvider(tcp_providers_.back().get());
    factory_.AddTlsSocketProvider(provider);
  }
  // A connection whose TCP script is |data| (HTTP/1.1 over a mock TLS
  // socket that passes bytes through).
  void AddScriptedConnection(StaticSocketDataProvider* data,
                             MockTlsSocketProvider* tls) {
    factory_.AddSocketDataProvider(data);
    factory_.AddTlsSocketProvider(tls);
  }

  struct Fetch {
    std::unique_ptr<HttpNetworkTransaction> trans;
    HttpRequestInfo request;
    TestCompletionCallback cb;
    int result = ERR_IO_PENDING;
    std::string body;
  };
  std::unique_ptr<Fetch> Begin(const std::string& url,
                               RequestPriority priority = HIGHEST) {
    auto f = std::make_unique<Fetch>();
    f->trans = std::make_unique<HttpNetworkTransaction>(session_.get());
    f->request.url = *Url::Parse(url);
    f->request.priority = priority;
    f->result = f->trans->Start(f->request, f->cb.callback());
    return f;
  }
  // Begin, then Finish.
  std::unique_ptr<Fetch> Get(const std::string& url,
                             RequestPriority priority = HIGHEST) {
    auto f = Begin(url, priority);
    Finish(f.get());
    return f;
  }
  void Finish(Fetch* f) {
    f->result = f->cb.GetResult(f->result);
    while (f->result == OK) {
      auto buf = std::make_shared<IOBuffer>(1024);
      TestCompletionCallback cb;
      int n = cb.GetResult(f->trans->Read(buf, 1024, cb.callback()));
      if (n < 0) f->result = n;
      if (n <= 0) break;
      f->body.append(buf->data(), n);
    }
  }

  EventLoop loop_;
  FakeResolver resolver_;
  AcceptAllVerifier verifier_;
  MockClientSocketFactory factory_;
  std::vector<MockRead> tcp_reads_ = {MockRead(ASYNC, ERR_IO_PENDING)};
  std::vector<MockWrite> tcp_writes_;
  std::vector<std::unique_ptr<StaticSocketDataProvider>> tcp_providers_;
  std::unique_ptr<HttpNetworkSession> session_;
};

}  // namespace net

#endif  // NET_HTTP_HTTP2_TRANSACTION_TEST_UTIL_H_
