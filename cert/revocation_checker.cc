#include "cert/revocation_checker.h"

#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cert/crl.h"
#include "cert/ocsp.h"
#include "cert/x509_util.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"
#include "net/base/weak_ptr.h"

namespace net {

const char* RevocationModeToString(RevocationPolicy::Mode mode) {
  switch (mode) {
    case RevocationPolicy::Mode::kOff:
      return "off";
    case RevocationPolicy::Mode::kSoftFail:
      return "soft";
    case RevocationPolicy::Mode::kHardFail:
      return "hard";
    case RevocationPolicy::Mode::kFilter:
      return "filter";
  }
  return "?";
}

std::optional<RevocationPolicy::Mode> ParseRevocationMode(
    const std::string& text) {
  if (text == "off") return RevocationPolicy::Mode::kOff;
  if (text == "soft") return RevocationPolicy::Mode::kSoftFail;
  if (text == "hard") return RevocationPolicy::Mode::kHardFail;
  if (text == "filter") return RevocationPolicy::Mode::kFilter;
  return std::nullopt;
}

std::optional<RevocationCache::Entry> RevocationCache::Lookup(
    const std::string& key, absl::Time now) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.expires <= now) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second;
}

void RevocationCache::Put(const std::string& key, const Entry& entry) {
  entries_[key] = entry;
}

// The payload: one line per entry, "hex(key) revoked(0|1)
// expires-unix-seconds\n", in a frame (net/base/framed_file.h).
namespace {
constexpr char kRevocationCacheRemedy[] =
    "move it away to start with an empty revocation cache";
}  // namespace

std::string RevocationCache::Serialize() const {
  std::string text;
  for (const auto& [key, entry] : entries_) {
    absl::StrAppend(&text, absl::BytesToHexString(key), " ",
                    entry.revoked ? 1 : 0, " ",
                    absl::ToUnixSeconds(entry.expires), "\n");
  }
  return FrameFileContents(kMagic, kVersion, text);
}

absl::StatusOr<RevocationCache> RevocationCache::Parse(
    const std::string& bytes, const std::string& name) {
  if (absl::StartsWith(bytes, "netstack-revocation-cache 1\n")) {
    return CorruptFileError(
        name, "unframed format of an older version, no longer read",
        kRevocationCacheRemedy);
  }
  absl::StatusOr<std::string> text =
      UnframeFileContents(bytes, kMagic, kVersion);
  if (!text.ok())
    return CorruptFileError(name, text.status().message(),
                            kRevocationCacheRemedy);
  if (!text->empty() && text->back() != '\n')
    return CorruptFileError(name, "last line unterminated",
                            kRevocationCacheRemedy);
  RevocationCache cache;
  std::vector<absl::string_view> lines =
      absl::StrSplit(*text, '\n', absl::SkipEmpty());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<absl::string_view> f = absl::StrSplit(lines[i], ' ');
    int64_t expires;
    std::string key;
    if (f.size() != 3 || (f[1] != "0" && f[1] != "1") ||
        !absl::SimpleAtoi(f[2], &expires) || f[0].empty() ||
        f[0].size() % 2 != 0 ||
        f[0].find_first_not_of("0123456789abcdef") != absl::string_view::npos) {
      return CorruptFileError(name, absl::StrCat("bad entry ", i + 1),
                              kRevocationCacheRemedy);
    }
    key = absl::HexStringToBytes(f[0]);
    if (!cache.entries_
             .emplace(key, Entry{f[1] == "1", absl::FromUnixSeconds(expires)})
             .second) {
      return CorruptFileError(name, absl::StrCat("duplicate entry ", i + 1),
                              kRevocationCacheRemedy);
    }
  }
  return cache;
}

absl::StatusOr<RevocationCache> RevocationCache::Load(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (absl::IsNotFound(bytes.status())) return RevocationCache();  // None yet.
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

absl::Status RevocationCache::Save(const std::string& path) const {
  return WriteFileAtomically(path, Serialize());
}

RevocationUrls GetRevocationUrls(const std::string& cert_der) {
  RevocationUrls urls;
  bssl::UniquePtr<X509> cert = DerToX509(cert_der);
  if (!cert) return urls;
  auto uri = [](const GENERAL_NAME* name) -> std::string {
    if (name->type != GEN_URI) return "";
    const ASN1_STRING* s = name->d.uniformResourceIdentifier;
    return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                       ASN1_STRING_length(s));
  };
  bssl::UniquePtr<AUTHORITY_INFO_ACCESS> aia(
      static_cast<AUTHORITY_INFO_ACCESS*>(
          X509_get_ext_d2i(cert.get(), NID_info_access, nullptr, nullptr)));
  if (aia) {
    for (size_t i = 0; i < sk_ACCESS_DESCRIPTION_num(aia.get()); ++i) {
      const ACCESS_DESCRIPTION* ad = sk_ACCESS_DESCRIPTION_value(aia.get(), i);
      if (OBJ_obj2nid(ad->method) != NID_ad_OCSP) continue;
      std::string u = uri(ad->location);
      if (!u.empty()) urls.ocsp.push_back(u);
    }
  }
  bssl::UniquePtr<CRL_DIST_POINTS> dps(
      static_cast<CRL_DIST_POINTS*>(X509_get_ext_d2i(
          cert.get(), NID_crl_distribution_points, nullptr, nullptr)));
  if (dps) {
    for (size_t i = 0; i < sk_DIST_POINT_num(dps.get()); ++i) {
      const DIST_POINT* dp = sk_DIST_POINT_value(dps.get(), i);
      if (!dp->distpoint || dp->distpoint->type != 0) continue;
      const GENERAL_NAMES* names = dp->distpoint->name.fullname;
      for (size_t j = 0; j < sk_GENERAL_NAME_num(names); ++j) {
        std::string u = uri(sk_GENERAL_NAME_value(names, j));
        if (!u.empty()) urls.crl.push_back(u);
      }
    }
  }
  return urls;
}

// Checks one chain element: stapled -> cache -> OCSP -> CRL.
class OcspCrlRevocationChecker::ElementCheck {
 public:
  enum class Verdict { kGood, kRevoked, kNoInfo, kUnable };

  ElementCheck(OcspCrlRevocationChecker* checker, int depth,
               std::string cert_der, std::string issuer_der,
               std::string stapled, absl::AnyInvocable<void()> done)
      : checker_(checker),
        cert_der_(std::move(cert_der)),
        issuer_der_(std::move(issuer_der)),
        stapled_(std::move(stapled)),
        done_(std::move(done)) {
    record_.depth = depth;
  }

  void Start() {
    record_.start = TimeTicks::Now();
    // The filter first: an answer there needs no request at all.
    if (checker_->filter_ && !StapleOnly()) {
      RevocationFilterStore::Result filter =
          checker_->filter_->Check(cert_der_, issuer_der_);
      const char* method = filter.from_stash ? "filter_stash" : "filter";
      const RevocationSource source = filter.from_stash
                                          ? RevocationSource::kFilterStash
                                          : RevocationSource::kFilter;
      switch (filter.answer) {
        case RevocationFilter::Answer::kRevoked:
          return Finish(Verdict::kRevoked, source, method, filter.detail);
        case RevocationFilter::Answer::kGood:
          if (stapled_.empty())
            return Finish(Verdict::kGood, source, method, filter.detail);
          // A staple can only add a revocation newer than the filter; any
          // other answer from it leaves the filter's.
          filter_good_detail_ = filter.detail;
          break;
        case RevocationFilter::Answer::kNotCovered:
          errors_ += filter.detail + "; ";
          break;
      }
    }
    urls_ = GetRevocationUrls(cert_der_);
    absl::StatusOr<OcspCertId> id = BuildOcspCertId(cert_der_, issuer_der_);
    if (id.ok()) {
      cert_id_ = *id;
      cache_key_ = id->issuer_key_hash + id->serial;
    }
    if (!stapled_.empty()) {
      VerifyOcsp(stapled_, RevocationSource::kStapled, "stapled");
      return;
    }
    CheckCacheThenFetch();
  }
  // The policy is off: only a staple counts, and one that does not answer
  // leaves the certificate unchecked (not "could not check").
  bool StapleOnly() const {
    return checker_->policy_.mode == RevocationPolicy::Mode::kOff;
  }

  Verdict verdict() const { return verdict_; }
  const RevocationCheck& record() const { return record_; }
  // Gives up on a check still running (the caller's deadline passed).
  void Abandon(const std::string& why) {
    if (finished_) return;
    weak_factory_.InvalidateWeakPtrs();  // drop worker replies in flight
    errors_ += why;
    Fail(errors_);
  }

 private:
  // After a staple that did not answer for this certificate: the filter's
  // good answer if it gave one, else the cache and the network.
  void AfterStaple() {
    if (filter_good_detail_) {
      return Finish(Verdict::kGood, RevocationSource::kFilter, "filter",
                    *filter_good_detail_);
    }
    CheckCacheThenFetch();
  }

  // Answers from the cache, else fetches: what happens without a staple, or
  // after one that does not answer for this certificate.
  void CheckCacheThenFetch() {
    if (StapleOnly()) return IgnoreStaple();
    if (!cache_key_.empty()) {
      if (auto hit = checker_->cache_->Lookup(cache_key_, absl::Now())) {
        Finish(hit->revoked ? Verdict::kRevoked : Verdict::kGood,
               RevocationSource::kCache, "cache", "");
        return;
      }
    }
    TryNext();
  }

  // Tries the next OCSP URL, then the next CRL URL; gives up when none is
  // left.
  void TryNext() {
    if (ocsp_index_ < urls_.ocsp.size()) {
      const std::string& url = urls_.ocsp[ocsp_index_++];
      if (!cert_id_)
        return Fail("the certificate or its issuer does not parse");
      uint8_t nonce_bytes[16];
      RAND_bytes(nonce_bytes, sizeof(nonce_bytes));
      nonce_.assign(reinterpret_cast<char*>(nonce_bytes), sizeof(nonce_bytes));
      absl::StatusOr<std::string> request = BuildOcspRequest(*cert_id_, nonce_);
      if (!request.ok()) return Fail(std::string(request.status().message()));
      std::optional<std::string> get_url = OcspGetUrl(url, *request);
      checker_->fetcher_->Fetch(
          get_url ? *get_url : url, get_url ? "" : *request,
          "application/ocsp-request",
          [this](int rv, std::string body) {
            if (rv != OK) {
              errors_ += absl::StrCat("OCSP fetch: ", ErrorToShortString(rv),
                                      body.empty() ? "" : " ", body, "; ");
              return TryNext();
            }
            VerifyOcsp(std::move(body), RevocationSource::kFresh, "ocsp");
          },
          &fetch_);
      return;
    }
    if (crl_index_ < urls_.crl.size()) {
      const std::string& url = urls_.crl[crl_index_++];
      checker_->fetcher_->Fetch(
          url, "", "",
          [this](int rv, std::string body) {
            if (rv != OK) {
              errors_ += absl::StrCat("CRL fetch: ", ErrorToShortString(rv),
                                      body.empty() ? "" : " ", body, "; ");
              return TryNext();
            }
            VerifyCrl(std::move(body));
          },
          &fetch_);
      return;
    }
    if (urls_.ocsp.empty() && urls_.crl.empty()) {
      return Finish(Verdict::kNoInfo, RevocationSource::kNotChecked, "none",
                    "no OCSP or CRL URL in the certificate");
    }
    Fail(errors_);
  }

  void IgnoreStaple() {
    Finish(Verdict::kNoInfo, RevocationSource::kNotChecked, "none",
           absl::StrCat(errors_, "revocation checking off: nothing fetched"));
  }

  void VerifyOcsp(std::string response, RevocationSource source,
                  const char* method) {
    OcspVerifyOptions options;
    options.now = absl::Now();
    options.max_age = checker_->policy_.max_age;
    options.expected_nonce = nonce_;
    auto work = [response = std::move(response), cert = cert_der_,
                 issuer = issuer_der_, options]() {
      return VerifyOcspResponse(response, cert, issuer, options);
    };
    auto reply = [this, source, method](absl::StatusOr<OcspResult> result) {
      // A staple that does not answer (another certificate's, expired,
      // badly signed, unknown) is ignored: the cache, then fetching, as if
      // there were none. A bad fetched answer goes on to the next URL.
      const bool staple = source == RevocationSource::kStapled;
      if (!result.ok()) {
        errors_ += absl::StrCat(method, ": ", result.status().message(), "; ");
        return staple ? AfterStaple() : TryNext();
      }
      if (result->status == OcspCertStatus::kUnknown) {
        errors_ += absl::StrCat(method, ": responder says unknown; ");
        return staple ? AfterStaple() : TryNext();
      }
      bool revoked = result->status == OcspCertStatus::kRevoked;
      if (!revoked && filter_good_detail_) {
        // The filter had said good; the staple agrees.
        return Finish(Verdict::kGood, RevocationSource::kFilter, "filter",
                      *filter_good_detail_);
      }
      absl::Time expires = options_now_ + checker_->policy_.max_age;
      if (result->next_update && *result->next_update < expires)
        expires = *result->next_update;
      if (!cache_key_.empty())
        checker_->cache_->Put(cache_key_, {revoked, expires});
      Finish(revoked ? Verdict::kRevoked : Verdict::kGood, source, method, "");
    };
    options_now_ = options.now;
    RunOnWorker<absl::StatusOr<OcspResult>>(std::move(work), std::move(reply));
  }

  void VerifyCrl(std::string crl) {
    absl::Time now = absl::Now();
    options_now_ = now;
    auto work = [crl = std::move(crl), cert = cert_der_, issuer = issuer_der_,
                 now]() { return CheckCrl(crl, cert, issuer, now); };
    auto reply = [this](absl::StatusOr<CrlResult> result) {
      if (!result.ok()) {
        errors_ += absl::StrCat(result.status().message(), "; ");
        return TryNext();
      }
      absl::Time expires = options_now_ + checker_->policy_.max_age;
      if (result->next_update && *result->next_update < expires)
        expires = *result->next_update;
      if (!cache_key_.empty())
        checker_->cache_->Put(cache_key_, {result->revoked, expires});
      Finish(result->revoked ? Verdict::kRevoked : Verdict::kGood,
             RevocationSource::kFresh, "crl", "");
    };
    RunOnWorker<absl::StatusOr<CrlResult>>(std::move(work), std::move(reply));
  }

  template <typename R, typename W, typename Reply>
  void RunOnWorker(W work, Reply reply) {
    if (!checker_->pool_) {
      R r = work();
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(),
                                      reply = std::move(reply),
                                      r = std::move(r)]() mutable {
        if (weak) reply(std::move(r));
      });
      return;
    }
    checker_->pool_->PostTaskAndReplyWithResult<R>(
        std::move(work), [weak = weak_factory_.GetWeakPtr(),
                          reply = std::move(reply)](R r) mutable {
          if (weak) reply(std::move(r));
        });
  }

  void Fail(const std::string& why) {
    Finish(Verdict::kUnable, RevocationSource::kNotChecked, "none", why);
  }

  void Finish(Verdict verdict, RevocationSource source, const char* method,
              const std::string& detail) {
    if (finished_) return;
    finished_ = true;
    verdict_ = verdict;
    record_.end = TimeTicks::Now();
    record_.source = source;
    record_.method = method;
    record_.detail = detail.empty() ? errors_ : detail;
    switch (verdict) {
      case Verdict::kGood:
        record_.outcome = RevocationOutcome::kGood;
        break;
      case Verdict::kRevoked:
        record_.outcome = RevocationOutcome::kRevoked;
        break;
      case Verdict::kNoInfo:
        record_.outcome = RevocationOutcome::kNoInfo;
        break;
      case Verdict::kUnable:
        record_.outcome = RevocationOutcome::kUnableToCheck;
        break;
    }
    fetch_.reset();
    std::move(done_)();
  }

  OcspCrlRevocationChecker* const checker_;
  const std::string cert_der_;
  const std::string issuer_der_;
  const std::string stapled_;
  absl::AnyInvocable<void()> done_;
  RevocationUrls urls_;
  size_t ocsp_index_ = 0;
  size_t crl_index_ = 0;
  std::optional<OcspCertId> cert_id_;
  std::string cache_key_;
  std::string nonce_;
  std::string errors_;
  // The filter said good and a staple is being read (see Start).
  std::optional<std::string> filter_good_detail_;
  absl::Time options_now_;
  std::unique_ptr<RevocationFetcher::Request> fetch_;
  Verdict verdict_ = Verdict::kUnable;
  bool finished_ = false;
  RevocationCheck record_;
  WeakPtrFactory<ElementCheck> weak_factory_{this};
};

// The checks of one chain, all started at once.
class OcspCrlRevocationChecker::CheckRequest : public CertVerifier::Request {
 public:
  CheckRequest(OcspCrlRevocationChecker* checker, CertVerifyResult* result,
               CompletionOnceCallback callback)
      : checker_(checker), result_(result), callback_(std::move(callback)) {}

  int Start(const CertVerifyParams& params) {
    const std::vector<std::string>& chain = result_->verified_chain_der;
    start_ = TimeTicks::Now();
    // Every element but the trust anchor, in parallel; with the policy off,
    // the leaf's staple alone.
    size_t elements = chain.empty() ? 0 : chain.size() - 1;
    if (checker_->policy_.mode == RevocationPolicy::Mode::kOff)
      elements = std::min<size_t>(elements, 1);
    for (size_t i = 0; i < elements; ++i) {
      elements_.push_back(std::make_unique<ElementCheck>(
          checker_, static_cast<int>(i), chain[i], chain[i + 1],
          i == 0 ? params.stapled_ocsp_response : "",
          [this] { OnElementDone(); }));
    }
    pending_ = elements_.size();
    if (pending_ == 0) return Aggregate();
    deadline_.Start(checker_->policy_.deadline, [this] { OnDeadline(); });
    for (auto& e : elements_) e->Start();
    return ERR_IO_PENDING;
  }

 private:
  // Elements still running are abandoned as "could not check".
  void OnDeadline() {
    for (auto& e : elements_) e->Abandon("deadline passed");
  }

  void OnElementDone() {
    if (--pending_ > 0) return;
    deadline_.Stop();
    // Report from a task: an element may finish inside Start().
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (!weak) return;
      int rv = weak->Aggregate();
      std::move(weak->callback_)(rv);
    });
  }

  int Aggregate() {
    bool revoked = false, unable = false, any_fresh = false, any_cache = false,
         any_stapled = false, any_filter = false, any_stash = false;
    for (auto& e : elements_) {
      result_->revocation_checks.push_back(e->record());
      switch (e->verdict()) {
        case ElementCheck::Verdict::kRevoked:
          revoked = true;
          break;
        case ElementCheck::Verdict::kUnable:
          unable = true;
          break;
        default:
          break;
      }
      any_fresh |= e->record().source == RevocationSource::kFresh;
      any_cache |= e->record().source == RevocationSource::kCache;
      any_stapled |= e->record().source == RevocationSource::kStapled;
      any_filter |= e->record().source == RevocationSource::kFilter;
      any_stash |= e->record().source == RevocationSource::kFilterStash;
    }
    result_->revocation_duration = TimeTicks::Now() - start_;
    // The costliest source any element needed names the chain's.
    result_->revocation_source = any_fresh     ? RevocationSource::kFresh
                                 : any_stapled ? RevocationSource::kStapled
                                 : any_cache   ? RevocationSource::kCache
                                 : any_stash   ? RevocationSource::kFilterStash
                                 : any_filter  ? RevocationSource::kFilter
                                               : RevocationSource::kNotChecked;
    if (revoked) {
      result_->revocation_outcome = RevocationOutcome::kRevoked;
      result_->error = ERR_CERT_REVOKED;
      result_->detail = "a certificate in the chain is revoked";
      return ERR_CERT_REVOKED;
    }
    if (checker_->policy_.mode == RevocationPolicy::Mode::kOff) {
      // Only a staple that answered makes the result a checked one.
      result_->revocation_outcome = any_stapled
                                        ? RevocationOutcome::kGood
                                        : RevocationOutcome::kNotChecked;
      return OK;
    }
    if (unable) {
      if (checker_->policy_.mode == RevocationPolicy::Mode::kHardFail) {
        result_->revocation_outcome = RevocationOutcome::kUnableToCheck;
        result_->error = ERR_CERT_UNABLE_TO_CHECK_REVOCATION;
        result_->detail = "revocation status unavailable (hard-fail policy)";
        for (auto& e : elements_) {
          if (e->verdict() == ElementCheck::Verdict::kUnable)
            result_->detail += ": " + e->record().detail;
        }
        return ERR_CERT_UNABLE_TO_CHECK_REVOCATION;
      }
      result_->revocation_outcome = RevocationOutcome::kSoftFailed;
      return OK;
    }
    result_->revocation_outcome = RevocationOutcome::kGood;
    return OK;
  }

  OcspCrlRevocationChecker* const checker_;
  CertVerifyResult* const result_;
  CompletionOnceCallback callback_;
  std::vector<std::unique_ptr<ElementCheck>> elements_;
  size_t pending_ = 0;
  TimeTicks start_;
  OneShotTimer deadline_;
  WeakPtrFactory<CheckRequest> weak_factory_{this};
};

OcspCrlRevocationChecker::OcspCrlRevocationChecker(
    const RevocationPolicy& policy, RevocationFetcher* fetcher,
    RevocationCache* cache, WorkerPool* pool,
    const RevocationFilterStore* filter)
    : policy_(policy),
      fetcher_(fetcher),
      cache_(cache),
      pool_(pool),
      filter_(filter) {}

OcspCrlRevocationChecker::~OcspCrlRevocationChecker() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int OcspCrlRevocationChecker::Check(
    const CertVerifyParams& params, CertVerifyResult* result,
    CompletionOnceCallback callback,
    std::unique_ptr<CertVerifier::Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (policy_.mode == RevocationPolicy::Mode::kOff &&
      params.stapled_ocsp_response.empty()) {
    return OK;
  }
  auto request =
      std::make_unique<CheckRequest>(this, result, std::move(callback));
  int rv = request->Start(params);
  if (rv == ERR_IO_PENDING) *out_request = std::move(request);
  return rv;
}

}  // namespace net
