#include "prefetch/cert_prefetcher.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

// Records kept for the trace; the oldest finished ones go first.
constexpr size_t kMaxRecords = 1000;

}  // namespace

// Job: one host:port — the cache or the sources in order, then
// prevalidation; a rejected bundle moves on to the next source.
class CertPrefetcher::Job {
 public:
  Job(CertPrefetcher* prefetcher, PrefetchRecord* record)
      : prefetcher_(prefetcher), record_(record) {}

  void Start() {
    const PrefetchCache::Entry* cached =
        prefetcher_->cache_->Lookup(record_->host, record_->port, absl::Now());
    if (cached) {
      record_->from_cache = true;
      Received(cached->fetched, cached->fetched_at);
      return;
    }
    TryNextSource();
  }

 private:
  void TryNextSource() {
    const std::vector<BundleSourceType>& order =
        prefetcher_->options_.source_order;
    while (next_source_ < order.size()) {
      BundleSourceType type = order[next_source_++];
      auto it = prefetcher_->sources_.find(type);
      if (it == prefetcher_->sources_.end()) {
        record_->rejected.push_back(absl::StrCat(BundleSourceTypeToString(type),
                                                 ": source not configured"));
        continue;
      }
      current_ = type;
      timer_.Start(prefetcher_->options_.source_timeout, [this] {
        request_.reset();
        Rejected(absl::StrCat(
            "timed out after ",
            absl::FormatDuration(prefetcher_->options_.source_timeout)));
      });
      it->second->Fetch(
          record_->host, record_->port,
          [this](absl::StatusOr<FetchedBundle> result) {
            OnFetched(std::move(result));
          },
          &request_);
      return;
    }
    Finish(PrefetchRecord::State::kFailed);
  }

  void OnFetched(absl::StatusOr<FetchedBundle> result) {
    timer_.Stop();
    if (!result.ok()) {
      Rejected(std::string(result.status().message()));
      return;
    }
    prefetcher_->cache_->Put(*result, absl::Now());
    Received(*std::move(result), absl::Now());
  }

  void Received(FetchedBundle fetched, absl::Time fetched_at) {
    record_->fetched = std::move(fetched);
    record_->fetched_at = fetched_at;
    record_->bundle_received = prefetcher_->clock_->NowTicks();
    if (!prefetcher_->options_.prevalidate || !prefetcher_->prevalidator_) {
      Finish(PrefetchRecord::State::kReady);
      return;
    }
    prefetcher_->prevalidator_->Prevalidate(
        record_->fetched.bundle.chain, record_->host,
        [weak = weak_factory_.GetWeakPtr()](int rv) {
          if (weak) weak->OnPrevalidated(rv);
        });
  }

  void OnPrevalidated(int rv) {
    if (rv == OK) {
      record_->prevalidated = true;
      Finish(PrefetchRecord::State::kReady);
      return;
    }
    // The chain does not verify for this host: never use it, forget it.
    prefetcher_->cache_->Remove(record_->host, record_->port);
    std::string source = BundleSourceTypeToString(record_->fetched.source);
    std::string why = absl::StrCat("chain does not verify for ", record_->host,
                                   ": ", ErrorToShortString(rv));
    record_->fetched = FetchedBundle();
    if (record_->from_cache) {
      record_->from_cache = false;
      record_->rejected.push_back(absl::StrCat("cache (", source, "): ", why));
      TryNextSource();
      return;
    }
    record_->rejected.push_back(absl::StrCat(source, ": ", why));
    TryNextSource();
  }

  void Rejected(const std::string& why) {
    record_->rejected.push_back(
        absl::StrCat(BundleSourceTypeToString(current_), ": ", why));
    // Not from inside the source's callback stack: it may be destroying.
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (weak) {
        weak->request_.reset();
        weak->TryNextSource();
      }
    });
  }

  void Finish(PrefetchRecord::State state) {
    record_->state = state;
    record_->ready = prefetcher_->clock_->NowTicks();
    EventLoop::Current()->PostTask(
        [prefetcher = prefetcher_->weak_factory_.GetWeakPtr(), this] {
          if (prefetcher) prefetcher->OnJobDone(this);
        });
  }

  CertPrefetcher* const prefetcher_;
  PrefetchRecord* const record_;
  size_t next_source_ = 0;
  BundleSourceType current_ = BundleSourceType::kDns;
  std::unique_ptr<BundleSource::Request> request_;
  OneShotTimer timer_;
  WeakPtrFactory<Job> weak_factory_{this};
};

CertPrefetcher::CertPrefetcher(CertPrefetcherOptions options,
                               std::vector<BundleSource*> sources,
                               Prevalidator* prevalidator, PrefetchCache* cache,
                               const TickClock* clock)
    : options_(std::move(options)),
      prevalidator_(prevalidator),
      cache_(cache),
      clock_(clock) {
  for (BundleSource* source : sources) sources_[source->type()] = source;
}

CertPrefetcher::~CertPrefetcher() = default;

std::string CertPrefetcher::Key(const std::string& host, uint16_t port) {
  return absl::StrCat(host, ":", port);
}

void CertPrefetcher::SetPort(const std::string& host, uint16_t port) {
  ports_[host] = port;
}

void CertPrefetcher::OnHostPrefetched(const std::string& host, int result,
                                      const HostResolveResult& answer) {
  if (result != OK) return;  // no address: nothing to connect to
  auto it = ports_.find(host);
  Prefetch(host, it != ports_.end() ? it->second : options_.default_port);
}

void CertPrefetcher::Prefetch(const std::string& host, uint16_t port) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  const std::string key = Key(host, port);
  auto existing = records_.find(key);
  if (existing != records_.end()) {
    const PrefetchRecord& record = *existing->second;
    // Running or queued: join it. Ready and still cached: nothing to do.
    if (record.state == PrefetchRecord::State::kRunning) return;
    if (record.state == PrefetchRecord::State::kReady &&
        cache_->Lookup(host, port, absl::Now()))
      return;
  }
  if (queue_.size() >= options_.max_queued_jobs) {
    ++jobs_dropped_;
    return;
  }
  auto record = std::make_unique<PrefetchRecord>();
  record->host = host;
  record->port = port;
  record->started = clock_->NowTicks();
  if (existing != records_.end()) {
    record_order_.erase(std::find(record_order_.begin(), record_order_.end(),
                                  existing->second.get()));
  }
  record_order_.push_back(record.get());
  records_[key] = std::move(record);
  // Bound the records: drop the oldest finished one.
  if (records_.size() > kMaxRecords) {
    for (auto it = record_order_.begin(); it != record_order_.end(); ++it) {
      if ((*it)->state != PrefetchRecord::State::kRunning) {
        records_.erase(Key((*it)->host, (*it)->port));
        record_order_.erase(it);
        break;
      }
    }
  }
  queue_.push_back(key);
  StartQueued();
}

void CertPrefetcher::StartQueued() {
  while (!queue_.empty() && running_.size() < options_.max_concurrent_jobs) {
    std::string key = queue_.front();
    queue_.pop_front();
    auto record = records_.find(key);
    if (record == records_.end()) continue;
    ++jobs_started_;
    auto job = std::make_unique<Job>(this, record->second.get());
    Job* raw = job.get();
    running_[key] = std::move(job);
    raw->Start();
  }
}

void CertPrefetcher::OnJobDone(Job* job) {
  for (auto it = running_.begin(); it != running_.end(); ++it) {
    if (it->second.get() != job) continue;
    const std::string key = it->first;
    running_.erase(it);
    auto record = records_.find(key);
    if (observer_ && record != records_.end() &&
        record->second->state == PrefetchRecord::State::kReady)
      observer_->OnBundleReady(*record->second);
    break;
  }
  StartQueued();
  MaybeRunIdleCallbacks();
}

void CertPrefetcher::WhenIdle(absl::AnyInvocable<void()> callback) {
  idle_callbacks_.push_back(std::move(callback));
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak) weak->MaybeRunIdleCallbacks();
  });
}

void CertPrefetcher::MaybeRunIdleCallbacks() {
  if (!running_.empty() || !queue_.empty()) return;
  std::vector<absl::AnyInvocable<void()>> callbacks;
  callbacks.swap(idle_callbacks_);
  for (auto& callback : callbacks) std::move(callback)();
}

const PrefetchRecord* CertPrefetcher::Record(const std::string& host,
                                             uint16_t port) const {
  auto it = records_.find(Key(host, port));
  return it == records_.end() ? nullptr : it->second.get();
}

std::vector<const PrefetchRecord*> CertPrefetcher::Records() const {
  return record_order_;
}

}  // namespace net
