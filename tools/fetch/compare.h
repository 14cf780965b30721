// Compare mode (fetch --compare 'FLAGS A' 'FLAGS B' [--runs N]
// [--compare-out FILE.csv] URL...): runs A and B alternately, each run a
// fresh NetworkContext (nothing carried over unless a flag such as
// --profile asks), and prints per Resource Timing phase the median and
// min-max of each side and B/A; the CSV has the same table. The runs
// themselves are the caller's (fetch's runner); this is the bookkeeping and
// the table.

#ifndef TOOLS_FETCH_COMPARE_H_
#define TOOLS_FETCH_COMPARE_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "net/timing/load_timing.h"
#include "tools/fetch/fetch_options.h"

namespace net {

// SplitFlags splits a --compare flag string like a shell would for simple
// cases: whitespace separates, single and double quotes group.
// InvalidArgument for an unbalanced quote.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> SplitFlags(
    const std::string& text);

// Runs one side once: the exit code, and each finished transfer's final
// trace entry appended to |completed|.
using CompareRunFn = absl::FunctionRef<int(const FetchOptions& options,
                                           std::vector<LoadTiming>* completed)>;

// RunCompare runs both sides |options.compare_runs| times through |run|
// with |args| (the whole command line) minus the compare flags plus each
// side's flags, writes the table to |out| (and the CSV file if asked), and
// returns fetch's exit code: 0 if every run succeeded, 1 if one failed, 2
// for bad flags, 23 if the CSV could not be written.
int RunCompare(const FetchOptions& options,
               const std::vector<std::string>& args, CompareRunFn run,
               std::ostream& out);

}  // namespace net

#endif  // TOOLS_FETCH_COMPARE_H_
