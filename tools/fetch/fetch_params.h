// MakeNetworkContextParams: fetch's command line (FetchOptions) as the
// NetworkContextParams the tool builds its context from — trust, DNS,
// session and TLS settings, revocation, OBCs, bundle prefetching, Snap
// Start, the profile. Pure: no I/O beyond what the parsers of the named
// settings do; the context itself reports unusable files.

#ifndef TOOLS_FETCH_FETCH_PARAMS_H_
#define TOOLS_FETCH_FETCH_PARAMS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "net/base/url.h"
#include "net/context/network_context.h"
#include "tools/fetch/fetch_options.h"

namespace net {

// MakeNetworkContextParams maps |options| (and the https URLs of |urls|,
// whose ports bundles are prefetched for) to context parameters.
// InvalidArgument naming the flag for a value no parser accepts
// (--revocation, --obc, --obc-scope, --bundle-sources, --cert-compression).
[[nodiscard]] absl::StatusOr<NetworkContextParams> MakeNetworkContextParams(
    const FetchOptions& options, const std::vector<Url>& urls);

}  // namespace net

#endif  // TOOLS_FETCH_FETCH_PARAMS_H_
