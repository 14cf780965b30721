// fetch's one error path: every error and warning the tool prints goes
// through here, so -s silences all of them (the exit code stays) and -S
// brings the errors back, as curl. Usage errors are the exception: they are
// printed before the options exist (fetch_main.cc), as curl prints them.

#ifndef TOOLS_FETCH_MESSAGES_H_
#define TOOLS_FETCH_MESSAGES_H_

#include "absl/strings/string_view.h"
#include "tools/fetch/fetch_options.h"

namespace net {

// "fetch: MESSAGE" on stderr unless -s without -S; returns |exit_code|.
int ReportError(const FetchOptions& options, absl::string_view message,
                int exit_code);

// "Warning: MESSAGE" on stderr unless -s.
void ReportWarning(const FetchOptions& options, absl::string_view message);

}  // namespace net

#endif  // TOOLS_FETCH_MESSAGES_H_
