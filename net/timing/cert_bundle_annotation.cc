#include "net/timing/cert_bundle_annotation.h"

#include <utility>

#include "absl/time/clock.h"

namespace net {

void AnnotateCertBundle(
    const PrefetchedBundleFacts& facts,
    absl::FunctionRef<bool(CertVerifyResult*)> lookup_prevalidated,
    LoadTiming* timing) {
  CertBundleTrace& trace = timing->cert_bundle;
  trace = CertBundleTrace();  // a Snap Start attempt is reported twice
  trace.present = true;
  trace.rejected = facts.rejected;
  trace.started = facts.started;
  trace.received = facts.received;
  trace.ready = facts.ready;
  if (facts.state != PrefetchedBundleFacts::State::kReady) {
    trace.not_used_because =
        facts.state == PrefetchedBundleFacts::State::kRunning
            ? "the prefetch had not finished"
            : "no usable bundle";
    return;
  }
  trace.source = facts.source;
  trace.via = facts.via;
  trace.bytes = facts.bytes;
  trace.from_cache = facts.from_cache;
  trace.prevalidated = facts.prevalidated;
  trace.age = absl::Now() - facts.fetched_at;
  SSLInfo& ssl = timing->ssl;
  const bool snap_from_bundle = ssl.snap_start == SnapStartOutcome::kAccepted &&
                                facts.has_orbit &&
                                facts.snap_start_info_from_bundle;
  if (snap_from_bundle && ssl.cert_verify.verified_chain_der.empty()) {
    // The Snap Start socket trusted the information because the
    // prevalidator had verified the bundle's chain: that answer is this
    // connection's verification (nothing of it on the critical path).
    // A lookup only: without that answer nothing is verified here.
    CertVerifyResult result;
    if (lookup_prevalidated(&result)) ssl.cert_verify = std::move(result);
  }
  const bool same_leaf =
      !ssl.cert_verify.verified_chain_der.empty() && !facts.chain_der.empty() &&
      ssl.cert_verify.verified_chain_der[0] == facts.chain_der[0];
  const bool prevalidated_answer =
      ssl.cert_verify.revocation_source == RevocationSource::kPrevalidated;
  trace.used = same_leaf &&
               (prevalidated_answer || snap_from_bundle || !facts.prevalidated);
  if (!trace.used) {
    trace.not_used_because =
        ssl.resumed  ? "the session was resumed"
        : !same_leaf ? "the server's chain differs from the bundle's"
                     : "the verification did not use the bundle";
  }
}

}  // namespace net
