// The TLS 1.2 pieces of the Snap Start core against published vectors and
// round trips: FNV-1a-64, the SHA-256 PRF, AES-128-GCM records, handshake
// messages and the Snap Start extension layouts.

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "net/snap_start/fnv1a64.h"
#include "net/snap_start/snap_start_flight.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_handshake.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_record.h"
#include "net/snap_start/tls12_test_util.h"

namespace net {
namespace {

std::string Hex(absl::string_view bytes) {
  return absl::BytesToHexString(bytes);
}

TEST(Fnv1a64Test, PublishedVectors) {
  // From the FNV reference test suite (Landon Curt Noll).
  struct {
    const char* input;
    uint64_t hash;
  } cases[] = {{"", 0xcbf29ce484222325ull},
               {"a", 0xaf63dc4c8601ec8cull},
               {"foobar", 0x85944171f73967e8ull}};
  for (const auto& c : cases) {
    Fnv1a64 fnv;
    fnv.Update(c.input);
    EXPECT_EQ(fnv.value(), c.hash) << c.input;
  }
  Fnv1a64 split;
  split.Update("foo");
  split.Update("bar");
  EXPECT_EQ(split.value(), 0x85944171f73967e8ull);
  const auto digest = split.Digest();
  EXPECT_EQ(digest[0], 0x85);  // big-endian on the wire
  EXPECT_EQ(digest[7], 0xe8);
}

TEST(Tls12PrfTest, Sha256Vector) {
  // The widely used TLS 1.2 P_SHA256 vector (IETF TLS list, 2009); OpenSSL's
  // `openssl kdf ... TLS1-PRF` gives the same bytes.
  const std::string secret =
      absl::HexStringToBytes("9bbe436ba940f017b17652849a71db35");
  const std::string seed =
      absl::HexStringToBytes("a0ba9f936cda311827a6f796ffd5198c");
  EXPECT_EQ(Hex(Tls12Prf(secret, "test label", seed, 100)),
            "e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a"
            "6b301791e90d35c9c9a46b4e14baf9af0fa022f7077def17abfd3797c0564bab"
            "4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff701"
            "87347b66");
}

TEST(Tls12CryptoTest, KeysAndFinishedAreDeterministicAndDistinct) {
  const std::string premaster = NewPremasterSecret();
  ASSERT_EQ(premaster.size(), 48u);
  EXPECT_EQ(premaster[0], 3);
  EXPECT_EQ(premaster[1], 3);
  const std::string cr(32, 'c'), sr(32, 's');
  const std::string master = Tls12MasterSecret(premaster, cr, sr);
  EXPECT_EQ(master.size(), 48u);
  Tls12KeyBlock a = Tls12DeriveKeys(master, cr, sr);
  Tls12KeyBlock b = Tls12DeriveKeys(master, cr, sr);
  EXPECT_EQ(a.client_write_key, b.client_write_key);
  EXPECT_NE(a.client_write_key, a.server_write_key);
  EXPECT_EQ(a.client_write_iv.size(), 4u);
  const std::string hash(32, 'h');
  EXPECT_NE(Tls12FinishedVerifyData(master, true, hash),
            Tls12FinishedVerifyData(master, false, hash));
  EXPECT_EQ(Tls12FinishedVerifyData(master, true, hash).size(), 12u);
}

TEST(Tls12CryptoTest, ExtendedMasterSecretIsBoundToTheSessionHash) {
  const std::string premaster = NewPremasterSecret();
  const std::string hash_a(32, 'a'), hash_b(32, 'b');
  const std::string ems = Tls12ExtendedMasterSecret(premaster, hash_a);
  EXPECT_EQ(ems.size(), 48u);
  // RFC 7627 section 4: PRF(premaster, "extended master secret", hash).
  EXPECT_EQ(ems, Tls12Prf(premaster, "extended master secret", hash_a, 48));
  EXPECT_NE(ems, Tls12ExtendedMasterSecret(premaster, hash_b));
  EXPECT_NE(ems, Tls12MasterSecret(premaster, hash_a.substr(0, 16),
                                   hash_a.substr(16)));
}

TEST(Tls12CryptoTest, PremasterCarriesTheOfferedVersion) {
  const std::string premaster = NewPremasterSecret(0x0304);
  EXPECT_EQ(premaster[0], 3);
  EXPECT_EQ(premaster[1], 4);
}

// The constant-time PKCS #1 v1.5 check: only a well-formed block with the
// offered version yields its premaster; anything else yields the random one.
TEST(Tls12CryptoTest, PremasterFromPkcs1Block) {
  const std::string random(48, 'R');
  const std::string premaster = NewPremasterSecret(0x0303);
  const std::string good = Pkcs1Block(256, premaster);
  EXPECT_EQ(PremasterFromPkcs1Block(good, 0x0303, random), premaster);
  // The version is the offered one: the same block fails for 0x0304.
  EXPECT_EQ(PremasterFromPkcs1Block(good, 0x0304, random), random);
  const size_t separator = 256 - 48 - 1;
  struct Case {
    const char* name;
    size_t at;
    char value;
  } cases[] = {{"first byte", 0, 1},
               {"block type", 1, 1},
               {"zero at the start of the padding", 2, 0},
               {"zero inside the padding", 100, 0},
               {"zero just before the separator", separator - 1, 0},
               {"no separator", separator, 7},
               {"version major", separator + 1, 2},
               {"version minor", separator + 2, 1}};
  for (const Case& c : cases) {
    std::string bad = good;
    bad[c.at] = c.value;
    EXPECT_EQ(PremasterFromPkcs1Block(bad, 0x0303, random), random) << c.name;
  }
  EXPECT_EQ(
      PremasterFromPkcs1Block(Pkcs1Block(256, premaster + "x"), 0x0303, random),
      random);
  // A block too short to hold a premaster.
  EXPECT_EQ(PremasterFromPkcs1Block(good.substr(0, 58), 0x0303, random),
            random);
}

// The server builds its flight and the client predicts it with the same
// code: a prediction from the server's own ServerHello matches it byte for
// byte, in both forms.
TEST(SnapStartFlightTest, PredictionMatchesTheServersFlight) {
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, 's');
  hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.has_extensions = true;
  hello.extensions = {{kRenegotiationInfoExtension, std::string(1, '\0')},
                      {kExtendedMasterSecretExtension, ""},
                      {kSessionTicketExtension, ""},
                      {kSnapStartExtension, std::string(10, 'o')}};
  const std::vector<std::string> chain = {"leaf", "intermediate"};
  const std::string suggested(32, 'g');
  auto full = PredictServerHello(SerializeServerHello(hello), suggested, "",
                                 /*resuming=*/false);
  ASSERT_TRUE(full.ok());
  ServerHello server = hello;
  server.random = suggested;
  EXPECT_EQ(BuildServerFlight(*full, &chain).Messages(),
            BuildServerFlight(server, &chain).Messages());
  EXPECT_EQ(BuildServerFlight(*full, &chain).Hash(),
            BuildServerFlight(server, &chain).Hash());
  const ServerFlight flight = BuildServerFlight(server, &chain);
  Fnv1a64 fnv;
  fnv.Update(flight.Messages());
  EXPECT_EQ(flight.Hash(), fnv.Digest());
  EXPECT_EQ(flight.server_hello_done, std::string("\x0e\x00\x00\x00", 4));

  // The ticket form: no session_ticket, the session ID echoed, no
  // Certificate or ServerHelloDone.
  auto resumed = PredictServerHello(SerializeServerHello(hello), suggested,
                                    std::string(32, 'i'), /*resuming=*/true);
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->FindExtension(kSessionTicketExtension), nullptr);
  EXPECT_NE(resumed->FindExtension(kExtendedMasterSecretExtension), nullptr);
  EXPECT_EQ(resumed->session_id, std::string(32, 'i'));
  EXPECT_TRUE(BuildServerFlight(*resumed, nullptr).certificate.empty());
  EXPECT_FALSE(PredictServerHello("junk", suggested, "", false).ok());
}

TEST(SnapStartFlightTest, OutcomeNamesAreTheTraceStrings) {
  EXPECT_STREQ(SnapStartOutcomeToString(SnapStartOutcome::kNone), "");
  EXPECT_STREQ(SnapStartOutcomeToString(SnapStartOutcome::kLearned), "learned");
  EXPECT_STREQ(SnapStartOutcomeToString(SnapStartOutcome::kAttempted),
               "attempted");
  EXPECT_STREQ(SnapStartOutcomeToString(SnapStartOutcome::kAccepted),
               "accepted");
  EXPECT_STREQ(SnapStartOutcomeToString(SnapStartOutcome::kRecovered),
               "recovered");
  EXPECT_STREQ(SnapStartOutcomeToString(SnapStartOutcome::kRejected),
               "rejected");
}

TEST(HandshakeChecksTest, ServerHelloExtensions) {
  const ClientHello offered = NewClientHello(
      "www.example.test", std::string(32, 'c'), "", std::string());
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, 's');
  hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.has_extensions = true;
  EXPECT_FALSE(CheckServerHello(hello, offered).has_value());
  auto alert_for = [&](uint16_t type, std::string body) {
    ServerHello h = hello;
    h.extensions = {{type, std::move(body)}};
    auto failure = CheckServerHello(h, offered);
    return failure ? static_cast<int>(failure->alert) : -1;
  };
  EXPECT_EQ(alert_for(kExtendedMasterSecretExtension, ""), -1);
  EXPECT_EQ(alert_for(kExtendedMasterSecretExtension, "x"), kAlertDecodeError);
  EXPECT_EQ(alert_for(kRenegotiationInfoExtension, std::string(1, '\0')), -1);
  EXPECT_EQ(alert_for(kRenegotiationInfoExtension, "\x01x"),
            kAlertHandshakeFailure);
  EXPECT_EQ(alert_for(kRenegotiationInfoExtension, "\x05"), kAlertDecodeError);
  EXPECT_EQ(alert_for(kSessionTicketExtension, "x"), kAlertDecodeError);
  EXPECT_EQ(alert_for(kSnapStartExtension, "x"), kAlertUnsupportedExtension);
  EXPECT_EQ(alert_for(0x1234, ""), kAlertUnsupportedExtension);
  EXPECT_EQ(alert_for(kSignatureAlgorithmsExtension, ""),
            kAlertUnsupportedExtension);
}

TEST(TranscriptTest, HashDoesNotDisturb) {
  Transcript t;
  t.Update("abc");
  const std::string h1 = t.Hash();
  EXPECT_EQ(h1, t.Hash());
  // SHA-256("abc")
  EXPECT_EQ(Hex(h1),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(RecordTest, SealOpenAndTamper) {
  const std::string key(16, 'k'), iv(4, 'i');
  auto sender = RecordCipher::Create(key, iv);
  auto receiver = RecordCipher::Create(key, iv);
  ASSERT_TRUE(sender.ok() && receiver.ok());
  std::string wire = (*sender)->Seal(kTlsApplicationData, "hello");
  wire += (*sender)->Seal(kTlsApplicationData, "world");
  RecordBuffer buffer;
  buffer.Append(wire.substr(0, 7));
  auto none = buffer.Next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  buffer.Append(wire.substr(7));
  auto first = buffer.Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  auto plain = (*receiver)->Open(**first);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "hello");
  auto second = buffer.Next();
  ASSERT_TRUE(second.ok() && second->has_value());
  TlsRecord tampered = **second;
  tampered.fragment[10] ^= 1;
  EXPECT_FALSE((*receiver)->Open(tampered).ok());
  // A record replayed out of sequence does not authenticate either.
  auto again = RecordCipher::Create(key, iv);
  (*again)->Open(**first).IgnoreError();
  EXPECT_FALSE((*again)->Open(**first).ok());
}

TEST(RecordTest, RejectsBadHeaders) {
  RecordBuffer bad_type;
  bad_type.Append(std::string("\x30\x03\x03\x00\x01x", 6));
  EXPECT_FALSE(bad_type.Next().ok());
  RecordBuffer too_long;
  too_long.Append(std::string("\x17\x03\x03\xff\xff", 5));
  EXPECT_FALSE(too_long.Next().ok());
}

TEST(MessagesTest, ClientHelloRoundTrip) {
  ClientHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, 'r');
  hello.cipher_suites = {kTlsRsaWithAes128GcmSha256, 0x00ff};
  hello.compression_methods = std::string(1, '\0');
  hello.has_extensions = true;
  hello.extensions = {{kSessionTicketExtension, ""}, {kSnapStartExtension, ""}};
  const std::string body = SerializeClientHello(hello);
  auto parsed = ParseClientHello(body);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(SerializeClientHello(*parsed), body);
  EXPECT_TRUE(parsed->OffersSuite(kTlsRsaWithAes128GcmSha256));
  ASSERT_NE(parsed->FindExtension(kSnapStartExtension), nullptr);
  // Truncations never parse.
  const size_t without_extensions = body.size() - 10;  // also well-formed
  for (size_t n = 0; n < body.size(); ++n) {
    if (n == without_extensions) continue;
    EXPECT_FALSE(ParseClientHello(body.substr(0, n)).ok()) << n;
  }
  // Duplicate extensions are refused.
  hello.extensions.push_back({kSnapStartExtension, ""});
  EXPECT_FALSE(ParseClientHello(SerializeClientHello(hello)).ok());
}

TEST(MessagesTest, ServerHelloCertificateTicketRoundTrip) {
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, 's');
  hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.has_extensions = true;
  SnapStartServerInfo info;
  info.orbit = {1, 2, 3, 4, 5, 6, 7, 8};
  info.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.extensions = {
      {kSnapStartExtension, SerializeSnapStartServerExtension(info)}};
  auto parsed = ParseServerHello(SerializeServerHello(hello));
  ASSERT_TRUE(parsed.ok());
  auto back = ParseSnapStartServerExtension(
      *parsed->FindExtension(kSnapStartExtension));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->orbit, info.orbit);
  EXPECT_EQ(back->cipher_suite, kTlsRsaWithAes128GcmSha256);
  EXPECT_FALSE(ParseSnapStartServerExtension("123456789").ok());

  auto chain = ParseCertificate(SerializeCertificate({"leaf", "ca"}));
  ASSERT_TRUE(chain.ok());
  EXPECT_EQ(*chain, (std::vector<std::string>{"leaf", "ca"}));
  EXPECT_FALSE(
      ParseCertificate(std::string("\x00\x00\x05\x00\x00\x09x", 7)).ok());

  NewSessionTicket ticket{3600, "opaque"};
  auto t = ParseNewSessionTicket(SerializeNewSessionTicket(ticket));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ticket, "opaque");
  EXPECT_EQ(t->lifetime_hint, 3600u);
}

TEST(MessagesTest, SnapStartClientExtensionForms) {
  auto empty = ParseSnapStartClientExtension("");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
  for (size_t n = 1; n < kSnapStartAttemptHeaderSize; ++n) {
    EXPECT_FALSE(ParseSnapStartClientExtension(std::string(n, 'x')).ok()) << n;
  }
  SnapStartAttempt attempt;
  attempt.orbit = {8, 7, 6, 5, 4, 3, 2, 1};
  attempt.random_bytes = std::string(20, 'z');
  attempt.predicted_hash = {1, 1, 2, 3, 5, 8, 13, 21};
  attempt.records = "records";
  auto parsed =
      ParseSnapStartClientExtension(SerializeSnapStartAttempt(attempt));
  ASSERT_TRUE(parsed.ok() && parsed->has_value());
  EXPECT_EQ((*parsed)->orbit, attempt.orbit);
  EXPECT_EQ((*parsed)->random_bytes, attempt.random_bytes);
  EXPECT_EQ((*parsed)->predicted_hash, attempt.predicted_hash);
  EXPECT_EQ((*parsed)->records, "records");

  const std::string client_random =
      std::string("\x5f\x00\x00\x01", 4) + std::string(28, 'c');
  const std::string suggested =
      SuggestedServerRandom(client_random, attempt.orbit, attempt.random_bytes);
  ASSERT_EQ(suggested.size(), 32u);
  EXPECT_EQ(suggested.substr(0, 4), client_random.substr(0, 4));
  EXPECT_EQ(RandomTime(suggested), 0x5f000001u);
  EXPECT_EQ(suggested.substr(12), attempt.random_bytes);
}

TEST(MessagesTest, OrbitHex) {
  auto orbit = OrbitFromHex("0102030405060708");
  ASSERT_TRUE(orbit.ok());
  EXPECT_EQ(OrbitToHex(*orbit), "0102030405060708");
  EXPECT_FALSE(OrbitFromHex("01020304").ok());
  EXPECT_FALSE(OrbitFromHex("zz02030405060708").ok());
}

TEST(HandshakeBufferTest, ReassemblesAcrossRecords) {
  const std::string msg = SerializeHandshake(kFinishedType, "123456789012");
  HandshakeBuffer buffer;
  buffer.Append(msg.substr(0, 3));
  auto none = buffer.Next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  buffer.Append(msg.substr(3));
  auto got = buffer.Next();
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->raw, msg);
  EXPECT_EQ((*got)->body, "123456789012");
  HandshakeBuffer huge;
  huge.Append(std::string("\x01\xff\xff\xff", 4));
  EXPECT_FALSE(huge.Next().ok());
}

}  // namespace
}  // namespace net
