#include "cert/ignore_cert_errors_verifier.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

// Rewrites an ignored error's result to OK, saying what was ignored.
int Ignore(int rv, CertVerifyResult* result) {
  if (!IgnoreCertErrorsVerifier::IsIgnored(rv)) return rv;
  result->detail =
      absl::StrCat("ignored (insecure): ", ErrorToShortString(rv),
                   result->detail.empty() ? "" : ": ", result->detail);
  result->error = OK;
  return OK;
}

}  // namespace

bool IgnoreCertErrorsVerifier::IsIgnored(int error) {
  return error <= -200 && error > -300;
}

int IgnoreCertErrorsVerifier::Verify(const CertVerifyParams& params,
                                     CertVerifyResult* result,
                                     CompletionOnceCallback callback,
                                     std::unique_ptr<Request>* out_request) {
  if (!wrapped_) {
    result->error = OK;
    result->detail = "not verified (insecure: no trust anchors)";
    return OK;
  }
  int rv = wrapped_->Verify(
      params, result,
      [result, callback = std::move(callback)](int rv) mutable {
        std::move(callback)(Ignore(rv, result));
      },
      out_request);
  if (rv == ERR_IO_PENDING) return rv;
  return Ignore(rv, result);
}

}  // namespace net
