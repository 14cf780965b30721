// OcspCrlRevocationChecker: the RevocationChecker behind BasicCertVerifier.
// Every element of the verified chain except the trust anchor is checked at
// the same time (seed 003 found browsers doing them one after another):
// first the profile's revocation filter, when it has one (CRLite's cascade,
// cert/revocation_filter_store.h: revoked is ERR_CERT_REVOKED and covered
// and not revoked is good, both without a request; a leaf's stapled answer
// is still read when the filter says good, since a revoked staple is newer
// news); for what the filter does not cover, a stapled OCSP response for the
// leaf, else the revocation cache, else OCSP from the certificate's AIA URL
// (GET or POST), else its CRL distribution point. The RevocationPolicy
// decides what "could not check" means: off (no filter, nothing fetched and
// no cache consulted: only a stapled answer for the leaf counts, as Chromium
// still honours staples with online checks off), soft-fail (proceed; the
// trace says soft_failed), filter (soft-fail behind a filter the context
// must have) or hard-fail (ERR_CERT_UNABLE_TO_CHECK_REVOCATION: with a
// filter, the fail-closed posture CRLite argues for, at the price of OCSP
// for what it does not cover). A revoked certificate is always
// ERR_CERT_REVOKED, a revoked staple under "off" included.
//
// The fetcher, cache, filter store and worker pool are not owned and must
// outlive the checker; with the policy off the fetcher may be null (never
// used), and without a filter the store may be null.
// Network thread; OCSP/CRL signature checks run on the worker pool.

#ifndef CERT_REVOCATION_CHECKER_H_
#define CERT_REVOCATION_CHECKER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cert/basic_cert_verifier.h"
#include "cert/revocation_fetcher.h"
#include "cert/revocation_filter_store.h"
#include "net/base/thread_checker.h"
#include "net/base/worker_pool.h"

namespace net {

struct RevocationPolicy {
  // kFilter is kSoftFail with a revocation filter required (the context
  // refuses to start without one); a filter given with kSoftFail or
  // kHardFail is consulted first as well.
  enum class Mode { kOff, kSoftFail, kHardFail, kFilter };
  Mode mode = Mode::kSoftFail;
  // Cap on how long any OCSP answer is trusted (and cached), whatever its
  // nextUpdate says.
  absl::Duration max_age = absl::Hours(24);
  // The longest a chain's checks may take; elements still unanswered then
  // count as "could not check" (soft- or hard-fail as above).
  absl::Duration deadline = absl::Seconds(10);
};

const char* RevocationModeToString(RevocationPolicy::Mode mode);
std::optional<RevocationPolicy::Mode> ParseRevocationMode(
    const std::string& text);

// RevocationCache holds revocation answers by certificate (issuer key hash
// + serial) until their nextUpdate, capped by the policy's max age. One per
// profile; in memory only (a private profile's is dropped with it). A value
// (Load and Parse return it), so it has no ThreadChecker: the checker that
// uses it checks its thread.
class RevocationCache {
 public:
  static constexpr uint32_t kMagic = 0x31435652;  // "RVC1" little-endian
  // Version 1 was an unframed text file; Load rejects it, saying so.
  static constexpr uint32_t kVersion = 2;

  // Load reads a saved cache (missing file: empty); Save writes it
  // atomically (WriteFileAtomically). The file is framed
  // (net/base/framed_file.h), so one cut at any byte or damaged anywhere is
  // DataLoss naming the file, and is left as it is. A private profile never
  // calls either.
  [[nodiscard]] static absl::StatusOr<RevocationCache> Load(
      const std::string& path);
  absl::Status Save(const std::string& path) const;
  // Serialize is Save's content; Parse is Load on bytes (|name| is used in
  // error messages).
  std::string Serialize() const;
  [[nodiscard]] static absl::StatusOr<RevocationCache> Parse(
      const std::string& bytes, const std::string& name);

  struct Entry {
    bool revoked = false;
    absl::Time expires;
  };
  std::optional<Entry> Lookup(const std::string& key, absl::Time now);
  void Put(const std::string& key, const Entry& entry);
  void Clear() { entries_.clear(); }
  size_t size() const { return entries_.size(); }

 private:
  absl::flat_hash_map<std::string, Entry> entries_;
};

// CertificateUrls returns the OCSP responder URLs (AIA) and CRL
// distribution-point URLs of a DER certificate.
struct RevocationUrls {
  std::vector<std::string> ocsp;
  std::vector<std::string> crl;
};
RevocationUrls GetRevocationUrls(const std::string& cert_der);

class OcspCrlRevocationChecker : public RevocationChecker {
 public:
  OcspCrlRevocationChecker(const RevocationPolicy& policy,
                           RevocationFetcher* fetcher, RevocationCache* cache,
                           WorkerPool* pool,
                           const RevocationFilterStore* filter = nullptr);
  ~OcspCrlRevocationChecker() override;

  int Check(const CertVerifyParams& params, CertVerifyResult* result,
            CompletionOnceCallback callback,
            std::unique_ptr<CertVerifier::Request>* out_request) override;

  const RevocationPolicy& policy() const { return policy_; }

 private:
  class ElementCheck;
  class CheckRequest;

  const RevocationPolicy policy_;
  RevocationFetcher* const fetcher_;
  RevocationCache* const cache_;
  WorkerPool* const pool_;
  const RevocationFilterStore* const filter_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // CERT_REVOCATION_CHECKER_H_
