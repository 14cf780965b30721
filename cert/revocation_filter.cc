#include "cert/revocation_filter.h"

#include <openssl/bytestring.h>
#include <openssl/mem.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace net {
namespace {

constexpr char kErrorPayloadUrl[] = "type.netstack/revocation_filter_error";
constexpr size_t kHeaderBytes = 4 + 2 + 4;
// 9999-12-31T23:59:59Z: times past it are not read (and not written).
constexpr int64_t kMaxUnixSeconds = 253402300799;

absl::Status FilterError(RevocationFilterError error, absl::string_view what,
                         absl::string_view detail) {
  std::string message =
      absl::StrCat(RevocationFilterErrorName(error), ": ", what, ": ", detail);
  absl::Status status = error == RevocationFilterError::kTooLarge
                            ? absl::ResourceExhaustedError(message)
                            : absl::DataLossError(message);
  status.SetPayload(kErrorPayloadUrl,
                    absl::Cord(absl::StrCat(static_cast<int>(error))));
  return status;
}

absl::string_view View(const CBS& cbs) {
  return absl::string_view(reinterpret_cast<const char*>(CBS_data(&cbs)),
                           CBS_len(&cbs));
}

std::string Sha256(absl::string_view data) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(data.data()), data.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

bool SerialLess(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

bool TimeInRange(absl::Time t) {
  int64_t s = absl::ToUnixSeconds(t);
  return s >= 0 && s <= kMaxUnixSeconds;
}

absl::Time FloorToSecond(absl::Time t) {
  return absl::FromUnixSeconds(absl::ToUnixSeconds(t));
}

bool GetTime(CBS* cbs, absl::Time* out) {
  uint64_t v;
  if (!CBS_get_u64(cbs, &v)) return false;
  // Out of range reads as a time past kMaxUnixSeconds: Create refuses it.
  *out = absl::FromUnixSeconds(v > static_cast<uint64_t>(kMaxUnixSeconds)
                                   ? kMaxUnixSeconds + 1
                                   : static_cast<int64_t>(v));
  return true;
}

std::string Finish(CBB* cbb) {
  uint8_t* out = nullptr;
  size_t len = 0;
  if (!CBB_finish(cbb, &out, &len)) return "";
  std::string s(reinterpret_cast<char*>(out), len);
  OPENSSL_free(out);
  return s;
}

// Frame wraps |body| in the header and checksum.
std::string Frame(const char* magic, uint16_t version, absl::string_view body) {
  bssl::ScopedCBB cbb;
  if (!CBB_init(cbb.get(), kHeaderBytes + body.size() + 32) ||
      !CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(magic), 4) ||
      !CBB_add_u16(cbb.get(), version) ||
      !CBB_add_u32(cbb.get(), static_cast<uint32_t>(body.size())) ||
      !CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(body.data()),
                     body.size())) {
    return "";
  }
  std::string out = Finish(cbb.get());
  out += Sha256(out);
  return out;
}

// ReadFrame takes one frame (header, body, checksum) off |in| and returns its
// body. |other_magic| is the other kind's, for kWrongKind.
absl::StatusOr<CBS> ReadFrame(CBS* in, const char* magic,
                              const char* other_magic, uint16_t version,
                              absl::string_view what, bool whole_file) {
  using E = RevocationFilterError;
  absl::string_view all = View(*in);
  if (all.empty()) return FilterError(E::kTruncated, what, "empty");
  if (all.size() < 4) {
    if (absl::string_view(magic, all.size()) != all &&
        absl::string_view(other_magic, all.size()) != all)
      return FilterError(E::kBadMagic, what, "not a revocation filter file");
    return FilterError(E::kTruncated, what,
                       absl::StrCat("ends in its magic, at byte ", all.size()));
  }
  absl::string_view got = all.substr(0, 4);
  if (got == absl::string_view(other_magic, 4)) {
    return FilterError(
        E::kWrongKind, what,
        absl::StrCat("this is a ",
                     std::strcmp(other_magic, RevocationStash::kMagic) == 0
                         ? "stash"
                         : "filter",
                     " file"));
  }
  if (got != absl::string_view(magic, 4)) {
    return FilterError(E::kBadMagic, what,
                       absl::StrCat("magic \"", absl::CHexEscape(got),
                                    "\", want \"", magic, "\""));
  }
  CBS frame = *in;
  CBS skip;
  uint16_t got_version;
  uint32_t body_len;
  CBS_get_bytes(&frame, &skip, 4);
  if (!CBS_get_u16(&frame, &got_version))
    return FilterError(E::kTruncated, what, "ends in its header");
  if (got_version != version) {
    return FilterError(E::kUnsupportedVersion, what,
                       absl::StrCat("format version ", got_version,
                                    ", this code reads ", version));
  }
  if (!CBS_get_u32(&frame, &body_len))
    return FilterError(E::kTruncated, what, "ends in its header");
  // A file that is one frame must be exactly as long as its header says:
  // a damaged length is named as such, not as a checksum mismatch.
  if (whole_file && CBS_len(&frame) > uint64_t{body_len} + 32) {
    return FilterError(E::kTrailingData, what,
                       absl::StrCat(CBS_len(&frame) - body_len - 32,
                                    " bytes after the checksum"));
  }
  CBS body, checksum;
  if (!CBS_get_bytes(&frame, &body, body_len)) {
    return FilterError(E::kTruncated, what,
                       absl::StrCat("body of ", body_len, " bytes, ",
                                    CBS_len(&frame), " present"));
  }
  if (!CBS_get_bytes(&frame, &checksum, SHA256_DIGEST_LENGTH)) {
    return FilterError(
        E::kTruncated, what,
        absl::StrCat("checksum cut to ", CBS_len(&frame), " of 32 bytes"));
  }
  absl::string_view covered = all.substr(0, kHeaderBytes + body_len);
  if (Sha256(covered) != View(checksum)) {
    return FilterError(E::kChecksumMismatch, what,
                       "its SHA-256 does not match its contents (damaged)");
  }
  *in = frame;
  return body;
}

absl::Status CheckSize(absl::string_view bytes, size_t max_bytes,
                       absl::string_view what) {
  if (bytes.size() > max_bytes) {
    return FilterError(RevocationFilterError::kTooLarge, what,
                       absl::StrCat(bytes.size(), " bytes, more than the ",
                                    max_bytes, " allowed"));
  }
  return absl::OkStatus();
}

constexpr char kFilterWhat[] = "revocation filter";
constexpr char kStashWhat[] = "revocation stash";

// ParseAsn1Time reads a certificate's UTCTime (tag 0x17) or GeneralizedTime
// (0x18) without fractions, as RFC 5280 section 4.1.2.5 requires.
bool ParseAsn1Time(unsigned tag, absl::string_view text, absl::Time* out) {
  std::string full;
  if (tag == CBS_ASN1_UTCTIME) {
    if (text.size() != 13) return false;
    int yy;
    if (!absl::ascii_isdigit(text[0]) || !absl::ascii_isdigit(text[1]) ||
        !absl::SimpleAtoi(text.substr(0, 2), &yy))
      return false;
    full = absl::StrCat(yy >= 50 ? "19" : "20", text);
  } else if (tag == CBS_ASN1_GENERALIZEDTIME) {
    if (text.size() != 15) return false;
    full = std::string(text);
  } else {
    return false;
  }
  if (full.back() != 'Z') return false;
  int v[6];
  const int widths[6] = {4, 2, 2, 2, 2, 2};
  size_t pos = 0;
  for (int i = 0; i < 6; ++i) {
    absl::string_view part = absl::string_view(full).substr(pos, widths[i]);
    for (char c : part) {
      if (!absl::ascii_isdigit(c)) return false;
    }
    if (!absl::SimpleAtoi(part, &v[i])) return false;
    pos += widths[i];
  }
  if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 ||
      v[4] > 59 || v[5] > 59)
    return false;
  absl::CivilSecond civil(v[0], v[1], v[2], v[3], v[4], v[5]);
  if (civil.day() != v[2]) return false;  // e.g. February 30
  *out = absl::FromCivil(civil, absl::UTCTimeZone());
  return true;
}

// The TBSCertificate fields a filter uses.
struct TbsParts {
  CBS serial;
  unsigned not_before_tag = 0;
  CBS not_before;
  CBS spki;  // the whole SubjectPublicKeyInfo element
};

bool ParseTbs(absl::string_view der, TbsParts* parts) {
  CBS cbs, cert, tbs, validity;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(der.data()), der.size());
  if (!CBS_get_asn1(&cbs, &cert, CBS_ASN1_SEQUENCE) || CBS_len(&cbs) != 0 ||
      !CBS_get_asn1(&cert, &tbs, CBS_ASN1_SEQUENCE) ||
      !CBS_get_optional_asn1(
          &tbs, nullptr, nullptr,
          CBS_ASN1_CONSTRUCTED | CBS_ASN1_CONTEXT_SPECIFIC | 0) ||
      !CBS_get_asn1(&tbs, &parts->serial, CBS_ASN1_INTEGER) ||
      !CBS_get_asn1(&tbs, nullptr, CBS_ASN1_SEQUENCE) ||  // signature
      !CBS_get_asn1(&tbs, nullptr, CBS_ASN1_SEQUENCE) ||  // issuer
      !CBS_get_asn1(&tbs, &validity, CBS_ASN1_SEQUENCE) ||
      !CBS_get_any_asn1(&validity, &parts->not_before,
                        &parts->not_before_tag) ||
      !CBS_get_asn1(&tbs, nullptr, CBS_ASN1_SEQUENCE) ||  // subject
      !CBS_get_asn1_element(&tbs, &parts->spki, CBS_ASN1_SEQUENCE)) {
    return false;
  }
  return true;
}

}  // namespace

bool RevocationFilterKey::operator<(const RevocationFilterKey& o) const {
  if (issuer_spki_sha256 != o.issuer_spki_sha256)
    return issuer_spki_sha256 < o.issuer_spki_sha256;
  return SerialLess(serial, o.serial);
}

std::string RevocationFilterKey::ToString() const {
  return absl::StrCat(absl::BytesToHexString(issuer_spki_sha256), " ",
                      absl::BytesToHexString(serial));
}

absl::StatusOr<std::string> SpkiSha256OfCertificate(
    absl::string_view cert_der) {
  TbsParts parts;
  if (!ParseTbs(cert_der, &parts))
    return absl::InvalidArgumentError("the certificate does not parse");
  return Sha256(View(parts.spki));
}

absl::StatusOr<CertificateFilterFacts> GetCertificateFilterFacts(
    absl::string_view cert_der, absl::string_view issuer_der) {
  TbsParts cert, issuer;
  if (!ParseTbs(cert_der, &cert))
    return absl::InvalidArgumentError("the certificate does not parse");
  if (!ParseTbs(issuer_der, &issuer))
    return absl::InvalidArgumentError("its issuer does not parse");
  CertificateFilterFacts facts;
  facts.key.issuer_spki_sha256 = Sha256(View(issuer.spki));
  facts.key.serial = std::string(View(cert.serial));
  if (facts.key.serial.empty() || facts.key.serial.size() > kMaxSerialBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("serial number of ", facts.key.serial.size(), " bytes"));
  }
  if (!ParseAsn1Time(cert.not_before_tag, View(cert.not_before),
                     &facts.not_before)) {
    return absl::InvalidArgumentError("malformed notBefore");
  }
  return facts;
}

const char* RevocationFilterErrorName(RevocationFilterError error) {
  using E = RevocationFilterError;
  switch (error) {
    case E::kTooLarge:
      return "too_large";
    case E::kTruncated:
      return "truncated";
    case E::kBadMagic:
      return "bad_magic";
    case E::kWrongKind:
      return "wrong_kind";
    case E::kUnsupportedVersion:
      return "unsupported_version";
    case E::kTrailingData:
      return "trailing_data";
    case E::kChecksumMismatch:
      return "checksum_mismatch";
    case E::kUnknownHashAlgorithm:
      return "unknown_hash_algorithm";
    case E::kBadSalt:
      return "bad_salt";
    case E::kBadFlags:
      return "bad_flags";
    case E::kBadSequence:
      return "bad_sequence";
    case E::kBadTimes:
      return "bad_times";
    case E::kNoIssuers:
      return "no_issuers";
    case E::kIssuersNotCanonical:
      return "issuers_not_canonical";
    case E::kNoLevels:
      return "no_levels";
    case E::kTooManyLevels:
      return "too_many_levels";
    case E::kBadHashCount:
      return "bad_hash_count";
    case E::kBadLevelSize:
      return "bad_level_size";
    case E::kNonzeroPadding:
      return "nonzero_padding";
    case E::kBadSerial:
      return "bad_serial";
    case E::kEmptyIssuerEntry:
      return "empty_issuer_entry";
    case E::kEntriesNotCanonical:
      return "entries_not_canonical";
  }
  return "unknown";
}

std::optional<RevocationFilterError> GetRevocationFilterError(
    const absl::Status& status) {
  auto payload = status.GetPayload(kErrorPayloadUrl);
  int value;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &value) ||
      value < 0 ||
      value > static_cast<int>(RevocationFilterError::kEntriesNotCanonical))
    return std::nullopt;
  return static_cast<RevocationFilterError>(value);
}

// --- hashing

void LevelBitIndexes(absl::string_view salt, size_t level,
                     const RevocationFilterKey& key, uint8_t hash_count,
                     uint32_t bit_count, std::vector<uint32_t>* out) {
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, salt.data(), salt.size());
  const uint8_t level_byte = static_cast<uint8_t>(level);
  SHA256_Update(&ctx, &level_byte, 1);
  SHA256_Update(&ctx, key.issuer_spki_sha256.data(),
                key.issuer_spki_sha256.size());
  const uint8_t serial_len = static_cast<uint8_t>(key.serial.size());
  SHA256_Update(&ctx, &serial_len, 1);
  SHA256_Update(&ctx, key.serial.data(), key.serial.size());
  uint8_t d[SHA256_DIGEST_LENGTH];
  SHA256_Final(d, &ctx);
  uint64_t h1 = 0, h2 = 0;
  for (int i = 0; i < 8; ++i) {
    h1 = (h1 << 8) | d[i];
    h2 = (h2 << 8) | d[8 + i];
  }
  h2 |= 1;
  out->clear();
  for (uint8_t i = 0; i < hash_count; ++i)
    out->push_back(static_cast<uint32_t>((h1 + i * h2) % bit_count));
}

// --- RevocationFilter

absl::StatusOr<RevocationFilter> RevocationFilter::Create(Contents c) {
  using E = RevocationFilterError;
  const absl::string_view what = kFilterWhat;
  if (c.sequence == 0) return FilterError(E::kBadSequence, what, "sequence 0");
  c.created = FloorToSecond(c.created);
  c.coverage = FloorToSecond(c.coverage);
  if (!TimeInRange(c.created) || !TimeInRange(c.coverage))
    return FilterError(E::kBadTimes, what, "a time outside 1970..9999");
  if (c.coverage > c.created) {
    return FilterError(
        E::kBadTimes, what,
        absl::StrCat("coverage ", absl::FormatTime(c.coverage),
                     " is after creation ", absl::FormatTime(c.created)));
  }
  if (c.salt.size() < kMinSaltBytes || c.salt.size() > kMaxSaltBytes) {
    return FilterError(E::kBadSalt, what,
                       absl::StrCat("salt of ", c.salt.size(), " bytes, want ",
                                    kMinSaltBytes, "..", kMaxSaltBytes));
  }
  if (c.issuers.empty()) return FilterError(E::kNoIssuers, what, "none");
  if (c.issuers.size() > 0xffff)
    return FilterError(E::kIssuersNotCanonical, what, "more than 65535");
  for (size_t i = 0; i < c.issuers.size(); ++i) {
    const Issuer& issuer = c.issuers[i];
    if (issuer.spki_sha256.size() != kSpkiSha256Bytes ||
        issuer.label.size() > 255) {
      return FilterError(
          E::kIssuersNotCanonical, what,
          absl::StrCat("issuer ", i + 1, ": hash or label of a bad length"));
    }
    if (i > 0 && !(c.issuers[i - 1].spki_sha256 < issuer.spki_sha256)) {
      return FilterError(
          E::kIssuersNotCanonical, what,
          absl::StrCat("issuer ", i + 1, " is out of order or repeated"));
    }
  }
  if (c.levels.empty()) return FilterError(E::kNoLevels, what, "none");
  if (c.levels.size() > kMaxLevels) {
    return FilterError(
        E::kTooManyLevels, what,
        absl::StrCat(c.levels.size(), " levels, at most ", kMaxLevels));
  }
  for (size_t i = 0; i < c.levels.size(); ++i) {
    const Level& level = c.levels[i];
    if (level.hash_count < 1 || level.hash_count > kMaxHashCount) {
      return FilterError(
          E::kBadHashCount, what,
          absl::StrCat("level ", i + 1, " has k = ", level.hash_count));
    }
    if (level.bit_count == 0 ||
        level.bits.size() != (uint64_t{level.bit_count} + 7) / 8) {
      return FilterError(
          E::kBadLevelSize, what,
          absl::StrCat("level ", i + 1, ": ", level.bit_count, " bits in ",
                       level.bits.size(), " bytes"));
    }
    const unsigned used = level.bit_count % 8;
    if (used != 0 && (static_cast<uint8_t>(level.bits.back()) >> used) != 0) {
      return FilterError(
          E::kNonzeroPadding, what,
          absl::StrCat("level ", i + 1, ": bits set past its end"));
    }
  }
  return RevocationFilter(std::move(c));
}

std::string RevocationFilter::Serialize() const {
  bssl::ScopedCBB cbb;
  CBB salt, label;
  size_t size = 128;
  for (const Level& level : c_.levels) size += 8 + level.bits.size();
  bool ok =
      CBB_init(cbb.get(), size + 40 * c_.issuers.size()) &&
      CBB_add_u64(cbb.get(), c_.sequence) &&
      CBB_add_u64(cbb.get(), absl::ToUnixSeconds(c_.created)) &&
      CBB_add_u64(cbb.get(), absl::ToUnixSeconds(c_.coverage)) &&
      CBB_add_u8(cbb.get(), kHashSha256) &&
      CBB_add_u8_length_prefixed(cbb.get(), &salt) &&
      CBB_add_bytes(&salt, reinterpret_cast<const uint8_t*>(c_.salt.data()),
                    c_.salt.size()) &&
      CBB_add_u8(cbb.get(), c_.inverted ? 1 : 0) &&
      CBB_add_u16(cbb.get(), static_cast<uint16_t>(c_.issuers.size()));
  for (const Issuer& issuer : c_.issuers) {
    ok = ok &&
         CBB_add_bytes(
             cbb.get(),
             reinterpret_cast<const uint8_t*>(issuer.spki_sha256.data()),
             issuer.spki_sha256.size()) &&
         CBB_add_u8_length_prefixed(cbb.get(), &label) &&
         CBB_add_bytes(&label,
                       reinterpret_cast<const uint8_t*>(issuer.label.data()),
                       issuer.label.size());
  }
  ok = ok && CBB_add_u8(cbb.get(), static_cast<uint8_t>(c_.levels.size()));
  for (const Level& level : c_.levels) {
    ok = ok && CBB_add_u8(cbb.get(), level.hash_count) &&
         CBB_add_u32(cbb.get(), level.bit_count) &&
         CBB_add_bytes(cbb.get(),
                       reinterpret_cast<const uint8_t*>(level.bits.data()),
                       level.bits.size());
  }
  if (!ok) return "";
  return Frame(kMagic, kFormatVersion, Finish(cbb.get()));
}

absl::StatusOr<RevocationFilter> RevocationFilter::Parse(
    absl::string_view bytes, size_t max_bytes) {
  using E = RevocationFilterError;
  const absl::string_view what = kFilterWhat;
  absl::Status size = CheckSize(bytes, max_bytes, what);
  if (!size.ok()) return size;
  CBS in;
  CBS_init(&in, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  absl::StatusOr<CBS> frame =
      ReadFrame(&in, kMagic, RevocationStash::kMagic, kFormatVersion, what,
                /*whole_file=*/true);
  if (!frame.ok()) return frame.status();
  if (CBS_len(&in) != 0) {
    return FilterError(E::kTrailingData, what,
                       absl::StrCat(CBS_len(&in), " bytes after the checksum"));
  }
  CBS body = *frame;
  Contents c;
  uint8_t hash, flags, level_count;
  uint16_t issuer_count;
  CBS salt;
  auto cut = [&](absl::string_view where) {
    return FilterError(E::kTruncated, what,
                       absl::StrCat("its body ends in ", where));
  };
  if (!CBS_get_u64(&body, &c.sequence) || !GetTime(&body, &c.created) ||
      !GetTime(&body, &c.coverage) || !CBS_get_u8(&body, &hash))
    return cut("its header fields");
  if (hash != kHashSha256) {
    return FilterError(E::kUnknownHashAlgorithm, what,
                       absl::StrCat("hash algorithm ", hash));
  }
  if (!CBS_get_u8_length_prefixed(&body, &salt)) return cut("its salt");
  c.salt = std::string(View(salt));
  if (!CBS_get_u8(&body, &flags)) return cut("its flags");
  if (flags > 1)
    return FilterError(E::kBadFlags, what, absl::StrCat("flags ", flags));
  c.inverted = flags & 1;
  if (!CBS_get_u16(&body, &issuer_count)) return cut("its issuer count");
  for (uint16_t i = 0; i < issuer_count; ++i) {
    CBS hash_bytes, label;
    if (!CBS_get_bytes(&body, &hash_bytes, kSpkiSha256Bytes) ||
        !CBS_get_u8_length_prefixed(&body, &label))
      return cut(absl::StrCat("issuer ", i + 1));
    c.issuers.push_back(
        {std::string(View(hash_bytes)), std::string(View(label))});
  }
  if (!CBS_get_u8(&body, &level_count)) return cut("its level count");
  for (uint8_t i = 0; i < level_count; ++i) {
    Level level;
    CBS bits;
    if (!CBS_get_u8(&body, &level.hash_count) ||
        !CBS_get_u32(&body, &level.bit_count) ||
        !CBS_get_bytes(&body, &bits, (uint64_t{level.bit_count} + 7) / 8))
      return cut(absl::StrCat("level ", i + 1));
    level.bits = std::string(View(bits));
    c.levels.push_back(std::move(level));
  }
  if (CBS_len(&body) != 0) {
    return FilterError(
        E::kTrailingData, what,
        absl::StrCat(CBS_len(&body), " bytes after the last level"));
  }
  return Create(std::move(c));
}

const char* RevocationFilter::AnswerToString(Answer answer) {
  switch (answer) {
    case Answer::kNotCovered:
      return "not_covered";
    case Answer::kGood:
      return "good";
    case Answer::kRevoked:
      return "revoked";
  }
  return "?";
}

bool RevocationFilter::CoversIssuer(absl::string_view spki_sha256) const {
  auto it = std::lower_bound(
      c_.issuers.begin(), c_.issuers.end(), spki_sha256,
      [](const Issuer& a, absl::string_view b) { return a.spki_sha256 < b; });
  return it != c_.issuers.end() && it->spki_sha256 == spki_sha256;
}

RevocationFilter::Answer RevocationFilter::Check(const RevocationFilterKey& key,
                                                 absl::Time not_before) const {
  if (!CoversIssuer(key.issuer_spki_sha256) || not_before > c_.coverage)
    return Answer::kNotCovered;
  return CascadeSaysRevoked(key) ? Answer::kRevoked : Answer::kGood;
}

bool RevocationFilter::LevelContains(size_t level,
                                     const RevocationFilterKey& key) const {
  const Level& l = c_.levels[level - 1];
  std::vector<uint32_t> bits;
  LevelBitIndexes(c_.salt, level, key, l.hash_count, l.bit_count, &bits);
  for (uint32_t bit : bits) {
    if (((static_cast<uint8_t>(l.bits[bit / 8]) >> (bit % 8)) & 1) == 0)
      return false;
  }
  return true;
}

bool RevocationFilter::CascadeSaysRevoked(const RevocationFilterKey& key,
                                          size_t* level) const {
  // Level 1 holds all of the first set A (R, or S when inverted) and some
  // false positives from the other, B; level i + 1 holds the members of
  // level i's set's complement that passed level i. A key missing from level
  // i is therefore not in level i's set: in B for odd i, in A for even i. A
  // key in every level is in the last level's set (it had no false
  // positives).
  const size_t n = c_.levels.size();
  bool in_first = n % 2 == 1;
  size_t decided = n + 1;
  for (size_t i = 1; i <= n; ++i) {
    if (!LevelContains(i, key)) {
      in_first = i % 2 == 0;
      decided = i;
      break;
    }
  }
  if (level) *level = decided;
  return c_.inverted ? !in_first : in_first;
}

// --- RevocationStash

RevocationStash::RevocationStash(Contents contents) : c_(std::move(contents)) {
  set_.reserve(c_.revoked.size());
  for (const RevocationFilterKey& key : c_.revoked) set_.insert(key);
}

absl::StatusOr<RevocationStash> RevocationStash::Create(Contents c) {
  using E = RevocationFilterError;
  const absl::string_view what = kStashWhat;
  if (c.base_sequence == 0 || c.number == 0) {
    return FilterError(E::kBadSequence, what,
                       "base sequence and stash number start at 1");
  }
  c.created = FloorToSecond(c.created);
  if (!TimeInRange(c.created))
    return FilterError(E::kBadTimes, what, "a time outside 1970..9999");
  std::sort(c.revoked.begin(), c.revoked.end());
  c.revoked.erase(std::unique(c.revoked.begin(), c.revoked.end()),
                  c.revoked.end());
  size_t issuers = 0;
  for (size_t i = 0; i < c.revoked.size(); ++i) {
    const RevocationFilterKey& key = c.revoked[i];
    if (key.issuer_spki_sha256.size() != kSpkiSha256Bytes)
      return FilterError(E::kEntriesNotCanonical, what, "an issuer hash size");
    if (key.serial.empty() || key.serial.size() > kMaxSerialBytes) {
      return FilterError(
          E::kBadSerial, what,
          absl::StrCat("a serial of ", key.serial.size(), " bytes"));
    }
    if (i == 0 || c.revoked[i - 1].issuer_spki_sha256 != key.issuer_spki_sha256)
      ++issuers;
  }
  if (issuers > 0xffff)
    return FilterError(E::kEntriesNotCanonical, what,
                       "more than 65535 issuers");
  return RevocationStash(std::move(c));
}

std::string RevocationStash::Serialize() const {
  bssl::ScopedCBB cbb;
  std::vector<std::pair<size_t, size_t>> groups;  // [begin, end) per issuer
  for (size_t i = 0; i < c_.revoked.size(); ++i) {
    if (i == 0 || c_.revoked[i - 1].issuer_spki_sha256 !=
                      c_.revoked[i].issuer_spki_sha256)
      groups.push_back({i, i});
    groups.back().second = i + 1;
  }
  bool ok = CBB_init(cbb.get(), 64 + 24 * c_.revoked.size()) &&
            CBB_add_u64(cbb.get(), c_.base_sequence) &&
            CBB_add_u32(cbb.get(), c_.number) &&
            CBB_add_u64(cbb.get(), absl::ToUnixSeconds(c_.created)) &&
            CBB_add_u16(cbb.get(), static_cast<uint16_t>(groups.size()));
  for (const auto& [begin, end] : groups) {
    const std::string& issuer = c_.revoked[begin].issuer_spki_sha256;
    ok = ok &&
         CBB_add_bytes(cbb.get(),
                       reinterpret_cast<const uint8_t*>(issuer.data()),
                       issuer.size()) &&
         CBB_add_u32(cbb.get(), static_cast<uint32_t>(end - begin));
    for (size_t i = begin; i < end && ok; ++i) {
      CBB serial;
      const std::string& s = c_.revoked[i].serial;
      ok = CBB_add_u8_length_prefixed(cbb.get(), &serial) &&
           CBB_add_bytes(&serial, reinterpret_cast<const uint8_t*>(s.data()),
                         s.size());
    }
  }
  if (!ok) return "";
  return Frame(kMagic, kFormatVersion, Finish(cbb.get()));
}

namespace {

absl::StatusOr<RevocationStash> ParseStashBody(CBS body) {
  using E = RevocationFilterError;
  const absl::string_view what = kStashWhat;
  RevocationStash::Contents c;
  uint16_t issuer_count;
  auto cut = [&](absl::string_view where) {
    return FilterError(E::kTruncated, what,
                       absl::StrCat("its body ends in ", where));
  };
  if (!CBS_get_u64(&body, &c.base_sequence) || !CBS_get_u32(&body, &c.number) ||
      !GetTime(&body, &c.created) || !CBS_get_u16(&body, &issuer_count))
    return cut("its header fields");
  std::string previous_issuer;
  for (uint16_t i = 0; i < issuer_count; ++i) {
    CBS issuer;
    uint32_t serial_count;
    if (!CBS_get_bytes(&body, &issuer, kSpkiSha256Bytes) ||
        !CBS_get_u32(&body, &serial_count))
      return cut(absl::StrCat("issuer ", i + 1));
    std::string issuer_hash(View(issuer));
    if (i > 0 && !(previous_issuer < issuer_hash)) {
      return FilterError(
          E::kEntriesNotCanonical, what,
          absl::StrCat("issuer ", i + 1, " is out of order or repeated"));
    }
    previous_issuer = issuer_hash;
    if (serial_count == 0) {
      return FilterError(E::kEmptyIssuerEntry, what,
                         absl::StrCat("issuer ", i + 1, " lists no serial"));
    }
    // Each serial takes at least a byte: a count beyond what is left is a
    // cut body, found before anything is read for it.
    if (serial_count > CBS_len(&body))
      return cut(absl::StrCat("issuer ", i + 1, "'s serials"));
    std::string previous_serial;
    for (uint32_t j = 0; j < serial_count; ++j) {
      CBS serial;
      if (!CBS_get_u8_length_prefixed(&body, &serial))
        return cut(absl::StrCat("issuer ", i + 1, "'s serials"));
      std::string s(View(serial));
      if (s.empty() || s.size() > kMaxSerialBytes) {
        return FilterError(E::kBadSerial, what,
                           absl::StrCat("a serial of ", s.size(), " bytes"));
      }
      if (j > 0 && !SerialLess(previous_serial, s)) {
        return FilterError(E::kEntriesNotCanonical, what,
                           absl::StrCat("issuer ", i + 1, ": serial ", j + 1,
                                        " is out of order or repeated"));
      }
      previous_serial = s;
      c.revoked.push_back({issuer_hash, std::move(s)});
    }
  }
  if (CBS_len(&body) != 0) {
    return FilterError(
        E::kTrailingData, what,
        absl::StrCat(CBS_len(&body), " bytes after the last serial"));
  }
  return RevocationStash::Create(std::move(c));
}

}  // namespace

absl::StatusOr<RevocationStash> RevocationStash::Parse(absl::string_view bytes,
                                                       size_t max_bytes) {
  absl::Status size = CheckSize(bytes, max_bytes, kStashWhat);
  if (!size.ok()) return size;
  CBS in;
  CBS_init(&in, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  absl::StatusOr<CBS> body = ReadFrame(&in, kMagic, RevocationFilter::kMagic,
                                       kFormatVersion, kStashWhat,
                                       /*whole_file=*/true);
  if (!body.ok()) return body.status();
  if (CBS_len(&in) != 0) {
    return FilterError(RevocationFilterError::kTrailingData, kStashWhat,
                       absl::StrCat(CBS_len(&in), " bytes after the checksum"));
  }
  return ParseStashBody(*body);
}

absl::StatusOr<std::vector<RevocationStash>> RevocationStash::ParseAll(
    absl::string_view bytes, size_t max_bytes) {
  absl::Status size = CheckSize(bytes, max_bytes, kStashWhat);
  if (!size.ok()) return size;
  CBS in;
  CBS_init(&in, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::vector<RevocationStash> stashes;
  while (CBS_len(&in) > 0) {
    absl::StatusOr<CBS> body = ReadFrame(&in, kMagic, RevocationFilter::kMagic,
                                         kFormatVersion, kStashWhat,
                                         /*whole_file=*/false);
    if (!body.ok()) return body.status();
    absl::StatusOr<RevocationStash> stash = ParseStashBody(*body);
    if (!stash.ok()) return stash.status();
    stashes.push_back(*std::move(stash));
  }
  return stashes;
}

}  // namespace net
