#include "cert/basic_cert_verifier.h"

#include <openssl/err.h>
#include <openssl/mem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "cert/x509_util.h"
#include "net/base/ip_endpoint.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"

namespace net {
namespace {

int MapX509Error(int x509_error) {
  switch (x509_error) {
    case X509_V_OK:
      return OK;
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
    case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD:
    case X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
      return ERR_CERT_DATE_INVALID;
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return ERR_CERT_COMMON_NAME_INVALID;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_UNTRUSTED:
      return ERR_CERT_AUTHORITY_INVALID;
    case X509_V_ERR_CERT_REVOKED:
      return ERR_CERT_REVOKED;
    default:
      return ERR_CERT_INVALID;
  }
}

}  // namespace

CertVerifyResult VerifyChain(X509_STORE* anchors,
                             const CertVerifyParams& params) {
  CertVerifyResult result;
  TimeTicks start = TimeTicks::Now();
  if (params.chain_der.empty()) {
    result.error = ERR_SSL_SERVER_CERT_MISSING;
    result.detail = "server sent no certificate";
    return result;
  }
  bssl::UniquePtr<X509> leaf = DerToX509(params.chain_der[0]);
  bssl::UniquePtr<STACK_OF(X509)> intermediates(sk_X509_new_null());
  if (!leaf) {
    result.error = ERR_CERT_CONTAINS_ERRORS;
    result.detail = "leaf certificate does not parse";
    return result;
  }
  for (size_t i = 1; i < params.chain_der.size(); ++i) {
    bssl::UniquePtr<X509> cert = DerToX509(params.chain_der[i]);
    if (!cert) {
      result.error = ERR_CERT_CONTAINS_ERRORS;
      result.detail = absl::StrCat("certificate ", i, " does not parse");
      return result;
    }
    sk_X509_push(intermediates.get(), cert.release());
  }
  bssl::UniquePtr<X509_STORE_CTX> ctx(X509_STORE_CTX_new());
  if (!X509_STORE_CTX_init(ctx.get(), anchors, leaf.get(),
                           intermediates.get())) {
    result.error = ERR_OUT_OF_MEMORY;
    return result;
  }
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  X509_STORE_CTX_set_time(ctx.get(), 0, absl::ToTimeT(params.now));
  if (IPAddress::Parse(params.hostname)) {
    X509_VERIFY_PARAM_set1_ip_asc(param, params.hostname.c_str());
  } else {
    X509_VERIFY_PARAM_set_hostflags(param,
                                    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, params.hostname.data(),
                                params.hostname.size());
  }
  int ok = X509_verify_cert(ctx.get());
  ERR_clear_error();
  int x509_error = X509_STORE_CTX_get_error(ctx.get());
  if (ok == 1) {
    result.error = OK;
    STACK_OF(X509)* chain = X509_STORE_CTX_get0_chain(ctx.get());
    for (size_t i = 0; i < sk_X509_num(chain); ++i) {
      uint8_t* der = nullptr;
      int len = i2d_X509(sk_X509_value(chain, i), &der);
      if (len > 0)
        result.verified_chain_der.emplace_back(reinterpret_cast<char*>(der),
                                               len);
      OPENSSL_free(der);
    }
  } else {
    result.error = MapX509Error(x509_error);
    if (result.error == OK) result.error = ERR_CERT_INVALID;
    result.detail =
        absl::StrCat(X509_verify_cert_error_string(x509_error), " (depth ",
                     X509_STORE_CTX_get_error_depth(ctx.get()), ")");
  }
  result.verify_duration = TimeTicks::Now() - start;
  return result;
}

BasicCertVerifier::BasicCertVerifier() : store_(X509_STORE_new()) {}
BasicCertVerifier::~BasicCertVerifier() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

absl::StatusOr<std::unique_ptr<BasicCertVerifier>> BasicCertVerifier::Create(
    const std::vector<std::string>& anchor_files, bool use_system_store) {
  std::unique_ptr<BasicCertVerifier> verifier(new BasicCertVerifier());
  for (const std::string& file : anchor_files) {
    absl::StatusOr<std::vector<std::string>> ders =
        LoadPemCertificatesFromFile(file);
    if (!ders.ok()) return ders.status();
    for (const std::string& der : *ders) {
      bssl::UniquePtr<X509> cert = DerToX509(der);
      if (!cert || !X509_STORE_add_cert(verifier->store_.get(), cert.get())) {
        ERR_clear_error();
        return absl::InvalidArgumentError(
            absl::StrCat(file, ": unusable anchor"));
      }
      ++verifier->anchor_count_;
    }
  }
  if (use_system_store) {
    // As OpenSSL-based tools do: SSL_CERT_FILE and SSL_CERT_DIR replace the
    // distribution's bundle (Debian's ca-certificates) and hashed directory.
    const char* env_file = getenv("SSL_CERT_FILE");
    const char* env_dir = getenv("SSL_CERT_DIR");
    std::string file =
        env_file && *env_file ? env_file : "/etc/ssl/certs/ca-certificates.crt";
    std::string dir = env_dir && *env_dir ? env_dir : "/etc/ssl/certs";
    const bool have_file = access(file.c_str(), R_OK) == 0;
    const bool have_dir = access(dir.c_str(), R_OK | X_OK) == 0;
    if (!have_file && !have_dir)
      return absl::NotFoundError(absl::StrCat(
          "no system trust store: neither ", file, " nor ", dir,
          " is readable (install ca-certificates, or set SSL_CERT_FILE)"));
    if (!X509_STORE_load_locations(verifier->store_.get(),
                                   have_file ? file.c_str() : nullptr,
                                   have_dir ? dir.c_str() : nullptr)) {
      ERR_clear_error();
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load the system trust store from ", have_file ? file : dir));
    }
    ++verifier->anchor_count_;
  }
  if (verifier->anchor_count_ == 0)
    return absl::InvalidArgumentError("no trust anchors configured");
  return verifier;
}

std::string BasicCertVerifier::CacheKey(const CertVerifyParams& params) const {
  return absl::StrCat(
      ChainFingerprint(params.chain_der), "|", params.hostname, "|",
      absl::ToUnixSeconds(params.now) / absl::ToInt64Seconds(kCacheBucket));
}

void BasicCertVerifier::CacheResult(const std::string& key,
                                    const CertVerifyResult& result) {
  if (results_.size() >= 1000) results_.clear();
  results_[key] = result;
}

// Path building on the worker pool, then the revocation check; cancels on
// destruction (the worker's reply is dropped).
class BasicCertVerifier::VerifyRequest : public CertVerifier::Request {
 public:
  VerifyRequest(BasicCertVerifier* verifier, const CertVerifyParams& params,
                CertVerifyResult* result, CompletionOnceCallback callback)
      : verifier_(verifier),
        params_(params),
        result_(result),
        callback_(std::move(callback)) {}

  void Start(std::string key) {
    X509_STORE* store = verifier_->store_.get();
    verifier_->pool_->PostTaskAndReplyWithResult<CertVerifyResult>(
        [store, params = params_] { return VerifyChain(store, params); },
        [weak = weak_factory_.GetWeakPtr(),
         key = std::move(key)](CertVerifyResult r) {
          if (weak) weak->OnChainVerified(key, std::move(r));
        });
  }

 private:
  void OnChainVerified(const std::string& key, CertVerifyResult result) {
    verifier_->CacheResult(key, result);
    *result_ = std::move(result);
    if (result_->error != OK || !verifier_->checker_)
      return Done(result_->error);
    int rv = verifier_->checker_->Check(
        params_, result_,
        [weak = weak_factory_.GetWeakPtr()](int rv) {
          if (weak) weak->Done(rv);
        },
        &revocation_request_);
    if (rv != ERR_IO_PENDING) Done(rv);
  }
  void Done(int rv) { std::move(callback_)(rv); }

  BasicCertVerifier* const verifier_;
  const CertVerifyParams params_;
  CertVerifyResult* const result_;
  CompletionOnceCallback callback_;
  std::unique_ptr<CertVerifier::Request> revocation_request_;
  WeakPtrFactory<VerifyRequest> weak_factory_{this};
};

int BasicCertVerifier::Verify(const CertVerifyParams& params,
                              CertVerifyResult* result,
                              CompletionOnceCallback callback,
                              std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  std::string key = CacheKey(params);
  auto hit = results_.find(key);
  if (hit != results_.end()) {
    ++cache_hits_;
    *result = hit->second;
    result->verify_duration = absl::ZeroDuration();
  } else if (pool_) {
    auto request = std::make_unique<VerifyRequest>(this, params, result,
                                                   std::move(callback));
    request->Start(std::move(key));
    *out_request = std::move(request);
    return ERR_IO_PENDING;
  } else {
    *result = VerifyChain(store_.get(), params);
    CacheResult(key, *result);
  }
  if (result->error != OK || checker_ == nullptr) return result->error;
  return checker_->Check(params, result, std::move(callback), out_request);
}

}  // namespace net
