// IgnoreCertErrorsVerifier: curl's --insecure (-k) as a CertVerifier. It
// runs the verifier it wraps (when there is one) and turns a certificate
// error (the -200 range) into OK, keeping what was wrong in the result's
// detail ("ignored (insecure): ...") so the trace still says it. Nothing
// prefetched is trusted through it: bundles and prevalidation use the
// wrapped verifier directly.
//
// Owned by the network context; the wrapped verifier (not owned, may be
// null: nothing to check against) must outlive it.

#ifndef CERT_IGNORE_CERT_ERRORS_VERIFIER_H_
#define CERT_IGNORE_CERT_ERRORS_VERIFIER_H_

#include <memory>

#include "cert/cert_verifier.h"

namespace net {

class IgnoreCertErrorsVerifier : public CertVerifier {
 public:
  explicit IgnoreCertErrorsVerifier(CertVerifier* wrapped)
      : wrapped_(wrapped) {}

  int Verify(const CertVerifyParams& params, CertVerifyResult* result,
             CompletionOnceCallback callback,
             std::unique_ptr<Request>* out_request) override;

  // Whether |error| is one this verifier ignores: a certificate error.
  static bool IsIgnored(int error);

 private:
  CertVerifier* const wrapped_;
};

}  // namespace net

#endif  // CERT_IGNORE_CERT_ERRORS_VERIFIER_H_
