// TimeTicks, a point on the monotonic clock with microsecond resolution, and
// TickClock, the clock interface that production code reads and tests
// replace (see SimpleTestTickClock).
//
// A default-constructed TimeTicks is "null": the event did not happen.

#ifndef NET_BASE_TICK_CLOCK_H_
#define NET_BASE_TICK_CLOCK_H_

#include <cstdint>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"

namespace net {

class TimeTicks {
 public:
  constexpr TimeTicks() = default;
  static constexpr TimeTicks FromMicroseconds(int64_t us) {
    return TimeTicks(us);
  }
  // Now reads CLOCK_MONOTONIC directly; prefer a TickClock in code that tests
  // must control.
  static TimeTicks Now();

  bool is_null() const { return us_ == 0; }
  int64_t ToMicroseconds() const { return us_; }

  TimeTicks operator+(absl::Duration d) const {
    return TimeTicks(us_ + absl::ToInt64Microseconds(d));
  }
  TimeTicks operator-(absl::Duration d) const {
    return TimeTicks(us_ - absl::ToInt64Microseconds(d));
  }
  absl::Duration operator-(TimeTicks other) const {
    return absl::Microseconds(us_ - other.us_);
  }
  TimeTicks& operator+=(absl::Duration d) { return *this = *this + d; }
  bool operator==(TimeTicks o) const { return us_ == o.us_; }
  bool operator!=(TimeTicks o) const { return us_ != o.us_; }
  bool operator<(TimeTicks o) const { return us_ < o.us_; }
  bool operator<=(TimeTicks o) const { return us_ <= o.us_; }
  bool operator>(TimeTicks o) const { return us_ > o.us_; }
  bool operator>=(TimeTicks o) const { return us_ >= o.us_; }

 private:
  constexpr explicit TimeTicks(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

// TickClock is the source of TimeTicks. Implementations are thread-safe.
class TickClock {
 public:
  virtual ~TickClock() = default;
  virtual TimeTicks NowTicks() const = 0;
};

// DefaultTickClock reads CLOCK_MONOTONIC. GetInstance() is never destroyed.
class DefaultTickClock : public TickClock {
 public:
  static const DefaultTickClock* GetInstance();
  TimeTicks NowTicks() const override { return TimeTicks::Now(); }
};

// SimpleTestTickClock is a TickClock that moves only when told to.
class SimpleTestTickClock : public TickClock {
 public:
  SimpleTestTickClock() : now_(TimeTicks::FromMicroseconds(1'000'000)) {}
  TimeTicks NowTicks() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }
  void SetNowTicks(TimeTicks t) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ = t;
  }

 private:
  mutable std::mutex mu_;
  TimeTicks now_;
};

}  // namespace net

#endif  // NET_BASE_TICK_CLOCK_H_
