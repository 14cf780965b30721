#include "cert/obc/origin_bound_cert_store.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cert/obc/obc_crypto.h"
#include "net/base/file_util.h"

namespace net {

struct OriginBoundCertStore::Job {
  ObcScope scope;
  KeyPool::TakeResult taken;
  std::unique_ptr<KeyPool::Request> pool_request;
  std::vector<RequestImpl*> waiters;
};

class OriginBoundCertStore::RequestImpl : public OriginBoundCertStore::Request {
 public:
  RequestImpl(OriginBoundCertStore* store, std::string job_id, Result* result,
              CompletionOnceCallback callback, TimeTicks start, bool coalesced)
      : store_(store),
        job_id_(std::move(job_id)),
        result_(result),
        callback_(std::move(callback)),
        start_(start),
        coalesced_(coalesced) {}
  ~RequestImpl() override {
    if (store_ != nullptr) store_->CancelRequest(this);
  }

  const std::string& job_id() const { return job_id_; }
  Result* result() const { return result_; }
  TimeTicks start() const { return start_; }
  bool coalesced() const { return coalesced_; }
  CompletionOnceCallback Detach() {
    store_ = nullptr;
    return std::move(callback_);
  }

 private:
  OriginBoundCertStore* store_;
  const std::string job_id_;
  Result* const result_;
  CompletionOnceCallback callback_;
  const TimeTicks start_;
  const bool coalesced_;
};

absl::StatusOr<std::unique_ptr<OriginBoundCertStore>>
OriginBoundCertStore::Open(Options options, KeyPool* key_pool,
                           WorkerPool* workers) {
  if (options.private_profile) {
    return std::unique_ptr<OriginBoundCertStore>(new OriginBoundCertStore(
        std::move(options), key_pool, workers, nullptr));
  }
  if (options.profile_dir.empty())
    return absl::InvalidArgumentError(
        "a persistent profile needs a profile directory");
  absl::StatusOr<std::unique_ptr<ProfileLock>> lock =
      ProfileLock::Acquire(options.profile_dir);
  if (!lock.ok()) return lock.status();
  std::string path =
      absl::StrCat(options.profile_dir, "/", ObcStoreFile::kFileName);
  // Temporaries left by crashed writes are nobody's now that we hold the
  // lock; the file they were going to replace is intact.
  RemoveStaleTemporaries(path);
  absl::StatusOr<std::vector<ObcRecord>> records = ObcStoreFile::Load(path);
  if (!records.ok()) return records.status();

  auto writer = std::make_shared<ObcFileWriter>(path, *std::move(lock));
  std::unique_ptr<OriginBoundCertStore> store(new OriginBoundCertStore(
      std::move(options), key_pool, workers, std::move(writer)));
  for (ObcRecord& record : *records) {
    absl::StatusOr<absl::Time> not_after = CertificateNotAfter(record.cert_der);
    std::string id = record.scope.ToString();
    store->records_[id] =
        Entry{std::make_shared<const ObcRecord>(std::move(record)),
              not_after.ok() ? *not_after : absl::InfinitePast()};
  }
  return store;
}

OriginBoundCertStore::OriginBoundCertStore(
    Options options, KeyPool* key_pool, WorkerPool* workers,
    std::shared_ptr<ObcFileWriter> writer)
    : options_(std::move(options)),
      key_pool_(key_pool),
      workers_(workers),
      writer_(std::move(writer)) {}

OriginBoundCertStore::~OriginBoundCertStore() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  for (auto& [id, job] : jobs_) {
    for (RequestImpl* request : job->waiters) request->Detach();
  }
  if (writer_ != nullptr && mutation_seq_ > written_seq_) {
    // The last changes still reach the disk: the worker pool finishes
    // queued work before it goes away. The writer drops this write if a
    // newer one wins the race, and holds the profile lock until done.
    workers_->PostTask([writer = writer_, seq = mutation_seq_,
                        snapshot = Snapshot()]() mutable {
      (void)writer->Write(seq, snapshot);
      writer.reset();  // Release the profile lock now, not when the task is
                       // freed.
    });
  }
}

std::string OriginBoundCertStore::file_path() const {
  return writer_ != nullptr ? writer_->path() : std::string();
}

void OriginBoundCertStore::Fill(const ObcRecord& record, Result* result) {
  result->scope = record.scope;
  result->cert_der = record.cert_der;
  EVP_PKEY_up_ref(record.key.get());
  result->key.reset(record.key.get());
  result->facts = ObcFacts();
  result->facts.algorithm = record.algorithm;
}

int OriginBoundCertStore::GetOrCreate(const Origin& origin,
                                      KeyAlgorithm algorithm, Result* result,
                                      CompletionOnceCallback callback,
                                      std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  absl::StatusOr<ObcScope> scope =
      ObcScope::ForOrigin(origin, options_.scope_mode);
  if (!scope.ok()) return ERR_INVALID_URL;
  return GetOrCreate(*scope, algorithm, result, std::move(callback),
                     out_request);
}

int OriginBoundCertStore::GetOrCreate(const ObcScope& scope,
                                      KeyAlgorithm algorithm, Result* result,
                                      CompletionOnceCallback callback,
                                      std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (scope.key().empty()) return ERR_INVALID_ARGUMENT;
  std::string id = scope.ToString();
  if (auto it = records_.find(id); it != records_.end()) {
    ++stats_.cache_hits;
    const ObcRecord& record = it->second.not_after < Now() + kRenewBefore
                                  ? Put(it->second.record)
                                  : *it->second.record;
    Fill(record, result);
    result->facts.source = ObcSource::kCachedCert;
    return OK;
  }
  if (auto it = jobs_.find(id); it != jobs_.end()) {
    ++stats_.coalesced_requests;
    auto request = std::make_unique<RequestImpl>(
        this, id, result, std::move(callback), options_.tick_clock->NowTicks(),
        /*coalesced=*/true);
    it->second->waiters.push_back(request.get());
    *out_request = std::move(request);
    return ERR_IO_PENDING;
  }

  // Stamped before the pool starts generating: on a busy machine the worker
  // can begin before this thread runs again, and elapsed must cover it.
  const TimeTicks start = options_.tick_clock->NowTicks();
  auto job = std::make_unique<Job>();
  job->scope = scope;
  // The pool request belongs to the job, which belongs to the store: the
  // callback cannot outlive |this|.
  int rv = key_pool_->Take(
      algorithm, &job->taken, [this, id](int rv) { OnJobDone(id, rv); },
      &job->pool_request);
  if (rv == OK) {
    ++stats_.pooled_keys;
    absl::Duration generation_time = job->taken.material.generation_time;
    Fill(Insert(scope, std::move(job->taken.material)), result);
    result->facts.source = ObcSource::kPooledKey;
    result->facts.generation_time = generation_time;
    return OK;
  }
  if (rv != ERR_IO_PENDING) return rv;
  ++stats_.jobs_started;
  auto request = std::make_unique<RequestImpl>(
      this, id, result, std::move(callback), start, /*coalesced=*/false);
  job->waiters.push_back(request.get());
  jobs_[id] = std::move(job);
  *out_request = std::move(request);
  return ERR_IO_PENDING;
}

void OriginBoundCertStore::OnJobDone(const std::string& id, int rv) {
  auto node = jobs_.extract(id);
  if (node.empty()) return;
  std::unique_ptr<Job> job = std::move(node.mapped());
  const ObcRecord* record = nullptr;
  absl::Duration generation_time = job->taken.material.generation_time;
  if (rv == OK) record = &Insert(job->scope, std::move(job->taken.material));

  std::vector<std::pair<CompletionOnceCallback, int>> to_run;
  const TimeTicks now = options_.tick_clock->NowTicks();
  for (RequestImpl* request : job->waiters) {
    if (record != nullptr) {
      Result* result = request->result();
      Fill(*record, result);
      result->facts.source = ObcSource::kGenerated;
      result->facts.elapsed = now - request->start();
      result->facts.generation_time = generation_time;
      result->facts.coalesced = request->coalesced();
    }
    to_run.emplace_back(request->Detach(), rv);
  }
  job.reset();
  // Callbacks last, each guarded: any of them may destroy the store.
  WeakPtr<OriginBoundCertStore> weak = weak_factory_.GetWeakPtr();
  for (auto& [callback, result] : to_run) {
    if (!weak) return;
    callback(result);
  }
}

void OriginBoundCertStore::CancelRequest(RequestImpl* request) {
  auto it = jobs_.find(request->job_id());
  if (it == jobs_.end()) return;
  std::vector<RequestImpl*>& waiters = it->second->waiters;
  waiters.erase(std::remove(waiters.begin(), waiters.end(), request),
                waiters.end());
  // The job keeps running with no waiters: its key is already being made,
  // and the scope will want the certificate on its next request.
}

const ObcRecord& OriginBoundCertStore::Insert(const ObcScope& scope,
                                              ObcKeyMaterial material) {
  std::string id = scope.ToString();
  // Never replace a scope's key: that would break its channel-bound cookies.
  if (auto it = records_.find(id); it != records_.end())
    return *it->second.record;
  auto record = std::make_shared<ObcRecord>();
  record->scope = scope;
  record->algorithm = material.algorithm;
  record->cert_der = std::move(material.cert_der);
  record->key_pkcs8 = std::move(material.key_pkcs8);
  record->key = std::move(material.key);
  record->created_unix_seconds = absl::ToUnixSeconds(Now());
  return Put(std::move(record));
}

const ObcRecord& OriginBoundCertStore::Put(
    std::shared_ptr<const ObcRecord> record) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  absl::StatusOr<absl::Time> not_after = CertificateNotAfter(record->cert_der);
  if (!not_after.ok() || *not_after < Now() + kRenewBefore) {
    // A pooled key that waited very long, or a certificate near its end:
    // same key, new certificate. One signature on this thread, about once
    // a year per scope.
    absl::StatusOr<std::string> cert =
        MintCertificate(record->key.get(), Now());
    if (cert.ok()) {
      auto renewed = std::make_shared<ObcRecord>();
      renewed->scope = record->scope;
      renewed->algorithm = record->algorithm;
      renewed->cert_der = *std::move(cert);
      renewed->key_pkcs8 = record->key_pkcs8;
      EVP_PKEY_up_ref(record->key.get());
      renewed->key.reset(record->key.get());
      renewed->created_unix_seconds = record->created_unix_seconds;
      not_after = CertificateNotAfter(renewed->cert_der);
      record = std::move(renewed);
      ++stats_.renewed_certs;
    }
  }
  Entry& entry = records_[record->scope.ToString()];
  entry.record = std::move(record);
  entry.not_after = not_after.ok() ? *not_after : absl::InfinitePast();
  ScheduleWrite();
  return *entry.record;
}

bool OriginBoundCertStore::Lookup(const ObcScope& scope, Result* result) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = records_.find(scope.ToString());
  if (it == records_.end()) return false;
  Fill(*it->second.record, result);
  result->facts.source = ObcSource::kCachedCert;
  return true;
}

bool OriginBoundCertStore::Lookup(const Origin& origin, Result* result) const {
  absl::StatusOr<ObcScope> scope =
      ObcScope::ForOrigin(origin, options_.scope_mode);
  return scope.ok() && Lookup(*scope, result);
}

bool OriginBoundCertStore::Delete(const ObcScope& scope) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (records_.erase(scope.ToString()) == 0) return false;
  ScheduleWrite();
  return true;
}

size_t OriginBoundCertStore::DeleteAll() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  size_t n = records_.size();
  records_.clear();
  ScheduleWrite();
  return n;
}

std::vector<ObcScope> OriginBoundCertStore::GetAllScopes() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  std::vector<ObcScope> scopes;
  scopes.reserve(records_.size());
  for (const auto& [id, entry] : records_)
    scopes.push_back(entry.record->scope);
  std::sort(scopes.begin(), scopes.end());
  return scopes;
}

int OriginBoundCertStore::Flush(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (writer_ == nullptr || written_seq_ >= mutation_seq_) return OK;
  flush_waiters_.emplace_back(mutation_seq_, std::move(callback));
  if (!write_in_flight_) StartWrite();
  return ERR_IO_PENDING;
}

void OriginBoundCertStore::ScheduleWrite() {
  if (writer_ == nullptr) return;  // Private profile: memory only.
  ++mutation_seq_;
  if (!write_in_flight_) StartWrite();
}

std::vector<std::shared_ptr<const ObcRecord>> OriginBoundCertStore::Snapshot()
    const {
  std::vector<std::shared_ptr<const ObcRecord>> snapshot;
  snapshot.reserve(records_.size());
  for (const auto& [id, entry] : records_) snapshot.push_back(entry.record);
  // A stable order makes equal stores produce equal files.
  std::sort(snapshot.begin(), snapshot.end(),
            [](const auto& a, const auto& b) { return a->scope < b->scope; });
  return snapshot;
}

void OriginBoundCertStore::StartWrite() {
  write_in_flight_ = true;
  const uint64_t seq = mutation_seq_;
  workers_->PostTaskAndReplyWithResult<absl::Status>(
      [writer = writer_, seq, snapshot = Snapshot()]() mutable {
        absl::Status status = writer->Write(seq, snapshot);
        // Drop our share of the writer (and so, perhaps, the profile lock)
        // before the reply is posted: the worker frees this task only later,
        // and a profile reopened after the reply must find the lock free.
        writer.reset();
        snapshot.clear();
        return status;
      },
      [weak = weak_factory_.GetWeakPtr(), seq](absl::Status status) {
        if (OriginBoundCertStore* store = weak.get())
          store->OnWriteDone(seq, std::move(status));
      });
}

void OriginBoundCertStore::OnWriteDone(uint64_t seq, absl::Status status) {
  write_in_flight_ = false;
  const bool ok = status.ok();
  if (ok) {
    ++stats_.writes;
    written_seq_ = std::max(written_seq_, seq);
  } else {
    ++stats_.write_failures;
  }
  last_write_status_ = std::move(status);

  std::vector<std::pair<CompletionOnceCallback, int>> to_run;
  auto it =
      std::stable_partition(flush_waiters_.begin(), flush_waiters_.end(),
                            [seq](const auto& w) { return w.first > seq; });
  for (auto done = it; done != flush_waiters_.end(); ++done)
    to_run.emplace_back(std::move(done->second),
                        ok ? OK : ERR_FILE_WRITE_FAILED);
  flush_waiters_.erase(it, flush_waiters_.end());

  // Newer changes go out next. After a failure, only if someone is waiting
  // for them: a broken disk must not spin the worker pool.
  if (mutation_seq_ > written_seq_ && (ok || !flush_waiters_.empty()))
    StartWrite();

  WeakPtr<OriginBoundCertStore> weak = weak_factory_.GetWeakPtr();
  for (auto& [callback, rv] : to_run) {
    if (!weak) return;
    callback(rv);
  }
}

}  // namespace net
