// Crash safety of the persisted store: a child process writes OBCs to a
// profile in a loop and is killed with SIGKILL at random moments, 50 times.
// After each kill the store must load without error and hold every OBC the
// child had reported as committed (its Flush returned OK) before it died.
//
// The parent never starts a thread, so fork() is safe; each child builds
// its own event loop, worker pool, key pool and store, and reports through
// a pipe: "R" once the store is open, then "C <scope> <spki-hex>" for each
// committed OBC (one write(2) per line, atomic below PIPE_BUF).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <random>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/obc_store_file.h"
#include "cert/obc/obc_test_util.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/base/test_file_util.h"

namespace net {
namespace {

void Report(int fd, const std::string& line) {
  std::string data = absl::StrCat(line, "\n");
  // One write per line: the parent never sees half a line.
  (void)!write(fd, data.data(), data.size());
}

// ChildMain opens the store and commits batches of new OBCs forever.
[[noreturn]] void ChildMain(const std::string& dir, int fd, int generation) {
  EventLoop loop;
  WorkerPool workers(2);
  KeyPool::Options pool_options;
  pool_options.target_depth = {8, 1, 0, 0};
  KeyPool pool(&workers, pool_options);
  OriginBoundCertStore::Options options;
  options.profile_dir = dir;
  absl::StatusOr<std::unique_ptr<OriginBoundCertStore>> opened =
      OriginBoundCertStore::Open(options, &pool, &workers);
  if (!opened.ok()) {
    Report(fd, absl::StrCat("E open: ", opened.status().ToString()));
    _exit(1);
  }
  OriginBoundCertStore* store = opened->get();
  Report(fd, absl::StrCat("R ", store->size()));

  std::mt19937 rng(generation);
  for (int n = 0;;) {
    std::vector<OriginBoundCertStore::Result> batch(1 + rng() % 4);
    for (OriginBoundCertStore::Result& result : batch) {
      ++n;
      ScopeMode mode =
          rng() % 3 == 0 ? ScopeMode::kRegistrableDomain : ScopeMode::kOrigin;
      KeyAlgorithm algorithm =
          rng() % 8 == 0 ? KeyAlgorithm::kRsa1024 : KeyAlgorithm::kEcdsaP256;
      ObcScope scope =
          ObcScope::ForInput(
              absl::StrCat("https://w.g", generation, "-", n, ".test"), mode)
              .value();
      TestCompletionCallback cb;
      std::unique_ptr<OriginBoundCertStore::Request> request;
      int rv = cb.GetResult(store->GetOrCreate(scope, algorithm, &result,
                                               cb.callback(), &request));
      if (rv != OK) {
        Report(fd, absl::StrCat("E GetOrCreate: ", ErrorToString(rv)));
        _exit(1);
      }
    }
    TestCompletionCallback flushed;
    int rv = flushed.GetResult(store->Flush(flushed.callback()));
    if (rv != OK) {
      Report(fd,
             absl::StrCat("E flush: ", store->last_write_status().ToString()));
      _exit(1);
    }
    for (const OriginBoundCertStore::Result& result : batch) {
      Report(fd, absl::StrCat("C ", result.scope.ToString(), " ",
                              absl::BytesToHexString(
                                  SpkiSha256(result.cert_der).value())));
    }
  }
}

TEST(ObcStoreCrashTest, SurvivesSigkillDuringWrites) {
  const std::string dir = FreshDirectory("obc_crash");
  const std::string path = absl::StrCat(dir, "/", ObcStoreFile::kFileName);
  std::map<std::string, std::string> committed;  // scope -> SPKI hash (hex)
  std::mt19937 rng(12345);
  int killed_mid_write = 0;
  constexpr int kKills = 50;

  for (int generation = 0; generation < kKills; ++generation) {
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      ChildMain(dir, fds[1], generation);
    }
    close(fds[1]);

    // Read what the child reports; kill it a random moment after it has
    // opened the store.
    std::string buffer;
    bool ready = false;
    TimeTicks kill_at;
    bool killed = false;
    for (;;) {
      int timeout_ms = 10000;
      if (ready && !killed) {
        int64_t left = (kill_at - TimeTicks::Now()) / absl::Milliseconds(1);
        timeout_ms = static_cast<int>(std::max<int64_t>(0, left));
      }
      pollfd p{fds[0], POLLIN, 0};
      int n = poll(&p, 1, timeout_ms);
      if (n == 0 && !ready)
        FAIL() << "child " << generation << " never opened the store";
      if (n == 0 || (ready && !killed && TimeTicks::Now() >= kill_at)) {
        if (!killed) {
          ASSERT_EQ(kill(pid, SIGKILL), 0);
          killed = true;
        }
        if (n == 0) continue;
      }
      char chunk[4096];
      ssize_t got = read(fds[0], chunk, sizeof(chunk));
      if (got <= 0) break;  // EOF: the child is gone.
      buffer.append(chunk, got);
      if (!ready && buffer.find('\n') != std::string::npos) {
        ready = true;
        // Anywhere in the first 40 ms of work: mid-generation, mid-write,
        // between fsync and rename, or while idle.
        kill_at = TimeTicks::Now() + absl::Microseconds(rng() % 40000);
      }
    }
    close(fds[0]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "child " << generation << " exited on its own: " << buffer;
    if (!TemporariesOf(path).empty()) ++killed_mid_write;

    int reported = 0;
    for (absl::string_view line :
         absl::StrSplit(buffer, '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, ' ');
      ASSERT_NE(parts[0], "E") << line;
      if (parts[0] == "R") {
        // The child saw everything committed so far (and maybe more).
        size_t loaded = 0;
        ASSERT_TRUE(absl::SimpleAtoi(parts[1], &loaded));
        EXPECT_GE(loaded, committed.size());
      } else if (parts[0] == "C") {
        // A cut-off last line cannot happen: lines are single writes.
        ASSERT_EQ(parts.size(), 3u) << line;
        committed[parts[1]] = parts[2];
        ++reported;
      }
    }

    // The file loads, and holds every committed OBC with its own key.
    absl::StatusOr<std::vector<ObcRecord>> loaded = ObcStoreFile::Load(path);
    ASSERT_TRUE(loaded.ok())
        << "after kill " << generation << ": " << loaded.status();
    std::map<std::string, std::string> on_disk;
    for (const ObcRecord& record : *loaded) {
      on_disk[record.scope.ToString()] =
          absl::BytesToHexString(SpkiSha256(record.cert_der).value());
    }
    for (const auto& [scope, spki] : committed) {
      auto it = on_disk.find(scope);
      ASSERT_NE(it, on_disk.end())
          << "committed " << scope << " lost after kill " << generation;
      ASSERT_EQ(it->second, spki)
          << scope << " changed key after kill " << generation;
    }
    std::cout << "kill " << generation << ": " << reported
              << " newly committed, " << committed.size()
              << " committed in all, " << on_disk.size() << " on disk\n";
  }
  std::cout << kKills << " kills, " << killed_mid_write
            << " of them left a half-written temporary file behind\n";
  EXPECT_GT(committed.size(), static_cast<size_t>(kKills));
}

}  // namespace
}  // namespace net
