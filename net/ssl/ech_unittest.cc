// Encrypted ClientHello between our client and BoringSSL's server over
// loopback: accepted (the server sees the inner name, the wire the public
// one), a stale configuration rejected with the server's retry
// configurations (which then work), a rejection whose certificate does not
// cover the public name, a server without ECH (rolled back: no retry
// configurations), GREASE and its absence as the ClientHello carries them,
// a malformed list; and ECHConfigList reading (ech_config.h).

#include <openssl/bytestring.h>
#include <openssl/hpke.h>
#include <openssl/mem.h>

#include "gtest/gtest.h"
#include "net/socket/tcp_server_socket.h"
#include "net/ssl/ech_config.h"
#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

constexpr uint16_t kEchExtension = 0xfe0d;  // encrypted_client_hello
constexpr uint16_t kServerNameExtension = 0;

// An X25519 key, its ECHConfig for |public_name| (|config_id|), and keys
// holding it as a retry configuration. |list| is the ECHConfigList a DNS
// record would carry.
struct EchServerKeys {
  bssl::UniquePtr<SSL_ECH_KEYS> keys;
  std::string list;
};

EchServerKeys MakeEchKeys(const std::string& public_name, uint8_t config_id) {
  EchServerKeys out;
  bssl::ScopedEVP_HPKE_KEY key;
  EXPECT_TRUE(EVP_HPKE_KEY_generate(key.get(), EVP_hpke_x25519_hkdf_sha256()));
  uint8_t* config = nullptr;
  size_t config_len = 0;
  EXPECT_TRUE(SSL_marshal_ech_config(&config, &config_len, config_id, key.get(),
                                     public_name.c_str(), 32));
  bssl::UniquePtr<uint8_t> owned(config);
  out.keys.reset(SSL_ECH_KEYS_new());
  EXPECT_TRUE(SSL_ECH_KEYS_add(out.keys.get(), /*is_retry_config=*/1, config,
                               config_len, key.get()));
  uint8_t* list = nullptr;
  size_t list_len = 0;
  EXPECT_TRUE(
      SSL_ECH_KEYS_marshal_retry_configs(out.keys.get(), &list, &list_len));
  out.list.assign(reinterpret_cast<char*>(list), list_len);
  OPENSSL_free(list);
  return out;
}

// The extensions of the ClientHello in |record| (one TLS record): type ->
// body.
std::map<uint16_t, std::string> ClientHelloExtensions(
    const std::string& record) {
  std::map<uint16_t, std::string> out;
  CBS cbs, body, hello, ignored, extensions;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(record.data()),
           record.size());
  uint8_t type, msg_type;
  uint16_t version;
  if (!CBS_get_u8(&cbs, &type) || !CBS_get_u16(&cbs, &version) ||
      !CBS_get_u16_length_prefixed(&cbs, &body) ||
      !CBS_get_u8(&body, &msg_type) ||
      !CBS_get_u24_length_prefixed(&body, &hello) ||
      !CBS_skip(&hello, 2 + 32) ||                       // version, random
      !CBS_get_u8_length_prefixed(&hello, &ignored) ||   // session id
      !CBS_get_u16_length_prefixed(&hello, &ignored) ||  // suites
      !CBS_get_u8_length_prefixed(&hello, &ignored) ||   // compression
      !CBS_get_u16_length_prefixed(&hello, &extensions)) {
    ADD_FAILURE() << "no ClientHello";
    return out;
  }
  while (CBS_len(&extensions) > 0) {
    uint16_t ext;
    CBS ext_body;
    if (!CBS_get_u16(&extensions, &ext) ||
        !CBS_get_u16_length_prefixed(&extensions, &ext_body))
      break;
    out[ext].assign(reinterpret_cast<const char*>(CBS_data(&ext_body)),
                    CBS_len(&ext_body));
  }
  return out;
}

// The server_name extension's host name.
std::string ServerName(const std::string& extension) {
  CBS cbs, list, name;
  uint8_t type;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(extension.data()),
           extension.size());
  if (!CBS_get_u16_length_prefixed(&cbs, &list) || !CBS_get_u8(&list, &type) ||
      !CBS_get_u16_length_prefixed(&list, &name))
    return "";
  return std::string(reinterpret_cast<const char*>(CBS_data(&name)),
                     CBS_len(&name));
}

class EchTest : public LoopbackTlsTest {
 protected:
  SSLConfig Config(const std::string& list) {
    SSLConfig config;
    config.ech_config_list = list;
    return config;
  }

  // The first TLS record a client with |config| sends (a listener that
  // never answers captures it; the client is dropped after).
  std::string CaptureClientHello(const SSLConfig& config) {
    TCPServerSocket listener;
    EXPECT_EQ(OK,
              listener.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 4));
    IPEndPoint address;
    listener.GetLocalAddress(&address);
    std::unique_ptr<StreamSocket> accepted;
    TestCompletionCallback accept_cb;
    int accept_rv = listener.Accept(&accepted, accept_cb.callback());
    auto tcp = ConnectLoopbackTcp(address);
    EXPECT_EQ(OK, accept_cb.GetResult(accept_rv));
    auto client = std::make_unique<SSLClientSocket>(
        std::move(tcp), kLoopbackHost, address.port(), config, context_.get());
    EXPECT_EQ(ERR_IO_PENDING, client->Connect([](int) {}));
    std::string bytes;
    TestCompletionCallback read_cb;
    while (bytes.size() < 5 ||
           bytes.size() < 5 + ((static_cast<uint8_t>(bytes[3]) << 8) |
                               static_cast<uint8_t>(bytes[4]))) {
      auto buf = std::make_shared<IOBuffer>(4096);
      int n = read_cb.GetResult(accepted->Read(buf, 4096, read_cb.callback()));
      if (n <= 0) break;
      bytes.append(buf->data(), n);
    }
    return bytes;
  }
};

TEST_F(EchTest, AcceptedHidesTheNameBehindThePublicOne) {
  EchServerKeys server_keys = MakeEchKeys("localhost", 1);
  LoopbackTlsServer server(LoopbackServerConfig());
  ASSERT_TRUE(SSL_CTX_set1_ech_keys(server.context()->ssl_ctx(),
                                    server_keys.keys.get()));
  std::unique_ptr<SSLClientSocket> client;
  ASSERT_EQ(OK, ConnectTLS(server.address(), Config(server_keys.list), &client))
      << client->error_detail();
  EXPECT_EQ(client->ssl_info().version, "TLSv1.3");
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kAccepted);
  EXPECT_EQ(client->ssl_info().sni_on_wire, "localhost");
  EXPECT_NE(client->ssl_info().ech_detail.find("accepted"), std::string::npos);
  EXPECT_EQ(RoundTrip(client.get(), "through ECH"), "through ECH");
  // The server decrypted the inner ClientHello and serves the real name.
  EXPECT_EQ(server.last()->ssl_info().ech, EchOutcome::kAccepted);
  EXPECT_EQ(server.last()->server_name(), kLoopbackHost);

  // On the wire: the ECH extension, and only the public name in clear.
  std::map<uint16_t, std::string> ext =
      ClientHelloExtensions(CaptureClientHello(Config(server_keys.list)));
  ASSERT_TRUE(ext.count(kEchExtension));
  EXPECT_EQ(ServerName(ext[kServerNameExtension]), "localhost");
}

TEST_F(EchTest, StaleConfigIsRejectedWithRetryConfigsThatWork) {
  EchServerKeys stale = MakeEchKeys("localhost", 7);
  EchServerKeys current = MakeEchKeys("localhost", 8);
  LoopbackTlsServer server(LoopbackServerConfig());
  ASSERT_TRUE(
      SSL_CTX_set1_ech_keys(server.context()->ssl_ctx(), current.keys.get()));
  std::unique_ptr<SSLClientSocket> client;
  EXPECT_EQ(ERR_ECH_NOT_NEGOTIATED,
            ConnectTLS(server.address(), Config(stale.list), &client));
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kRejected);
  EXPECT_EQ(client->ssl_info().ech_retry_configs, current.list);
  EXPECT_NE(client->error_detail().find("retry configurations"),
            std::string::npos)
      << client->error_detail();
  // The server's retry configurations work on the next connection.
  const std::string retry = client->ssl_info().ech_retry_configs;
  ASSERT_EQ(OK, ConnectTLS(server.address(), Config(retry), &client));
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kAccepted);
}

TEST_F(EchTest, RejectionWithACertificateNotForThePublicNameFails) {
  EchServerKeys stale = MakeEchKeys("public.example.test", 3);
  EchServerKeys current = MakeEchKeys("public.example.test", 4);
  LoopbackTlsServer server(LoopbackServerConfig());
  ASSERT_TRUE(
      SSL_CTX_set1_ech_keys(server.context()->ssl_ctx(), current.keys.get()));
  std::unique_ptr<SSLClientSocket> client;
  EXPECT_EQ(ERR_ECH_FALLBACK_CERTIFICATE_INVALID,
            ConnectTLS(server.address(), Config(stale.list), &client));
  EXPECT_NE(client->error_detail().find("public.example.test"),
            std::string::npos)
      << client->error_detail();
  EXPECT_EQ(client->ssl_info().ech_retry_configs, "");  // never read
}

TEST_F(EchTest, ServerWithoutEchRollsBackWithoutRetryConfigs) {
  EchServerKeys keys = MakeEchKeys("localhost", 2);
  LoopbackTlsServer server(LoopbackServerConfig());  // no ECH keys
  std::unique_ptr<SSLClientSocket> client;
  EXPECT_EQ(ERR_ECH_NOT_NEGOTIATED,
            ConnectTLS(server.address(), Config(keys.list), &client));
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kRejected);
  EXPECT_EQ(client->ssl_info().ech_retry_configs, "");
  EXPECT_NE(client->error_detail().find("rolled ECH back"), std::string::npos)
      << client->error_detail();
}

TEST_F(EchTest, GreaseWhenThereIsNoConfiguration) {
  LoopbackTlsServer server(LoopbackServerConfig());
  std::unique_ptr<SSLClientSocket> client;
  ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &client));
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kGrease);
  EXPECT_EQ(client->ssl_info().sni_on_wire, kLoopbackHost);
  EXPECT_NE(client->ssl_info().ech_detail.find("in the clear"),
            std::string::npos);
  EXPECT_NE(server.last()->ssl_info().ech, EchOutcome::kAccepted);
  std::map<uint16_t, std::string> ext =
      ClientHelloExtensions(CaptureClientHello(SSLConfig()));
  EXPECT_TRUE(ext.count(kEchExtension));
  EXPECT_EQ(ServerName(ext[kServerNameExtension]), kLoopbackHost);

  SSLConfig off;
  off.ech_grease = false;
  ASSERT_EQ(OK, ConnectTLS(server.address(), off, &client));
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kNone);
  EXPECT_EQ(client->ssl_info().ech_detail, "off");
  ext = ClientHelloExtensions(CaptureClientHello(off));
  EXPECT_FALSE(ext.count(kEchExtension));

  // TLS 1.2 only: no ECH of any kind.
  SSLConfig tls12;
  tls12.version_max = TLS1_2_VERSION;
  ASSERT_EQ(OK, ConnectTLS(server.address(), tls12, &client));
  EXPECT_EQ(client->ssl_info().ech, EchOutcome::kNone);
  EXPECT_NE(client->ssl_info().ech_detail.find("TLS 1.3"), std::string::npos);
}

TEST_F(EchTest, MalformedListIsANamedError) {
  LoopbackTlsServer server(LoopbackServerConfig());
  std::unique_ptr<SSLClientSocket> client;
  EXPECT_EQ(ERR_INVALID_ECH_CONFIG_LIST,
            ConnectTLS(server.address(), Config(std::string("\x00\x03\x01", 3)),
                       &client));
}

TEST(EchConfigTest, ReadsMarshaledConfigs) {
  EchServerKeys a = MakeEchKeys("public.example.test", 9);
  absl::StatusOr<std::vector<EchConfigSummary>> configs =
      ParseEchConfigList(a.list);
  ASSERT_TRUE(configs.ok()) << configs.status();
  ASSERT_EQ(configs->size(), 1u);
  EXPECT_EQ((*configs)[0].version, kEchConfigVersionDraft13);
  EXPECT_EQ((*configs)[0].config_id, 9);
  EXPECT_EQ((*configs)[0].kem_id, 0x0020);
  EXPECT_EQ((*configs)[0].public_name, "public.example.test");
  EXPECT_FALSE((*configs)[0].cipher_suites.empty());
  EXPECT_EQ(EchOuterServerName(a.list), "public.example.test");

  // A configuration of an unknown version first: skipped, as BoringSSL does.
  const std::string inner = a.list.substr(2);
  std::string unknown = std::string("\xfe\x0a\x00\x01\x00", 5) + inner;
  std::string list;
  list.push_back(static_cast<char>(unknown.size() >> 8));
  list.push_back(static_cast<char>(unknown.size() & 0xff));
  list += unknown;
  EXPECT_EQ(EchOuterServerName(list), "public.example.test");

  for (const std::string& bad : {std::string(), std::string("\x00\x00", 2),
                                 std::string("\x00\x05\xfe\x0d\x00\x09\x01", 7),
                                 a.list.substr(0, 20), a.list + "x"}) {
    EXPECT_FALSE(ParseEchConfigList(bad).ok());
    EXPECT_EQ(EchOuterServerName(bad), std::nullopt);
  }
}

}  // namespace
}  // namespace net
