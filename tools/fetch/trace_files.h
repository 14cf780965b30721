// The run's trace files, as fetch's flags ask for them: --har (HAR 1.2, with
// each request's headers as sent and its response head), --waterfall (SVG),
// --trace-json (one W3C Resource Timing object per request; "-" is stdout)
// and --trace-events (Chrome trace events for Perfetto). Presentation only:
// the LoadTimings and HAR extras come from the run.

#ifndef TOOLS_FETCH_TRACE_FILES_H_
#define TOOLS_FETCH_TRACE_FILES_H_

#include <string>
#include <vector>

#include "net/context/network_context.h"
#include "net/http/http_response_headers.h"
#include "net/timing/har.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"
#include "tools/fetch/fetch_options.h"

namespace net {

// HarExtrasFor: one hop's HAR extras — the request headers as sent, the
// body if the hop carried one (form-encoded, as -d sends it), and the
// response head (null: none arrived).
HarEntryExtras HarExtrasFor(const HttpHeaderList& request_headers,
                            const std::string& upload_body,
                            const HttpResponseHeaders* response_headers);

// WantsTraces: some flag asks for a trace file (so the run keeps every
// hop's LoadTiming until the end).
bool WantsTraces(const FetchOptions& options);

// AppendContextTraces appends to |timings| (and empty HAR extras to
// |extras| with --har) the traces of the requests |context| made on its own
// (DBSC registrations and refreshes), if a trace file is asked for. After
// Shutdown, so that they are all done.
void AppendContextTraces(const FetchOptions& options, NetworkContext* context,
                         std::vector<LoadTiming>* timings,
                         std::vector<HarEntryExtras>* extras);

// WriteTraceFiles writes every trace file |options| asks for; |extras| is
// parallel to |timings| (empty without --har). False, having said which on
// stderr, if one could not be written.
bool WriteTraceFiles(const FetchOptions& options,
                     const std::vector<LoadTiming>& timings,
                     const std::vector<HarEntryExtras>& extras);

}  // namespace net

#endif  // TOOLS_FETCH_TRACE_FILES_H_
