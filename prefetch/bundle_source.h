// BundleSource: one way of getting a server's certificate bundle before the
// first connection to it — a DNS TXT record, the server's HTTP well-known
// path, CDNs, or a truncated TLS handshake. CertPrefetcher runs them in a
// configured order; each implementation is an async job that cancels on
// destruction.
//
// A source checks what it got for shape (prefetch/cert_bundle.h's
// ValidateBundleShape: right host and port, parseable, unexpired); trust is
// not its business: the prefetcher verifies every chain before any use.
//
// Sources are owned by the embedder (net/context) and must outlive their
// requests. Network-thread affine.

#ifndef PREFETCH_BUNDLE_SOURCE_H_
#define PREFETCH_BUNDLE_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "prefetch/cert_bundle.h"

namespace net {

enum class BundleSourceType { kDns, kWellKnown, kCdn, kTruncated };

// "dns", "well-known", "cdn", "truncated": the trace's and fetch's names.
const char* BundleSourceTypeToString(BundleSourceType type);
std::optional<BundleSourceType> ParseBundleSourceType(absl::string_view name);
// ParseBundleSourceList parses "dns,well-known,cdn,truncated" (each at most
// once, at least one).
absl::StatusOr<std::vector<BundleSourceType>> ParseBundleSourceList(
    absl::string_view list);

// FetchedBundle is a bundle as a source delivered it.
struct FetchedBundle {
  CertBundle bundle;
  BundleSourceType source = BundleSourceType::kDns;
  // Bytes of the carrier: the TXT record, the file, or the server's first
  // flight read by the truncated handshake.
  size_t bytes = 0;
  // Where it came from: the record name or the URL.
  std::string via;
  // The body of the ServerHello the server sent a Snap Start-capable
  // ClientHello, when the source saw one (the truncated handshake): the
  // template a Snap Start client predicts from. Empty otherwise.
  std::string server_hello;
};

class BundleSource {
 public:
  class Request {
   public:
    virtual ~Request() = default;
  };
  using Callback =
      absl::AnyInvocable<void(absl::StatusOr<FetchedBundle> result)>;

  virtual ~BundleSource() = default;
  virtual BundleSourceType type() const = 0;
  // Fetch gets |host|:|port|'s bundle. |callback| runs exactly once, later
  // (never inside Fetch), unless |*out_request| is destroyed first, which
  // cancels. Errors name what failed (NotFound: nothing published).
  virtual void Fetch(const std::string& host, uint16_t port, Callback callback,
                     std::unique_ptr<Request>* out_request) = 0;
};

}  // namespace net

#endif  // PREFETCH_BUNDLE_SOURCE_H_
