// Certificate compression (RFC 8879): the zlib and brotli codecs alone
// (strict decompression), and SSLClientSocket against SSLServerSocket with
// each algorithm, for the RSA and ECDSA chains of cert/testdata — the
// Certificate message's size before and after, as both sides report it — a
// client or server without compression, and a corrupted compressed message.

#include "net/ssl/cert_compression.h"

#include <openssl/bytestring.h>
#include <openssl/ssl.h>

#include <iostream>

#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

using Alg = CertCompressionAlgorithm;

std::string SampleMessage() {
  std::string s;
  for (int i = 0; i < 200; ++i) s += "certificate message " + std::to_string(i);
  return s;
}

TEST(CertCompressionCodecTest, RoundTripsAndIsStrict) {
  const std::string message = SampleMessage();
  for (Alg alg : {Alg::kZlib, Alg::kBrotli}) {
    SCOPED_TRACE(CertCompressionAlgorithmName(alg));
    std::string compressed, out;
    ASSERT_TRUE(CompressCertificateMessage(alg, message, &compressed));
    EXPECT_LT(compressed.size(), message.size() / 4);
    ASSERT_TRUE(
        DecompressCertificateMessage(alg, compressed, message.size(), &out));
    EXPECT_EQ(out, message);
    // The announced length must be exact, both ways.
    EXPECT_FALSE(DecompressCertificateMessage(alg, compressed,
                                              message.size() - 1, &out));
    EXPECT_FALSE(DecompressCertificateMessage(alg, compressed,
                                              message.size() + 1, &out));
    // Truncated, extended, corrupted, empty.
    EXPECT_FALSE(DecompressCertificateMessage(
        alg, compressed.substr(0, compressed.size() - 1), message.size(),
        &out));
    EXPECT_FALSE(DecompressCertificateMessage(alg, compressed + "x",
                                              message.size(), &out));
    std::string corrupted = compressed;
    corrupted[corrupted.size() / 2] ^= 0x55;
    EXPECT_FALSE(
        DecompressCertificateMessage(alg, corrupted, message.size(), &out));
    EXPECT_FALSE(DecompressCertificateMessage(alg, "", message.size(), &out));
  }
  // One algorithm's data is not the other's.
  std::string zlib, out;
  ASSERT_TRUE(CompressCertificateMessage(Alg::kZlib, message, &zlib));
  EXPECT_FALSE(
      DecompressCertificateMessage(Alg::kBrotli, zlib, message.size(), &out));
}

TEST(CertCompressionCodecTest, ParsesLists) {
  auto both = ParseCertCompressionList("brotli,zlib");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, (std::vector<Alg>{Alg::kBrotli, Alg::kZlib}));
  EXPECT_EQ(CertCompressionListToString(*both), "brotli,zlib");
  auto off = ParseCertCompressionList("off");
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(off->empty());
  EXPECT_EQ(CertCompressionListToString(*off), "off");
  EXPECT_FALSE(ParseCertCompressionList("zstd").ok());
  EXPECT_FALSE(ParseCertCompressionList("zlib,zlib").ok());
  EXPECT_FALSE(ParseCertCompressionList("").ok());
  EXPECT_EQ(CertCompressionAlgorithmIdName(3), "alg-3");
}

class CertCompressionTest : public LoopbackTlsTest {
 protected:
  // One fresh full TLS 1.3 handshake with |client_algs| offered against a
  // server compressing with |server_algs|; the client and server facts.
  void Handshake(const std::string& chain, const std::string& key,
                 const std::vector<Alg>& client_algs,
                 const std::vector<Alg>& server_algs,
                 CertCompressionInfo* client, CertCompressionInfo* server) {
    context_ = std::make_unique<SSLClientContext>(verifier_.get(), client_algs);
    SSLServerConfig config = LoopbackServerConfig(chain, key);
    config.cert_compression = server_algs;
    LoopbackTlsServer tls(config);
    std::unique_ptr<SSLClientSocket> socket;
    ASSERT_EQ(OK, ConnectTLS(tls.address(), SSLConfig(), &socket))
        << socket->error_detail();
    EXPECT_EQ(RoundTrip(socket.get(), "x"), "x");
    EXPECT_EQ(socket->ssl_info().cert_verify.error, OK);
    *client = socket->ssl_info().cert_compression;
    ASSERT_EQ(tls.connections().size(), 1u);
    *server = tls.connections()[0]->socket->ssl_info().cert_compression;
  }
};

TEST_F(CertCompressionTest, EachAlgorithmForRsaAndEcdsaChains) {
  struct Chain {
    const char* chain;
    const char* key;
  };
  for (const Chain& c :
       {Chain{"good_leaf_chain.pem", "good_leaf.key"},
        Chain{"good_ecdsa_leaf_chain.pem", "good_ecdsa_leaf.key"}}) {
    int64_t uncompressed = 0;
    for (Alg alg : {Alg::kZlib, Alg::kBrotli}) {
      SCOPED_TRACE(std::string(c.chain) + " " +
                   CertCompressionAlgorithmName(alg));
      CertCompressionInfo client, server;
      Handshake(c.chain, c.key, {alg}, {alg}, &client, &server);
      EXPECT_EQ(client.algorithm, CertCompressionAlgorithmName(alg));
      EXPECT_EQ(server.algorithm, client.algorithm);
      // Both sides saw the same message, before and after.
      EXPECT_EQ(client.compressed_bytes, server.compressed_bytes);
      EXPECT_EQ(client.uncompressed_bytes, server.uncompressed_bytes);
      EXPECT_GT(client.compressed_bytes, 0);
      EXPECT_LT(client.compressed_bytes, client.uncompressed_bytes);
      // The uncompressed Certificate message is the same for both
      // algorithms: the chain's certificates plus framing.
      if (uncompressed == 0) uncompressed = client.uncompressed_bytes;
      EXPECT_EQ(client.uncompressed_bytes, uncompressed);
      std::cout << c.chain << " " << client.algorithm << ": "
                << client.uncompressed_bytes << " -> "
                << client.compressed_bytes << " bytes\n";
    }
  }
}

TEST_F(CertCompressionTest, ServerPreferenceAmongWhatTheClientOffers) {
  CertCompressionInfo client, server;
  Handshake("good_leaf_chain.pem", "good_leaf.key", {Alg::kZlib, Alg::kBrotli},
            {Alg::kBrotli, Alg::kZlib}, &client, &server);
  EXPECT_EQ(client.algorithm, "brotli");
  Handshake("good_leaf_chain.pem", "good_leaf.key", {Alg::kZlib},
            {Alg::kBrotli, Alg::kZlib}, &client, &server);
  EXPECT_EQ(client.algorithm, "zlib");
}

TEST_F(CertCompressionTest, UncompressedWhenEitherSideHasNoCommonAlgorithm) {
  CertCompressionInfo client, server;
  Handshake("good_leaf_chain.pem", "good_leaf.key", {}, {Alg::kBrotli}, &client,
            &server);
  EXPECT_EQ(client.algorithm, "");
  EXPECT_EQ(server.algorithm, "");
  Handshake("good_leaf_chain.pem", "good_leaf.key", {Alg::kBrotli, Alg::kZlib},
            {}, &client, &server);
  EXPECT_EQ(client.algorithm, "");
  Handshake("good_leaf_chain.pem", "good_leaf.key", {Alg::kBrotli},
            {Alg::kZlib}, &client, &server);
  EXPECT_EQ(client.algorithm, "");
}

TEST_F(CertCompressionTest, Tls12IsNeverCompressed) {
  context_ = std::make_unique<SSLClientContext>(verifier_.get(),
                                                std::vector<Alg>{Alg::kBrotli});
  SSLServerConfig config = LoopbackServerConfig();
  config.cert_compression = {Alg::kBrotli};
  LoopbackTlsServer tls(config);
  SSLConfig tls12;
  tls12.version_max = TLS1_2_VERSION;
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(tls.address(), tls12, &socket));
  EXPECT_EQ(socket->ssl_info().cert_compression.algorithm, "");
}

// Servers whose compressed Certificate messages are broken.
std::string CompressOrEmpty(Alg alg, const uint8_t* in, size_t in_len) {
  std::string compressed;
  CompressCertificateMessage(
      alg, absl::string_view(reinterpret_cast<const char*>(in), in_len),
      &compressed);
  return compressed;
}

int AddBytes(CBB* out, const std::string& bytes) {
  return !bytes.empty() &&
         CBB_add_bytes(out, reinterpret_cast<const uint8_t*>(bytes.data()),
                       bytes.size());
}

// A brotli stream cut short.
int TruncatedBrotli(SSL* ssl, CBB* out, const uint8_t* in, size_t in_len) {
  std::string compressed = CompressOrEmpty(Alg::kBrotli, in, in_len);
  compressed.resize(compressed.size() - 1);
  return AddBytes(out, compressed);
}

// A zlib stream of half the message under the full message's length.
int WrongLengthZlib(SSL* ssl, CBB* out, const uint8_t* in, size_t in_len) {
  return AddBytes(out, CompressOrEmpty(Alg::kZlib, in, in_len / 2));
}

// A zlib stream with a flipped byte (its Adler-32 catches it).
int FlippedZlib(SSL* ssl, CBB* out, const uint8_t* in, size_t in_len) {
  std::string compressed = CompressOrEmpty(Alg::kZlib, in, in_len);
  compressed[compressed.size() / 2] ^= 0x55;
  return AddBytes(out, compressed);
}

// A brotli stream with a flipped byte: brotli has no checksum, so it may
// decode to a message of the right length but with garbage certificates.
int FlippedBrotli(SSL* ssl, CBB* out, const uint8_t* in, size_t in_len) {
  std::string compressed = CompressOrEmpty(Alg::kBrotli, in, in_len);
  compressed[compressed.size() / 2] ^= 0x55;
  return AddBytes(out, compressed);
}

TEST_F(CertCompressionTest, CorruptedCompressedCertificateIsRejected) {
  struct Case {
    const char* name;
    Alg alg;
    ssl_cert_compression_func_t compress;
    bool decompression_fails;  // else: the certificate does not parse
  };
  for (const Case& c :
       {Case{"truncated brotli", Alg::kBrotli, &TruncatedBrotli, true},
        Case{"wrong-length zlib", Alg::kZlib, &WrongLengthZlib, true},
        Case{"flipped zlib", Alg::kZlib, &FlippedZlib, true},
        Case{"flipped brotli", Alg::kBrotli, &FlippedBrotli, false}}) {
    SCOPED_TRACE(c.name);
    context_ = std::make_unique<SSLClientContext>(verifier_.get(),
                                                  std::vector<Alg>{c.alg});
    LoopbackTlsServer tls(LoopbackServerConfig());
    ASSERT_TRUE(SSL_CTX_add_cert_compression_alg(tls.context()->ssl_ctx(),
                                                 static_cast<uint16_t>(c.alg),
                                                 c.compress, nullptr));
    std::unique_ptr<SSLClientSocket> socket;
    int rv = ConnectTLS(tls.address(), SSLConfig(), &socket);
    if (c.decompression_fails) {
      EXPECT_EQ(rv, ERR_SSL_CERT_DECOMPRESSION_FAILED)
          << ErrorToShortString(rv);
      EXPECT_EQ(socket->ssl_info().cert_compression.algorithm, "");
    } else {
      // Garbage that decompressed is still no certificate chain.
      EXPECT_NE(rv, OK);
      EXPECT_TRUE(GetNetErrorArea(rv) == NetErrorArea::kTls ||
                  GetNetErrorArea(rv) == NetErrorArea::kCertificate)
          << ErrorToShortString(rv);
    }
  }
}

}  // namespace
}  // namespace net
