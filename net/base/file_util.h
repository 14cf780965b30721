// File helpers shared by everything that persists profile state (host
// history, revocation cache, OBC store) or reads configuration.

#ifndef NET_BASE_FILE_UTIL_H_
#define NET_BASE_FILE_UTIL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// ReadFileToString reads a whole file. NotFound if it does not exist.
[[nodiscard]] absl::StatusOr<std::string> ReadFileToString(
    const std::string& path);

// WriteFileAtomically replaces |path| with |data| so that a crash leaves
// either the old or the new contents, never a torn file: it writes
// "<path>.tmp" (mode 0600), fsyncs it, renames it over |path| and fsyncs the
// directory. On failure the temporary file is removed and |path| is left as
// it was. Errors name the step and the file.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view data);

}  // namespace net

#endif  // NET_BASE_FILE_UTIL_H_
