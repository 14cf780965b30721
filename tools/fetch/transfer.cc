#include "tools/fetch/transfer.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/fetch/exit_codes.h"
#include "tools/fetch/messages.h"
#include "tools/fetch/trace_files.h"
#include "tools/fetch/verbose_log.h"
#include "tools/fetch/write_out.h"

namespace net {

URLRequest::Options RequestOptionsFor(const FetchOptions& options) {
  URLRequest::Options request_options;
  request_options.follow_redirects = options.follow_redirects;
  request_options.max_redirects = options.max_redirs;
  request_options.max_body_bytes = options.max_filesize;
  request_options.navigation = true;
  request_options.decode_content = options.compressed;
  request_options.priority = options.priority;
  return request_options;
}

void ConfigureRequest(const FetchOptions& options, URLRequest* request) {
  request->set_method(!options.method.empty() ? options.method
                      : options.head          ? "HEAD"
                      : options.data          ? "POST"
                                              : "GET");
  HttpHeaderList headers = options.headers;
  if (options.data && !options.data->empty()) {
    request->set_upload_body(*options.data);
    if (std::none_of(headers.begin(), headers.end(), [](const auto& h) {
          return absl::EqualsIgnoreCase(h.first, "content-type");
        }))
      headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  }
  auto has = [&](const char* name) {
    return std::any_of(headers.begin(), headers.end(), [&](const auto& h) {
      return absl::EqualsIgnoreCase(h.first, name);
    });
  };
  // curl's -A, -u and -b NAME=VALUE; an explicit -H of the same name wins.
  if (!options.user_agent.empty() && !has("user-agent"))
    headers.emplace_back("User-Agent", options.user_agent);
  if (!options.user.empty() && !has("authorization"))
    headers.emplace_back(
        "Authorization",
        absl::StrCat("Basic ", absl::Base64Escape(options.user)));
  if (!options.cookie_strings.empty() && !has("cookie"))
    headers.emplace_back("Cookie", absl::StrJoin(options.cookie_strings, "; "));
  request->SetExtraRequestHeaders(std::move(headers));
}

void Transfer::RecordOutcome(const FetchOptions& options, int rv,
                             bool failed_to_write) {
  const URLRequest& r = *request;
  result = rv;
  write_error = failed_to_write;
  const bool har = !options.har_file.empty();
  // The body is only ever dropped (on a method change), never changed.
  const std::string body = options.data.value_or("");
  for (const URLRequestHop& hop : r.hops()) {
    hops.push_back(hop.timing);
    hops.back().ssl.cert_verify.verified_chain_der.clear();
    if (har)
      hop_extras.push_back(HarExtrasFor(hop.request_headers,
                                        hop.upload_body_sent ? body : "",
                                        &hop.response_headers));
  }
  if (har)
    extras = HarExtrasFor(r.request_headers(), r.upload_body(),
                          r.response_headers());
  timing = r.load_timing();
  timing.net_error = rv;
  // The verified chain is the certificates' bytes: the trace does not print
  // it, and a long run must not keep a copy per request.
  timing.ssl.cert_verify.verified_chain_der.clear();
  timing.ssl.cert_verify.verified_chain_der.shrink_to_fit();
  if (const HttpResponseHeaders* h = r.response_headers()) headers = h->raw();
  if (r.redirect_info()) redirect_url = r.redirect_info()->new_url.spec();
  error_detail = rv == ERR_FILE_TOO_BIG
                     ? absl::StrCat("the body exceeds --max-filesize ",
                                    options.max_filesize, " bytes")
                 : failed_to_write ? std::string()
                                   : r.error_detail();
}

int ReportTransfer(const FetchOptions& options, const Transfer& transfer,
                   int round, const std::string& output) {
  const LoadTiming& t = transfer.timing;
  if (options.verbose) {
    VerboseTransfer verbose;
    verbose.timing = &t;
    verbose.round = round;
    verbose.request_headers = transfer.request->request_headers();
    if (!verbose.request_headers.empty())
      verbose.request_line = absl::StrCat(
          t.method, " ", transfer.request->url().PathForRequest(), " ",
          t.ssl.alpn == "spdy/3" ? "SPDY/3"
          : t.ssl.alpn == "h2"   ? "HTTP/2"
                                 : "HTTP/1.1");
    verbose.response_head = transfer.headers;
    verbose.rejected_cookies = transfer.request->rejected_cookies();
    PrintVerboseTransfer(std::cerr, verbose);
  }
  if (transfer.write_error)
    return ReportError(options, absl::StrCat(t.url, ": cannot write ", output),
                       kExitWriteError);
  if (transfer.result < 0)
    return ReportError(
        options,
        absl::StrCat(t.url, ": ", ErrorToShortString(transfer.result), " (",
                     transfer.result, ")",
                     transfer.error_detail.empty() ? "" : ": ",
                     transfer.error_detail),
        ExitCodeForError(transfer.result));
  if (options.fail_on_http_error && t.status_code >= 400)
    return ReportError(options,
                       absl::StrCat(t.url, ": HTTP status ", t.status_code),
                       kExitHttpError);
  return 0;
}

std::string ResponseHeads(const URLRequest& request) {
  std::string heads;
  for (const URLRequestHop& hop : request.hops())
    heads += hop.response_headers.raw();
  if (const HttpResponseHeaders* h = request.response_headers())
    heads += h->raw();
  return heads;
}

std::string WriteOutFor(const FetchOptions& options, const Transfer& transfer,
                        std::vector<std::string>* unknown) {
  WriteOutTransfer out;
  out.timing = &transfer.timing;
  out.hops = &transfer.hops;
  out.url_effective = transfer.request->url().spec();
  out.redirect_url = transfer.redirect_url;
  out.result = transfer.result;
  out.error_detail = transfer.error_detail;
  return FormatWriteOut(options.write_out, out, unknown);
}

}  // namespace net
