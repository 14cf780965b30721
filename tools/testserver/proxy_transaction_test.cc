// HttpNetworkTransaction through a real HTTP proxy, Debian's tinyproxy
// (started by the test on a free loopback port, stopped by pid), to the
// test server in this process:
//  - an http:// URL: the request in absolute form, through the proxy;
//  - an https:// URL through a CONNECT tunnel with full verification
//    (good_root.pem), an OBC presented through it, the origin's name never
//    resolved by the client;
//  - TLS Snap Start through the tunnel: the core's full handshake learns the
//    orbit, the next connection's attempt is accepted;
//  - SPDY/3 through the tunnel (ALPN), several requests on one session;
//  - tinyproxy configured without a ConnectPort for the server's port:
//    403, ERR_TUNNEL_CONNECTION_FAILED with the status in the detail;
//  - a "proxy" that accepts TCP and never answers: ERR_TIMED_OUT within the
//    connect timeout.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/obc_crypto.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/http/default_client_socket_factory.h"
#include "net/http/http_network_session.h"
#include "net/http/http_network_transaction.h"
#include "net/snap_start/snap_start_client_context.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

// Resolves IP literals only, and records every name it was asked: through a
// proxy the client looks up the proxy, never the origin.
class LiteralResolver : public HostResolver {
 public:
  std::vector<std::string> asked;
  int Resolve(const std::string& host, uint16_t, HostResolveResult* result,
              CompletionOnceCallback, std::unique_ptr<Request>*) override {
    asked.push_back(host);
    std::optional<IPAddress> address = IPAddress::Parse(host);
    if (!address) {
      result->detail = "only IP literals here";
      return ERR_NAME_NOT_RESOLVED;
    }
    result->source = DnsSource::kLiteral;
    result->addresses = {*address};
    return OK;
  }
};

// One OBC for every origin.
class OneCertProvider : public ClientCertProvider {
 public:
  int GetClientCert(const Origin&, ClientCert* cert, CompletionOnceCallback,
                    std::unique_ptr<Request>*) override {
    if (!made_) {
      absl::StatusOr<ObcKeyMaterial> m =
          MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now());
      if (!m.ok()) return ERR_FAILED;
      mine_.cert_der = m->cert_der;
      mine_.key = std::move(m->key);
      mine_.facts.source = ObcSource::kGenerated;
      made_ = true;
    }
    cert->cert_der = mine_.cert_der;
    EVP_PKEY_up_ref(mine_.key.get());
    cert->key.reset(mine_.key.get());
    cert->facts = mine_.facts;
    return OK;
  }

 private:
  bool made_ = false;
  ClientCert mine_;
};

// A free loopback TCP port (bound, then released for the child to take).
uint16_t FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

bool CanConnect(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

// tinyproxy in the foreground (-d), its log (stderr) in a file; stopped by
// pid when destroyed.
class Tinyproxy {
 public:
  // |connect_ports|: the ports CONNECT may reach (tinyproxy's ConnectPort).
  Tinyproxy(const std::string& name,
            const std::vector<uint16_t>& connect_ports) {
    port_ = FreePort();
    conf_ = absl::StrCat(TempDir(), "/", name, ".conf");
    log_ = absl::StrCat(TempDir(), "/", name, ".log");
    std::ofstream conf(conf_);
    conf << "Port " << port_ << "\nListen 127.0.0.1\nTimeout 30\n"
         << "Allow 127.0.0.1\nMaxClients 20\nLogLevel Info\n";
    for (uint16_t p : connect_ports) conf << "ConnectPort " << p << "\n";
    conf.close();
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      execlp("tinyproxy", "tinyproxy", "-d", "-c", conf_.c_str(), nullptr);
      _exit(127);
    }
    // Wait (at most 10 s) until it accepts connections.
    for (int i = 0; i < 200 && !CanConnect(port_); ++i) usleep(50 * 1000);
  }
  ~Tinyproxy() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool running() const { return pid_ > 0 && CanConnect(port_); }
  uint16_t port() const { return port_; }
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_); }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::string conf_;
  std::string log_;
};

struct Fetched {
  int result = ERR_IO_PENDING;
  int status = 0;
  std::string body;
  LoadTiming timing;
  std::string error_detail;
  std::string request_line_headers;
  std::map<std::string, std::string> headers;
};

class ProxyTransactionTest : public ::testing::Test {
 protected:
  void StartServer(bool snap_start, bool spdy) {
    TestServerConfig config;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.http_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
    config.ssl.key_file = "cert/testdata/good_leaf.key";
    // OBCs on the plain TLS path; the Snap Start core predicts a server
    // flight without a CertificateRequest.
    config.request_client_cert = !snap_start;
    config.response_size = 1000;
    if (snap_start) {
      config.snap_start.emplace();
      config.snap_start->orbit = Orbit{1, 2, 3, 4, 5, 6, 7, 8};
      // A state file that does not exist yet: a fresh orbit, no startup
      // period in which every attempt recovers (strike_register.h).
      const std::string state = absl::StrCat(TempDir(), "/strikes");
      unlink(state.c_str());
      config.snap_start->strike_state_file = state;
    }
    if (spdy) config.spdy.emplace();
    config.quiet = true;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    for (const auto& [scheme, address] : server_->bound())
      (scheme == "https" ? https_port_ : http_port_) = address.port();
    ASSERT_NE(https_port_, 0);
    ASSERT_NE(http_port_, 0);
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = std::move(*verifier);
  }

  void MakeSession(const std::string& proxy,
                   HttpNetworkSessionParams params = {}) {
    params.request_timeout = absl::Seconds(20);
    params.proxy = ProxyConfig::ForAll(*ProxyServer::Parse(proxy));
    session_ = std::make_unique<HttpNetworkSession>(
        params, &resolver_, GetDefaultClientSocketFactory(), verifier_.get());
  }

  Fetched Fetch(const std::string& url) {
    Fetched f;
    HttpNetworkTransaction trans(session_.get());
    TestCompletionCallback cb;
    HttpRequestInfo request;
    request.url = *Url::Parse(url);
    f.result = cb.GetResult(trans.Start(request, cb.callback()));
    while (f.result == OK) {
      auto buf = std::make_shared<IOBuffer>(4096);
      int n = cb.GetResult(trans.Read(buf, 4096, cb.callback()));
      if (n < 0) f.result = n;
      if (n <= 0) break;
      f.body.append(buf->data(), n);
    }
    if (const HttpResponseHeaders* h = trans.response_headers()) {
      f.status = h->status_code();
      for (const auto& [name, value] : h->headers()) f.headers[name] = value;
    }
    f.timing = trans.load_timing();
    f.error_detail = trans.error_detail();
    return f;
  }

  EventLoop loop_;
  LiteralResolver resolver_;
  std::unique_ptr<CertVerifier> verifier_;
  std::unique_ptr<TestServer> server_;
  std::unique_ptr<HttpNetworkSession> session_;
  uint16_t https_port_ = 0;
  uint16_t http_port_ = 0;
};

TEST_F(ProxyTransactionTest, HttpAndHttpsThroughTinyproxy) {
  StartServer(/*snap_start=*/false, /*spdy=*/false);
  Tinyproxy proxy("tinyproxy_basic", {https_port_});
  ASSERT_TRUE(proxy.running()) << proxy.Log();
  OneCertProvider obc;
  HttpNetworkSessionParams params;
  params.ssl_config.client_cert_provider = &obc;
  MakeSession(proxy.url(), params);

  // http://: absolute form through the proxy.
  Fetched plain =
      Fetch(absl::StrCat("http://127.0.0.1:", http_port_, "/size/100"));
  ASSERT_EQ(OK, plain.result) << plain.error_detail;
  EXPECT_EQ(200, plain.status);
  EXPECT_EQ(100u, plain.body.size());
  EXPECT_EQ(proxy.url(), plain.timing.proxy);
  EXPECT_EQ(absl::StrCat("127.0.0.1:", proxy.port()),
            plain.timing.remote_address);
  EXPECT_TRUE(absl::StrContains(
      proxy.Log(),
      absl::StrCat("GET http://127.0.0.1:", http_port_, "/size/100")))
      << proxy.Log();

  // https://: CONNECT, then TLS verified against good_root.pem, with an OBC.
  Fetched secure = Fetch(absl::StrCat("https://127.0.0.1:", https_port_, "/"));
  ASSERT_EQ(OK, secure.result) << secure.error_detail;
  EXPECT_EQ(200, secure.status);
  EXPECT_EQ(1000u, secure.body.size());
  EXPECT_EQ(proxy.url(), secure.timing.proxy);
  EXPECT_FALSE(secure.timing.ssl.version.empty());
  EXPECT_FALSE(secure.timing.ssl.cert_verify.verified_chain_der.empty());
  EXPECT_FALSE(secure.timing.ssl_start.is_null());
  EXPECT_LE(secure.timing.connect_start, secure.timing.ssl_start);
  // The server saw the OBC presented through the tunnel.
  EXPECT_FALSE(secure.headers["X-OBC-SPKI-SHA256"].empty());
  EXPECT_TRUE(absl::StrContains(
      proxy.Log(), absl::StrCat("CONNECT 127.0.0.1:", https_port_)))
      << proxy.Log();
  // The client looked up only the proxy's address.
  for (const std::string& name : resolver_.asked) EXPECT_EQ("127.0.0.1", name);
}

TEST_F(ProxyTransactionTest, HostnameVerifiedThroughTheTunnel) {
  // The proxy resolves "localhost"; the certificate names it.
  StartServer(/*snap_start=*/false, /*spdy=*/false);
  Tinyproxy proxy("tinyproxy_name", {https_port_});
  ASSERT_TRUE(proxy.running()) << proxy.Log();
  MakeSession(proxy.url());
  Fetched f = Fetch(absl::StrCat("https://localhost:", https_port_, "/"));
  // tinyproxy may try ::1 first; the server listens on 127.0.0.1 and
  // tinyproxy falls back to it.
  ASSERT_EQ(OK, f.result) << f.error_detail << "\n" << proxy.Log();
  EXPECT_EQ(200, f.status);
  // The client never resolved "localhost": only the proxy's literal.
  for (const std::string& name : resolver_.asked) EXPECT_EQ("127.0.0.1", name);
}

TEST_F(ProxyTransactionTest, SnapStartThroughTheTunnel) {
  StartServer(/*snap_start=*/true, /*spdy=*/false);
  Tinyproxy proxy("tinyproxy_snap", {https_port_});
  ASSERT_TRUE(proxy.running()) << proxy.Log();
  auto snap = SnapStartClientContext::Create(verifier_.get(), {});
  ASSERT_TRUE(snap.ok()) << snap.status();
  HttpNetworkSessionParams params;
  params.snap_start_context = snap->get();
  params.snap_start_learn_in_handshake = true;
  params.enable_connection_reuse = false;  // a new tunnel per request
  MakeSession(proxy.url(), params);
  const std::string url = absl::StrCat("https://127.0.0.1:", https_port_, "/");
  // The core's full handshake through the tunnel learns the orbit...
  Fetched first = Fetch(url);
  ASSERT_EQ(OK, first.result) << first.error_detail;
  EXPECT_EQ(SnapStartOutcome::kLearned, first.timing.ssl.snap_start)
      << first.timing.ssl.snap_start_detail;
  // ...and the next connection, through a new tunnel, runs Snap Start.
  Fetched second = Fetch(url);
  ASSERT_EQ(OK, second.result) << second.error_detail;
  EXPECT_EQ(200, second.status);
  EXPECT_EQ(1000u, second.body.size());
  EXPECT_EQ(SnapStartOutcome::kAccepted, second.timing.ssl.snap_start)
      << second.timing.ssl.snap_start_detail;
  EXPECT_EQ("snap_start", second.timing.handshake_choice.chosen);
  EXPECT_EQ(proxy.url(), second.timing.proxy);
  const std::string log = proxy.Log();
  size_t connects = 0;
  for (size_t at = log.find("CONNECT 127.0.0.1"); at != std::string::npos;
       at = log.find("CONNECT 127.0.0.1", at + 1))
    ++connects;
  EXPECT_GE(connects, 2u) << log;
}

TEST_F(ProxyTransactionTest, SpdyThroughTheTunnel) {
  StartServer(/*snap_start=*/false, /*spdy=*/true);
  Tinyproxy proxy("tinyproxy_spdy", {https_port_});
  ASSERT_TRUE(proxy.running()) << proxy.Log();
  HttpNetworkSessionParams params;
  params.ssl_config.alpn_protos = {"spdy/3", "http/1.1"};
  MakeSession(proxy.url(), params);
  const std::string url =
      absl::StrCat("https://127.0.0.1:", https_port_, "/size/200");
  Fetched first = Fetch(url);
  ASSERT_EQ(OK, first.result) << first.error_detail;
  EXPECT_EQ(200u, first.body.size());
  EXPECT_EQ("spdy/3", first.timing.ssl.alpn);
  EXPECT_EQ(SessionUse::kNew, first.timing.spdy.session);
  Fetched second = Fetch(url);
  ASSERT_EQ(OK, second.result) << second.error_detail;
  EXPECT_EQ(SessionUse::kReused, second.timing.spdy.session);
  EXPECT_EQ(3u, second.timing.spdy.stream_id);
}

TEST_F(ProxyTransactionTest, RefusedConnectIsANamedError) {
  StartServer(/*snap_start=*/false, /*spdy=*/false);
  // CONNECT only to another port: tinyproxy answers 403.
  Tinyproxy proxy("tinyproxy_refuse", {static_cast<uint16_t>(https_port_ + 1)});
  ASSERT_TRUE(proxy.running()) << proxy.Log();
  MakeSession(proxy.url());
  Fetched f = Fetch(absl::StrCat("https://127.0.0.1:", https_port_, "/"));
  EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, f.result);
  EXPECT_TRUE(absl::StrContains(f.error_detail, "answered CONNECT with 403"))
      << f.error_detail;
  EXPECT_TRUE(absl::StrContains(f.error_detail, proxy.url())) << f.error_detail;
  EXPECT_EQ(0, server_->requests());
}

TEST_F(ProxyTransactionTest, AProxyThatNeverAnswersTimesOut) {
  StartServer(/*snap_start=*/false, /*spdy=*/false);
  // A listener nobody accepts from: the kernel completes the handshake,
  // then nothing ever comes back.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(0, bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  ASSERT_EQ(0, listen(fd, 8));
  ASSERT_EQ(0, getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len));
  HttpNetworkSessionParams params;
  params.connect_timeout = absl::Milliseconds(300);
  MakeSession(absl::StrCat("http://127.0.0.1:", ntohs(addr.sin_port)), params);
  const absl::Time start = absl::Now();
  Fetched f = Fetch(absl::StrCat("https://127.0.0.1:", https_port_, "/"));
  const absl::Duration took = absl::Now() - start;
  close(fd);
  EXPECT_EQ(ERR_TIMED_OUT, f.result) << f.error_detail;
  EXPECT_GE(took, absl::Milliseconds(300));
  EXPECT_LT(took, absl::Seconds(3));
  EXPECT_TRUE(absl::StrContains(f.error_detail,
                                "no complete reply to CONNECT within 300ms"))
      << f.error_detail;
}

}  // namespace
}  // namespace net
