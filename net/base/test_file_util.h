// Test helpers for code that writes files: a real mid-write failure, and the
// temporaries WriteFileAtomically may leave.

#ifndef NET_BASE_TEST_FILE_UTIL_H_
#define NET_BASE_TEST_FILE_UTIL_H_

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>

#include <string>
#include <vector>

namespace net {

// ScopedFileSizeLimit sets RLIMIT_FSIZE so that writes past |limit| bytes
// fail with EFBIG (SIGXFSZ ignored): a real write failure, even for root,
// for which permissions are no obstacle. Process-wide: use it only while no
// other thread writes files.
class ScopedFileSizeLimit {
 public:
  explicit ScopedFileSizeLimit(rlim_t limit) {
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old_);
    rlimit now = old_;
    now.rlim_cur = limit;
    setrlimit(RLIMIT_FSIZE, &now);
  }
  ~ScopedFileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }
  ScopedFileSizeLimit(const ScopedFileSizeLimit&) = delete;
  ScopedFileSizeLimit& operator=(const ScopedFileSizeLimit&) = delete;

 private:
  rlimit old_;
  sighandler_t old_handler_;
};

// TemporariesOf lists the names in |path|'s directory that are temporaries
// of |path| ("<name>.tmp" or "<name>.tmp.*").
inline std::vector<std::string> TemporariesOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::vector<std::string> found;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return found;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == base + ".tmp" || name.rfind(base + ".tmp.", 0) == 0)
      found.push_back(name);
  }
  closedir(d);
  return found;
}

}  // namespace net

#endif  // NET_BASE_TEST_FILE_UTIL_H_
