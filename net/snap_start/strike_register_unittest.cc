// StrikeRegister: orbit, time window, replay, horizon, capacity, and the
// persisted high-water mark across restarts.

#include "net/snap_start/strike_register.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

const Orbit kOrbit = {1, 2, 3, 4, 5, 6, 7, 8};

std::string Nonce(uint32_t t, const Orbit& orbit, char fill) {
  std::string out;
  out.push_back(static_cast<char>(t >> 24));
  out.push_back(static_cast<char>(t >> 16));
  out.push_back(static_cast<char>(t >> 8));
  out.push_back(static_cast<char>(t));
  out.append(reinterpret_cast<const char*>(orbit.data()), 8);
  out.append(20, fill);
  return out;
}

using R = StrikeRegister::Result;

class StrikeRegisterTest : public ::testing::Test {
 protected:
  StrikeRegisterConfig Config() {
    StrikeRegisterConfig config;
    config.orbit = kOrbit;
    config.window = absl::Seconds(10);
    return config;
  }
  const absl::Time start_ = absl::FromUnixSeconds(1700000000);
};

TEST_F(StrikeRegisterTest, StartupPeriodThenAcceptsOnceOnly) {
  auto reg = StrikeRegister::Create(Config(), start_);
  ASSERT_TRUE(reg.ok());
  const uint32_t t0 = 1700000000;
  // Within one window of startup nothing is accepted: state before the start
  // is unknown.
  EXPECT_EQ(
      (*reg)->Insert(Nonce(t0 + 5, kOrbit, 'a'), start_ + absl::Seconds(5)),
      R::kBeforeHorizon);
  const absl::Time later = start_ + absl::Seconds(20);
  EXPECT_EQ((*reg)->Insert(Nonce(t0 + 20, kOrbit, 'a'), later), R::kAccepted);
  EXPECT_EQ((*reg)->Insert(Nonce(t0 + 20, kOrbit, 'a'), later), R::kReplay);
  EXPECT_EQ((*reg)->Insert(Nonce(t0 + 20, kOrbit, 'b'), later), R::kAccepted);
  Orbit other = kOrbit;
  other[7] ^= 1;
  EXPECT_EQ((*reg)->Insert(Nonce(t0 + 20, other, 'c'), later), R::kBadOrbit);
  EXPECT_EQ((*reg)->Insert(Nonce(t0 + 20 - 11, kOrbit, 'd'), later),
            R::kTimeOutsideWindow);
  EXPECT_EQ((*reg)->Insert(Nonce(t0 + 20 + 11, kOrbit, 'e'), later),
            R::kTimeOutsideWindow);
  // A replay is refused until its time leaves the window, then by time.
  EXPECT_EQ(
      (*reg)->Insert(Nonce(t0 + 20, kOrbit, 'a'), later + absl::Seconds(10)),
      R::kReplay);
  EXPECT_EQ(
      (*reg)->Insert(Nonce(t0 + 20, kOrbit, 'a'), later + absl::Seconds(11)),
      R::kTimeOutsideWindow);
}

TEST_F(StrikeRegisterTest, FullRegisterRaisesHorizonInsteadOfForgetting) {
  StrikeRegisterConfig config = Config();
  config.max_entries = 2;
  auto reg = StrikeRegister::Create(config, start_);
  ASSERT_TRUE(reg.ok());
  const absl::Time now = start_ + absl::Seconds(30);
  const uint32_t t = 1700000030;
  EXPECT_EQ((*reg)->Insert(Nonce(t - 2, kOrbit, 'a'), now), R::kAccepted);
  EXPECT_EQ((*reg)->Insert(Nonce(t - 1, kOrbit, 'b'), now), R::kAccepted);
  EXPECT_EQ((*reg)->Insert(Nonce(t, kOrbit, 'c'), now), R::kAccepted);
  EXPECT_EQ((*reg)->size(), 2u);
  // 'a' was evicted, but the horizon now covers it.
  EXPECT_EQ((*reg)->Insert(Nonce(t - 2, kOrbit, 'a'), now), R::kBeforeHorizon);
}

TEST_F(StrikeRegisterTest, StateFileSurvivesRestart) {
  const std::string path =
      std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") +
      "/strikes";
  std::remove(path.c_str());
  StrikeRegisterConfig config = Config();
  config.state_file = path;
  const absl::Time now = start_ + absl::Seconds(30);
  const uint32_t t = 1700000030;
  {
    auto reg = StrikeRegister::Create(config, start_);
    ASSERT_TRUE(reg.ok());
    EXPECT_EQ((*reg)->Insert(Nonce(t, kOrbit, 'a'), now), R::kAccepted);
  }
  // Restart: what was accepted before is never accepted again...
  auto restarted = StrikeRegister::Create(config, now);
  ASSERT_TRUE(restarted.ok());
  EXPECT_NE((*restarted)->Insert(Nonce(t, kOrbit, 'a'), now), R::kAccepted);
  // ...and, unlike a cold start, the startup period is one high-water step,
  // not a whole window.
  EXPECT_EQ(
      (*restarted)->Insert(Nonce(t + 3, kOrbit, 'b'), now + absl::Seconds(3)),
      R::kAccepted);
  // A corrupt state file stops the server rather than reset it.
  std::ofstream(path) << "garbage";
  EXPECT_FALSE(StrikeRegister::Create(config, now).ok());
}

}  // namespace
}  // namespace net
