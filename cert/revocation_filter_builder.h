// BuildRevocationFilter: CRLite's filter-cascade construction (Larisch et
// al., IEEE S&P 2017, section IV-A) from the revoked set R and the valid set S
// (issued by the covered issuers, unexpired, not revoked). Level 1 is a Bloom
// filter of R with false-positive rate p1 = sqrt(p) * |R| / |S|; level 2 holds
// the members of S that level 1 lets through, tested against R, at rate p =
// 1/2; level 3 the members of R that level 2 lets through, tested against
// level 2's set; and so on until a level lets nothing through, so that the
// cascade answers exactly for every member of R and S (see
// cert/revocation_filter.h for the lookup and the file). When |R| > |S| the
// roles swap (the filter is "inverted": level 1 holds S), as Mozilla's
// filter-cascade does, so that p1 stays below p.
//
// A level of n elements at rate p has m = max(min_level_bits,
// ceil(n ln(1/p) / ln(2)^2)) bits and k = round(log2(1/p)) hash functions
// (1..32), the optimum for a Bloom filter.
//
// Pure computation on the calling thread (about a microsecond per key and
// level: tools/experiments revocation_filter_size).

#ifndef CERT_REVOCATION_FILTER_BUILDER_H_
#define CERT_REVOCATION_FILTER_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cert/revocation_filter.h"

namespace net {

struct RevocationFilterBuildOptions {
  uint64_t sequence = 1;
  absl::Time created;
  // Certificates with notBefore up to this are covered (<= created).
  absl::Time coverage;
  // The issuers covered, in any order; every key's issuer must be one.
  std::vector<RevocationFilter::Issuer> issuers;
  // Empty: 16 random bytes, and a fresh salt if a build ever needs more
  // than RevocationFilter::kMaxLevels levels (it would take a freak of
  // hashing). A given salt is used as it is (tests, reproducible builds).
  std::string salt;
  // Level 1's false-positive rate; 0: CRLite's sqrt(p) * |A| / |B| (A the
  // set level 1 holds, B the other), at most p.
  double first_level_fp_rate = 0;
  // p: every later level's rate.
  double fp_rate = 0.5;
  // No level is smaller (rust-cascade uses 256 as well): tiny levels would
  // let many false positives through and add levels.
  uint32_t min_level_bits = 256;
};

struct RevocationFilterBuildStats {
  struct Level {
    size_t elements = 0;         // inserted
    size_t tested = 0;           // the other side's members tested
    size_t false_positives = 0;  // of those, let through (the next level)
    double fp_rate = 0;          // the rate it was sized for
    uint8_t hash_count = 0;
    uint32_t bit_count = 0;
  };
  std::vector<Level> levels;
  size_t revoked = 0;  // |R| after de-duplication
  size_t valid = 0;    // |S|
  bool inverted = false;
  int attempts = 0;  // salts tried
};

// BuildRevocationFilter builds the cascade of |revoked| against |valid|
// (duplicates within a set are dropped). InvalidArgument if a key is in both
// sets, has an issuer not among |options.issuers| or a serial of a bad
// length; ResourceExhausted if the levels do not converge; the filter's own
// checks (RevocationFilter::Create) otherwise.
[[nodiscard]] absl::StatusOr<RevocationFilter> BuildRevocationFilter(
    std::vector<RevocationFilterKey> revoked,
    std::vector<RevocationFilterKey> valid,
    const RevocationFilterBuildOptions& options,
    RevocationFilterBuildStats* stats = nullptr);

}  // namespace net

#endif  // CERT_REVOCATION_FILTER_BUILDER_H_
