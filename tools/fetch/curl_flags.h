// curl's command-line idioms for fetch: combined short flags (-fsSL,
// -ofile), and the curl flags that map onto FetchOptions (-f, -i, -k, -m,
// -A, -u, -b, -c, -D, --cacert, --capath, --compressed, --retry,
// --http1.1, -x/--proxy, --noproxy, --no-progress-meter, --ech). fetch_options.cc
// runs every argument through here first; what is left is fetch's own.

#ifndef TOOLS_FETCH_CURL_FLAGS_H_
#define TOOLS_FETCH_CURL_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/fetch/fetch_options.h"

namespace net {

// Combined short flags as curl reads them: "-fsSL" is -f -s -S -L; a short
// flag that takes a value ends the group and takes the rest ("-ofile"), or
// the next argument ("-so file"). The parser expands a group where it meets
// one as a flag, so a flag's value ("-A -fsSL", "--user-agent -fsSL") is
// never expanded. An unknown letter is an error naming it.
bool IsShortFlagGroup(const std::string& arg);
[[nodiscard]] absl::StatusOr<std::vector<std::string>> ExpandShortFlagGroup(
    const std::string& group);

// ParseCurlFlag handles args[*i] when it is one of the curl flags above
// (advancing *i past its value) and returns its status; nullopt when the
// flag is not one of them.
std::optional<absl::Status> ParseCurlFlag(const std::vector<std::string>& args,
                                          size_t* i, FetchOptions* options);

// --version: the tool, the library and what is compiled in.
std::string FetchVersion();

// A curl-style URL: a bare host ("example.com/x") means http://, as curl
// assumes; anything with a scheme is left as it is.
std::string WithDefaultScheme(const std::string& url);

}  // namespace net

#endif  // TOOLS_FETCH_CURL_FLAGS_H_
