#include "cert/revocation_filter_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"

namespace net {
namespace {

constexpr char kRemedy[] =
    "move it away to start without a revocation filter (fetch "
    "--revocation-filter FILE installs one)";

// |status| with |path| in front of its message; code and payloads kept (the
// RevocationFilterError).
absl::Status Named(absl::string_view path, const absl::Status& status) {
  absl::Status named(status.code(), absl::StrCat(path, ": ", status.message()));
  status.ForEachPayload(
      [&named](absl::string_view url, const absl::Cord& payload) {
        named.SetPayload(url, payload);
      });
  return named;
}

}  // namespace

absl::StatusOr<RevocationFilterStore> RevocationFilterStore::Load(
    const std::string& filter_path, const std::string& stash_path) {
  RevocationFilterStore store;
  absl::StatusOr<std::string> bytes =
      ReadFileToString(filter_path, kMaxFilterBytes);
  if (absl::IsNotFound(bytes.status())) return store;
  if (absl::IsResourceExhausted(bytes.status()))
    return CorruptFileError(filter_path, bytes.status().message(), kRemedy);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<RevocationFilter> filter =
      RevocationFilter::Parse(*bytes, kMaxFilterBytes);
  if (!filter.ok())
    return CorruptFileError(filter_path, filter.status().message(), kRemedy);
  store.filter_ = *std::move(filter);
  store.changed_ = false;

  bytes = ReadFileToString(stash_path, kMaxStashBytes);
  if (absl::IsNotFound(bytes.status())) return store;
  if (absl::IsResourceExhausted(bytes.status()))
    return CorruptFileError(stash_path, bytes.status().message(), kRemedy);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<std::vector<RevocationStash>> stashes =
      RevocationStash::ParseAll(*bytes, kMaxStashBytes);
  if (!stashes.ok())
    return CorruptFileError(stash_path, stashes.status().message(), kRemedy);
  for (RevocationStash& stash : *stashes) {
    // A stash of an older filter: the file was written before the filter
    // was replaced and saved again; not damage.
    if (stash.base_sequence() != store.filter_->sequence()) continue;
    absl::Status status = store.AddStash(std::move(stash));
    if (!status.ok())
      return CorruptFileError(stash_path, status.message(), kRemedy);
  }
  store.changed_ = false;
  return store;
}

absl::Status RevocationFilterStore::Save(const std::string& filter_path,
                                         const std::string& stash_path) {
  if (!filter_) return absl::OkStatus();
  absl::Status status = WriteFileAtomically(filter_path, filter_->Serialize());
  if (!status.ok()) return status;
  std::string stashes;
  for (const RevocationStash& stash : stashes_) stashes += stash.Serialize();
  status = WriteFileAtomically(stash_path, stashes);
  if (status.ok()) changed_ = false;
  return status;
}

absl::Status RevocationFilterStore::InstallFilterFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path, kMaxFilterBytes);
  if (!bytes.ok()) return Named("revocation filter", bytes.status());
  absl::StatusOr<RevocationFilter> filter =
      RevocationFilter::Parse(*bytes, kMaxFilterBytes);
  if (!filter.ok()) return Named(path, filter.status());
  absl::Status status = SetFilter(*std::move(filter));
  if (!status.ok()) return Named(path, status);
  return absl::OkStatus();
}

absl::Status RevocationFilterStore::InstallStashFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path, kMaxStashBytes);
  if (!bytes.ok()) return Named("revocation stash", bytes.status());
  absl::StatusOr<std::vector<RevocationStash>> stashes =
      RevocationStash::ParseAll(*bytes, kMaxStashBytes);
  if (!stashes.ok()) return Named(path, stashes.status());
  for (RevocationStash& stash : *stashes) {
    absl::Status status = AddStash(std::move(stash));
    if (!status.ok()) return Named(path, status);
  }
  return absl::OkStatus();
}

absl::Status RevocationFilterStore::SetFilter(RevocationFilter filter) {
  if (filter_) {
    if (filter.sequence() < filter_->sequence()) {
      return absl::FailedPreconditionError(
          absl::StrCat("revocation filter ", filter.sequence(),
                       " is older than filter ", filter_->sequence(),
                       " already held (a rollback would forget revocations)"));
    }
    if (filter.sequence() == filter_->sequence()) {
      if (filter.Serialize() == filter_->Serialize()) return absl::OkStatus();
      return absl::FailedPreconditionError(absl::StrCat(
          "a different revocation filter with the held one's sequence ",
          filter.sequence()));
    }
  }
  filter_ = std::move(filter);
  stashes_.clear();
  stash_bytes_ = 0;
  changed_ = true;
  return absl::OkStatus();
}

absl::Status RevocationFilterStore::AddStash(RevocationStash stash) {
  if (!filter_) {
    return absl::FailedPreconditionError(
        "a revocation stash needs its filter installed first");
  }
  if (stash.base_sequence() != filter_->sequence()) {
    return absl::FailedPreconditionError(
        absl::StrCat("revocation stash ", stash.number(), " applies to filter ",
                     stash.base_sequence(), ", not to the held filter ",
                     filter_->sequence()));
  }
  for (const RevocationStash& held : stashes_) {
    if (held.number() != stash.number()) continue;
    if (held.Serialize() == stash.Serialize()) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "revocation stash ", stash.number(), " of filter ",
        stash.base_sequence(), " differs from the one already applied"));
  }
  const size_t bytes = stash.Serialize().size();
  if (stash_bytes_ + bytes > kMaxStashBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("revocation stashes beyond ", kMaxStashBytes,
                     " bytes in all: install a newer filter"));
  }
  stash_bytes_ += bytes;
  stashes_.push_back(std::move(stash));
  changed_ = true;
  return absl::OkStatus();
}

absl::Time RevocationFilterStore::last_update() const {
  if (!filter_) return absl::InfinitePast();
  absl::Time t = filter_->created();
  for (const RevocationStash& stash : stashes_)
    t = std::max(t, stash.contents().created);
  return t;
}

RevocationFilterStore::Result RevocationFilterStore::Check(
    absl::string_view cert_der, absl::string_view issuer_der,
    absl::Time now) const {
  Result result;
  if (!filter_) {
    result.detail = "no revocation filter";
    return result;
  }
  absl::StatusOr<CertificateFilterFacts> facts =
      GetCertificateFilterFacts(cert_der, issuer_der);
  if (!facts.ok()) {
    result.detail = absl::StrCat("not covered by filter ", filter_->sequence(),
                                 ": ", facts.status().message());
    return result;
  }
  for (const RevocationStash& stash : stashes_) {
    if (stash.Contains(facts->key)) {
      result.answer = RevocationFilter::Answer::kRevoked;
      result.from_stash = true;
      result.detail = absl::StrCat("stash ", stash.number(), " of filter ",
                                   filter_->sequence(), ": revoked");
      return result;
    }
  }
  if (now - last_update() > kMaxAge) {
    result.detail = absl::StrCat(
        "not covered by filter ", filter_->sequence(), ": stale, last updated ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", last_update(),
                         absl::UTCTimeZone()),
        " (more than ", absl::FormatDuration(kMaxAge),
        " ago: revocations since are unknown)");
    return result;
  }
  if (!filter_->CoversIssuer(facts->key.issuer_spki_sha256)) {
    result.detail = absl::StrCat("not covered by filter ", filter_->sequence(),
                                 ": its issuer is not one of the filter's ",
                                 filter_->issuers().size());
    return result;
  }
  if (facts->not_before > filter_->coverage()) {
    result.detail = absl::StrCat(
        "not covered by filter ", filter_->sequence(), ": notBefore ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", facts->not_before,
                         absl::UTCTimeZone()),
        " is after its coverage ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", filter_->coverage(),
                         absl::UTCTimeZone()));
    return result;
  }
  result.answer = filter_->Check(facts->key, facts->not_before);
  result.detail = absl::StrCat(
      "filter ", filter_->sequence(), ": ",
      result.answer == RevocationFilter::Answer::kRevoked ? "revoked"
                                                          : "not revoked");
  return result;
}

}  // namespace net
