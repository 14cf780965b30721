// EchKeys (the key file: created, read back to the same configuration,
// damaged files refused by name) and ClientHelloServerName; then TestServer
// with ECH keys against our client stack over loopback: an accepted
// connection logs the hidden inner name and the public outer one, a stale
// configuration's rejected handshake and the retry configurations' success,
// and a server without keys logs the GREASE client's name in the clear.

#include "tools/testserver/ech_keys.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "net/ssl/ech_config.h"
#include "net/ssl/tls_loopback_test_util.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

std::string TempPath(const std::string& name) {
  std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  std::remove(path.c_str());
  return path;
}

TEST(EchKeysTest, KeyFileIsCreatedThenReadBackToTheSameConfiguration) {
  const std::string path = TempPath("ech.key");
  EchKeys::Options options;
  options.public_name = "public.example.test";
  options.config_id = 7;
  absl::StatusOr<std::shared_ptr<const EchKeys>> made =
      EchKeys::LoadOrCreate(path, options);
  ASSERT_TRUE(made.ok()) << made.status();
  absl::StatusOr<std::vector<EchConfigSummary>> configs =
      ParseEchConfigList((*made)->config_list());
  ASSERT_TRUE(configs.ok()) << configs.status();
  ASSERT_EQ(configs->size(), 1u);
  EXPECT_EQ((*configs)[0].public_name, "public.example.test");
  EXPECT_EQ((*configs)[0].config_id, 7);
  EXPECT_EQ((*configs)[0].kem_id, 0x0020);

  // Read back: the same key, so the same configuration (a restarted server
  // keeps what DNS publishes valid); the file's name and id win.
  options.public_name = "ignored.example.test";
  absl::StatusOr<std::shared_ptr<const EchKeys>> again =
      EchKeys::LoadOrCreate(path, options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->config_list(), (*made)->config_list());
  EXPECT_EQ((*again)->public_name(), "public.example.test");

  const std::string out = TempPath("ech.b64");
  ASSERT_TRUE((*again)->WriteConfigList(out).ok());
  EXPECT_EQ(*ReadFileToString(out), (*again)->ConfigListBase64() + "\n");

  // Another key: another configuration.
  absl::StatusOr<std::shared_ptr<const EchKeys>> other =
      EchKeys::Generate(options);
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->config_list(), (*made)->config_list());
}

TEST(EchKeysTest, DamagedKeyFilesAreRefusedByName) {
  const std::string path = TempPath("bad.key");
  const std::string cases[] = {
      "hello\n",
      "netstack-ech-key 1\nconfig_id 1\npublic_name a.test\n",
      "netstack-ech-key 1\nconfig_id 300\npublic_name a.test\nprivate_key " +
          std::string(64, 'a') + "\n",
      "netstack-ech-key 1\nconfig_id 1\npublic_name a.test\nprivate_key "
      "abcd\n",
      "netstack-ech-key 1\nconfig_id 1\npublic_name 127.0.0.1\nprivate_key " +
          std::string(64, 'a') + "\n",
  };
  for (const std::string& text : cases) {
    ASSERT_TRUE(WriteFileAtomically(path, text).ok());
    absl::StatusOr<std::shared_ptr<const EchKeys>> keys =
        EchKeys::LoadOrCreate(path, EchKeys::Options());
    ASSERT_FALSE(keys.ok()) << text;
    EXPECT_NE(keys.status().message().find(path), std::string::npos)
        << keys.status();
  }
  // A directory, /dev/zero: errors, not a hang or a crash.
  EXPECT_FALSE(EchKeys::LoadOrCreate("/dev/zero", EchKeys::Options()).ok());
}

// ClientHelloServerName on real ClientHellos: our client's, with GREASE and
// with ECH (whose outer name is the public one).
class EchTestServerTest : public LoopbackTlsTest {
 protected:
  void StartServer(std::shared_ptr<const EchKeys> ech) {
    TestServerConfig config;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = TestCertFile("good_leaf_chain.pem");
    config.ssl.key_file = TestCertFile("good_leaf.key");
    config.ech = std::move(ech);
    config.quiet = true;
    log_path_ = TempPath(absl::StrCat("ech_server_", ++servers_, ".jsonl"));
    config.log_file = log_path_;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    address_ = server_->bound()[0].second;
  }

  // A GET / over TLS with |config|: the status line, or the error's name.
  std::string Get(const SSLConfig& config, SSLInfo* info = nullptr) {
    std::unique_ptr<SSLClientSocket> client;
    int rv = ConnectTLS(address_, config, &client);
    if (info && client) *info = client->ssl_info();
    if (rv != OK) {
      RunPending();  // the server logs the failed handshake
      return ErrorToShortString(rv);
    }
    TestCompletionCallback cb;
    const std::string request =
        "GET / HTTP/1.1\r\nHost: www.example.test\r\nConnection: close\r\n\r\n";
    auto out = std::make_shared<IOBuffer>(request);
    EXPECT_EQ(static_cast<int>(request.size()),
              cb.GetResult(client->Write(out, request.size(), cb.callback())));
    std::string got;
    for (;;) {
      auto in = std::make_shared<IOBuffer>(4096);
      int n = cb.GetResult(client->Read(in, 4096, cb.callback()));
      if (n <= 0) break;
      got.append(in->data(), n);
    }
    RunPending();
    return got.substr(0, got.find("\r\n"));
  }

  // The server's log lines of |event|.
  std::vector<std::string> Lines(const std::string& event) {
    std::ifstream f(log_path_);
    std::vector<std::string> out;
    for (std::string line; std::getline(f, line);) {
      if (line.find(absl::StrCat("\"event\":\"", event, "\"")) !=
          std::string::npos)
        out.push_back(line);
    }
    return out;
  }

  std::unique_ptr<TestServer> server_;
  IPEndPoint address_;
  std::string log_path_;
  int servers_ = 0;
};

TEST_F(EchTestServerTest, AcceptedConnectionLogsTheInnerAndOuterNames) {
  EchKeys::Options options;
  options.public_name = "localhost";  // good_leaf covers it
  auto keys = EchKeys::Generate(options);
  ASSERT_TRUE(keys.ok());
  StartServer(*keys);
  SSLConfig config;
  config.ech_config_list = (*keys)->config_list();
  SSLInfo info;
  EXPECT_EQ(Get(config, &info), "HTTP/1.1 200 OK");
  EXPECT_EQ(info.ech, EchOutcome::kAccepted);
  std::vector<std::string> lines = Lines("connection");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"ech_accepted\":true,\"sni_inner\":\"www.example."
                          "test\",\"sni_outer\":\"localhost\""),
            std::string::npos)
      << lines[0];
}

TEST_F(EchTestServerTest, StaleConfigurationIsRejectedAndItsRetryAccepted) {
  EchKeys::Options options;
  options.public_name = "localhost";
  auto current = EchKeys::Generate(options);
  auto stale = EchKeys::Generate(options);
  ASSERT_TRUE(current.ok() && stale.ok());
  StartServer(*current);
  SSLConfig config;
  config.ech_config_list = (*stale)->config_list();
  SSLInfo info;
  EXPECT_EQ(Get(config, &info), "ERR_ECH_NOT_NEGOTIATED");
  EXPECT_EQ(info.ech_retry_configs, (*current)->config_list());
  // BoringSSL's TLS 1.3 server completes its side before the client's
  // Finished, so the rejected connection (the client answered with an
  // ech_required alert) has a connection line, with no request.
  std::vector<std::string> lines = Lines("connection");
  ASSERT_EQ(lines.size(), 1u) << *ReadFileToString(log_path_);
  EXPECT_NE(lines[0].find("\"ech_accepted\":false,\"sni_inner\":null,"
                          "\"sni_outer\":\"localhost\""),
            std::string::npos)
      << lines[0];
  EXPECT_TRUE(Lines("request").empty());
  config.ech_config_list = info.ech_retry_configs;
  EXPECT_EQ(Get(config, &info), "HTTP/1.1 200 OK");
  EXPECT_EQ(info.ech, EchOutcome::kAccepted);
}

TEST_F(EchTestServerTest, WithoutKeysTheGreasedNameIsInTheClear) {
  StartServer(nullptr);
  SSLInfo info;
  EXPECT_EQ(Get(SSLConfig(), &info), "HTTP/1.1 200 OK");
  EXPECT_EQ(info.ech, EchOutcome::kGrease);
  std::vector<std::string> lines = Lines("connection");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"ech_accepted\":false,\"sni_inner\":null,"
                          "\"sni_outer\":\"www.example.test\""),
            std::string::npos)
      << lines[0];
}

TEST(ClientHelloServerNameTest, ReadsTheNameAndNothingElse) {
  // A ClientHello from BoringSSL's client, through a memory BIO pair.
  bssl::UniquePtr<SSL_CTX> ctx(SSL_CTX_new(TLS_method()));
  bssl::UniquePtr<SSL> ssl(SSL_new(ctx.get()));
  SSL_set_tlsext_host_name(ssl.get(), "inner.example.test");
  BIO* internal = nullptr;
  BIO* network = nullptr;
  ASSERT_TRUE(BIO_new_bio_pair(&internal, 0, &network, 0));
  SSL_set_bio(ssl.get(), internal, internal);
  SSL_set_connect_state(ssl.get());
  EXPECT_EQ(-1, SSL_do_handshake(ssl.get()));
  std::string hello(16384, '\0');
  int n = BIO_read(network, hello.data(), static_cast<int>(hello.size()));
  ASSERT_GT(n, 0);
  hello.resize(n);
  BIO_free(network);
  EXPECT_EQ(ClientHelloServerName(hello), "inner.example.test");
  // Every cut: "" or the name, never a crash.
  for (size_t cut = 0; cut < hello.size(); cut += 7) {
    const std::string name = ClientHelloServerName(hello.substr(0, cut));
    EXPECT_TRUE(name.empty() || name == "inner.example.test") << cut;
  }
  EXPECT_EQ(ClientHelloServerName("GET / HTTP/1.1\r\n\r\n"), "");
}

}  // namespace
}  // namespace net
