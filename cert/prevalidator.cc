#include "cert/prevalidator.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cert/x509_util.h"

namespace net {

struct Prevalidator::Job {
  CertVerifyParams params;
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  std::vector<CompletionOnceCallback> callbacks;
};

Prevalidator::Prevalidator(CertVerifier* verifier, absl::Duration freshness)
    : verifier_(verifier), freshness_(freshness) {}

Prevalidator::~Prevalidator() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

std::string Prevalidator::Key(const std::vector<std::string>& chain_der,
                              const std::string& host) {
  return absl::StrCat(host, "|", ChainFingerprint(chain_der));
}

void Prevalidator::Prevalidate(const std::vector<std::string>& chain_der,
                               const std::string& host,
                               CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  std::string key = Key(chain_der, host);
  auto it = jobs_.find(key);
  if (it != jobs_.end()) {
    ++coalesced_;
    it->second->callbacks.push_back(std::move(callback));
    return;
  }
  ++jobs_started_;
  auto job = std::make_unique<Job>();
  job->params.chain_der = chain_der;
  job->params.hostname = host;
  job->params.now = absl::Now();
  job->callbacks.push_back(std::move(callback));
  Job* raw = job.get();
  jobs_[key] = std::move(job);
  int rv = verifier_->Verify(
      raw->params, &raw->result,
      [weak = weak_factory_.GetWeakPtr(), key](int rv) {
        if (weak) weak->Finish(key, rv);
      },
      &raw->request);
  if (rv != ERR_IO_PENDING) Finish(key, rv);
}

void Prevalidator::Finish(const std::string& key, int rv) {
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return;
  std::unique_ptr<Job> job = std::move(it->second);
  jobs_.erase(it);
  job->result.error = rv;
  if (rv == OK) done_[key] = Done{job->result, absl::Now() + freshness_};
  for (CompletionOnceCallback& cb : job->callbacks) {
    EventLoop::Current()->PostTask(
        [cb = std::move(cb), rv]() mutable { std::move(cb)(rv); });
  }
}

const CertVerifyResult* Prevalidator::Lookup(
    const std::vector<std::string>& chain_der, const std::string& host) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = done_.find(Key(chain_der, host));
  if (it == done_.end()) return nullptr;
  if (absl::Now() >= it->second.expires) {
    done_.erase(it);
    return nullptr;
  }
  return &it->second.result;
}

int PrevalidatedCertVerifier::Verify(const CertVerifyParams& params,
                                     CertVerifyResult* result,
                                     CompletionOnceCallback callback,
                                     std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (LookupPrevalidated(params, result)) return OK;
  return fallback_->Verify(params, result, std::move(callback), out_request);
}

bool PrevalidatedCertVerifier::LookupPrevalidated(
    const CertVerifyParams& params, CertVerifyResult* result) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  const CertVerifyResult* done =
      prevalidator_->Lookup(params.chain_der, params.hostname);
  if (!done) return false;
  ++hits_;
  *result = *done;
  // Nothing of it happened on this connection's critical path.
  result->verify_duration = absl::ZeroDuration();
  result->revocation_duration = absl::ZeroDuration();
  result->revocation_source = RevocationSource::kPrevalidated;
  for (RevocationCheck& c : result->revocation_checks)
    c.source = RevocationSource::kPrevalidated;
  return true;
}

}  // namespace net
