// HttpRequestInfo: what a request asks for (URL, method, extra headers, a
// body, a priority), as the caller of HttpNetworkTransaction gives it; each
// HttpStream puts it on the wire in its protocol's form. A plain value.

#ifndef NET_HTTP_HTTP_REQUEST_INFO_H_
#define NET_HTTP_HTTP_REQUEST_INFO_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "net/base/request_priority.h"
#include "net/base/url.h"

namespace net {

struct HttpRequestInfo {
  Url url;
  std::string method = "GET";
  // Extra request headers, sent after Host and before the defaults they
  // replace (a Host or User-Agent here overrides ours).
  std::vector<std::pair<std::string, std::string>> extra_headers;
  // A request body (e.g. an OCSP POST); sent with Content-Length.
  std::string upload_body;
  // How urgent the request is: HIGHEST for a navigation (the default), lower
  // for subresources and background fetches. Over HTTP/2 it sets the
  // stream's weight and dependency and the RFC 9218 "priority" header's
  // urgency, with |priority_incremental| as its "i" (a response usable as
  // it arrives, as a page or an image is); net/http2/http2_priority.h.
  RequestPriority priority = HIGHEST;
  bool priority_incremental = true;

  // Whether extra_headers has |name| (case-insensitive).
  bool HasExtraHeader(absl::string_view name) const {
    for (const auto& header : extra_headers) {
      if (absl::EqualsIgnoreCase(header.first, name)) return true;
    }
    return false;
  }
};

}  // namespace net

#endif  // NET_HTTP_HTTP_REQUEST_INFO_H_
