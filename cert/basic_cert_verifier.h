// BasicCertVerifier: path building to configured trust anchors (BoringSSL's
// X509 verifier), host name and validity checks — on the worker pool when
// one is set, else synchronously — with results cached by (chain, host,
// minute); revocation is delegated to an optional RevocationChecker (the
// seam cert/'s OCSP and CRL work plugs into).
//
// Owned by the network context; outlives the SSL sockets that use it.

#ifndef CERT_BASIC_CERT_VERIFIER_H_
#define CERT_BASIC_CERT_VERIFIER_H_

#include <openssl/x509.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cert/cert_verifier.h"
#include "net/base/thread_checker.h"
#include "net/base/worker_pool.h"

namespace net {

// RevocationChecker decides whether a verified chain is revoked. Verify
// calls it after path building succeeds. Same async contract as
// CertVerifier::Verify; it fills the revocation fields of |result| and
// returns OK, ERR_CERT_REVOKED or ERR_CERT_UNABLE_TO_CHECK_REVOCATION.
class RevocationChecker {
 public:
  virtual ~RevocationChecker() = default;
  virtual int Check(const CertVerifyParams& params, CertVerifyResult* result,
                    CompletionOnceCallback callback,
                    std::unique_ptr<CertVerifier::Request>* out_request) = 0;
};

// VerifyChain is the pure core: verifies |params| against |anchors| at
// params.now. Returns the result (error OK or ERR_CERT_*).
CertVerifyResult VerifyChain(X509_STORE* anchors,
                             const CertVerifyParams& params);

class BasicCertVerifier : public CertVerifier {
 public:
  // Create loads the PEM trust anchors in |anchor_files|. Errors name the
  // file. |use_system_store| adds /etc/ssl/certs.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BasicCertVerifier>>
  Create(const std::vector<std::string>& anchor_files, bool use_system_store);
  ~BasicCertVerifier() override;

  // Non-owning; |checker| must outlive this verifier.
  void set_revocation_checker(RevocationChecker* checker) {
    checker_ = checker;
  }
  // Non-owning; with a pool, path building (signature checks) runs there
  // and Verify completes asynchronously on a cache miss.
  void set_worker_pool(WorkerPool* pool) { pool_ = pool; }

  int Verify(const CertVerifyParams& params, CertVerifyResult* result,
             CompletionOnceCallback callback,
             std::unique_ptr<Request>* out_request) override;

  size_t anchor_count() const { return anchor_count_; }
  // Path-building results are cached by (chain, host, time bucket): the
  // same chain for the same host within one bucket is not rebuilt.
  static constexpr absl::Duration kCacheBucket = absl::Minutes(1);
  size_t cache_hits() const { return cache_hits_; }
  // The trust anchors, for VerifyChain on worker threads (X509_STORE is
  // safe for concurrent verification).
  X509_STORE* store() const { return store_.get(); }

 private:
  class VerifyRequest;
  BasicCertVerifier();
  std::string CacheKey(const CertVerifyParams& params) const;
  void CacheResult(const std::string& key, const CertVerifyResult& result);

  bssl::UniquePtr<X509_STORE> store_;
  WorkerPool* pool_ = nullptr;
  size_t anchor_count_ = 0;
  RevocationChecker* checker_ = nullptr;
  // Key -> result of VerifyChain (no revocation fields); bounded.
  std::map<std::string, CertVerifyResult> results_;
  size_t cache_hits_ = 0;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // CERT_BASIC_CERT_VERIFIER_H_
