// File helpers shared by everything that persists profile state (host
// history, revocation cache, cookies, OBC store) or reads configuration.

#ifndef NET_BASE_FILE_UTIL_H_
#define NET_BASE_FILE_UTIL_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// ReadFileToString reads a whole file. NotFound if it does not exist;
// PermissionDenied or Internal (naming the file and the errno) otherwise.
[[nodiscard]] absl::StatusOr<std::string> ReadFileToString(
    const std::string& path);
// The same, refusing a file larger than |max_bytes| (ResourceExhausted,
// naming the bound) without reading past it: for files a user names, which
// may be /dev/zero.
[[nodiscard]] absl::StatusOr<std::string> ReadFileToString(
    const std::string& path, size_t max_bytes);

// WriteFileAtomically replaces |path| with |data| so that a crash leaves
// either the old or the new contents, never a torn file: it creates a
// temporary "<path>.tmp.<pid>.<n>" exclusively (O_EXCL, mode 0600; unique per
// call, so concurrent writers never share one), writes and fsyncs it, renames
// it over |path| and fsyncs the directory. Concurrent calls on one path are
// safe: the last rename wins and every caller's file is whole. On failure the
// temporary file is removed and |path| is left as it was. Errors name the
// step and the file.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view data);

// RemoveStaleTemporaries removes the temporaries a killed writer of |path|
// left behind ("<path>.tmp.*", and "<path>.tmp" from older versions). Call it
// only while holding the lock that serializes the writers of |path| (a
// temporary of a live writer would otherwise be pulled from under it).
// Returns how many it removed.
int RemoveStaleTemporaries(const std::string& path);

// FileLock is an exclusive advisory lock (flock) on one file, held from
// Acquire until destruction, across processes and within one. Profiles use
// it so that two runs never write one profile at once.
class FileLock {
 public:
  // Acquire creates |path| (0600) if needed and locks it without waiting:
  // FailedPrecondition with |in_use_message| if someone holds it, an I/O
  // error naming the file otherwise.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<FileLock>> Acquire(
      const std::string& path, absl::string_view in_use_message);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  const int fd_;
};

}  // namespace net

#endif  // NET_BASE_FILE_UTIL_H_
