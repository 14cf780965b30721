// HttpRequestInfo: what a request asks for (URL, method, extra headers, a
// body), as the caller of HttpNetworkTransaction gives it; each HttpStream
// puts it on the wire in its protocol's form. A plain value.

#ifndef NET_HTTP_HTTP_REQUEST_INFO_H_
#define NET_HTTP_HTTP_REQUEST_INFO_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
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
