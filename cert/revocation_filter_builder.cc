#include "cert/revocation_filter_builder.h"

#include <openssl/rand.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

constexpr size_t kRandomSaltBytes = 16;
constexpr int kMaxAttempts = 4;

void Dedupe(std::vector<RevocationFilterKey>* keys) {
  std::sort(keys->begin(), keys->end());
  keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
}

absl::Status CheckKeys(const std::vector<RevocationFilterKey>& keys,
                       const RevocationFilter& issuers_only,
                       absl::string_view set) {
  for (const RevocationFilterKey& key : keys) {
    if (key.serial.empty() || key.serial.size() > kMaxSerialBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("a ", set, " key has a serial of ", key.serial.size(),
                       " bytes: ", key.ToString()));
    }
    if (!issuers_only.CoversIssuer(key.issuer_spki_sha256)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a ", set,
          " key's issuer is not among the filter's issuers: ", key.ToString()));
    }
  }
  return absl::OkStatus();
}

// One Bloom filter of |include| at |fp_rate|; the members of |exclude| it
// lets through go to |false_positives|.
RevocationFilter::Level BuildLevel(
    absl::string_view salt, size_t level_number,
    const std::vector<RevocationFilterKey>& include,
    const std::vector<RevocationFilterKey>& exclude, double fp_rate,
    uint32_t min_bits, std::vector<RevocationFilterKey>* false_positives,
    RevocationFilterBuildStats::Level* stats) {
  const double ln2 = std::log(2.0);
  RevocationFilter::Level level;
  double p = std::max(fp_rate, 1e-12);
  double bits = std::ceil(static_cast<double>(include.size()) *
                          std::log(1.0 / p) / (ln2 * ln2));
  bits = std::max(bits, static_cast<double>(std::max<uint32_t>(min_bits, 1)));
  bits = std::min(
      bits, static_cast<double>(std::numeric_limits<uint32_t>::max() - 7));
  level.bit_count = static_cast<uint32_t>(bits);
  long k = std::lround(std::log2(1.0 / p));
  level.hash_count = static_cast<uint8_t>(
      std::clamp<long>(k, 1, RevocationFilter::kMaxHashCount));
  level.bits.assign((uint64_t{level.bit_count} + 7) / 8, '\0');
  std::vector<uint32_t> indexes;
  for (const RevocationFilterKey& key : include) {
    LevelBitIndexes(salt, level_number, key, level.hash_count, level.bit_count,
                    &indexes);
    for (uint32_t bit : indexes)
      level.bits[bit / 8] = static_cast<char>(
          static_cast<uint8_t>(level.bits[bit / 8]) | (1u << (bit % 8)));
  }
  false_positives->clear();
  for (const RevocationFilterKey& key : exclude) {
    LevelBitIndexes(salt, level_number, key, level.hash_count, level.bit_count,
                    &indexes);
    bool all = true;
    for (uint32_t bit : indexes) {
      if (((static_cast<uint8_t>(level.bits[bit / 8]) >> (bit % 8)) & 1) == 0) {
        all = false;
        break;
      }
    }
    if (all) false_positives->push_back(key);
  }
  stats->elements = include.size();
  stats->tested = exclude.size();
  stats->false_positives = false_positives->size();
  stats->fp_rate = p;
  stats->hash_count = level.hash_count;
  stats->bit_count = level.bit_count;
  return level;
}

}  // namespace

absl::StatusOr<RevocationFilter> BuildRevocationFilter(
    std::vector<RevocationFilterKey> revoked,
    std::vector<RevocationFilterKey> valid,
    const RevocationFilterBuildOptions& options,
    RevocationFilterBuildStats* stats) {
  RevocationFilterBuildStats local_stats;
  if (!stats) stats = &local_stats;
  *stats = RevocationFilterBuildStats();
  if (!(options.fp_rate > 0 && options.fp_rate < 1) ||
      options.first_level_fp_rate < 0 || options.first_level_fp_rate >= 1) {
    return absl::InvalidArgumentError("false-positive rates must be in (0, 1)");
  }
  RevocationFilter::Contents contents;
  contents.sequence = options.sequence;
  contents.created = options.created;
  contents.coverage = options.coverage;
  contents.issuers = options.issuers;
  std::sort(
      contents.issuers.begin(), contents.issuers.end(),
      [](const RevocationFilter::Issuer& a, const RevocationFilter::Issuer& b) {
        return a.spki_sha256 < b.spki_sha256;
      });
  // The issuers (and every other field) checked once, on a one-level
  // stand-in, before anything is hashed.
  contents.salt =
      options.salt.empty() ? std::string(kRandomSaltBytes, 'x') : options.salt;
  contents.levels = {{1, 8, std::string(1, '\0')}};
  absl::StatusOr<RevocationFilter> shape = RevocationFilter::Create(contents);
  if (!shape.ok()) return shape.status();

  Dedupe(&revoked);
  Dedupe(&valid);
  absl::Status status = CheckKeys(revoked, *shape, "revoked");
  if (!status.ok()) return status;
  status = CheckKeys(valid, *shape, "valid");
  if (!status.ok()) return status;
  std::vector<RevocationFilterKey> both;
  std::set_intersection(revoked.begin(), revoked.end(), valid.begin(),
                        valid.end(), std::back_inserter(both));
  if (!both.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(both.size(), " keys are both revoked and valid, e.g. ",
                     both[0].ToString()));
  }
  stats->revoked = revoked.size();
  stats->valid = valid.size();
  const bool inverted = revoked.size() > valid.size();
  stats->inverted = inverted;
  contents.inverted = inverted;
  const std::vector<RevocationFilterKey>& first = inverted ? valid : revoked;
  const std::vector<RevocationFilterKey>& second = inverted ? revoked : valid;
  const double p = options.fp_rate;
  double p1 = options.first_level_fp_rate;
  if (p1 <= 0) {
    p1 = second.empty() ? p
                        : std::sqrt(p) * static_cast<double>(first.size()) /
                              static_cast<double>(second.size());
    p1 = std::min(p1, p);
  }

  for (int attempt = 1; attempt <= kMaxAttempts; ++attempt) {
    stats->attempts = attempt;
    stats->levels.clear();
    if (options.salt.empty()) {
      contents.salt.assign(kRandomSaltBytes, '\0');
      RAND_bytes(reinterpret_cast<uint8_t*>(&contents.salt[0]),
                 contents.salt.size());
    }
    contents.levels.clear();
    // Level n + 1 holds what got through level n, and is tested against
    // level n's set (all of which passes level n). The sets after level 1
    // shrink geometrically; they are kept (stable addresses) so that no set
    // is copied.
    std::deque<std::vector<RevocationFilterKey>> passed_sets;
    const std::vector<RevocationFilterKey>* include = &first;
    const std::vector<RevocationFilterKey>* exclude = &second;
    bool converged = false;
    for (size_t n = 1; n <= RevocationFilter::kMaxLevels; ++n) {
      RevocationFilterBuildStats::Level level_stats;
      passed_sets.emplace_back();
      contents.levels.push_back(BuildLevel(
          contents.salt, n, *include, *exclude, n == 1 ? p1 : p,
          options.min_level_bits, &passed_sets.back(), &level_stats));
      stats->levels.push_back(level_stats);
      if (passed_sets.back().empty()) {
        converged = true;
        break;
      }
      exclude = include;
      include = &passed_sets.back();
    }
    if (converged) return RevocationFilter::Create(std::move(contents));
    if (!options.salt.empty()) break;
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("the cascade did not converge within ",
                   RevocationFilter::kMaxLevels, " levels"));
}

}  // namespace net
