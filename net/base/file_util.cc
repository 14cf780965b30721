#include "net/base/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace net {
namespace {

absl::Status Errno(absl::string_view what, const std::string& path) {
  int e = errno;
  std::string message = absl::StrCat(what, " ", path, ": ", std::strerror(e));
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

absl::Status WriteAll(int fd, absl::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("write", path);
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

std::string DirOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  return ReadFileToString(path, std::string().max_size());
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             size_t max_bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return absl::NotFoundError(
          absl::StrCat("cannot open ", path, ": ", std::strerror(ENOENT)));
    return Errno("cannot open", path);
  }
  std::string contents;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status = Errno("read", path);
      close(fd);
      return status;
    }
    if (n == 0) break;
    if (static_cast<size_t>(n) > max_bytes - contents.size()) {
      close(fd);
      return absl::ResourceExhaustedError(
          absl::StrCat(path, " is larger than ", max_bytes, " bytes"));
    }
    contents.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return contents;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view data) {
  // A name no other writer (thread or process) uses: the pid tells processes
  // apart, the counter calls within one; O_EXCL settles the rest (a stale
  // file of a recycled pid is skipped, never reused).
  static std::atomic<uint64_t> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = absl::StrCat(path, ".tmp.", getpid(), ".", counter++);
    fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return Errno("create", tmp);
  absl::Status status = WriteAll(fd, data, tmp);
  if (status.ok() && fsync(fd) != 0) status = Errno("fsync", tmp);
  if (close(fd) != 0 && status.ok()) status = Errno("close", tmp);
  if (status.ok() && rename(tmp.c_str(), path.c_str()) != 0)
    status = Errno("rename", absl::StrCat(tmp, " to ", path));
  if (!status.ok()) {
    unlink(tmp.c_str());
    return status;
  }
  // The rename is durable only once the directory is.
  std::string dir = DirOf(path);
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return Errno("open directory", dir);
  if (fsync(dir_fd) != 0) status = Errno("fsync directory", dir);
  close(dir_fd);
  return status;
}

int RemoveStaleTemporaries(const std::string& path) {
  std::string dir = DirOf(path);
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string legacy = absl::StrCat(base, ".tmp");
  std::string prefix = absl::StrCat(base, ".tmp.");
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (dirent* entry = readdir(d)) {
    absl::string_view name = entry->d_name;
    if (name != legacy && !absl::StartsWith(name, prefix)) continue;
    if (unlinkat(dirfd(d), entry->d_name, 0) == 0) ++removed;
  }
  closedir(d);
  return removed;
}

absl::StatusOr<std::unique_ptr<FileLock>> FileLock::Acquire(
    const std::string& path, absl::string_view in_use_message) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("open", path);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    absl::Status status = errno == EWOULDBLOCK
                              ? absl::FailedPreconditionError(in_use_message)
                              : Errno("flock", path);
    close(fd);
    return status;
  }
  return std::unique_ptr<FileLock>(new FileLock(fd));
}

FileLock::~FileLock() { close(fd_); }

}  // namespace net
