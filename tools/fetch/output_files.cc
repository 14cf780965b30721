#include "tools/fetch/output_files.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace net {

OutputFiles::~OutputFiles() { CloseAll(); }

absl::optional<std::string> OutputFiles::Init(const FetchOptions& options,
                                              const std::vector<Url>& urls) {
  names_.assign(urls.size(), std::string());
  files_.assign(urls.size(), nullptr);
  in_flight_.assign(urls.size(), 0);
  for (size_t u = 0; u < urls.size(); ++u) {
    std::string name;
    if (u < options.output_files.size()) {
      name = options.output_files[u];
    } else if (options.remote_name) {
      std::string path = urls[u].PathForRequest();
      path = path.substr(0, path.find('?'));
      name = path.substr(path.rfind('/') + 1);
      if (name.empty()) {
        return absl::StrCat(urls[u].spec(),
                            ": -O: the URL names no file (its path ends "
                            "in '/')");
      }
    }
    if (name == "-") name.clear();
    names_[u] = name;
  }
  return absl::nullopt;
}

bool OutputFiles::TransferEnded(size_t u) {
  if (--in_flight_[u] > 0) return true;
  FILE*& file = files_[u];
  const bool ok = !file || fclose(file) == 0;
  file = nullptr;
  return ok;
}

bool OutputFiles::Write(size_t u, absl::string_view bytes) {
  FILE*& file = files_[u];
  if (!file && !names_[u].empty()) {
    file = fopen(names_[u].c_str(), "wb");
    if (!file) return false;
  }
  FILE* out = file ? file : stdout;
  if (fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) return false;
  return fflush(out) == 0;
}

std::string OutputFiles::Name(size_t u) const {
  return names_[u].empty() ? std::string("the output") : names_[u];
}

bool OutputFiles::CloseAll() {
  bool ok = true;
  for (FILE*& file : files_) {
    if (file && fclose(file) != 0) ok = false;
    file = nullptr;
  }
  return ok;
}

HeaderDump::~HeaderDump() {
  if (file_ && file_ != stdout) fclose(file_);
}

bool HeaderDump::Write(absl::string_view heads) {
  if (path_.empty()) return true;
  if (!file_) file_ = path_ == "-" ? stdout : fopen(path_.c_str(), "wb");
  if (!file_) return false;
  return fwrite(heads.data(), 1, heads.size(), file_) == heads.size() &&
         fflush(file_) == 0;
}

ProgressMeter::ProgressMeter(bool enabled, int64_t content_length)
    : enabled_(enabled && isatty(STDERR_FILENO)),
      content_length_(content_length),
      start_(TimeTicks::Now()) {}

void ProgressMeter::Update(int64_t body_bytes, bool done) {
  if (!enabled_) return;
  const TimeTicks now = TimeTicks::Now();
  if (!done && (now - start_ < absl::Seconds(1) ||
                now - drawn_ < absl::Milliseconds(100)))
    return;
  if (done && drawn_.is_null()) return;
  drawn_ = now;
  constexpr int kWidth = 60;
  std::string line;
  if (content_length_ > 0) {
    double fraction =
        std::min(1.0, static_cast<double>(body_bytes) / content_length_);
    line = absl::StrFormat(
        "\r%-*s %5.1f%%", kWidth,
        std::string(static_cast<int>(fraction * kWidth), '#'), fraction * 100);
  } else {
    line = absl::StrFormat("\r%s %lld bytes",
                           std::string(body_bytes / 65536 % kWidth, '#'),
                           static_cast<long long>(body_bytes));
  }
  std::cerr << line << (done ? "\n" : "") << std::flush;
}

}  // namespace net
