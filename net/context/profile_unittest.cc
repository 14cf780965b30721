#include "net/context/profile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "cert/revocation_filter_builder.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"

namespace net {
namespace {

std::string MakeTempDir() {
  std::string pattern =
      absl::StrCat(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp",
                   "/profile_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

Profile::Options Persistent(const std::string& dir) {
  Profile::Options options;
  options.dir = dir;
  return options;
}

TEST(ProfileTest, StoresRoundTrip) {
  std::string dir = MakeTempDir();
  const absl::Time now = absl::Now();
  {
    auto profile = Profile::Open(Persistent(dir), now);
    ASSERT_TRUE(profile.ok()) << profile.status();
    EXPECT_TRUE((*profile)->persistent());
    (*profile)->host_history()->RecordVisit("a.example.test", now);
    (*profile)->revocation_cache()->Put("key", {true, now + absl::Hours(1)});
    ASSERT_TRUE((*profile)->Save(now).ok());
  }
  auto profile = Profile::Open(Persistent(dir), now);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ((*profile)->host_history()->visits("a.example.test"), 1u);
  auto entry = (*profile)->revocation_cache()->Lookup("key", now);
  ASSERT_TRUE(entry.has_value());
  EXPECT_TRUE(entry->revoked);  // a revoked answer stays revoked on disk
  EXPECT_EQ((*profile)->PathFor("snap_start"), dir + "/snap_start");
}

TEST(ProfileTest, SecondOpenIsRefusedWhileLocked) {
  std::string dir = MakeTempDir();
  auto first = Profile::Open(Persistent(dir), absl::Now());
  ASSERT_TRUE(first.ok());
  auto second = Profile::Open(Persistent(dir), absl::Now());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  first->reset();
  EXPECT_TRUE(Profile::Open(Persistent(dir), absl::Now()).ok());
}

TEST(ProfileTest, DamagedFileIsReportedAndKept) {
  std::string dir = MakeTempDir();
  std::string path = dir + "/" + HostHistory::kFileName;
  { std::ofstream(path) << "\x0a\x05garbage-that-is-not-a-history"; }
  auto profile = Profile::Open(Persistent(dir), absl::Now());
  EXPECT_FALSE(profile.ok());
  struct stat st;
  EXPECT_EQ(0, stat(path.c_str(), &st));  // left for the user to inspect
}

TEST(ProfileTest, EveryStoreIsSavedWhenOneFails) {
  std::string dir = MakeTempDir();
  const absl::Time now = absl::Now();
  auto profile = Profile::Open(Persistent(dir), now);
  ASSERT_TRUE(profile.ok());
  // The history's file cannot be written: a directory stands in its way.
  ASSERT_EQ(0, mkdir((dir + "/" + HostHistory::kFileName).c_str(), 0700));
  (*profile)->revocation_cache()->Put("key", {false, now + absl::Hours(1)});
  absl::Status saved = (*profile)->Save(now);
  EXPECT_FALSE(saved.ok());
  struct stat st;
  EXPECT_EQ(0,
            stat((*profile)->PathFor(Profile::kRevocationCacheFileName).c_str(),
                 &st));
}

TEST(ProfileTest, PrivateProfileIsMemoryOnly) {
  std::string dir = MakeTempDir() + "/never";
  Profile::Options options = Persistent(dir);
  options.private_profile = true;
  auto profile = Profile::Open(options, absl::Now());
  ASSERT_TRUE(profile.ok());
  EXPECT_FALSE((*profile)->persistent());
  EXPECT_EQ((*profile)->PathFor("snap_start"), "");
  ASSERT_NE((*profile)->cookie_jar(), nullptr);
  (*profile)->host_history()->RecordVisit("a.example.test", absl::Now());
  EXPECT_TRUE((*profile)->Save(absl::Now()).ok());
  struct stat st;
  EXPECT_NE(0, stat(dir.c_str(), &st));
}

RevocationFilter SomeFilter(uint64_t sequence) {
  RevocationFilterBuildOptions options;
  options.sequence = sequence;
  options.created = options.coverage = absl::Now();
  options.issuers = {{std::string(32, 'i'), "CA"}};
  return *BuildRevocationFilter({{std::string(32, 'i'), "\x01"}},
                                {{std::string(32, 'i'), "\x02"}}, options);
}

TEST(ProfileTest, RevocationFilterIsKeptOnlyByAPersistentProfile) {
  std::string dir = MakeTempDir();
  const std::string filter_path =
      dir + "/" + RevocationFilterStore::kFilterFileName;
  {
    auto profile = Profile::Open(Persistent(dir), absl::Now());
    ASSERT_TRUE(profile.ok());
    EXPECT_FALSE((*profile)->revocation_filter()->has_filter());
    ASSERT_TRUE((*profile)->revocation_filter()->SetFilter(SomeFilter(3)).ok());
    ASSERT_TRUE((*profile)->Save(absl::Now()).ok());
  }
  struct stat st;
  ASSERT_EQ(0, stat(filter_path.c_str(), &st));
  {
    auto profile = Profile::Open(Persistent(dir), absl::Now());
    ASSERT_TRUE(profile.ok()) << profile.status();
    ASSERT_TRUE((*profile)->revocation_filter()->has_filter());
    EXPECT_EQ((*profile)->revocation_filter()->filter()->sequence(), 3u);
    // Unchanged: not written again.
    EXPECT_FALSE((*profile)->revocation_filter()->changed());
    // An older one is refused: the profile's filter only moves forward.
    EXPECT_FALSE(
        (*profile)->revocation_filter()->SetFilter(SomeFilter(2)).ok());
  }
  // A damaged saved filter is named and kept.
  std::string bytes = *ReadFileToString(filter_path);
  bytes[bytes.size() - 1] ^= 1;
  ASSERT_TRUE(WriteFileAtomically(filter_path, bytes).ok());
  auto damaged = Profile::Open(Persistent(dir), absl::Now());
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find(filter_path + " is corrupt"),
            std::string::npos)
      << damaged.status();
  EXPECT_EQ(*ReadFileToString(filter_path), bytes);

  std::string never = MakeTempDir() + "/never";
  Profile::Options options = Persistent(never);
  options.private_profile = true;
  auto private_profile = Profile::Open(options, absl::Now());
  ASSERT_TRUE(private_profile.ok());
  ASSERT_TRUE(
      (*private_profile)->revocation_filter()->SetFilter(SomeFilter(1)).ok());
  EXPECT_TRUE((*private_profile)->Save(absl::Now()).ok());
  EXPECT_NE(0, stat(never.c_str(), &st));
}

TEST(ProfileTest, CookiesOff) {
  Profile::Options options;
  options.cookies = false;
  auto profile = Profile::Open(options, absl::Now());
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ((*profile)->cookie_jar(), nullptr);
  // Device bound sessions bind cookies: none without them.
  EXPECT_EQ((*profile)->device_bound_sessions(), nullptr);
}

// The device bound sessions are one of the profile's stores: written only
// when changed, memory only for a private profile, a damaged file an error
// naming it (and left as it is), off on request.
TEST(ProfileTest, DeviceBoundSessions) {
  std::string dir = MakeTempDir();
  const std::string path = dir + "/" + SessionStore::kFileName;
  const absl::Time now = absl::Now();
  struct stat st;
  {
    auto profile = Profile::Open(Persistent(dir), now);
    ASSERT_TRUE(profile.ok());
    ASSERT_NE((*profile)->device_bound_sessions(), nullptr);
    EXPECT_EQ((*profile)->device_bound_sessions()->size(), 0u);
    ASSERT_TRUE((*profile)->Save(now).ok());
    EXPECT_NE(0, stat(path.c_str(), &st));  // nothing changed: no file
    (*profile)->device_bound_sessions()->NoteChanged();
    ASSERT_TRUE((*profile)->Save(now).ok());
    EXPECT_EQ(0, stat(path.c_str(), &st));
  }
  { std::ofstream(path) << "not a session store"; }
  auto damaged = Profile::Open(Persistent(dir), now);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("device bound sessions: " + path),
            std::string::npos)
      << damaged.status();
  EXPECT_EQ(0, stat(path.c_str(), &st));
  // Turned off, the file is not even read.
  Profile::Options off = Persistent(dir);
  off.device_bound_sessions = false;
  auto without = Profile::Open(off, now);
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_EQ((*without)->device_bound_sessions(), nullptr);
  without->reset();
  // Private: in memory, nothing read.
  Profile::Options private_options = Persistent(dir);
  private_options.private_profile = true;
  auto in_memory = Profile::Open(private_options, now);
  ASSERT_TRUE(in_memory.ok());
  ASSERT_NE((*in_memory)->device_bound_sessions(), nullptr);
  (*in_memory)->device_bound_sessions()->NoteChanged();
  EXPECT_TRUE((*in_memory)->Save(now).ok());
}

}  // namespace
}  // namespace net
