// RevocationFilter: CRLite's filter cascade (Larisch, Choffnes, Levin, Maggs,
// Mislove, Wilson, "CRLite: A Scalable System for Pushing All TLS Revocations
// to All Browsers", IEEE S&P 2017, section IV) as a client holds it: parsed
// from its file, asked whether a certificate is revoked. RevocationStash is a
// list of revocations published after a filter (Mozilla's "stash"), applied
// on top of it. Building a cascade is cert/revocation_filter_builder.h; the
// per-profile holder of a filter and its stashes is
// cert/revocation_filter_store.h.
//
// A cascade answers exactly for every certificate it was built from — the
// revoked set R and the valid set S of the issuers it covers — and arbitrarily
// for anything else, so a certificate is asked only when it is covered: its
// issuer is one of the filter's and its notBefore is no later than the
// filter's coverage time. Everything else is "not covered" and goes to
// OCSP/CRL.
//
// Keys: SHA-256 of the issuer's SubjectPublicKeyInfo (DER) and the serial
// number's DER INTEGER content octets, as Mozilla's CRLite keys by issuer SPKI
// hash and serial.
//
// Hashing: level L (1-based) of a cascade with salt s maps a key to the bits
//   d = SHA-256(s || uint8 L || issuer_spki_sha256 || uint8 len || serial)
//   h1 = d[0..8) big-endian, h2 = d[8..16) big-endian | 1
//   bit_i = (h1 + i * h2) mod m,   i = 0 .. k-1
// (Kirsch-Mitzenmacher double hashing: one digest per key and level, any k).
// SHA-256 rather than MurmurHash3: it is in BoringSSL already, a random salt
// per filter keeps a CA that picks serials from steering keys into the same
// bits (MurmurHash3 is seeded, not keyed, and its collisions can be computed),
// and it costs about a microsecond per key and level, which is build time, not
// lookup time, that matters (tools/experiments revocation_filter_size). Bit j
// of a level is bit (j mod 8), least significant first, of byte j / 8.
//
// The file (all integers big-endian; "filter" and "stash" differ in magic):
//   magic "NSRF" (filter) | "NSRS" (stash)   4 bytes
//   format version (1)                        uint16
//   body length B                             uint32
//   body                                      B bytes
//   SHA-256 of everything above               32 bytes
// A filter's body:
//   sequence (the filter's version N, >= 1)   uint64
//   created, coverage (Unix seconds)          uint64, uint64
//   hash algorithm (1: SHA-256 as above)      uint8
//   salt                                      uint8 length (8..64) + bytes
//   flags (bit 0: inverted: level 1 holds S)  uint8
//   issuers                                   uint16 count (>= 1), each
//                                             32-byte SPKI SHA-256 + uint8
//                                             length + label; strictly
//                                             increasing by hash
//   levels                                    uint8 count (1..kMaxLevels),
//                                             each uint8 k (1..32), uint32
//                                             bit count m (>= 1), then
//                                             ceil(m / 8) bytes whose unused
//                                             high bits are zero
// A stash's body:
//   base sequence (the filter it applies to)  uint64
//   stash number (1, 2, ... after the base)   uint32
//   created (Unix seconds)                    uint64
//   issuers                                   uint16 count, each 32-byte SPKI
//                                             SHA-256, uint32 serial count
//                                             (>= 1), serials as uint8
//                                             length (1..kMaxSerialBytes) +
//                                             bytes; issuers strictly
//                                             increasing, serials strictly
//                                             increasing by (length, bytes)
// Every field has one encoding, so Serialize(Parse(bytes)) == bytes. The
// checksum guards against damage, not forgery: a filter is as trustworthy as
// the channel it came by (Mozilla ships CRLite through signed Remote
// Settings).
//
// Values; no threads of their own.

#ifndef CERT_REVOCATION_FILTER_H_
#define CERT_REVOCATION_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

// RevocationFilterKey is what a filter answers for (see above).
struct RevocationFilterKey {
  std::string issuer_spki_sha256;  // 32 bytes
  std::string serial;              // 1..kMaxSerialBytes content octets

  bool operator==(const RevocationFilterKey& o) const {
    return issuer_spki_sha256 == o.issuer_spki_sha256 && serial == o.serial;
  }
  bool operator!=(const RevocationFilterKey& o) const { return !(*this == o); }
  // The canonical order: by issuer, then serial by (length, bytes), which for
  // DER INTEGERs of positive serials is numeric order.
  bool operator<(const RevocationFilterKey& o) const;
  template <typename H>
  friend H AbslHashValue(H h, const RevocationFilterKey& k) {
    return H::combine(std::move(h), k.issuer_spki_sha256, k.serial);
  }
  // "<issuer hex> <serial hex>", the tools' list format.
  std::string ToString() const;
};

constexpr size_t kSpkiSha256Bytes = 32;
// RFC 5280 allows 20 octets; some CAs exceed it by a little.
constexpr size_t kMaxSerialBytes = 64;

// CertificateFilterFacts: what a filter needs of a certificate.
struct CertificateFilterFacts {
  RevocationFilterKey key;
  absl::Time not_before;
};

// SpkiSha256OfCertificate is the SHA-256 of the SubjectPublicKeyInfo of DER
// certificate |cert_der|; InvalidArgument if it does not parse.
[[nodiscard]] absl::StatusOr<std::string> SpkiSha256OfCertificate(
    absl::string_view cert_der);

// GetCertificateFilterFacts reads |cert_der|'s serial and notBefore (CBS) and
// |issuer_der|'s SPKI hash. It does not check that one issued the other (the
// verifier did). InvalidArgument if either does not parse.
[[nodiscard]] absl::StatusOr<CertificateFilterFacts> GetCertificateFilterFacts(
    absl::string_view cert_der, absl::string_view issuer_der);

// The named ways a filter or stash file can be wrong. Parse errors carry one
// (GetRevocationFilterError); their messages start with its name.
enum class RevocationFilterError {
  kTooLarge,            // bigger than the caller's bound
  kTruncated,           // ends before its header, body or checksum does
  kBadMagic,            // not a filter or stash file at all
  kWrongKind,           // a stash where a filter was wanted, or the reverse
  kUnsupportedVersion,  // a format version this code does not read
  kTrailingData,        // bytes after the checksum, or inside the body
  kChecksumMismatch,    // the SHA-256 does not match: damaged
  kUnknownHashAlgorithm,
  kBadSalt,      // salt length outside 8..64
  kBadFlags,     // flag bits this version does not define
  kBadSequence,  // filter sequence 0, or stash number 0
  kBadTimes,     // coverage after creation
  kNoIssuers,
  kIssuersNotCanonical,  // issuers unsorted or repeated
  kNoLevels,
  kTooManyLevels,
  kBadHashCount,         // k outside 1..32
  kBadLevelSize,         // bit count 0
  kNonzeroPadding,       // unused bits of a level's last byte set
  kBadSerial,            // serial length outside 1..kMaxSerialBytes
  kEmptyIssuerEntry,     // a stash issuer with no serials
  kEntriesNotCanonical,  // stash issuers or serials unsorted or repeated
};
const char* RevocationFilterErrorName(RevocationFilterError error);
// The error a failed Parse named, if |status| is one.
std::optional<RevocationFilterError> GetRevocationFilterError(
    const absl::Status& status);

class RevocationFilter {
 public:
  static constexpr char kMagic[] = "NSRF";
  static constexpr uint16_t kFormatVersion = 1;
  static constexpr uint8_t kHashSha256 = 1;
  static constexpr size_t kMaxLevels = 64;
  static constexpr size_t kMinSaltBytes = 8;
  static constexpr size_t kMaxSaltBytes = 64;
  static constexpr uint8_t kMaxHashCount = 32;
  // What Parse accepts unless told otherwise; the whole Web PKI's CRLite
  // filter was 1-10 MB.
  static constexpr size_t kDefaultMaxBytes = 64 << 20;

  struct Issuer {
    std::string spki_sha256;  // 32 bytes
    std::string label;        // for people (the CA's name), <= 255 bytes
  };
  struct Level {
    uint8_t hash_count = 1;  // k
    uint32_t bit_count = 0;  // m
    std::string bits;        // ceil(m / 8) bytes
  };
  // Contents is every field of a filter, as Create checks and Serialize
  // writes them.
  struct Contents {
    uint64_t sequence = 1;
    absl::Time created;
    // Certificates with notBefore <= coverage are covered.
    absl::Time coverage;
    std::string salt;
    // Level 1 holds the valid set (built so when |R| > |S|).
    bool inverted = false;
    std::vector<Issuer> issuers;  // strictly increasing by spki_sha256
    std::vector<Level> levels;
  };

  // Create checks |contents| as Parse checks a file (the same named errors)
  // and returns the filter.
  [[nodiscard]] static absl::StatusOr<RevocationFilter> Create(
      Contents contents);
  // Parse reads a filter file: DataLoss with a named error
  // (GetRevocationFilterError) on anything malformed; ResourceExhausted
  // (kTooLarge) if it is longer than |max_bytes|.
  [[nodiscard]] static absl::StatusOr<RevocationFilter> Parse(
      absl::string_view bytes, size_t max_bytes = kDefaultMaxBytes);
  std::string Serialize() const;

  enum class Answer { kNotCovered, kGood, kRevoked };
  static const char* AnswerToString(Answer answer);
  // Check: kNotCovered unless |key|'s issuer is the filter's and
  // |not_before| <= coverage; otherwise the cascade's answer.
  Answer Check(const RevocationFilterKey& key, absl::Time not_before) const;
  bool CoversIssuer(absl::string_view spki_sha256) const;
  // CascadeSaysRevoked is the cascade alone, for any key: exact for the keys
  // it was built from, a coin weighted by the levels' false-positive rates
  // for any other (the reason Check looks at coverage first). |level|, if
  // given, is the level that decided (levels().size() + 1: all of them
  // matched).
  bool CascadeSaysRevoked(const RevocationFilterKey& key,
                          size_t* level = nullptr) const;
  // LevelContains: whether level |level| (1-based) has every bit of |key|.
  bool LevelContains(size_t level, const RevocationFilterKey& key) const;

  const Contents& contents() const { return c_; }
  uint64_t sequence() const { return c_.sequence; }
  absl::Time created() const { return c_.created; }
  absl::Time coverage() const { return c_.coverage; }
  const std::vector<Issuer>& issuers() const { return c_.issuers; }
  const std::vector<Level>& levels() const { return c_.levels; }

 private:
  explicit RevocationFilter(Contents contents) : c_(std::move(contents)) {}
  Contents c_;
};

// LevelBitIndexes: the k bit positions of |key| in a level of |bit_count|
// bits (the hashing described above). For the builder and the tests.
void LevelBitIndexes(absl::string_view salt, size_t level,
                     const RevocationFilterKey& key, uint8_t hash_count,
                     uint32_t bit_count, std::vector<uint32_t>* out);

class RevocationStash {
 public:
  static constexpr char kMagic[] = "NSRS";
  static constexpr uint16_t kFormatVersion = 1;
  static constexpr size_t kDefaultMaxBytes = 16 << 20;

  struct Contents {
    uint64_t base_sequence = 1;
    uint32_t number = 1;
    absl::Time created;
    // Sorted (RevocationFilterKey::operator<), no repeats.
    std::vector<RevocationFilterKey> revoked;
  };
  // Create sorts and de-duplicates |contents.revoked| and checks the rest;
  // errors are Parse's.
  [[nodiscard]] static absl::StatusOr<RevocationStash> Create(
      Contents contents);
  // Parse reads one stash file; ParseAll a concatenation of them (how a
  // profile keeps its stashes), at most |max_bytes| in all. Errors are
  // named as RevocationFilter::Parse's.
  [[nodiscard]] static absl::StatusOr<RevocationStash> Parse(
      absl::string_view bytes, size_t max_bytes = kDefaultMaxBytes);
  [[nodiscard]] static absl::StatusOr<std::vector<RevocationStash>> ParseAll(
      absl::string_view bytes, size_t max_bytes = kDefaultMaxBytes);
  std::string Serialize() const;

  bool Contains(const RevocationFilterKey& key) const {
    return set_.contains(key);
  }
  const Contents& contents() const { return c_; }
  uint64_t base_sequence() const { return c_.base_sequence; }
  uint32_t number() const { return c_.number; }
  size_t size() const { return c_.revoked.size(); }

 private:
  explicit RevocationStash(Contents contents);
  Contents c_;
  absl::flat_hash_set<RevocationFilterKey> set_;
};

}  // namespace net

#endif  // CERT_REVOCATION_FILTER_H_
