// ClientCertProvider: the seam through which a TLS client gets the
// certificate and key to present when a server sends a CertificateRequest;
// ObcClientCertProvider answers with the origin's OBC from an
// OriginBoundCertStore.
//
// net/ssl owns a ClientCertProvider* (not the provider) per connection
// configuration; the provider is owned by the profile and outlives the
// sockets that use it. All calls on the network thread.

#ifndef CERT_OBC_CLIENT_CERT_PROVIDER_H_
#define CERT_OBC_CLIENT_CERT_PROVIDER_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <memory>
#include <string>

#include "cert/obc/obc_types.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"

namespace net {

// ClientCert is a certificate (DER, leaf only) and its private key.
struct ClientCert {
  std::string cert_der;
  bssl::UniquePtr<EVP_PKEY> key;
  // Where it came from, for the request's trace.
  ObcFacts facts;
};

class ClientCertProvider {
 public:
  // Request is an outstanding GetClientCert(); destroying it cancels it.
  class Request {
   public:
    virtual ~Request() = default;
  };
  virtual ~ClientCertProvider() = default;

  // GetClientCert fills |*cert| with the certificate to present to
  // |origin| and returns OK, or returns ERR_IO_PENDING and runs |callback|
  // later with OK (|*cert| filled) or an error. |*cert| must stay valid
  // until then or until |*out_request| is destroyed. The certificate is
  // always |origin|'s own: never one bound to another scope.
  virtual int GetClientCert(const Origin& origin, ClientCert* cert,
                            CompletionOnceCallback callback,
                            std::unique_ptr<Request>* out_request) = 0;

  // LookupClientCert: the certificate (DER) GetClientCert would give
  // |origin| now, if it has one already (true); false if it has none yet or
  // the provider cannot say. Creates nothing, never waits. An HTTP/2 session
  // that presented one certificate carries another origin only if this
  // names the same one (HTTP/2 has no CREDENTIAL frame).
  virtual bool LookupClientCert(const Origin& origin, std::string* cert_der) {
    return false;
  }
};

// ObcClientCertProvider presents |store|'s OBC for the origin's scope (in
// the store's scope mode), creating it with |algorithm| if the scope has
// none. |store| is not owned and must outlive the provider and its
// requests.
class ObcClientCertProvider : public ClientCertProvider {
 public:
  ObcClientCertProvider(OriginBoundCertStore* store, KeyAlgorithm algorithm)
      : store_(store), algorithm_(algorithm) {}

  int GetClientCert(const Origin& origin, ClientCert* cert,
                    CompletionOnceCallback callback,
                    std::unique_ptr<Request>* out_request) override;
  // The store's certificate for |origin|'s scope, if it has one.
  bool LookupClientCert(const Origin& origin, std::string* cert_der) override;

  KeyAlgorithm algorithm() const { return algorithm_; }

 private:
  class RequestImpl;
  OriginBoundCertStore* const store_;
  const KeyAlgorithm algorithm_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // CERT_OBC_CLIENT_CERT_PROVIDER_H_
