// OutputFiles: where fetch writes each URL's body — -o FILE per URL, -O (the
// last segment of the URL's path), else stdout — opened when its body
// starts and closed when the URL's last transfer in flight ends, so a run
// of 1,000 URLs never holds 1,000 open files (and glibc's list of open
// streams, walked by every fopen and fclose, stays short). And the progress
// meter curl draws on a terminal.

#ifndef TOOLS_FETCH_OUTPUT_FILES_H_
#define TOOLS_FETCH_OUTPUT_FILES_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/optional.h"
#include "net/base/tick_clock.h"
#include "net/base/url.h"
#include "tools/fetch/fetch_options.h"

namespace net {

class OutputFiles {
 public:
  OutputFiles() = default;
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  // Init names each URL's output. The error (-O on a URL whose path names
  // no file) when it cannot.
  absl::optional<std::string> Init(const FetchOptions& options,
                                   const std::vector<Url>& urls);
  // A transfer of URL |u| starts / ends; the last one to end closes the
  // file (false: the close failed, a write error).
  void TransferStarted(size_t u) { ++in_flight_[u]; }
  bool TransferEnded(size_t u);
  // Write appends |bytes| to URL |u|'s output (opening it first); false on
  // a write error.
  bool Write(size_t u, absl::string_view bytes);
  // The name in error messages: the file, or "the output".
  std::string Name(size_t u) const;
  // CloseAll closes what is still open; false if a close failed.
  bool CloseAll();

 private:
  std::vector<std::string> names_;  // "": stdout
  std::vector<FILE*> files_;        // null: stdout, or not open
  std::vector<int> in_flight_;
};

// HeaderDump: -D FILE, every response head of the run appended in order
// ("-": stdout), the file made on the first write.
class HeaderDump {
 public:
  explicit HeaderDump(std::string path) : path_(std::move(path)) {}
  ~HeaderDump();
  HeaderDump(const HeaderDump&) = delete;
  HeaderDump& operator=(const HeaderDump&) = delete;
  // False on a write error (or when the file cannot be made).
  bool Write(absl::string_view heads);

 private:
  const std::string path_;
  FILE* file_ = nullptr;
};

// ProgressMeter: curl's -# look on a terminal's stderr for bodies that take
// over a second; silent otherwise (and with -s).
class ProgressMeter {
 public:
  ProgressMeter(bool enabled, int64_t content_length);
  void Update(int64_t body_bytes, bool done);

 private:
  const bool enabled_;
  const int64_t content_length_;
  const TimeTicks start_;
  TimeTicks drawn_;
};

}  // namespace net

#endif  // TOOLS_FETCH_OUTPUT_FILES_H_
