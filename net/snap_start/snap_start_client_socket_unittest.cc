// The core's TLS 1.2 client against a scripted server (tls12_test_util.h):
// the extended master secret (offered, used when echoed, refused malformed),
// unsolicited extensions, renegotiation requests, and an attempt that cannot
// be built — each checked on the exact bytes the client sends.

#include "net/snap_start/snap_start_client_socket.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/snap_start/tls12_test_util.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";
constexpr char kChain[] = "cert/testdata/good_leaf_chain.pem";
constexpr char kKey[] = "cert/testdata/good_leaf.key";

class SnapStartClientSocketTest : public ::testing::Test {
 protected:
  SnapStartClientSocketTest() {
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    EXPECT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    auto context = SnapStartClientContext::Create(verifier_.get(),
                                                  SnapStartClientOptions());
    EXPECT_TRUE(context.ok());
    context_ = std::move(*context);
    wire_ = std::make_shared<FakeTransport::Wire>();
    client_ = std::make_unique<SnapStartClientSocket>(
        std::make_unique<FakeTransport>(wire_), kHost, 443, context_.get());
  }

  // Connect, then the scripted server reads the ClientHello.
  void Start() {
    int rv = client_->Connect([this](int rv) { result_ = rv; });
    if (rv != ERR_IO_PENDING) result_ = rv;
    ASSERT_FALSE(result_.has_value()) << *result_;
    ASSERT_TRUE(server_.ReadClientHello(wire_->TakeWritten())) << server_.why();
  }

  // A whole handshake against the scripted server.
  void Handshake(bool echo_ems = true) {
    Start();
    wire_->Feed(server_.ServerFlight({}, echo_ems));
    ASSERT_TRUE(server_.ReadClientFlight(wire_->TakeWritten()))
        << server_.why() << " " << client_->error_detail();
    wire_->Feed(server_.Finish());
    ASSERT_EQ(result_, OK) << client_->error_detail();
  }

  // The one encrypted alert the scripted server decrypts from |bytes|.
  std::string DecryptedAlert(const std::string& bytes) {
    absl::StatusOr<std::vector<TlsRecord>> records = ParseRecords(bytes);
    if (!records.ok() || records->size() != 1 ||
        (*records)[0].type != kTlsAlert) {
      return "not one alert record: " + absl::BytesToHexString(bytes);
    }
    absl::StatusOr<std::string> alert = server_.Open((*records)[0]);
    return alert.ok() ? absl::BytesToHexString(*alert) : "does not decrypt";
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<SnapStartClientContext> context_;
  std::shared_ptr<FakeTransport::Wire> wire_;
  std::unique_ptr<SnapStartClientSocket> client_;
  ScriptedServer server_{kChain, kKey};
  std::optional<int> result_;
};

TEST_F(SnapStartClientSocketTest, OffersAndUsesExtendedMasterSecret) {
  Handshake();
  EXPECT_NE(
      server_.client_hello().FindExtension(kExtendedMasterSecretExtension),
      nullptr);
  EXPECT_TRUE(client_->extended_master_secret());
}

TEST_F(SnapStartClientSocketTest, ServerWithoutExtendedMasterSecret) {
  Handshake(/*echo_ems=*/false);
  EXPECT_FALSE(client_->extended_master_secret());
}

TEST_F(SnapStartClientSocketTest, MalformedServerExtensionIsDecodeError) {
  Start();
  // The client has no keys in use yet: the alert is plaintext.
  wire_->Feed(server_.ServerFlight(
      {{kExtendedMasterSecretExtension, std::string("\x00", 1)}},
      /*echo_ems=*/false));
  EXPECT_EQ(absl::BytesToHexString(wire_->TakeWritten()),
            absl::BytesToHexString(PlaintextAlert(kAlertDecodeError)));
  EXPECT_EQ(result_, ERR_SSL_PROTOCOL_ERROR);
  client_->Disconnect();
  EXPECT_EQ(wire_->TakeWritten(), "");
}

TEST_F(SnapStartClientSocketTest, UnsolicitedExtensionIsUnsupported) {
  Start();
  wire_->Feed(server_.ServerFlight({{0x1234, ""}}));
  EXPECT_EQ(absl::BytesToHexString(wire_->TakeWritten()),
            absl::BytesToHexString(PlaintextAlert(kAlertUnsupportedExtension)));
  EXPECT_EQ(result_, ERR_SSL_PROTOCOL_ERROR);
}

TEST_F(SnapStartClientSocketTest, HelloRequestGetsNoRenegotiation) {
  Handshake();
  auto buf = std::make_shared<IOBuffer>(64);
  std::optional<int> read;
  int rv = client_->Read(buf, 64, [&read](int rv) { read = rv; });
  ASSERT_EQ(rv, ERR_IO_PENDING);
  wire_->Feed(server_.Seal(kTlsHandshake, std::string("\x00\x00\x00\x00", 4)));
  EXPECT_EQ(read, ERR_SSL_PROTOCOL_ERROR);
  // Fatal no_renegotiation (100), under the client's keys; then nothing.
  EXPECT_EQ(DecryptedAlert(wire_->TakeWritten()), "0264");
  client_->Disconnect();
  EXPECT_EQ(wire_->TakeWritten(), "");
}

TEST_F(SnapStartClientSocketTest, OtherPostHandshakeMessageIsDecodeError) {
  Handshake();
  wire_->Feed(server_.Seal(
      kTlsHandshake, SerializeHandshake(kServerHelloDoneType, std::string())));
  auto buf = std::make_shared<IOBuffer>(64);
  EXPECT_EQ(client_->Read(buf, 64, [](int) {}), ERR_SSL_PROTOCOL_ERROR);
  EXPECT_EQ(DecryptedAlert(wire_->TakeWritten()), "0232");
}

// Regression (issue 16): an attempt that fails before anything is sent —
// the predicted leaf key is ECDSA — returns ERR_SNAP_START_REJECTED (so the
// HTTP transaction retries on a new connection), sends nothing, forgets the
// information, and every later call says the same instead of crashing.
TEST_F(SnapStartClientSocketTest, UnbuildableAttemptIsRejectedSafely) {
  const std::string key = absl::StrCat(kHost, ":443");
  SnapStartInfo info;
  info.chain_der = ReadPemChain("cert/testdata/good_ecdsa_leaf_chain.pem");
  ASSERT_FALSE(info.chain_der.empty());
  info.cipher_suite = kTlsRsaWithAes128GcmSha256;
  info.orbit = Orbit{1, 2, 3, 4, 5, 6, 7, 8};
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, 'r');
  hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.has_extensions = true;
  SnapStartServerInfo server_info;
  server_info.orbit = info.orbit;
  server_info.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.extensions.emplace_back(kSnapStartExtension,
                                SerializeSnapStartServerExtension(server_info));
  info.server_hello = SerializeServerHello(hello);
  info.verified = true;
  context_->PutInfo(key, info);

  ASSERT_EQ(client_->Connect([](int) { FAIL() << "no callback"; }), OK);
  EXPECT_EQ(client_->snap_start_outcome(), SnapStartOutcome::kAttempted);
  auto request = std::make_shared<IOBuffer>(std::string("GET /"));
  EXPECT_EQ(client_->Write(request, 5, [](int) { FAIL(); }),
            ERR_SNAP_START_REJECTED);
  EXPECT_EQ(wire_->TakeWritten(), "");
  EXPECT_EQ(client_->ssl_info().snap_start, SnapStartOutcome::kRejected);
  EXPECT_EQ(context_->GetInfo(key), nullptr);
  EXPECT_EQ(client_->Write(request, 5, [](int) { FAIL(); }),
            ERR_SNAP_START_REJECTED);
  auto in = std::make_shared<IOBuffer>(16);
  EXPECT_EQ(client_->Read(in, 16, [](int) { FAIL(); }),
            ERR_SNAP_START_REJECTED);
  client_->Disconnect();
  EXPECT_EQ(wire_->TakeWritten(), "");
}

}  // namespace
}  // namespace net
