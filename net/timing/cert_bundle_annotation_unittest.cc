// AnnotateCertBundle: each way a prefetched bundle is used or not, and the
// prevalidator's answer standing in for a Snap Start connection's
// verification.

#include "net/timing/cert_bundle_annotation.h"

#include "gtest/gtest.h"

namespace net {
namespace {

PrefetchedBundleFacts ReadyFacts() {
  PrefetchedBundleFacts facts;
  facts.state = PrefetchedBundleFacts::State::kReady;
  facts.rejected = {"dns: no TXT record"};
  facts.source = "well-known";
  facts.via = "http://a.test/.well-known/certbundle";
  facts.bytes = 1234;
  facts.prevalidated = true;
  facts.fetched_at = absl::Now() - absl::Seconds(30);
  facts.chain_der = {"leaf", "intermediate"};
  return facts;
}

bool NoLookup(CertVerifyResult*) {
  ADD_FAILURE() << "no lookup expected";
  return false;
}

TEST(CertBundleAnnotationTest, RunningOrFailedPrefetchSaysWhy) {
  LoadTiming timing;
  timing.cert_bundle.used = true;  // overwritten: a fresh account each time
  PrefetchedBundleFacts facts;
  facts.state = PrefetchedBundleFacts::State::kRunning;
  AnnotateCertBundle(facts, NoLookup, &timing);
  EXPECT_TRUE(timing.cert_bundle.present);
  EXPECT_FALSE(timing.cert_bundle.used);
  EXPECT_EQ("the prefetch had not finished",
            timing.cert_bundle.not_used_because);

  facts.state = PrefetchedBundleFacts::State::kFailed;
  facts.rejected = {"cdn: 404"};
  AnnotateCertBundle(facts, NoLookup, &timing);
  EXPECT_EQ("no usable bundle", timing.cert_bundle.not_used_because);
  EXPECT_EQ(std::vector<std::string>{"cdn: 404"}, timing.cert_bundle.rejected);
  EXPECT_EQ("", timing.cert_bundle.source);
}

TEST(CertBundleAnnotationTest, PrevalidatedAnswerForTheSameLeafIsUse) {
  LoadTiming timing;
  timing.ssl.cert_verify.verified_chain_der = {"leaf", "intermediate", "root"};
  timing.ssl.cert_verify.revocation_source = RevocationSource::kPrevalidated;
  AnnotateCertBundle(ReadyFacts(), NoLookup, &timing);
  const CertBundleTrace& trace = timing.cert_bundle;
  EXPECT_TRUE(trace.used);
  EXPECT_EQ("", trace.not_used_because);
  EXPECT_EQ("well-known", trace.source);
  EXPECT_EQ(1234, trace.bytes);
  EXPECT_TRUE(trace.prevalidated);
  EXPECT_GE(trace.age, absl::Seconds(30));
}

TEST(CertBundleAnnotationTest, ReasonsForNotUsingAReadyBundle) {
  LoadTiming timing;
  timing.ssl.cert_verify.verified_chain_der = {"other-leaf"};
  AnnotateCertBundle(ReadyFacts(), NoLookup, &timing);
  EXPECT_FALSE(timing.cert_bundle.used);
  EXPECT_EQ("the server's chain differs from the bundle's",
            timing.cert_bundle.not_used_because);

  timing = LoadTiming();
  timing.ssl.cert_verify.verified_chain_der = {"leaf"};
  timing.ssl.cert_verify.revocation_source = RevocationSource::kFresh;
  AnnotateCertBundle(ReadyFacts(), NoLookup, &timing);
  EXPECT_EQ("the verification did not use the bundle",
            timing.cert_bundle.not_used_because);

  timing = LoadTiming();
  timing.ssl.resumed = true;
  AnnotateCertBundle(ReadyFacts(), NoLookup, &timing);
  EXPECT_EQ("the session was resumed", timing.cert_bundle.not_used_because);
}

TEST(CertBundleAnnotationTest, SnapStartFromTheBundleTakesThePrevalidation) {
  PrefetchedBundleFacts facts = ReadyFacts();
  facts.has_orbit = true;
  facts.snap_start_info_from_bundle = true;
  LoadTiming timing;
  timing.ssl.snap_start = SnapStartOutcome::kAccepted;
  int lookups = 0;
  AnnotateCertBundle(
      facts,
      [&](CertVerifyResult* result) {
        ++lookups;
        result->verified_chain_der = {"leaf", "intermediate", "root"};
        result->revocation_source = RevocationSource::kPrevalidated;
        return true;
      },
      &timing);
  EXPECT_EQ(1, lookups);
  EXPECT_TRUE(timing.cert_bundle.used);
  EXPECT_EQ(RevocationSource::kPrevalidated,
            timing.ssl.cert_verify.revocation_source);

  // Without the prevalidator's answer nothing is verified, and the bundle
  // did not serve.
  LoadTiming without;
  without.ssl.snap_start = SnapStartOutcome::kAccepted;
  AnnotateCertBundle(
      facts, [](CertVerifyResult*) { return false; }, &without);
  EXPECT_TRUE(without.ssl.cert_verify.verified_chain_der.empty());
  EXPECT_FALSE(without.cert_bundle.used);
}

}  // namespace
}  // namespace net
