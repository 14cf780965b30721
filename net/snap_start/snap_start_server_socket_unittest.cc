// The core's TLS 1.2 server against a scripted client (tls12_test_util.h):
// each case feeds records and checks the exact bytes the server answers with
// — which alert, in plaintext or encrypted, and nothing after it — as a TLS
// stack (BoringSSL) answers: plaintext alerts until the server's
// ChangeCipherSpec, nothing after a fatal alert, the premaster's version
// against the ClientHello's, the extended master secret, no_renegotiation,
// decode_error for malformed extensions, and one answer for every kind of bad
// RSA premaster.

#include "net/snap_start/snap_start_server_socket.h"

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "net/snap_start/tls12_handshake.h"
#include "net/snap_start/tls12_test_util.h"

namespace net {
namespace {

constexpr char kChain[] = "cert/testdata/good_leaf_chain.pem";
constexpr char kKey[] = "cert/testdata/good_leaf.key";

// Records in the order written: the elements of a braced list are evaluated
// in order (unlike the operands of +), which the scripted client needs.
std::string Flight(std::initializer_list<std::string> records) {
  std::string out;
  for (const std::string& record : records) out += record;
  return out;
}

class SnapStartServerSocketTest : public ::testing::Test {
 protected:
  SnapStartServerSocketTest() {
    SnapStartServerConfig config;
    config.cert_chain_file = kChain;
    config.key_file = kKey;
    config.orbit = Orbit{1, 2, 3, 4, 5, 6, 7, 8};
    auto context = SnapStartServerContext::Create(config);
    EXPECT_TRUE(context.ok()) << context.status();
    context_ = std::move(*context);
    StartServer();
  }

  // A fresh connection to the same server context (tickets carry over).
  void StartServer() {
    wire_ = std::make_shared<FakeTransport::Wire>();
    result_.reset();
    server_ = std::make_unique<SnapStartServerSocket>(
        std::make_unique<FakeTransport>(wire_), std::string(), context_.get());
    int rv = server_->Handshake([this](int rv) { result_ = rv; });
    if (rv != ERR_IO_PENDING) result_ = rv;
  }

  // ClientHello through ServerHelloDone.
  void ToServerHelloDone(ScriptedClient* client) {
    wire_->Feed(client->ClientHelloRecords());
    ASSERT_TRUE(client->ReadServerFlight(wire_->TakeWritten()))
        << client->why();
    ASSERT_FALSE(result_.has_value());
  }

  // A whole full handshake.
  void FullHandshake(ScriptedClient* client) {
    ToServerHelloDone(client);
    wire_->Feed(Flight({client->ClientKeyExchange(client->NewPremaster()),
                        client->ChangeCipherSpec(), client->Finished()}));
    ASSERT_TRUE(client->ReadServerFinish(wire_->TakeWritten()))
        << client->why();
    ASSERT_EQ(result_, OK) << server_->error_detail();
  }

  // The server's answer after |bytes| when it must fail: exactly |expected|,
  // the handshake fails with |error|, and nothing more goes out, not even
  // at Disconnect.
  void ExpectFatal(const std::string& bytes, const std::string& expected,
                   int error = ERR_SSL_PROTOCOL_ERROR) {
    wire_->Feed(bytes);
    EXPECT_EQ(absl::BytesToHexString(wire_->TakeWritten()),
              absl::BytesToHexString(expected))
        << server_->error_detail();
    EXPECT_EQ(result_, error) << server_->error_detail();
    server_->Disconnect();
    EXPECT_EQ(wire_->TakeWritten(), "");
  }

  // One application-data Read on the server, of what was already fed.
  int ServerRead(std::string* out) {
    auto buf = std::make_shared<IOBuffer>(4096);
    int rv = server_->Read(buf, 4096, [](int) {});
    if (rv == ERR_IO_PENDING) return ERR_IO_PENDING;
    if (rv > 0) out->assign(buf->data(), rv);
    return rv;
  }

  std::unique_ptr<SnapStartServerContext> context_;
  std::shared_ptr<FakeTransport::Wire> wire_;
  std::unique_ptr<SnapStartServerSocket> server_;
  std::optional<int> result_;
};

// The one encrypted alert a client decrypts from |bytes|.
std::string DecryptedAlert(ScriptedClient* client, const std::string& bytes) {
  absl::StatusOr<std::vector<TlsRecord>> records = ParseRecords(bytes);
  if (!records.ok() || records->size() != 1 ||
      (*records)[0].type != kTlsAlert) {
    return "not one alert record: " + absl::BytesToHexString(bytes);
  }
  absl::StatusOr<std::string> alert = client->Open((*records)[0]);
  return alert.ok() ? absl::BytesToHexString(*alert) : "does not decrypt";
}

TEST_F(SnapStartServerSocketTest, FullHandshakeWithExtendedMasterSecret) {
  ScriptedClient client;
  FullHandshake(&client);
  // RFC 7627: echoed, and both sides derived the extended master secret
  // (the scripted client computes it on its own; the Finished messages
  // agreed).
  EXPECT_NE(client.server_hello().FindExtension(kExtendedMasterSecretExtension),
            nullptr);
  EXPECT_TRUE(server_->extended_master_secret());
  wire_->Feed(client.Seal(kTlsApplicationData, "ping"));
  std::string got;
  EXPECT_EQ(ServerRead(&got), 4);
  EXPECT_EQ(got, "ping");
  // A healthy connection ends with an encrypted close_notify.
  server_->Disconnect();
  EXPECT_EQ(DecryptedAlert(&client, wire_->TakeWritten()), "0100");
}

TEST_F(SnapStartServerSocketTest, FullHandshakeWithoutExtendedMasterSecret) {
  ScriptedClient client;
  auto& exts = client.hello().extensions;
  exts.erase(std::remove_if(exts.begin(), exts.end(),
                            [](const Extension& e) {
                              return e.first == kExtendedMasterSecretExtension;
                            }),
             exts.end());
  FullHandshake(&client);
  EXPECT_EQ(client.server_hello().FindExtension(kExtendedMasterSecretExtension),
            nullptr);
  EXPECT_FALSE(server_->extended_master_secret());
}

TEST_F(SnapStartServerSocketTest, MalformedExtensionsAreDecodeErrors) {
  struct Case {
    uint16_t type;
    std::string body;
    TlsAlert alert;
  } cases[] = {
      // extended_master_secret must be empty (RFC 7627 section 5.1).
      {kExtendedMasterSecretExtension, std::string("\x00", 1),
       kAlertDecodeError},
      {kServerNameExtension, std::string("\x00\x05\x00\x00\x01", 5),
       kAlertDecodeError},
      {kServerNameExtension, std::string("\x00\x00", 2), kAlertDecodeError},
      {kSignatureAlgorithmsExtension, std::string("\x00\x03\x04\x01\x08", 5),
       kAlertDecodeError},
      {kSignatureAlgorithmsExtension, std::string("\x00\x00", 2),
       kAlertDecodeError},
      {kRenegotiationInfoExtension, std::string("\x02\x00", 2),
       kAlertDecodeError},
      {kSnapStartExtension, std::string(10, 'x'), kAlertDecodeError},
      // Well-formed but not an initial handshake's (RFC 5746 section 3.6).
      {kRenegotiationInfoExtension, std::string("\x01\x00", 2),
       kAlertHandshakeFailure},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "extension " << c.type << " "
                                    << absl::BytesToHexString(c.body));
    StartServer();
    ScriptedClient client;
    bool replaced = false;
    for (Extension& ext : client.hello().extensions) {
      if (ext.first == c.type) {
        ext.second = c.body;
        replaced = true;
      }
    }
    if (!replaced) client.hello().extensions.emplace_back(c.type, c.body);
    // No ServerHello: one plaintext alert and nothing more.
    ExpectFatal(client.ClientHelloRecords(), PlaintextAlert(c.alert));
  }
}

TEST_F(SnapStartServerSocketTest, DuplicateExtensionIsDecodeError) {
  ScriptedClient client;
  client.hello().extensions.emplace_back(kExtendedMasterSecretExtension, "");
  ExpectFatal(client.ClientHelloRecords(), PlaintextAlert(kAlertDecodeError));
}

// After the ClientKeyExchange the server has keys but has not sent its
// ChangeCipherSpec: the client cannot decrypt anything yet, so every alert
// until then is plaintext.
TEST_F(SnapStartServerSocketTest, BadFinishedGetsPlaintextDecryptError) {
  ScriptedClient client;
  ToServerHelloDone(&client);
  ExpectFatal(
      Flight({client.ClientKeyExchange(client.NewPremaster()),
              client.ChangeCipherSpec(), client.Finished(/*corrupt=*/true)}),
      PlaintextAlert(kAlertDecryptError));
}

TEST_F(SnapStartServerSocketTest, SkippedChangeCipherSpecIsUnexpected) {
  ScriptedClient client;
  ToServerHelloDone(&client);
  ExpectFatal(Flight({client.ClientKeyExchange(client.NewPremaster()),
                      client.Finished()}),
              PlaintextAlert(kAlertUnexpectedMessage));
}

TEST_F(SnapStartServerSocketTest, DuplicatedClientKeyExchangeIsUnexpected) {
  ScriptedClient client;
  ToServerHelloDone(&client);
  const std::string premaster = client.NewPremaster();
  const std::string cke = client.ClientKeyExchange(premaster);
  ExpectFatal(cke + cke, PlaintextAlert(kAlertUnexpectedMessage));
}

TEST_F(SnapStartServerSocketTest, ChangeCipherSpecBeforeKeyExchange) {
  ScriptedClient client;
  ToServerHelloDone(&client);
  ExpectFatal(SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01"),
              PlaintextAlert(kAlertUnexpectedMessage));
}

TEST_F(SnapStartServerSocketTest, WrongMessageInsteadOfKeyExchange) {
  ScriptedClient client;
  ToServerHelloDone(&client);
  ExpectFatal(SerializeRecord(kTlsHandshake, kRecordVersion,
                              SerializeHandshake(kCertificateType,
                                                 SerializeCertificate({}))),
              PlaintextAlert(kAlertUnexpectedMessage));
}

// RFC 5246 section 7.4.7.1: the premaster carries the version the client
// offered in its ClientHello, not the one negotiated.
TEST_F(SnapStartServerSocketTest, PremasterVersionIsTheOfferedVersion) {
  ScriptedClient client;
  client.hello().version = 0x0304;  // offers more than TLS 1.2
  FullHandshake(&client);
  EXPECT_EQ(client.server_hello().version, kTls12Version);

  StartServer();
  ScriptedClient downgraded;
  downgraded.hello().version = 0x0304;
  ToServerHelloDone(&downgraded);
  // A premaster with the negotiated version instead: the server goes on with
  // a random premaster, says nothing at the ClientKeyExchange, and the
  // client's Finished record then fails to authenticate under the server's
  // keys: bad_record_mac, in plaintext (the server has sent no CCS).
  wire_->Feed(downgraded.ClientKeyExchange(NewPremasterSecret(kTls12Version)));
  EXPECT_EQ(wire_->TakeWritten(), "");
  ExpectFatal(Flight({downgraded.ChangeCipherSpec(), downgraded.Finished()}),
              PlaintextAlert(kAlertBadRecordMac), ERR_SSL_BAD_RECORD_MAC_ALERT);
}

// Every kind of bad RSA premaster gets the same answer as a well-formed one
// that simply carries another premaster than the client's keys came from:
// nothing at the ClientKeyExchange, then bad_record_mac for the Finished
// record, in plaintext. No alert, timing or state tells the kinds apart (the
// timing side: rsa_premaster_timing_benchmark).
TEST_F(SnapStartServerSocketTest, BadPremastersAreIndistinguishable) {
  const std::vector<std::string> chain = ReadPemChain(kChain);
  ASSERT_FALSE(chain.empty());
  const std::string good = NewPremasterSecret(kTls12Version);
  const size_t modulus_len = RsaEncryptPremaster(chain[0], good)->size();
  auto with = [&](size_t at, char value) {
    std::string block = Pkcs1Block(modulus_len, good);
    block[at] = value;
    return block;
  };
  const size_t separator = modulus_len - good.size() - 1;
  struct Case {
    const char* name;
    std::string encrypted;
  } cases[] = {
      {"another valid premaster (the control)",
       *RsaEncryptPremaster(chain[0], NewPremasterSecret(kTls12Version))},
      {"first byte not 00", RawRsaEncrypt(chain[0], with(0, '\x01'))},
      {"block type not 02", RawRsaEncrypt(chain[0], with(1, '\x01'))},
      {"zero inside the padding", RawRsaEncrypt(chain[0], with(5, '\0'))},
      {"no separator", RawRsaEncrypt(chain[0], with(separator, '\x07'))},
      {"message too long",
       RawRsaEncrypt(chain[0], Pkcs1Block(modulus_len, good + "x"))},
      {"message too short",
       RawRsaEncrypt(chain[0], Pkcs1Block(modulus_len, good.substr(1)))},
      {"wrong version",
       RawRsaEncrypt(chain[0],
                     Pkcs1Block(modulus_len, NewPremasterSecret(0x0301)))},
      {"ciphertext not below the modulus", std::string(modulus_len, '\xff')},
      {"short ciphertext", std::string(modulus_len - 1, '\x01')},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.encrypted.empty());
    StartServer();
    ScriptedClient client;
    ToServerHelloDone(&client);
    wire_->Feed(client.ClientKeyExchange(good, c.encrypted));
    EXPECT_EQ(wire_->TakeWritten(), "");
    EXPECT_FALSE(result_.has_value());
    ExpectFatal(Flight({client.ChangeCipherSpec(), client.Finished()}),
                PlaintextAlert(kAlertBadRecordMac),
                ERR_SSL_BAD_RECORD_MAC_ALERT);
  }
}

// BoringSSL's server answers any handshake message after the handshake with
// a fatal no_renegotiation; so does the core.
TEST_F(SnapStartServerSocketTest, RenegotiationGetsNoRenegotiation) {
  ScriptedClient client;
  FullHandshake(&client);
  ScriptedClient second;
  wire_->Feed(client.Seal(
      kTlsHandshake, SerializeHandshake(kClientHelloType,
                                        SerializeClientHello(second.hello()))));
  std::string got;
  EXPECT_EQ(ServerRead(&got), ERR_SSL_PROTOCOL_ERROR);
  // Encrypted (the server's CCS is long past), fatal, no_renegotiation (100).
  EXPECT_EQ(DecryptedAlert(&client, wire_->TakeWritten()), "0264");
  server_->Disconnect();
  EXPECT_EQ(wire_->TakeWritten(), "");
  EXPECT_EQ(ServerRead(&got), ERR_SSL_PROTOCOL_ERROR);
}

// A tampered record after the handshake: one encrypted bad_record_mac and
// then silence — no close_notify after the fatal alert.
TEST_F(SnapStartServerSocketTest, TamperedRecordThenNothing) {
  ScriptedClient client;
  FullHandshake(&client);
  std::string record = client.Seal(kTlsApplicationData, "hello");
  record.back() ^= 0x40;
  wire_->Feed(record);
  std::string got;
  EXPECT_EQ(ServerRead(&got), ERR_SSL_BAD_RECORD_MAC_ALERT);
  EXPECT_EQ(DecryptedAlert(&client, wire_->TakeWritten()), "0214");
  auto data = std::make_shared<IOBuffer>(std::string("late"));
  EXPECT_EQ(server_->Write(data, 4, [](int) {}), ERR_SSL_BAD_RECORD_MAC_ALERT);
  server_->Disconnect();
  EXPECT_EQ(wire_->TakeWritten(), "");
}

// A peer's fatal alert is not answered either.
TEST_F(SnapStartServerSocketTest, PeerAlertIsNotAnswered) {
  ScriptedClient client;
  FullHandshake(&client);
  wire_->Feed(client.Seal(kTlsAlert, std::string("\x02\x28", 2)));
  std::string got;
  EXPECT_EQ(ServerRead(&got), ERR_SSL_PEER_ALERT);
  server_->Disconnect();
  EXPECT_EQ(wire_->TakeWritten(), "");
}

// RFC 7627 section 5.3, as BoringSSL applies it.
TEST_F(SnapStartServerSocketTest, ResumptionKeepsTheKindOfMasterSecret) {
  // An extended-master-secret session resumes with the extension ...
  ScriptedClient first;
  FullHandshake(&first);
  ASSERT_FALSE(first.ticket().empty());
  StartServer();
  ScriptedClient resumed;
  resumed.OfferSession(first.ticket(), first.master_secret());
  wire_->Feed(resumed.ClientHelloRecords());
  ASSERT_TRUE(resumed.ReadServerFlight(wire_->TakeWritten())) << resumed.why();
  EXPECT_TRUE(resumed.resumed());
  EXPECT_NE(
      resumed.server_hello().FindExtension(kExtendedMasterSecretExtension),
      nullptr);
  wire_->Feed(Flight({resumed.ChangeCipherSpec(), resumed.Finished()}));
  EXPECT_EQ(result_, OK) << server_->error_detail();
  EXPECT_TRUE(server_->extended_master_secret());

  // ... and never without it: handshake_failure, no ServerHello.
  StartServer();
  ScriptedClient without;
  without.OfferSession(first.ticket(), first.master_secret());
  auto& exts = without.hello().extensions;
  exts.erase(std::remove_if(exts.begin(), exts.end(),
                            [](const Extension& e) {
                              return e.first == kExtendedMasterSecretExtension;
                            }),
             exts.end());
  ExpectFatal(without.ClientHelloRecords(),
              PlaintextAlert(kAlertHandshakeFailure));
}

TEST_F(SnapStartServerSocketTest, LegacySessionIsNotResumedWithEms) {
  ScriptedClient legacy;
  auto& exts = legacy.hello().extensions;
  exts.erase(std::remove_if(exts.begin(), exts.end(),
                            [](const Extension& e) {
                              return e.first == kExtendedMasterSecretExtension;
                            }),
             exts.end());
  FullHandshake(&legacy);
  ASSERT_FALSE(legacy.ticket().empty());
  // Offered with the extension now: a full handshake, not a resumption.
  StartServer();
  ScriptedClient client;
  client.OfferSession(legacy.ticket(), legacy.master_secret());
  FullHandshake(&client);
  EXPECT_FALSE(client.resumed());
  EXPECT_TRUE(server_->extended_master_secret());
}

}  // namespace
}  // namespace net
