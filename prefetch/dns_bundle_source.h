// DnsBundleSource: a server's bundle from the DNS TXT record at
// _certbundle.<host> (prefetch/cert_bundle.h: "v=cb1; b=<base64>" split over
// 255-byte strings, or a pointer "v=cb1; url=http://..." to a bundle file on
// a CDN or the server). The resolver does EDNS0 first and TCP when the answer
// is truncated; a pointer is followed through the UrlFetcher.
//
// Among several TXT records at the name, the ones starting "v=cb1" are
// tried in order and the first valid one wins. The resolver and fetcher are
// not owned and must outlive the source. Network-thread affine.

#ifndef PREFETCH_DNS_BUNDLE_SOURCE_H_
#define PREFETCH_DNS_BUNDLE_SOURCE_H_

#include <memory>
#include <string>

#include "dns/host_resolver.h"
#include "net/base/thread_checker.h"
#include "net/base/url_fetcher.h"
#include "prefetch/bundle_source.h"

namespace net {

class DnsBundleSource : public BundleSource {
 public:
  DnsBundleSource(HostResolver* resolver, UrlFetcher* fetcher)
      : resolver_(resolver), fetcher_(fetcher) {}
  BundleSourceType type() const override { return BundleSourceType::kDns; }
  void Fetch(const std::string& host, uint16_t port, Callback callback,
             std::unique_ptr<Request>* out_request) override;

 private:
  class TxtRequest;
  HostResolver* const resolver_;
  UrlFetcher* const fetcher_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // PREFETCH_DNS_BUNDLE_SOURCE_H_
