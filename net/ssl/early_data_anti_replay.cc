#include "net/ssl/early_data_anti_replay.h"

#include <openssl/sha.h>

#include <utility>

namespace net {

EarlyDataAntiReplay::EarlyDataAntiReplay(absl::Duration window,
                                         size_t max_entries,
                                         const TickClock* clock)
    : window_(window),
      max_entries_(max_entries),
      clock_(clock ? clock : DefaultTickClock::GetInstance()) {}

void EarlyDataAntiReplay::ExpireLocked(TimeTicks now) {
  while (!order_.empty() && now - order_.front().first >= window_) {
    seen_.erase(order_.front().second);
    order_.pop_front();
  }
}

EarlyDataAntiReplay::Verdict EarlyDataAntiReplay::Admit(
    absl::string_view ticket) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(ticket.data()), ticket.size(),
         digest);
  std::string key(reinterpret_cast<const char*>(digest), sizeof(digest));
  TimeTicks now = clock_->NowTicks();
  std::lock_guard<std::mutex> lock(mu_);
  ExpireLocked(now);
  if (seen_.contains(key)) {
    ++replayed_;
    return Verdict::kReplayed;
  }
  if (seen_.size() >= max_entries_) {
    ++refused_full_;
    return Verdict::kFull;
  }
  seen_.insert(key);
  order_.emplace_back(now, std::move(key));
  ++admitted_;
  return Verdict::kAdmitted;
}

size_t EarlyDataAntiReplay::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.size();
}

uint64_t EarlyDataAntiReplay::admitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return admitted_;
}

uint64_t EarlyDataAntiReplay::replayed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return replayed_;
}

uint64_t EarlyDataAntiReplay::refused_full() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_full_;
}

const char* EarlyDataVerdictToString(EarlyDataAntiReplay::Verdict verdict) {
  switch (verdict) {
    case EarlyDataAntiReplay::Verdict::kAdmitted:
      return "admitted";
    case EarlyDataAntiReplay::Verdict::kReplayed:
      return "replayed_ticket";
    case EarlyDataAntiReplay::Verdict::kFull:
      return "strike_register_full";
  }
  return "unknown";
}

}  // namespace net
