// Test helpers for cert/obc: a key generator tests can hold closed, count and
// fail, and fresh per-test profile directories. testonly.

#ifndef CERT_OBC_OBC_TEST_UTIL_H_
#define CERT_OBC_OBC_TEST_UTIL_H_

#include <dirent.h>
#include <sys/stat.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/obc_crypto.h"

namespace net {

// GatedGenerator wraps MakeKeyMaterial: it counts calls, records the
// threads they ran on, can be held closed (calls block until Open()), and
// can be made to fail. Thread-safe; must outlive the pools using it.
class GatedGenerator {
 public:
  KeyPool::Generator AsGenerator() {
    return [this](KeyAlgorithm algorithm) -> absl::StatusOr<ObcKeyMaterial> {
      {
        std::unique_lock<std::mutex> lock(mu_);
        ++started_;
        threads_.push_back(std::this_thread::get_id());
        changed_.notify_all();
        changed_.wait(lock, [this] { return open_; });
        if (fail_) return absl::InternalError("injected failure");
      }
      return MakeKeyMaterial(algorithm, absl::Now());
    };
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }
  void FailFromNowOn() {
    std::lock_guard<std::mutex> lock(mu_);
    fail_ = true;
  }
  int started() {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }
  void WaitForStarted(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this, n] { return started_ >= n; });
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard<std::mutex> lock(mu_);
    return threads_;
  }

 private:
  // std::mutex (not absl::Mutex) so ThreadSanitizer sees the locking: the
  // Debian Abseil is not instrumented.
  std::mutex mu_;
  std::condition_variable changed_;
  bool open_ ABSL_GUARDED_BY(mu_) = true;
  bool fail_ ABSL_GUARDED_BY(mu_) = false;
  int started_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread::id> threads_ ABSL_GUARDED_BY(mu_);
};

// ListDirectory returns the names in |dir| other than "." and "..".
inline std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  return names;
}

// FreshDirectory creates (or empties) <TEST_TMPDIR>/<name> and returns it.
inline std::string FreshDirectory(const std::string& name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base != nullptr ? base : "/tmp", "/", name);
  mkdir(dir.c_str(), 0700);
  for (const std::string& entry : ListDirectory(dir)) {
    std::string path = absl::StrCat(dir, "/", entry);
    if (unlink(path.c_str()) != 0) rmdir(path.c_str());
  }
  return dir;
}

}  // namespace net

#endif  // CERT_OBC_OBC_TEST_UTIL_H_
