// AnnotateCertBundle: the trace's account of certificate-bundle prefetching
// for one connection (LoadTiming::cert_bundle) — what the prefetcher had for
// the host when the TLS handshake ended, and whether the handshake used it
// (the server's leaf is the bundle's and the verification answer was the
// prevalidated one, or Snap Start predicted from the bundle), or why not.
//
// Pure logic over plain facts: the caller (net/context's observer of TLS
// handshakes) gathers them from the prefetcher, the Snap Start state and the
// verifier, which all sit above net/timing. No state, no ownership.

#ifndef NET_TIMING_CERT_BUNDLE_ANNOTATION_H_
#define NET_TIMING_CERT_BUNDLE_ANNOTATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/timing/load_timing.h"

namespace net {

// PrefetchedBundleFacts: what the prefetcher's record for host:port says.
struct PrefetchedBundleFacts {
  enum class State { kRunning, kReady, kFailed };
  State state = State::kRunning;
  // Why each rejected bundle or failed source was not used, in order.
  std::vector<std::string> rejected;
  TimeTicks started;
  TimeTicks received;
  TimeTicks ready;
  // The bundle in use (kReady only).
  std::string source;  // "dns", "well-known", "cdn", "truncated"
  std::string via;
  int64_t bytes = 0;
  bool from_cache = false;
  bool prevalidated = false;
  absl::Time fetched_at;  // wall clock, for the bundle's age at use
  std::vector<std::string> chain_der;  // leaf first
  bool has_orbit = false;
  // The Snap Start information for host:port predicts with this bundle's
  // chain and orbit.
  bool snap_start_info_from_bundle = false;
};

// AnnotateCertBundle fills |timing->cert_bundle| from |facts| and
// |timing->ssl|. When Snap Start predicted from the bundle and the
// connection verified nothing itself, the prevalidator's answer for the
// bundle's chain is the connection's verification: |lookup_prevalidated|
// fills it in (returning false without one; it never verifies) and it goes
// into |timing->ssl.cert_verify|.
void AnnotateCertBundle(
    const PrefetchedBundleFacts& facts,
    absl::FunctionRef<bool(CertVerifyResult*)> lookup_prevalidated,
    LoadTiming* timing);

}  // namespace net

#endif  // NET_TIMING_CERT_BUNDLE_ANNOTATION_H_
