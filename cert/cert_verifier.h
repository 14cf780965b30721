// CertVerifier: the interface the TLS layer calls to decide whether a server
// certificate chain is good for a host. BasicCertVerifier is the default
// implementation; cert/ adds revocation and prevalidation behind the same
// interface.
//
// Verify follows the async contract in net/base/net_errors.h: it returns OK
// or a certificate error synchronously, or ERR_IO_PENDING and completes the
// callback later. Destroying |*out_request| cancels a pending verification;
// its callback then never runs. |result| must outlive the request.

#ifndef CERT_CERT_VERIFIER_H_
#define CERT_CERT_VERIFIER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "net/base/net_errors.h"
#include "net/base/tick_clock.h"

namespace net {

// CertVerifyParams is what is verified: the DER chain as the server sent it
// (leaf first), the host name the client connected to, the verification
// time, and any stapled OCSP response.
struct CertVerifyParams {
  std::vector<std::string> chain_der;
  std::string hostname;
  absl::Time now;
  std::string stapled_ocsp_response;
};

// How revocation was (or was not) established for the trace. kFilter: the
// profile's revocation filter answered (cert/revocation_filter.h), with no
// request; kFilterStash: a stash applied on top of it said revoked.
enum class RevocationSource {
  kNotChecked,
  kFresh,
  kCache,
  kPrevalidated,
  kStapled,
  kFilter,
  kFilterStash
};
enum class RevocationOutcome {
  kNotChecked,
  kGood,
  kRevoked,
  kSoftFailed,
  kNoInfo,
  kUnableToCheck
};

const char* RevocationSourceToString(RevocationSource source);
const char* RevocationOutcomeToString(RevocationOutcome outcome);

// RevocationCheck is one chain element's revocation check, for the trace.
struct RevocationCheck {
  int depth = 0;  // 0 = leaf
  RevocationSource source = RevocationSource::kNotChecked;
  RevocationOutcome outcome = RevocationOutcome::kNotChecked;
  // "ocsp", "crl", "stapled", "cache", "filter", "filter_stash", "none"
  std::string method;
  TimeTicks start;
  TimeTicks end;
  std::string detail;
};

// CertVerifyResult is the outcome: a net error (OK or ERR_CERT_*), a
// human-readable reason, and what the trace reports.
struct CertVerifyResult {
  int error = ERR_FAILED;
  std::string detail;
  // The verified path from leaf to anchor, DER, when error == OK.
  std::vector<std::string> verified_chain_der;
  absl::Duration verify_duration = absl::ZeroDuration();
  RevocationSource revocation_source = RevocationSource::kNotChecked;
  RevocationOutcome revocation_outcome = RevocationOutcome::kNotChecked;
  absl::Duration revocation_duration = absl::ZeroDuration();
  std::vector<RevocationCheck> revocation_checks;
};

class CertVerifier {
 public:
  class Request {
   public:
    virtual ~Request() = default;
  };
  virtual ~CertVerifier() = default;
  virtual int Verify(const CertVerifyParams& params, CertVerifyResult* result,
                     CompletionOnceCallback callback,
                     std::unique_ptr<Request>* out_request) = 0;
};

}  // namespace net

#endif  // CERT_CERT_VERIFIER_H_
