#include "cert/obc/client_cert_provider.h"

#include <utility>

namespace net {
namespace {

void MoveToClientCert(OriginBoundCertStore::Result* from, ClientCert* to) {
  to->cert_der = std::move(from->cert_der);
  to->key = std::move(from->key);
  to->facts = from->facts;
}

}  // namespace

// RequestImpl owns the store request and the store's result until the store
// answers, then hands the result to the caller's ClientCert.
class ObcClientCertProvider::RequestImpl : public ClientCertProvider::Request {
 public:
  RequestImpl(ClientCert* cert, CompletionOnceCallback callback)
      : cert_(cert), callback_(std::move(callback)) {}

  OriginBoundCertStore::Result* result() { return &result_; }
  std::unique_ptr<OriginBoundCertStore::Request>* store_request() {
    return &store_request_;
  }

  void OnStoreDone(int rv) {
    if (rv == OK) MoveToClientCert(&result_, cert_);
    // The callback may destroy this request: run it from a local.
    CompletionOnceCallback callback = std::move(callback_);
    callback(rv);
  }

 private:
  ClientCert* const cert_;
  CompletionOnceCallback callback_;
  OriginBoundCertStore::Result result_;
  std::unique_ptr<OriginBoundCertStore::Request> store_request_;
};

int ObcClientCertProvider::GetClientCert(
    const Origin& origin, ClientCert* cert, CompletionOnceCallback callback,
    std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto request = std::make_unique<RequestImpl>(cert, std::move(callback));
  RequestImpl* raw = request.get();
  // The store request lives inside |request|: destroying |request| cancels
  // it, so the store never calls back into a destroyed RequestImpl.
  int rv = store_->GetOrCreate(
      origin, algorithm_, raw->result(),
      [raw](int rv) { raw->OnStoreDone(rv); }, raw->store_request());
  if (rv == ERR_IO_PENDING) {
    *out_request = std::move(request);
    return rv;
  }
  if (rv == OK) MoveToClientCert(raw->result(), cert);
  return rv;
}

bool ObcClientCertProvider::LookupClientCert(const Origin& origin,
                                             std::string* cert_der) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  OriginBoundCertStore::Result result;
  if (!store_->Lookup(origin, &result)) return false;
  *cert_der = std::move(result.cert_der);
  return true;
}

}  // namespace net
