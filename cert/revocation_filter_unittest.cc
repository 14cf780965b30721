#include "cert/revocation_filter.h"

#include <openssl/asn1.h>
#include <openssl/bytestring.h>
#include <openssl/mem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <functional>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_filter_builder.h"
#include "cert/revocation_filter_store.h"
#include "cert/revocation_test_util.h"
#include "cert/x509_util.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"

namespace net {
namespace {

using E = RevocationFilterError;
using Answer = RevocationFilter::Answer;

const absl::Time kCreated = absl::FromUnixSeconds(1700000000);
const absl::Time kCoverage = absl::FromUnixSeconds(1699990000);

std::string Issuer(int n) { return std::string(kSpkiSha256Bytes, 'a' + n); }

std::vector<RevocationFilter::Issuer> Issuers(int count) {
  std::vector<RevocationFilter::Issuer> out;
  for (int i = 0; i < count; ++i)
    out.push_back({Issuer(i), absl::StrCat("CA ", i)});
  return out;
}

// |n| distinct random keys over |issuers| issuers, none in |avoid|.
std::vector<RevocationFilterKey> RandomKeys(
    std::mt19937_64* rng, size_t n, int issuers,
    std::set<RevocationFilterKey>* taken) {
  std::vector<RevocationFilterKey> keys;
  while (keys.size() < n) {
    RevocationFilterKey key;
    key.issuer_spki_sha256 = Issuer(static_cast<int>((*rng)() % issuers));
    size_t len = 1 + (*rng)() % 20;
    for (size_t i = 0; i < len; ++i)
      key.serial.push_back(static_cast<char>((*rng)() & 0xff));
    if (taken->insert(key).second) keys.push_back(key);
  }
  return keys;
}

RevocationFilterBuildOptions Options(int issuers = 3) {
  RevocationFilterBuildOptions options;
  options.sequence = 7;
  options.created = kCreated;
  options.coverage = kCoverage;
  options.issuers = Issuers(issuers);
  return options;
}

std::optional<E> ErrorOf(const absl::Status& status) {
  return GetRevocationFilterError(status);
}

// A framed file around |body| with a correct checksum: reaches the body
// checks whatever the body says.
std::string FrameBody(absl::string_view magic, absl::string_view body) {
  std::string out(magic);
  out.push_back(0);
  out.push_back(1);
  uint32_t len = static_cast<uint32_t>(body.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((len >> shift) & 0xff));
  out.append(body.data(), body.size());
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(out.data()), out.size(), digest);
  out.append(reinterpret_cast<char*>(digest), sizeof(digest));
  return out;
}

RevocationFilter SmallFilter() {
  std::mt19937_64 rng(1);
  std::set<RevocationFilterKey> taken;
  auto revoked = RandomKeys(&rng, 20, 2, &taken);
  auto valid = RandomKeys(&rng, 200, 2, &taken);
  auto options = Options(2);
  options.salt = std::string(16, 's');
  return *BuildRevocationFilter(revoked, valid, options);
}

// --- construction

struct SizeCase {
  size_t revoked, valid;
};

class CascadeExactTest : public ::testing::TestWithParam<SizeCase> {};

TEST_P(CascadeExactTest, AnswersExactlyForEveryMemberOfRAndS) {
  const SizeCase c = GetParam();
  std::mt19937_64 rng(c.revoked * 7919 + c.valid);
  std::set<RevocationFilterKey> taken;
  auto revoked = RandomKeys(&rng, c.revoked, 3, &taken);
  auto valid = RandomKeys(&rng, c.valid, 3, &taken);
  RevocationFilterBuildStats stats;
  absl::StatusOr<RevocationFilter> built =
      BuildRevocationFilter(revoked, valid, Options(), &stats);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(stats.revoked, c.revoked);
  EXPECT_EQ(stats.valid, c.valid);
  EXPECT_EQ(stats.inverted, c.revoked > c.valid);
  EXPECT_EQ(built->levels().size(), stats.levels.size());
  EXPECT_EQ(stats.levels.back().false_positives, 0u);
  // The file as a client gets it answers the same.
  absl::StatusOr<RevocationFilter> filter =
      RevocationFilter::Parse(built->Serialize());
  ASSERT_TRUE(filter.ok()) << filter.status();
  for (const auto& key : revoked) {
    ASSERT_TRUE(filter->CascadeSaysRevoked(key)) << key.ToString();
    ASSERT_EQ(filter->Check(key, kCoverage), Answer::kRevoked);
  }
  for (const auto& key : valid) {
    ASSERT_FALSE(filter->CascadeSaysRevoked(key)) << key.ToString();
    ASSERT_EQ(filter->Check(key, kCoverage - absl::Hours(1)), Answer::kGood);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, CascadeExactTest,
    ::testing::Values(SizeCase{0, 0}, SizeCase{0, 100}, SizeCase{1, 0},
                      SizeCase{1, 1}, SizeCase{5, 12}, SizeCase{10, 1000},
                      SizeCase{100, 10000}, SizeCase{1000, 10000},
                      SizeCase{3000, 30000}, SizeCase{800, 100},
                      SizeCase{5000, 5000}));

TEST(RevocationFilterBuilderTest, FirstLevelFollowsCrlite) {
  std::mt19937_64 rng(2);
  std::set<RevocationFilterKey> taken;
  auto revoked = RandomKeys(&rng, 200, 3, &taken);
  auto valid = RandomKeys(&rng, 20000, 3, &taken);
  RevocationFilterBuildStats stats;
  ASSERT_TRUE(BuildRevocationFilter(revoked, valid, Options(), &stats).ok());
  // p1 = sqrt(1/2) * 200 / 20000; k = round(log2(1/p1)) = 7; later levels
  // p = 1/2, k = 1.
  EXPECT_NEAR(stats.levels[0].fp_rate, std::sqrt(0.5) * 0.01, 1e-12);
  EXPECT_EQ(stats.levels[0].hash_count, 7);
  EXPECT_EQ(stats.levels[0].elements, 200u);
  EXPECT_EQ(stats.levels[0].tested, 20000u);
  // About p1 of S gets through level 1 (expected 141).
  EXPECT_GT(stats.levels[0].false_positives, 60u);
  EXPECT_LT(stats.levels[0].false_positives, 260u);
  ASSERT_GE(stats.levels.size(), 2u);
  EXPECT_EQ(stats.levels[1].hash_count, 1);
  EXPECT_EQ(stats.levels[1].elements, stats.levels[0].false_positives);
  EXPECT_EQ(stats.levels[1].tested, 200u);
  for (size_t i = 1; i < stats.levels.size(); ++i)
    EXPECT_EQ(stats.levels[i].fp_rate, 0.5);
}

TEST(RevocationFilterBuilderTest, NonMembersGetTheLevelsFalsePositiveRate) {
  std::mt19937_64 rng(3);
  std::set<RevocationFilterKey> taken;
  auto revoked = RandomKeys(&rng, 100, 3, &taken);
  auto valid = RandomKeys(&rng, 10000, 3, &taken);
  auto filter = BuildRevocationFilter(revoked, valid, Options());
  ASSERT_TRUE(filter.ok());
  auto others = RandomKeys(&rng, 20000, 3, &taken);
  size_t said_revoked = 0;
  for (const auto& key : others)
    said_revoked += filter->CascadeSaysRevoked(key);
  // A stranger passes level 1 with p1 ~ 0.7%, then level 2 half the time:
  // far from exact, which is why Check looks at coverage first; but rare.
  EXPECT_LT(said_revoked, others.size() / 50);
}

TEST(RevocationFilterBuilderTest, RefusesContradictionsAndStrangers) {
  RevocationFilterKey key{Issuer(0), "\x01"};
  auto both = BuildRevocationFilter({key}, {key}, Options());
  EXPECT_TRUE(absl::IsInvalidArgument(both.status())) << both.status();
  EXPECT_NE(both.status().message().find("both revoked and valid"),
            std::string::npos);
  RevocationFilterKey stranger{Issuer(9), "\x01"};
  auto other_issuer = BuildRevocationFilter({stranger}, {}, Options());
  EXPECT_TRUE(absl::IsInvalidArgument(other_issuer.status()));
  RevocationFilterKey long_serial{Issuer(0), std::string(65, '\x01')};
  EXPECT_TRUE(absl::IsInvalidArgument(
      BuildRevocationFilter({long_serial}, {}, Options()).status()));
  auto no_issuers = Options(0);
  EXPECT_EQ(ErrorOf(BuildRevocationFilter({}, {}, no_issuers).status()),
            E::kNoIssuers);
  auto late = Options();
  late.coverage = kCreated + absl::Seconds(1);
  EXPECT_EQ(ErrorOf(BuildRevocationFilter({}, {}, late).status()),
            E::kBadTimes);
  // Duplicates within a set are one key.
  RevocationFilterBuildStats stats;
  ASSERT_TRUE(BuildRevocationFilter({key, key}, {}, Options(), &stats).ok());
  EXPECT_EQ(stats.revoked, 1u);
}

TEST(RevocationFilterBuilderTest, SameSaltSameFileRandomSaltOtherwise) {
  std::mt19937_64 rng(4);
  std::set<RevocationFilterKey> taken;
  auto revoked = RandomKeys(&rng, 30, 2, &taken);
  auto valid = RandomKeys(&rng, 300, 2, &taken);
  auto options = Options(2);
  options.salt = "0123456789abcdef";
  auto a = BuildRevocationFilter(revoked, valid, options);
  auto b = BuildRevocationFilter(revoked, valid, options);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->Serialize(), b->Serialize());
  options.salt.clear();
  auto c = BuildRevocationFilter(revoked, valid, options);
  auto d = BuildRevocationFilter(revoked, valid, options);
  ASSERT_TRUE(c.ok() && d.ok());
  EXPECT_EQ(c->contents().salt.size(), 16u);
  EXPECT_NE(c->contents().salt, d->contents().salt);
}

// --- the file

TEST(RevocationFilterFileTest, RoundTripIsExact) {
  RevocationFilter filter = SmallFilter();
  std::string bytes = filter.Serialize();
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.substr(0, 4), "NSRF");
  absl::StatusOr<RevocationFilter> parsed = RevocationFilter::Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Serialize(), bytes);
  EXPECT_EQ(parsed->sequence(), 7u);
  EXPECT_EQ(parsed->created(), kCreated);
  EXPECT_EQ(parsed->coverage(), kCoverage);
  ASSERT_EQ(parsed->issuers().size(), 2u);
  EXPECT_EQ(parsed->issuers()[0].label, "CA 0");
  EXPECT_EQ(parsed->contents().salt, std::string(16, 's'));
  EXPECT_EQ(parsed->levels().size(), filter.levels().size());
}

TEST(RevocationFilterFileTest, EveryTruncationIsNamed) {
  std::string bytes = SmallFilter().Serialize();
  for (size_t len = 0; len < bytes.size(); ++len) {
    absl::Status status =
        RevocationFilter::Parse(absl::string_view(bytes).substr(0, len))
            .status();
    ASSERT_EQ(ErrorOf(status), E::kTruncated) << len << ": " << status;
    ASSERT_TRUE(absl::IsDataLoss(status));
  }
}

TEST(RevocationFilterFileTest, EveryBitFlipIsNamed) {
  std::string bytes = SmallFilter().Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      absl::Status status = RevocationFilter::Parse(damaged).status();
      std::optional<E> error = ErrorOf(status);
      ASSERT_TRUE(error.has_value()) << i << "/" << bit << ": " << status;
      if (i < 4) {
        EXPECT_EQ(*error, E::kBadMagic) << i;
      } else if (i < 6) {
        EXPECT_EQ(*error, E::kUnsupportedVersion) << i;
      } else if (i < 10) {
        // The body's length: the file is then too short, or too long.
        EXPECT_TRUE(*error == E::kTruncated || *error == E::kTrailingData)
            << i << ": " << status;
      } else {
        EXPECT_EQ(*error, E::kChecksumMismatch) << i;
      }
    }
  }
}

TEST(RevocationFilterFileTest, OuterErrors) {
  std::string bytes = SmallFilter().Serialize();
  EXPECT_EQ(ErrorOf(RevocationFilter::Parse(bytes + "x").status()),
            E::kTrailingData);
  absl::Status big = RevocationFilter::Parse(bytes, bytes.size() - 1).status();
  EXPECT_EQ(ErrorOf(big), E::kTooLarge);
  EXPECT_TRUE(absl::IsResourceExhausted(big));
  EXPECT_EQ(ErrorOf(RevocationFilter::Parse("GIF89a...").status()),
            E::kBadMagic);
  EXPECT_EQ(ErrorOf(RevocationFilter::Parse("x").status()), E::kBadMagic);
  EXPECT_EQ(ErrorOf(RevocationFilter::Parse("NS").status()), E::kTruncated);
  auto stash = RevocationStash::Create({7, 1, kCreated, {}});
  ASSERT_TRUE(stash.ok());
  absl::Status kind = RevocationFilter::Parse(stash->Serialize()).status();
  EXPECT_EQ(ErrorOf(kind), E::kWrongKind);
  EXPECT_NE(kind.message().find("this is a stash file"), std::string::npos);
  EXPECT_EQ(ErrorOf(RevocationStash::Parse(bytes).status()), E::kWrongKind);
  // Messages begin with the error's name.
  EXPECT_EQ(
      RevocationFilter::Parse(bytes + "x").status().message().substr(0, 13),
      "trailing_data");
  // Not a RevocationFilterError.
  EXPECT_EQ(ErrorOf(absl::DataLossError("other")), std::nullopt);
}

// Builds a filter body field by field, to reach each check past the checksum.
struct BodyBuilder {
  uint64_t sequence = 1;
  uint64_t created = 1700000000, coverage = 1699990000;
  uint8_t hash = 1;
  std::string salt = std::string(16, 's');
  uint8_t flags = 0;
  std::vector<std::pair<std::string, std::string>> issuers = {
      {Issuer(0), "CA 0"}};
  struct L {
    uint8_t k;
    uint32_t m;
    std::string bits;
  };
  std::vector<L> levels = {{1, 8, std::string(1, '\x01')}};
  std::string extra;

  std::string Body() const {
    bssl::ScopedCBB cbb;
    CBB child;
    CBB_init(cbb.get(), 256);
    CBB_add_u64(cbb.get(), sequence);
    CBB_add_u64(cbb.get(), created);
    CBB_add_u64(cbb.get(), coverage);
    CBB_add_u8(cbb.get(), hash);
    CBB_add_u8_length_prefixed(cbb.get(), &child);
    CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(salt.data()),
                  salt.size());
    CBB_add_u8(cbb.get(), flags);
    CBB_add_u16(cbb.get(), static_cast<uint16_t>(issuers.size()));
    for (const auto& [hash_bytes, label] : issuers) {
      CBB_add_bytes(cbb.get(),
                    reinterpret_cast<const uint8_t*>(hash_bytes.data()),
                    hash_bytes.size());
      CBB_add_u8_length_prefixed(cbb.get(), &child);
      CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(label.data()),
                    label.size());
    }
    CBB_add_u8(cbb.get(), static_cast<uint8_t>(levels.size()));
    for (const L& l : levels) {
      CBB_add_u8(cbb.get(), l.k);
      CBB_add_u32(cbb.get(), l.m);
      CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(l.bits.data()),
                    l.bits.size());
    }
    CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(extra.data()),
                  extra.size());
    uint8_t* out;
    size_t len;
    CBB_finish(cbb.get(), &out, &len);
    std::string s(reinterpret_cast<char*>(out), len);
    OPENSSL_free(out);
    return s;
  }
  absl::Status Parse() const {
    return RevocationFilter::Parse(FrameBody("NSRF", Body())).status();
  }
};

TEST(RevocationFilterFileTest, BodyErrorsAreNamed) {
  BodyBuilder ok;
  ASSERT_TRUE(ok.Parse().ok()) << ok.Parse();
  struct Case {
    const char* what;
    std::function<void(BodyBuilder*)> change;
    E want;
  } cases[] = {
      {"hash", [](BodyBuilder* b) { b->hash = 2; }, E::kUnknownHashAlgorithm},
      {"short salt", [](BodyBuilder* b) { b->salt = "1234567"; }, E::kBadSalt},
      {"long salt", [](BodyBuilder* b) { b->salt = std::string(65, 's'); },
       E::kBadSalt},
      {"flags", [](BodyBuilder* b) { b->flags = 2; }, E::kBadFlags},
      {"sequence", [](BodyBuilder* b) { b->sequence = 0; }, E::kBadSequence},
      {"coverage after creation",
       [](BodyBuilder* b) { b->coverage = b->created + 1; }, E::kBadTimes},
      {"time past 9999", [](BodyBuilder* b) { b->created = ~uint64_t{0}; },
       E::kBadTimes},
      {"no issuers", [](BodyBuilder* b) { b->issuers.clear(); }, E::kNoIssuers},
      {"issuers unsorted",
       [](BodyBuilder* b) {
         b->issuers.insert(b->issuers.begin(), {Issuer(1), ""});
       },
       E::kIssuersNotCanonical},
      {"issuer repeated",
       [](BodyBuilder* b) { b->issuers.push_back(b->issuers[0]); },
       E::kIssuersNotCanonical},
      {"no levels", [](BodyBuilder* b) { b->levels.clear(); }, E::kNoLevels},
      {"65 levels",
       [](BodyBuilder* b) {
         b->levels.assign(65, {1, 8, std::string(1, '\0')});
       },
       E::kTooManyLevels},
      {"k = 0", [](BodyBuilder* b) { b->levels[0].k = 0; }, E::kBadHashCount},
      {"k = 33", [](BodyBuilder* b) { b->levels[0].k = 33; }, E::kBadHashCount},
      {"m = 0",
       [](BodyBuilder* b) {
         b->levels[0] = {1, 0, ""};
       },
       E::kBadLevelSize},
      {"padding",
       [](BodyBuilder* b) {
         b->levels[0] = {1, 5, std::string(1, '\x20')};
       },
       E::kNonzeroPadding},
      {"level cut",
       [](BodyBuilder* b) {
         b->levels[0] = {1, 64, std::string(3, '\0')};
       },
       E::kTruncated},
      {"bytes after the levels", [](BodyBuilder* b) { b->extra = "z"; },
       E::kTrailingData},
  };
  for (const Case& c : cases) {
    BodyBuilder b;
    c.change(&b);
    absl::Status status = b.Parse();
    EXPECT_EQ(ErrorOf(status), c.want) << c.what << ": " << status;
  }
  // Every cut of a valid body, re-checksummed, is a named truncation.
  std::string body = ok.Body();
  for (size_t len = 0; len < body.size(); ++len) {
    absl::Status status =
        RevocationFilter::Parse(FrameBody("NSRF", body.substr(0, len)))
            .status();
    EXPECT_EQ(ErrorOf(status), E::kTruncated) << len << ": " << status;
  }
}

TEST(RevocationFilterFileTest, CreateChecksWhatParseChecks) {
  RevocationFilter::Contents c = SmallFilter().contents();
  c.levels[0].bits.pop_back();
  EXPECT_EQ(ErrorOf(RevocationFilter::Create(c).status()), E::kBadLevelSize);
  c = SmallFilter().contents();
  c.issuers[0].spki_sha256 = "short";
  EXPECT_EQ(ErrorOf(RevocationFilter::Create(c).status()),
            E::kIssuersNotCanonical);
  // Sub-second times are floored (the file holds seconds).
  c = SmallFilter().contents();
  c.created += absl::Milliseconds(700);
  auto f = RevocationFilter::Create(c);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->created(), kCreated);
}

TEST(RevocationFilterTest, CoverageComesBeforeTheCascade) {
  std::mt19937_64 rng(5);
  std::set<RevocationFilterKey> taken;
  auto revoked = RandomKeys(&rng, 10, 2, &taken);
  auto valid = RandomKeys(&rng, 100, 2, &taken);
  auto filter = BuildRevocationFilter(revoked, valid, Options(2));
  ASSERT_TRUE(filter.ok());
  EXPECT_EQ(filter->Check(revoked[0], kCoverage), Answer::kRevoked);
  EXPECT_EQ(filter->Check(revoked[0], kCoverage + absl::Seconds(1)),
            Answer::kNotCovered);
  RevocationFilterKey other = revoked[0];
  other.issuer_spki_sha256 = Issuer(2);
  EXPECT_EQ(filter->Check(other, kCoverage), Answer::kNotCovered);
  EXPECT_TRUE(filter->CoversIssuer(Issuer(1)));
  EXPECT_FALSE(filter->CoversIssuer(Issuer(2)));
}

// --- stashes

TEST(RevocationStashTest, RoundTripSortsAndConcatenates) {
  RevocationStash::Contents c{7, 2, kCreated, {}};
  c.revoked = {{Issuer(1), "\x05"},
               {Issuer(0), std::string("\x01\x00", 2)},
               {Issuer(0), "\x7f"},
               {Issuer(1), "\x05"}};
  auto stash = RevocationStash::Create(c);
  ASSERT_TRUE(stash.ok()) << stash.status();
  EXPECT_EQ(stash->size(), 3u);
  // Serial order is numeric: 0x7f before 0x0100.
  EXPECT_EQ(stash->contents().revoked[0].serial, "\x7f");
  std::string bytes = stash->Serialize();
  EXPECT_EQ(bytes.substr(0, 4), "NSRS");
  auto parsed = RevocationStash::Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Serialize(), bytes);
  EXPECT_TRUE(parsed->Contains({Issuer(0), std::string("\x01\x00", 2)}));
  EXPECT_FALSE(parsed->Contains({Issuer(1), "\x7f"}));
  auto other = RevocationStash::Create({7, 3, kCreated, {{Issuer(2), "\x09"}}});
  auto all = RevocationStash::ParseAll(bytes + other->Serialize());
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].number(), 3u);
  // A cut anywhere in the second is a named truncation.
  std::string both = bytes + other->Serialize();
  for (size_t len = bytes.size() + 1; len < both.size(); ++len) {
    EXPECT_EQ(ErrorOf(RevocationStash::ParseAll(both.substr(0, len)).status()),
              E::kTruncated)
        << len;
  }
  EXPECT_EQ(ErrorOf(RevocationStash::Parse(both).status()), E::kTrailingData);
}

std::string StashBody(
    const std::vector<std::pair<std::string, std::vector<std::string>>>&
        issuers) {
  bssl::ScopedCBB cbb;
  CBB_init(cbb.get(), 256);
  CBB_add_u64(cbb.get(), 7);
  CBB_add_u32(cbb.get(), 1);
  CBB_add_u64(cbb.get(), 1700000000);
  CBB_add_u16(cbb.get(), static_cast<uint16_t>(issuers.size()));
  for (const auto& [issuer, serials] : issuers) {
    CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(issuer.data()),
                  issuer.size());
    CBB_add_u32(cbb.get(), static_cast<uint32_t>(serials.size()));
    for (const std::string& s : serials) {
      CBB child;
      CBB_add_u8_length_prefixed(cbb.get(), &child);
      CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(s.data()),
                    s.size());
    }
  }
  uint8_t* out;
  size_t len;
  CBB_finish(cbb.get(), &out, &len);
  std::string s(reinterpret_cast<char*>(out), len);
  OPENSSL_free(out);
  return s;
}

TEST(RevocationStashTest, BodyErrorsAreNamed) {
  auto parse = [](const std::string& body) {
    return ErrorOf(RevocationStash::Parse(FrameBody("NSRS", body)).status());
  };
  EXPECT_EQ(parse(StashBody({{Issuer(0), {"\x01", "\x02"}}})), std::nullopt);
  EXPECT_EQ(parse(StashBody({{Issuer(0), {"\x02", "\x01"}}})),
            E::kEntriesNotCanonical);
  EXPECT_EQ(parse(StashBody({{Issuer(0), {"\x01", "\x01"}}})),
            E::kEntriesNotCanonical);
  EXPECT_EQ(parse(StashBody({{Issuer(1), {"\x01"}}, {Issuer(0), {"\x01"}}})),
            E::kEntriesNotCanonical);
  EXPECT_EQ(parse(StashBody({{Issuer(0), {}}})), E::kEmptyIssuerEntry);
  EXPECT_EQ(parse(StashBody({{Issuer(0), {""}}})), E::kBadSerial);
  EXPECT_EQ(parse(StashBody({{Issuer(0), {std::string(65, 'x')}}})),
            E::kBadSerial);
  EXPECT_EQ(parse(StashBody({{Issuer(0), {"\x01"}}}) + "z"), E::kTrailingData);
  // A serial count far past the body: truncated, found before allocating.
  std::string huge = StashBody({{Issuer(0), {"\x01"}}});
  huge[8 + 4 + 8 + 2 + 32] = '\x7f';  // the serial count's top byte
  EXPECT_EQ(parse(huge), E::kTruncated);
  EXPECT_EQ(ErrorOf(RevocationStash::Create({0, 1, kCreated, {}}).status()),
            E::kBadSequence);
}

// --- certificates and the store

TEST(CertificateFilterFactsTest, SerialAndNotBeforeAsBoringSslReadsThem) {
  auto chain = LoadPemCertificatesFromFile("cert/testdata/good_leaf_chain.pem");
  ASSERT_TRUE(chain.ok()) << chain.status();
  ASSERT_GE(chain->size(), 2u);
  auto facts = GetCertificateFilterFacts((*chain)[0], (*chain)[1]);
  ASSERT_TRUE(facts.ok()) << facts.status();
  bssl::UniquePtr<X509> leaf = DerToX509((*chain)[0]);
  bssl::UniquePtr<X509> issuer = DerToX509((*chain)[1]);
  // The serial: BoringSSL's magnitude, plus DER's leading zero when the top
  // bit is set.
  const ASN1_INTEGER* serial = X509_get0_serialNumber(leaf.get());
  std::string magnitude(reinterpret_cast<const char*>(serial->data),
                        serial->length);
  if (static_cast<uint8_t>(magnitude[0]) & 0x80)
    magnitude.insert(magnitude.begin(), '\0');
  EXPECT_EQ(facts->key.serial, magnitude);
  bssl::UniquePtr<ASN1_TIME> epoch(ASN1_TIME_set(nullptr, 0));
  int days, secs;
  ASSERT_TRUE(ASN1_TIME_diff(&days, &secs, epoch.get(),
                             X509_get0_notBefore(leaf.get())));
  EXPECT_EQ(facts->not_before,
            absl::FromUnixSeconds(int64_t{days} * 86400 + secs));
  // The issuer's SPKI hash: SHA-256 of its i2d SubjectPublicKeyInfo.
  uint8_t* spki = nullptr;
  int len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(issuer.get()), &spki);
  ASSERT_GT(len, 0);
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(spki, len, digest);
  OPENSSL_free(spki);
  EXPECT_EQ(facts->key.issuer_spki_sha256,
            std::string(reinterpret_cast<char*>(digest), sizeof(digest)));
  EXPECT_EQ(*SpkiSha256OfCertificate((*chain)[1]),
            facts->key.issuer_spki_sha256);
  EXPECT_FALSE(GetCertificateFilterFacts("junk", (*chain)[1]).ok());
  EXPECT_FALSE(GetCertificateFilterFacts((*chain)[0], "junk").ok());
}

class RevocationFilterStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leaf_ = X509ToDer(chain_.leaf.get());
    i2_ = X509ToDer(chain_.i2.get());
    i1_ = X509ToDer(chain_.i1.get());
    leaf_facts_ = *GetCertificateFilterFacts(leaf_, i2_);
    i2_facts_ = *GetCertificateFilterFacts(i2_, i1_);
  }
  // A filter covering i2 (the leaf's issuer) and i1, the leaf revoked or not.
  RevocationFilter Filter(uint64_t sequence, bool leaf_revoked,
                          absl::Time coverage) {
    RevocationFilterBuildOptions options;
    options.sequence = sequence;
    options.created = absl::Now();
    options.coverage = coverage;
    options.issuers = {{leaf_facts_.key.issuer_spki_sha256, "Inter 2"},
                       {i2_facts_.key.issuer_spki_sha256, "Inter 1"}};
    std::vector<RevocationFilterKey> revoked, valid = {i2_facts_.key};
    for (int i = 0; i < 50; ++i) {
      RevocationFilterKey k{leaf_facts_.key.issuer_spki_sha256,
                            absl::StrCat("serial", i)};
      (i % 10 == 0 ? revoked : valid).push_back(k);
    }
    (leaf_revoked ? revoked : valid).push_back(leaf_facts_.key);
    return *BuildRevocationFilter(revoked, valid, options);
  }
  TestChain chain_;
  std::string leaf_, i2_, i1_;
  CertificateFilterFacts leaf_facts_, i2_facts_;
};

TEST_F(RevocationFilterStoreTest, AnswersForCertificates) {
  RevocationFilterStore store;
  EXPECT_EQ(store.Check(leaf_, i2_).answer, Answer::kNotCovered);
  ASSERT_TRUE(store.SetFilter(Filter(1, true, absl::Now())).ok());
  auto r = store.Check(leaf_, i2_);
  EXPECT_EQ(r.answer, Answer::kRevoked);
  EXPECT_FALSE(r.from_stash);
  EXPECT_EQ(r.detail, "filter 1: revoked");
  EXPECT_EQ(store.Check(i2_, i1_).answer, Answer::kGood);
  // i1's issuer (the root) is not covered.
  auto root = X509ToDer(chain_.root.get());
  r = store.Check(i1_, root);
  EXPECT_EQ(r.answer, Answer::kNotCovered);
  EXPECT_NE(r.detail.find("issuer is not one of the filter's 2"),
            std::string::npos)
      << r.detail;
  // A leaf issued after the filter's coverage is not covered either.
  ASSERT_TRUE(store
                  .SetFilter(Filter(2, false,
                                    leaf_facts_.not_before - absl::Seconds(1)))
                  .ok());
  r = store.Check(leaf_, i2_);
  EXPECT_EQ(r.answer, Answer::kNotCovered);
  EXPECT_NE(r.detail.find("is after its coverage"), std::string::npos);
  ASSERT_TRUE(store.SetFilter(Filter(3, false, absl::Now())).ok());
  EXPECT_EQ(store.Check(leaf_, i2_).answer, Answer::kGood);
  // A stash revokes on top of it.
  auto stash = RevocationStash::Create({3, 1, absl::Now(), {leaf_facts_.key}});
  ASSERT_TRUE(store.AddStash(*stash).ok());
  r = store.Check(leaf_, i2_);
  EXPECT_EQ(r.answer, Answer::kRevoked);
  EXPECT_TRUE(r.from_stash);
  EXPECT_EQ(r.detail, "stash 1 of filter 3: revoked");
  EXPECT_EQ(store.Check("junk", i2_).answer, Answer::kNotCovered);
}

TEST_F(RevocationFilterStoreTest, FiltersMoveForwardStashesFollowTheirBase) {
  RevocationFilterStore store;
  auto lone = RevocationStash::Create({1, 1, absl::Now(), {}});
  EXPECT_TRUE(absl::IsFailedPrecondition(store.AddStash(*lone)));
  RevocationFilter two = Filter(2, false, absl::Now());
  ASSERT_TRUE(store.SetFilter(two).ok());
  EXPECT_TRUE(store.SetFilter(two).ok());  // the same again: nothing changes
  absl::Status older = store.SetFilter(Filter(1, false, absl::Now()));
  EXPECT_TRUE(absl::IsFailedPrecondition(older));
  EXPECT_NE(older.message().find("rollback"), std::string::npos);
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store.SetFilter(Filter(2, true, absl::Now()))));
  EXPECT_TRUE(absl::IsFailedPrecondition(store.AddStash(*lone)));  // base 1
  auto s1 = RevocationStash::Create({2, 1, absl::Now(), {leaf_facts_.key}});
  auto s1_other = RevocationStash::Create({2, 1, absl::Now(), {}});
  ASSERT_TRUE(store.AddStash(*s1).ok());
  EXPECT_TRUE(store.AddStash(*s1).ok());
  EXPECT_EQ(store.stashes().size(), 1u);
  EXPECT_TRUE(absl::IsFailedPrecondition(store.AddStash(*s1_other)));
  // A newer filter drops the old one's stashes.
  ASSERT_TRUE(store.SetFilter(Filter(3, false, absl::Now())).ok());
  EXPECT_TRUE(store.stashes().empty());
  EXPECT_EQ(store.Check(leaf_, i2_).answer, Answer::kGood);
}

// The stashes held are bounded in all (kMaxStashBytes); a newer filter drops
// them, and the bound with them.
TEST_F(RevocationFilterStoreTest, StashesAreBoundedInAllUntilANewerFilter) {
  // Well over half the bound: two cannot be held at once (a serial is
  // stored as a length byte and its 64 bytes under its issuer).
  std::vector<RevocationFilterKey> keys;
  const size_t n = RevocationFilterStore::kMaxStashBytes / 2 / 65 + 1000;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    keys.push_back(
        {leaf_facts_.key.issuer_spki_sha256, absl::StrFormat("%064d", i)});
  }
  auto big_stash = [&](uint64_t base, uint64_t number) {
    return *RevocationStash::Create({base, number, absl::Now(), keys});
  };
  RevocationFilterStore store;
  ASSERT_TRUE(store.SetFilter(Filter(1, false, absl::Now())).ok());
  RevocationStash first = big_stash(1, 1);
  ASSERT_GT(first.Serialize().size(),
            RevocationFilterStore::kMaxStashBytes / 2);
  ASSERT_TRUE(store.AddStash(first).ok());
  absl::Status full = store.AddStash(big_stash(1, 2));
  EXPECT_TRUE(absl::IsResourceExhausted(full)) << full;
  // A small one still fits beside the first.
  ASSERT_TRUE(
      store.AddStash(*RevocationStash::Create({1, 3, absl::Now(), {}})).ok());
  EXPECT_EQ(store.stashes().size(), 2u);
  ASSERT_TRUE(store.SetFilter(Filter(2, false, absl::Now())).ok());
  EXPECT_TRUE(store.AddStash(big_stash(2, 1)).ok());
}

TEST_F(RevocationFilterStoreTest, SavesLoadsAndNamesDamage) {
  const std::string dir = ::testing::TempDir();
  const std::string filter_path = dir + "/rf_store_filter";
  const std::string stash_path = dir + "/rf_store_stashes";
  std::remove(filter_path.c_str());
  std::remove(stash_path.c_str());
  auto empty = RevocationFilterStore::Load(filter_path, stash_path);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_filter());
  RevocationFilterStore store;
  ASSERT_TRUE(store.SetFilter(Filter(4, false, absl::Now())).ok());
  ASSERT_TRUE(store
                  .AddStash(*RevocationStash::Create(
                      {4, 1, absl::Now(), {leaf_facts_.key}}))
                  .ok());
  ASSERT_TRUE(store.Save(filter_path, stash_path).ok());
  auto loaded = RevocationFilterStore::Load(filter_path, stash_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->filter()->Serialize(), store.filter()->Serialize());
  ASSERT_EQ(loaded->stashes().size(), 1u);
  EXPECT_TRUE(loaded->Check(leaf_, i2_).from_stash);
  // Installing from files: the same filter again, then a damaged one.
  RevocationFilterStore fresh;
  ASSERT_TRUE(fresh.InstallFilterFile(filter_path).ok());
  ASSERT_TRUE(fresh.InstallStashFile(stash_path).ok());
  EXPECT_EQ(fresh.stashes().size(), 1u);
  std::string bytes = *ReadFileToString(filter_path);
  bytes[bytes.size() / 2] ^= 1;
  ASSERT_TRUE(WriteFileAtomically(filter_path, bytes).ok());
  RevocationFilterStore other;
  absl::Status damaged = other.InstallFilterFile(filter_path);
  EXPECT_EQ(GetRevocationFilterError(damaged), E::kChecksumMismatch) << damaged;
  EXPECT_NE(damaged.message().find(filter_path), std::string::npos);
  auto load_damaged = RevocationFilterStore::Load(filter_path, stash_path);
  EXPECT_TRUE(absl::IsDataLoss(load_damaged.status()));
  EXPECT_NE(load_damaged.status().message().find("is corrupt"),
            std::string::npos);
  EXPECT_TRUE(
      absl::IsNotFound(other.InstallFilterFile(dir + "/rf_no_such_file")));
  // /dev/zero is refused by its size, not read forever.
  absl::Status zero = other.InstallFilterFile("/dev/zero");
  EXPECT_TRUE(absl::IsResourceExhausted(zero)) << zero;
}

}  // namespace
}  // namespace net
