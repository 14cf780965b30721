// Prevalidator takes certificate verification and revocation checking off
// the critical path: Prevalidate(chain, host) runs the verifier ahead of
// time — with BasicCertVerifier given a worker pool, path building there
// and every element's revocation at once (OCSP/CRL fetches on the network
// thread, signature checks on the worker pool) — and keeps the successful
// result for a freshness window. Duplicate requests for one (chain, host)
// join the running job.
//
// PrevalidatedCertVerifier is the CertVerifier the TLS client uses: a fresh
// prevalidated result answers at once (no OCSP or CRL request, revocation
// source "prevalidated"); otherwise it verifies on the critical path, as
// browsers do, and the trace shows that time.
//
// The verifiers are not owned and must outlive these.
// Network thread.

#ifndef CERT_PREVALIDATOR_H_
#define CERT_PREVALIDATOR_H_

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "cert/basic_cert_verifier.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"

namespace net {

class Prevalidator {
 public:
  explicit Prevalidator(CertVerifier* verifier,
                        absl::Duration freshness = absl::Minutes(5));
  ~Prevalidator();

  // Prevalidate verifies and checks |chain_der| (leaf first) for |host|.
  // The callback gets OK or the certificate error; it runs from a task.
  void Prevalidate(const std::vector<std::string>& chain_der,
                   const std::string& host, CompletionOnceCallback callback);

  // Lookup returns a fresh successful result for exactly this chain and
  // host, or null.
  const CertVerifyResult* Lookup(const std::vector<std::string>& chain_der,
                                 const std::string& host);

  size_t jobs_started() const { return jobs_started_; }
  size_t coalesced() const { return coalesced_; }

 private:
  struct Job;
  struct Done {
    CertVerifyResult result;
    absl::Time expires;
  };
  static std::string Key(const std::vector<std::string>& chain_der,
                         const std::string& host);
  void Finish(const std::string& key, int rv);

  CertVerifier* const verifier_;
  const absl::Duration freshness_;
  absl::flat_hash_map<std::string, std::unique_ptr<Job>> jobs_;
  absl::flat_hash_map<std::string, Done> done_;
  size_t jobs_started_ = 0;
  size_t coalesced_ = 0;
  ThreadChecker thread_checker_;
  WeakPtrFactory<Prevalidator> weak_factory_{this};
};

class PrevalidatedCertVerifier : public CertVerifier {
 public:
  PrevalidatedCertVerifier(Prevalidator* prevalidator, CertVerifier* fallback)
      : prevalidator_(prevalidator), fallback_(fallback) {}
  int Verify(const CertVerifyParams& params, CertVerifyResult* result,
             CompletionOnceCallback callback,
             std::unique_ptr<Request>* out_request) override;
  // The prevalidator's answer for |params| as Verify gives it (marked
  // prevalidated, nothing on the critical path), or false without one: never
  // a verification of its own.
  bool LookupPrevalidated(const CertVerifyParams& params,
                          CertVerifyResult* result);
  size_t prevalidated_hits() const { return hits_; }

 private:
  Prevalidator* const prevalidator_;
  CertVerifier* const fallback_;
  size_t hits_ = 0;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // CERT_PREVALIDATOR_H_
