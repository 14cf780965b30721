#include "net/context/test_https_server.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/io_buffer.h"

namespace net {

struct TestHttpsServer::Connection {
  std::unique_ptr<SSLServerSocket> socket;
  std::string received;
  std::shared_ptr<IOBuffer> buf = std::make_shared<IOBuffer>(4096);
};

TestHttpsServer::TestHttpsServer() {
  SSLServerConfig config;
  config.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
  config.key_file = "cert/testdata/good_leaf.key";
  auto context = SSLServerContext::Create(config);
  if (context.ok()) context_ = std::move(*context);
  listener_.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 64);
  listener_.GetLocalAddress(&address_);
  Accept();
}

TestHttpsServer::~TestHttpsServer() = default;

void TestHttpsServer::Accept() {
  for (;;) {
    int rv = listener_.Accept(&accepted_, [this](int rv) {
      if (rv == OK) OnAccepted();
      Accept();
    });
    if (rv != OK) return;
    OnAccepted();
  }
}

void TestHttpsServer::OnAccepted() {
  auto connection = std::make_unique<Connection>();
  connection->socket =
      std::make_unique<SSLServerSocket>(std::move(accepted_), context_.get());
  Connection* c = connection.get();
  connections_.push_back(std::move(connection));
  int rv = c->socket->Handshake([this, c](int rv) {
    if (rv != OK) return;
    ++handshakes_;
    ReadRequest(c);
  });
  if (rv == OK) {
    ++handshakes_;
    ReadRequest(c);
  }
}

void TestHttpsServer::ReadRequest(Connection* c) {
  int rv = c->socket->Read(c->buf, 4096, [this, c](int rv) { OnRead(c, rv); });
  if (rv != ERR_IO_PENDING) OnRead(c, rv);
}

void TestHttpsServer::OnRead(Connection* c, int rv) {
  if (rv <= 0) return;
  c->received.append(c->buf->data(), rv);
  size_t end;
  while ((end = c->received.find("\r\n\r\n")) != std::string::npos) {
    const std::string head = c->received.substr(0, end);
    c->received.erase(0, end + 4);
    ++requests_;
    // "GET /path HTTP/1.1", then header lines.
    std::vector<std::string> lines = absl::StrSplit(head, "\r\n");
    std::vector<std::string> request_line = absl::StrSplit(lines[0], ' ');
    const std::string path = request_line.size() > 1 ? request_line[1] : "";
    std::string cookie;
    for (size_t i = 1; i < lines.size(); ++i) {
      if (absl::StartsWithIgnoreCase(lines[i], "cookie: "))
        cookie = lines[i].substr(8);
    }
    seen_.emplace_back(path, cookie);
    std::string response =
        path == "/redirect"
            ? std::string(
                  "HTTP/1.1 302 Found\r\nLocation: /\r\nContent-Length: "
                  "0\r\nSet-Cookie: from=redirect; Max-Age=3600\r\n\r\n")
            : absl::StrCat(
                  "HTTP/1.1 200 OK\r\nContent-Length: ", sizeof(kBody) - 1,
                  "\r\nSet-Cookie: visit=", requests_, "; Max-Age=3600\r\n\r\n",
                  kBody);
    auto out = std::make_shared<IOBuffer>(response);
    // Small responses on loopback complete at once; a pending write keeps
    // its buffer alive through the shared_ptr.
    c->socket->Write(out, response.size(), [out](int) {});
  }
  ReadRequest(c);
}

}  // namespace net
