#include "tools/fetch/trace_files.h"

#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "net/timing/waterfall.h"
#include "tools/fetch/messages.h"

namespace net {
namespace {

bool WriteFile(const FetchOptions& options, const std::string& path,
               const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) ReportError(options, absl::StrCat("cannot write ", path), 0);
  return static_cast<bool>(file);
}

}  // namespace

HarEntryExtras HarExtrasFor(const HttpHeaderList& request_headers,
                            const std::string& upload_body,
                            const HttpResponseHeaders* response_headers) {
  HarEntryExtras extras;
  extras.request_headers = request_headers;
  extras.request_body = upload_body;
  if (!upload_body.empty())
    extras.request_body_mime_type = "application/x-www-form-urlencoded";
  if (response_headers) extras.response_headers_raw = response_headers->raw();
  return extras;
}

bool WantsTraces(const FetchOptions& options) {
  return !options.trace_json_file.empty() ||
         !options.trace_events_file.empty() || !options.har_file.empty() ||
         !options.waterfall_file.empty();
}

void AppendContextTraces(const FetchOptions& options, NetworkContext* context,
                         std::vector<LoadTiming>* timings,
                         std::vector<HarEntryExtras>* extras) {
  std::vector<LoadTiming> own = context->TakeDeviceBoundSessionTraces();
  if (!WantsTraces(options)) return;
  for (LoadTiming& t : own) {
    timings->push_back(std::move(t));
    if (!options.har_file.empty()) extras->emplace_back();
  }
}

bool WriteTraceFiles(const FetchOptions& options,
                     const std::vector<LoadTiming>& timings,
                     const std::vector<HarEntryExtras>& extras) {
  if (!options.har_file.empty()) {
    HarOptions har;
    har.extras = extras;
    if (!WriteFile(options, options.har_file, LoadTimingsToHar(timings, har)))
      return false;
  }
  if (!options.waterfall_file.empty() &&
      !WriteFile(options, options.waterfall_file,
                 LoadTimingsToWaterfallSvg(timings)))
    return false;
  if (!options.trace_json_file.empty()) {
    std::string lines;
    for (const LoadTiming& t : timings) lines += LoadTimingToJson(t) + "\n";
    if (options.trace_json_file == "-") {
      std::cout << lines << std::flush;
    } else if (!WriteFile(options, options.trace_json_file, lines)) {
      return false;
    }
  }
  if (!options.trace_events_file.empty() &&
      !WriteFile(options, options.trace_events_file,
                 LoadTimingsToTraceEvents(timings) + "\n"))
    return false;
  return true;
}

}  // namespace net
