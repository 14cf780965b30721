// OBCs as TLS client certificates, BoringSSL client against BoringSSL
// server in memory (no sockets): the integration net/ssl will do, for every
// algorithm under TLS 1.2 and 1.3, through SSL_set_cert_cb with the
// provider answering asynchronously (SSL_ERROR_WANT_X509_LOOKUP). The
// server accepts any client certificate (OBC semantics) and sees the OBC of
// the origin, never another's; under TLS 1.3 the certificate is not visible
// on the wire, under TLS 1.2 it is.

#include "cert/obc/ssl_client_cert.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "absl/strings/str_cat.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"

namespace net {
namespace {

// CertCallbackState is what a client socket would keep for its cert_cb.
struct CertCallbackState {
  ClientCertProvider* provider = nullptr;  // null: OBC off
  Origin origin;
  ClientCert cert;
  std::unique_ptr<ClientCertProvider::Request> request;
  bool ready = false;
  int provider_rv = OK;
  int calls = 0;
  bool went_async = false;
};

// ClientCertCallback is the SSL_set_cert_cb callback net/ssl would install.
int ClientCertCallback(SSL* ssl, void* arg) {
  auto* state = static_cast<CertCallbackState*>(arg);
  ++state->calls;
  if (state->provider == nullptr) return 1;  // OBC off: empty Certificate.
  if (!state->ready) {
    int rv = state->provider->GetClientCert(
        state->origin, &state->cert,
        [state](int rv) {
          state->provider_rv = rv;
          state->ready = true;
        },
        &state->request);
    if (rv == ERR_IO_PENDING) {
      state->went_async = true;
      return -1;  // SSL_ERROR_WANT_X509_LOOKUP; called again when ready.
    }
    state->provider_rv = rv;
    state->ready = true;
  }
  if (state->provider_rv != OK) return 0;
  return InstallClientCert(ssl, state->cert).ok() ? 1 : 0;
}

enum ssl_verify_result_t AcceptAnyCertificate(SSL*, uint8_t*) {
  return ssl_verify_ok;
}

struct HandshakeOutcome {
  bool ok = false;
  std::string error;
  uint16_t version = 0;
  std::string peer_cert_der;     // what the server received ("" for none)
  std::string client_to_server;  // every byte the client sent
};

class TlsPair {
 public:
  TlsPair(uint16_t version, bool server_accepts_ed25519) {
    server_material_ =
        MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now()).value();
    server_ctx_.reset(SSL_CTX_new(TLS_method()));
    client_ctx_.reset(SSL_CTX_new(TLS_method()));
    for (SSL_CTX* ctx : {server_ctx_.get(), client_ctx_.get()}) {
      SSL_CTX_set_min_proto_version(ctx, version);
      SSL_CTX_set_max_proto_version(ctx, version);
    }
    SSL_CTX_use_certificate_ASN1(
        server_ctx_.get(), server_material_.cert_der.size(),
        reinterpret_cast<const uint8_t*>(server_material_.cert_der.data()));
    SSL_CTX_use_PrivateKey(server_ctx_.get(), server_material_.key.get());
    // Request a client certificate, accept any (OBC semantics), but do not
    // require one.
    SSL_CTX_set_custom_verify(server_ctx_.get(), SSL_VERIFY_PEER,
                              AcceptAnyCertificate);
    if (server_accepts_ed25519) {
      const uint16_t prefs[] = {SSL_SIGN_ED25519,
                                SSL_SIGN_ECDSA_SECP256R1_SHA256,
                                SSL_SIGN_RSA_PSS_RSAE_SHA256,
                                SSL_SIGN_RSA_PKCS1_SHA256,
                                SSL_SIGN_ECDSA_SECP384R1_SHA384,
                                SSL_SIGN_RSA_PSS_RSAE_SHA384,
                                SSL_SIGN_RSA_PKCS1_SHA384,
                                SSL_SIGN_RSA_PSS_RSAE_SHA512,
                                SSL_SIGN_RSA_PKCS1_SHA512,
                                SSL_SIGN_RSA_PKCS1_SHA1};
      SSL_CTX_set_verify_algorithm_prefs(server_ctx_.get(), prefs,
                                         std::size(prefs));
    }
    SSL_CTX_set_custom_verify(client_ctx_.get(), SSL_VERIFY_PEER,
                              AcceptAnyCertificate);
  }

  // Handshake runs one connection; the client's cert_cb uses |state|.
  HandshakeOutcome Handshake(CertCallbackState* state) {
    HandshakeOutcome out;
    bssl::UniquePtr<SSL> client(SSL_new(client_ctx_.get()));
    bssl::UniquePtr<SSL> server(SSL_new(server_ctx_.get()));
    SSL_set_cert_cb(client.get(), ClientCertCallback, state);
    // Four memory BIOs and a shuttle between them, so the test sees every
    // byte on the wire.
    BIO* client_in = BIO_new(BIO_s_mem());
    BIO* client_out = BIO_new(BIO_s_mem());
    BIO* server_in = BIO_new(BIO_s_mem());
    BIO* server_out = BIO_new(BIO_s_mem());
    for (BIO* bio : {client_in, server_in}) BIO_set_mem_eof_return(bio, -1);
    SSL_set_bio(client.get(), client_in, client_out);
    SSL_set_bio(server.get(), server_in, server_out);
    SSL_set_connect_state(client.get());
    SSL_set_accept_state(server.get());

    auto shuttle = [&](BIO* from, BIO* to, std::string* record) {
      const uint8_t* data;
      size_t len;
      BIO_mem_contents(from, &data, &len);
      if (len == 0) return;
      if (record) record->append(reinterpret_cast<const char*>(data), len);
      BIO_write(to, data, static_cast<int>(len));
      BIO_reset(from);
    };

    bool client_done = false, server_done = false;
    for (int turn = 0; turn < 100 && !(client_done && server_done); ++turn) {
      if (!client_done) {
        int rv = SSL_do_handshake(client.get());
        if (rv == 1) {
          client_done = true;
        } else {
          int err = SSL_get_error(client.get(), rv);
          if (err == SSL_ERROR_WANT_X509_LOOKUP) {
            // The provider is making a key on the worker pool; a socket
            // would return ERR_IO_PENDING and resume from the callback.
            while (!state->ready) {
              EventLoop::Current()->RunUntilIdle();
              absl::SleepFor(absl::Microseconds(200));
            }
          } else if (err != SSL_ERROR_WANT_READ) {
            out.error =
                absl::StrCat("client: ", SSL_error_description(err), " ",
                             ERR_reason_error_string(ERR_peek_last_error()));
            ERR_clear_error();
            return out;
          }
        }
      }
      shuttle(client_out, server_in, &out.client_to_server);
      if (!server_done) {
        int rv = SSL_do_handshake(server.get());
        if (rv == 1) {
          server_done = true;
        } else {
          int err = SSL_get_error(server.get(), rv);
          if (err != SSL_ERROR_WANT_READ) {
            out.error =
                absl::StrCat("server: ", SSL_error_description(err), " ",
                             ERR_reason_error_string(ERR_peek_last_error()));
            ERR_clear_error();
            return out;
          }
        }
      }
      shuttle(server_out, client_in, nullptr);
    }
    if (!(client_done && server_done)) {
      out.error = "handshake did not finish";
      return out;
    }
    out.ok = true;
    out.version = SSL_version(server.get());
    const STACK_OF(CRYPTO_BUFFER)* chain =
        SSL_get0_peer_certificates(server.get());
    if (chain != nullptr && sk_CRYPTO_BUFFER_num(chain) > 0) {
      const CRYPTO_BUFFER* leaf = sk_CRYPTO_BUFFER_value(chain, 0);
      out.peer_cert_der.assign(
          reinterpret_cast<const char*>(CRYPTO_BUFFER_data(leaf)),
          CRYPTO_BUFFER_len(leaf));
      EXPECT_EQ(PeerLeafSpkiSha256(server.get()).value(),
                SpkiSha256(out.peer_cert_der).value());
      EXPECT_EQ(
          PeerLeafSpkiSha256FromSession(SSL_get_session(server.get())).value(),
          SpkiSha256(out.peer_cert_der).value());
    } else {
      EXPECT_TRUE(absl::IsNotFound(PeerLeafSpkiSha256(server.get()).status()));
      EXPECT_TRUE(absl::IsNotFound(
          PeerLeafSpkiSha256FromSession(SSL_get_session(server.get()))
              .status()));
    }
    return out;
  }

 private:
  ObcKeyMaterial server_material_;
  bssl::UniquePtr<SSL_CTX> server_ctx_;
  bssl::UniquePtr<SSL_CTX> client_ctx_;
};

struct Case {
  uint16_t version;
  KeyAlgorithm algorithm;
};

class SslClientCertTest : public testing::TestWithParam<Case> {
 protected:
  SslClientCertTest() {
    KeyPool::Options options;
    options.target_depth = {0, 0, 0, 0};  // Cold: the provider goes async.
    pool_ = std::make_unique<KeyPool>(&workers_, options);
    OriginBoundCertStore::Options store_options;
    store_options.private_profile = true;
    store_ = OriginBoundCertStore::Open(store_options, pool_.get(), &workers_)
                 .value();
  }

  EventLoop loop_;
  WorkerPool workers_{2};
  std::unique_ptr<KeyPool> pool_;
  std::unique_ptr<OriginBoundCertStore> store_;
};

TEST_P(SslClientCertTest, ServerSeesTheOriginsObc) {
  const Case& c = GetParam();
  ObcClientCertProvider provider(store_.get(), c.algorithm);
  TlsPair tls(c.version, /*server_accepts_ed25519=*/true);

  CertCallbackState first;
  first.provider = &provider;
  first.origin = Origin("https", "a.example.test", 443);
  HandshakeOutcome one = tls.Handshake(&first);
  ASSERT_TRUE(one.ok) << one.error;
  EXPECT_EQ(one.version, c.version);
  EXPECT_TRUE(first.went_async);
  EXPECT_EQ(first.cert.facts.source, ObcSource::kGenerated);
  EXPECT_EQ(one.peer_cert_der, first.cert.cert_der);
  EXPECT_EQ(KeyAlgorithmOf(first.cert.key.get()), c.algorithm);

  // The same origin again: the same OBC, now synchronously from the store.
  CertCallbackState again;
  again.provider = &provider;
  again.origin = first.origin;
  HandshakeOutcome two = tls.Handshake(&again);
  ASSERT_TRUE(two.ok) << two.error;
  EXPECT_FALSE(again.went_async);
  EXPECT_EQ(again.cert.facts.source, ObcSource::kCachedCert);
  EXPECT_EQ(two.peer_cert_der, one.peer_cert_der);

  // Another origin: another OBC.
  CertCallbackState other;
  other.provider = &provider;
  other.origin = Origin("https", "b.example.test", 443);
  HandshakeOutcome three = tls.Handshake(&other);
  ASSERT_TRUE(three.ok) << three.error;
  EXPECT_NE(SpkiSha256(three.peer_cert_der).value(),
            SpkiSha256(one.peer_cert_der).value());

  // TLS 1.3 encrypts the client certificate; TLS 1.2 sends it in clear.
  bool visible =
      one.client_to_server.find(one.peer_cert_der) != std::string::npos;
  EXPECT_EQ(visible, c.version == TLS1_2_VERSION);
}

INSTANTIATE_TEST_SUITE_P(
    AllAlgorithmsBothVersions, SslClientCertTest,
    testing::Values(Case{TLS1_2_VERSION, KeyAlgorithm::kEcdsaP256},
                    Case{TLS1_2_VERSION, KeyAlgorithm::kRsa1024},
                    Case{TLS1_2_VERSION, KeyAlgorithm::kRsa2048},
                    Case{TLS1_2_VERSION, KeyAlgorithm::kEd25519},
                    Case{TLS1_3_VERSION, KeyAlgorithm::kEcdsaP256},
                    Case{TLS1_3_VERSION, KeyAlgorithm::kRsa1024},
                    Case{TLS1_3_VERSION, KeyAlgorithm::kRsa2048},
                    Case{TLS1_3_VERSION, KeyAlgorithm::kEd25519}),
    [](const testing::TestParamInfo<Case>& info) {
      return absl::StrCat(
          info.param.version == TLS1_3_VERSION ? "tls13_" : "tls12_",
          KeyAlgorithmToString(info.param.algorithm));
    });

class SslClientCertMiscTest : public SslClientCertTest {};

// A BoringSSL server with default settings does not offer Ed25519 in its
// CertificateRequest, so an Ed25519 OBC cannot be used with it: the client
// finds no common signature algorithm and the handshake fails. This is why
// Ed25519 is not the default and is only offered to servers known to
// accept it.
TEST_F(SslClientCertMiscTest, Ed25519NeedsAServerThatOffersIt) {
  ObcClientCertProvider provider(store_.get(), KeyAlgorithm::kEd25519);
  for (uint16_t version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    TlsPair tls(version, /*server_accepts_ed25519=*/false);
    CertCallbackState state;
    state.provider = &provider;
    state.origin = Origin("https", "ed.example.test", 443);
    HandshakeOutcome outcome = tls.Handshake(&state);
    EXPECT_FALSE(outcome.ok) << "version " << version;
    std::cout << "Ed25519 OBC, default BoringSSL server, "
              << (version == TLS1_3_VERSION ? "TLS 1.3" : "TLS 1.2") << ": "
              << outcome.error << "\n";
  }
}

TEST_F(SslClientCertMiscTest, ObcOffSendsNoCertificate) {
  TlsPair tls(TLS1_3_VERSION, false);
  CertCallbackState state;  // provider == nullptr
  HandshakeOutcome outcome = tls.Handshake(&state);
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(state.calls, 1);  // The server did ask.
  EXPECT_TRUE(outcome.peer_cert_der.empty());
}

TEST_F(SslClientCertMiscTest, InstallRejectsAMismatchedKey) {
  ObcKeyMaterial a =
      MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now()).value();
  ObcKeyMaterial b =
      MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now()).value();
  bssl::UniquePtr<SSL_CTX> ctx(SSL_CTX_new(TLS_method()));
  bssl::UniquePtr<SSL> ssl(SSL_new(ctx.get()));
  ClientCert mismatched;
  mismatched.cert_der = a.cert_der;
  mismatched.key = std::move(b.key);
  EXPECT_FALSE(InstallClientCert(ssl.get(), mismatched).ok());
  ERR_clear_error();
  ClientCert empty;
  EXPECT_FALSE(InstallClientCert(ssl.get(), empty).ok());
  ClientCert good;
  good.cert_der = a.cert_der;
  good.key = std::move(a.key);
  EXPECT_TRUE(InstallClientCert(ssl.get(), good).ok());
}

}  // namespace
}  // namespace net
