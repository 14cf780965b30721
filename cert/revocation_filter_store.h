// RevocationFilterStore: the revocation filter a profile holds (one
// RevocationFilter, cert/revocation_filter.h) and the stashes applied on top
// of it, and the one question the revocation checker asks of them: is this
// certificate, issued by that one, revoked, good, or not covered?
//
// Filters only move forward: a filter older than the one held is refused (a
// rollback would forget revocations), a newer one replaces it and drops the
// stashes of the old. A stash must name the held filter as its base. A
// persistent profile keeps both in its directory (Load/Save, the files
// exactly as they were installed, each with its own checksum); a private
// profile keeps them in memory only. Every file read is bounded
// (kMaxFilterBytes, kMaxStashBytes).
//
// A value owned by the Profile; the checker that reads it (network thread)
// must not outlive it.

#ifndef CERT_REVOCATION_FILTER_STORE_H_
#define CERT_REVOCATION_FILTER_STORE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cert/revocation_filter.h"

namespace net {

class RevocationFilterStore {
 public:
  static constexpr char kFilterFileName[] = "revocation_filter";
  static constexpr char kStashFileName[] = "revocation_stashes";
  static constexpr size_t kMaxFilterBytes = RevocationFilter::kDefaultMaxBytes;
  // All stashes together.
  static constexpr size_t kMaxStashBytes = RevocationStash::kDefaultMaxBytes;
  // A filter whose last update (its own or its newest stash's creation) is
  // older than this answers for nothing but its stashes' revocations: a
  // "not revoked" from it would hide every revocation since (Firefox's
  // CRLite also stops trusting a filter it could not update for days).
  static constexpr absl::Duration kMaxAge = absl::Hours(10 * 24);

  RevocationFilterStore() = default;

  // Load reads a profile's saved filter and stashes (a missing filter: an
  // empty store; stashes of another filter than the saved one are stale and
  // dropped). A damaged or oversized file is DataLoss naming it, and is left
  // as it is.
  [[nodiscard]] static absl::StatusOr<RevocationFilterStore> Load(
      const std::string& filter_path, const std::string& stash_path);
  // Save writes the filter and the stashes (all of them in one file) with
  // WriteFileAtomically; nothing without a filter. On success the store is
  // no longer changed().
  absl::Status Save(const std::string& filter_path,
                    const std::string& stash_path);
  // Whether a filter or stash was installed since Load or the last Save.
  bool changed() const { return changed_; }

  // InstallFilterFile / InstallStashFile read a file a user names (at most
  // kMaxFilterBytes / kMaxStashBytes) and install it as below; errors name
  // the file and, for a malformed one, the RevocationFilterError.
  absl::Status InstallFilterFile(const std::string& path);
  absl::Status InstallStashFile(const std::string& path);
  // SetFilter installs |filter|: FailedPrecondition if it is older than the
  // held one, or another filter with the same sequence; the same filter
  // again changes nothing.
  absl::Status SetFilter(RevocationFilter filter);
  // AddStash applies |stash|: FailedPrecondition without a filter, for
  // another base, or conflicting with a held stash of the same number; the
  // same stash again changes nothing.
  absl::Status AddStash(RevocationStash stash);

  struct Result {
    RevocationFilter::Answer answer = RevocationFilter::Answer::kNotCovered;
    // The answer came from a stash (always kRevoked then).
    bool from_stash = false;
    // What decided it, for the trace: "filter 3: revoked", "not covered by
    // filter 3: notBefore ... is after its coverage ...".
    std::string detail;
  };
  // Check asks about DER |cert_der| issued by |issuer_der| at |now|: a
  // stash that lists it says revoked; else the filter (kNotCovered without
  // one, when it is stale (kMaxAge), for an issuer it does not cover, for a
  // notBefore after its coverage, or for a certificate that does not parse).
  Result Check(absl::string_view cert_der, absl::string_view issuer_der,
               absl::Time now = absl::Now()) const;
  // The filter's or its newest stash's creation time (InfinitePast without
  // a filter).
  absl::Time last_update() const;

  bool has_filter() const { return filter_.has_value(); }
  const RevocationFilter* filter() const {
    return filter_ ? &*filter_ : nullptr;
  }
  const std::vector<RevocationStash>& stashes() const { return stashes_; }

 private:
  std::optional<RevocationFilter> filter_;
  std::vector<RevocationStash> stashes_;
  // The serialized size of |stashes_| (the kMaxStashBytes bound), kept as
  // they are added rather than re-encoding every held stash per add.
  size_t stash_bytes_ = 0;
  bool changed_ = false;
};

}  // namespace net

#endif  // CERT_REVOCATION_FILTER_STORE_H_
