// The bundle sources that fetch a bundle file over plain HTTP, through
// net/base's UrlFetcher (net/cert_net's HttpUrlFetcher in production, with
// the local world's URL rewrites):
//
//   WellKnownBundleSource  http://<host>/.well-known/cert-bundle on the
//                          server itself
//   CdnBundleSource        <base>/<host>.crt from every configured CDN at
//                          once: the first valid answer wins and the other
//                          requests are cancelled
//
// and FetchBundleFile, the one GET-decode-check step they (and the DNS
// source's pointer records) share. A file is valid when it decodes
// (DecodeBundleFile) and passes ValidateBundleShape for the host and port
// asked for. The fetcher is not owned and must outlive the sources.
// Network-thread affine.

#ifndef PREFETCH_HTTP_BUNDLE_SOURCES_H_
#define PREFETCH_HTTP_BUNDLE_SOURCES_H_

#include <memory>
#include <string>
#include <vector>

#include "net/base/thread_checker.h"
#include "net/base/url_fetcher.h"
#include "prefetch/bundle_source.h"

namespace net {

// FetchBundleFile GETs |url| and delivers the bundle for |host|:|port| it
// holds, tagged |type|, or why not. Destroying |*out_request| cancels.
void FetchBundleFile(UrlFetcher* fetcher, const std::string& url,
                     const std::string& host, uint16_t port,
                     BundleSourceType type, BundleSource::Callback callback,
                     std::unique_ptr<BundleSource::Request>* out_request);

class WellKnownBundleSource : public BundleSource {
 public:
  explicit WellKnownBundleSource(UrlFetcher* fetcher) : fetcher_(fetcher) {}
  BundleSourceType type() const override {
    return BundleSourceType::kWellKnown;
  }
  void Fetch(const std::string& host, uint16_t port, Callback callback,
             std::unique_ptr<Request>* out_request) override;

 private:
  UrlFetcher* const fetcher_;
  ThreadChecker thread_checker_;
};

class CdnBundleSource : public BundleSource {
 public:
  // |base_urls| like "http://cdn1.example.test/bundles" (no trailing '/').
  CdnBundleSource(UrlFetcher* fetcher, std::vector<std::string> base_urls)
      : fetcher_(fetcher), base_urls_(std::move(base_urls)) {}
  BundleSourceType type() const override { return BundleSourceType::kCdn; }
  void Fetch(const std::string& host, uint16_t port, Callback callback,
             std::unique_ptr<Request>* out_request) override;

  const std::vector<std::string>& base_urls() const { return base_urls_; }

 private:
  class RaceRequest;
  UrlFetcher* const fetcher_;
  const std::vector<std::string> base_urls_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // PREFETCH_HTTP_BUNDLE_SOURCES_H_
