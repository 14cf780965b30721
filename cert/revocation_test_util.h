// Test-only: a RevocationFetcher answering registered URL prefixes after a
// delay, and a four-certificate chain (root -> two intermediates -> leaf)
// whose non-root elements each carry their own OCSP URL with a good
// response registered.

#ifndef CERT_REVOCATION_TEST_UTIL_H_
#define CERT_REVOCATION_TEST_UTIL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_fetcher.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"

namespace net {

class ScriptedRevocationFetcher : public RevocationFetcher {
 public:
  struct Answer {
    int rv = OK;
    std::string body;
  };
  std::map<std::string, Answer> answers;
  absl::Duration delay = absl::Milliseconds(50);

  void Fetch(const std::string& url, const std::string& post_body,
             const std::string&, Callback callback,
             std::unique_ptr<Request>* out) override {
    ++fetch_count_;
    Answer answer{ERR_CONNECTION_REFUSED, ""};
    for (const auto& [prefix, a] : answers) {
      if (absl::StartsWith(url, prefix)) answer = a;
    }
    auto request = std::make_unique<Pending>();
    request->timer.Start(delay,
                         [answer, callback = std::move(callback)]() mutable {
                           std::move(callback)(answer.rv, answer.body);
                         });
    *out = std::move(request);
  }

 private:
  struct Pending : Request {
    OneShotTimer timer;
  };
};

// TestChain: root -> i1 -> i2 -> leaf ("www.example.test"), each non-root
// element with OCSP URL http://ocsp.test/<name>.
struct TestChain {
  bssl::UniquePtr<EVP_PKEY> root_key, i1_key, i2_key, leaf_key;
  bssl::UniquePtr<X509> root, i1, i2, leaf;

  TestChain() {
    absl::Time from = absl::Now() - absl::Hours(24),
               to = absl::Now() + absl::Hours(24);
    root_key = MakeP256Key();
    i1_key = MakeP256Key();
    i2_key = MakeP256Key();
    leaf_key = MakeP256Key();
    root = MakeCert("Root", root_key.get(), nullptr, root_key.get(), false,
                    from, to, true);
    i1 = MakeCert("Inter 1", i1_key.get(), root.get(), root_key.get(), false,
                  from, to, true, "http://ocsp.test/i1",
                  "http://crl.test/root.crl");
    i2 = MakeCert("Inter 2", i2_key.get(), i1.get(), i1_key.get(), false, from,
                  to, true, "http://ocsp.test/i2");
    leaf = MakeCert("www.example.test", leaf_key.get(), i2.get(), i2_key.get(),
                    false, from, to, false, "http://ocsp.test/leaf");
  }
  // Leaf first, root last.
  std::vector<std::string> Der() const {
    return {X509ToDer(leaf.get()), X509ToDer(i2.get()), X509ToDer(i1.get()),
            X509ToDer(root.get())};
  }
  static void SetOcsp(ScriptedRevocationFetcher* fetcher,
                      const std::string& url, X509* cert, X509* issuer,
                      EVP_PKEY* issuer_key, OcspCertStatus status) {
    OcspResponseSpec spec;
    spec.cert_id = *BuildOcspCertId(X509ToDer(cert), X509ToDer(issuer));
    spec.status = status;
    spec.produced_at = spec.this_update = absl::Now() - absl::Minutes(1);
    spec.next_update = absl::Now() + absl::Hours(1);
    spec.signer_key = issuer_key;
    spec.responder = issuer;
    fetcher->answers[url] = {OK, BuildOcspResponse(spec)};
  }
  void RegisterGood(ScriptedRevocationFetcher* fetcher) const {
    SetOcsp(fetcher, "http://ocsp.test/i1", i1.get(), root.get(),
            root_key.get(), OcspCertStatus::kGood);
    SetOcsp(fetcher, "http://ocsp.test/i2", i2.get(), i1.get(), i1_key.get(),
            OcspCertStatus::kGood);
    SetOcsp(fetcher, "http://ocsp.test/leaf", leaf.get(), i2.get(),
            i2_key.get(), OcspCertStatus::kGood);
  }
};

}  // namespace net

#endif  // CERT_REVOCATION_TEST_UTIL_H_
