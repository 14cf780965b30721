#include "net/snap_start/strike_register.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "net/base/file_util.h"

namespace net {
namespace {
constexpr char kStateMagic[] = "snap-start-strike-register-v1 ";
}  // namespace

const char* StrikeRegister::ResultToString(Result result) {
  switch (result) {
    case Result::kAccepted:
      return "accepted";
    case Result::kBadOrbit:
      return "wrong_orbit";
    case Result::kTimeOutsideWindow:
      return "time_outside_window";
    case Result::kBeforeHorizon:
      return "before_horizon";
    case Result::kReplay:
      return "replay";
    case Result::kStateWriteFailed:
      return "state_write_failed";
  }
  return "unknown";
}

StrikeRegister::StrikeRegister(const StrikeRegisterConfig& config)
    : config_(config) {}

absl::StatusOr<std::unique_ptr<StrikeRegister>> StrikeRegister::Create(
    const StrikeRegisterConfig& config, absl::Time now) {
  if (config.window <= absl::ZeroDuration() || config.max_entries == 0) {
    return absl::InvalidArgumentError(
        "strike register needs a positive window and capacity");
  }
  std::unique_ptr<StrikeRegister> reg(new StrikeRegister(config));
  const uint32_t now_s = static_cast<uint32_t>(absl::ToUnixSeconds(now));
  const uint32_t window_s =
      static_cast<uint32_t>(absl::ToInt64Seconds(config.window));
  std::lock_guard<std::mutex> lock(reg->mu_);
  reg->horizon_ = now_s + window_s;
  if (!config.state_file.empty()) {
    absl::StatusOr<std::string> state = ReadFileToString(config.state_file);
    if (state.ok()) {
      absl::string_view text = *state;
      uint32_t mark = 0;
      if (!absl::ConsumePrefix(&text, kStateMagic) ||
          !absl::SimpleAtoi(absl::StripTrailingAsciiWhitespace(text), &mark)) {
        return absl::DataLossError(absl::StrCat(
            "strike register state ", config.state_file,
            " is corrupt; refusing to start (delete it to accept a startup "
            "period of one window)"));
      }
      // Everything accepted before the restart had a time <= mark.
      reg->horizon_ = mark;
      reg->persisted_mark_ = mark;
    } else if (absl::IsNotFound(state.status())) {
      // No state file yet: the operator names a fresh file for a fresh
      // orbit, so nothing was accepted before. (Deleting the file of a live
      // orbit would void the guarantee; a corrupt file stops the server.)
      reg->horizon_ = 0;
    } else {
      return state.status();
    }
  }
  return reg;
}

StrikeRegister::Result StrikeRegister::Insert(
    absl::string_view suggested_random, absl::Time now) {
  if (suggested_random.size() != kRandomSize ||
      memcmp(suggested_random.data() + 4, config_.orbit.data(), kOrbitSize) !=
          0) {
    return Result::kBadOrbit;
  }
  const uint32_t t = RandomTime(suggested_random);
  const int64_t now_s = absl::ToUnixSeconds(now);
  const int64_t window_s = absl::ToInt64Seconds(config_.window);
  if (t < now_s - window_s || t > now_s + window_s) {
    return Result::kTimeOutsideWindow;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (t <= horizon_) return Result::kBeforeHorizon;
  // Prune what the window check now rejects anyway.
  while (!by_time_.empty() && by_time_.begin()->first < now_s - window_s) {
    seen_.erase(by_time_.begin()->second);
    by_time_.erase(by_time_.begin());
  }
  std::string key(suggested_random);
  if (seen_.contains(key)) return Result::kReplay;
  if (!config_.state_file.empty() && t >= persisted_mark_) {
    const uint32_t mark =
        t +
        static_cast<uint32_t>(absl::ToInt64Seconds(config_.high_water_step));
    if (!WriteFileAtomically(config_.state_file,
                             absl::StrCat(kStateMagic, mark, "\n"))
             .ok()) {
      return Result::kStateWriteFailed;
    }
    persisted_mark_ = mark;
  }
  if (seen_.size() >= config_.max_entries && !by_time_.empty()) {
    auto oldest = by_time_.begin();
    horizon_ = std::max(horizon_, oldest->first);
    seen_.erase(oldest->second);
    by_time_.erase(oldest);
    if (t <= horizon_) return Result::kBeforeHorizon;
  }
  seen_.insert(key);
  by_time_.emplace(t, std::move(key));
  return Result::kAccepted;
}

uint32_t StrikeRegister::horizon() const {
  std::lock_guard<std::mutex> lock(mu_);
  return horizon_;
}

size_t StrikeRegister::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.size();
}

}  // namespace net
