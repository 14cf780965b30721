// fetch's exit codes: curl's numbers where curl has one, derived from the
// range a net error's number lies in (net/base/net_error_list.h), with a few
// named exceptions where curl tells apart failures of one range (a timeout,
// a bad URL, an empty response, a partial body, too many redirects, a body
// over --max-filesize).
//
//   generic 1; connection 7; certificate 60; HTTP 8; DNS 6; TLS 35;
//   SPDY 16; prefetch 60; Snap Start 35; OBC 58.
//
// kFetchExitCodes is every code fetch documents; `fetch --help` lists
// exactly these (exit_codes_unittest checks it).

#ifndef TOOLS_FETCH_EXIT_CODES_H_
#define TOOLS_FETCH_EXIT_CODES_H_

#include <cstddef>

namespace net {

struct FetchExitCode {
  int code;
  // As --help says it: "35 TLS or Snap Start error".
  const char* meaning;
};

// In ascending order of code.
extern const FetchExitCode kFetchExitCodes[];
extern const size_t kFetchExitCodeCount;

// Codes fetch sets itself rather than from a net error.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitBadUrl = 3;
inline constexpr int kExitHttpError = 22;  // --fail and a status >= 400
inline constexpr int kExitWriteError = 23;

// ExitCodeForError returns the exit code for a transfer that ended with
// |error|: 0 for OK.
int ExitCodeForError(int error);

}  // namespace net

#endif  // TOOLS_FETCH_EXIT_CODES_H_
