#include "prefetch/dns_bundle_source.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/base/weak_ptr.h"
#include "prefetch/http_bundle_sources.h"

namespace net {
namespace {

// The resolver joins a record's strings; ParseBundleTxt takes them apart.
// Strings concatenate, so any cut into <= 255-byte pieces is the same
// record.
std::vector<std::string> SplitIntoStrings(const std::string& record) {
  std::vector<std::string> strings;
  for (size_t i = 0; i < record.size(); i += kMaxTxtStringBytes)
    strings.push_back(record.substr(i, kMaxTxtStringBytes));
  return strings;
}

}  // namespace

class DnsBundleSource::TxtRequest : public BundleSource::Request {
 public:
  TxtRequest(DnsBundleSource* source, std::string host, uint16_t port,
             Callback callback)
      : source_(source),
        host_(std::move(host)),
        port_(port),
        name_(BundleTxtName(host_)),
        callback_(std::move(callback)) {}

  void Start() {
    int rv = source_->resolver_->ResolveTxt(
        name_, &records_, [this](int rv) { OnTxt(rv); }, &resolve_request_);
    if (rv != ERR_IO_PENDING) {
      // Never answer inside Fetch.
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
        if (weak) weak->OnTxt(rv);
      });
    }
  }

 private:
  void OnTxt(int rv) {
    resolve_request_.reset();
    if (rv != OK) {
      Finish(absl::NotFoundError(
          absl::StrCat("TXT ", name_, ": ", ErrorToShortString(rv))));
      return;
    }
    std::vector<std::string> errors;
    for (const std::string& record : records_) {
      if (!absl::StartsWith(record, "v=cb1")) continue;
      absl::StatusOr<BundleTxtRecord> parsed =
          ParseBundleTxt(SplitIntoStrings(record));
      if (!parsed.ok()) {
        errors.push_back(std::string(parsed.status().message()));
        continue;
      }
      if (const BundlePointer* pointer = std::get_if<BundlePointer>(&*parsed)) {
        // A pointer: the file it names decides.
        FetchBundleFile(
            source_->fetcher_, pointer->url, host_, port_,
            BundleSourceType::kDns,
            [this](absl::StatusOr<FetchedBundle> result) {
              if (!result.ok()) {
                Finish(absl::Status(result.status().code(),
                                    absl::StrCat("TXT ", name_, " points to ",
                                                 result.status().message())));
                return;
              }
              result->via = absl::StrCat(name_, " -> ", result->via);
              Finish(std::move(result));
            },
            &file_request_);
        return;
      }
      CertBundle bundle = std::get<CertBundle>(*std::move(parsed));
      absl::Status shape =
          ValidateBundleShape(bundle, host_, port_, absl::Now());
      if (!shape.ok()) {
        errors.push_back(std::string(shape.message()));
        continue;
      }
      FetchedBundle fetched;
      fetched.bundle = std::move(bundle);
      fetched.source = BundleSourceType::kDns;
      fetched.bytes = record.size();
      fetched.via = name_;
      Finish(std::move(fetched));
      return;
    }
    if (errors.empty()) {
      Finish(absl::NotFoundError(
          absl::StrCat("TXT ", name_, ": no v=cb1 record")));
    } else {
      Finish(absl::InvalidArgumentError(
          absl::StrCat("TXT ", name_, ": ", absl::StrJoin(errors, "; "))));
    }
  }

  void Finish(absl::StatusOr<FetchedBundle> result) {
    if (!callback_) return;
    // The callback may destroy this request: run it from a local.
    Callback callback = std::move(callback_);
    std::move(callback)(std::move(result));
  }

  DnsBundleSource* const source_;
  const std::string host_;
  const uint16_t port_;
  const std::string name_;
  Callback callback_;
  std::vector<std::string> records_;
  std::unique_ptr<HostResolver::Request> resolve_request_;
  std::unique_ptr<BundleSource::Request> file_request_;
  WeakPtrFactory<TxtRequest> weak_factory_{this};
};

void DnsBundleSource::Fetch(const std::string& host, uint16_t port,
                            Callback callback,
                            std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto request =
      std::make_unique<TxtRequest>(this, host, port, std::move(callback));
  request->Start();
  *out_request = std::move(request);
}

}  // namespace net
