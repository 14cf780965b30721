// FormatWriteOut: fetch's -w/--write-out, curl's variables with curl's
// meanings (times in seconds from the start of the transfer, redirects
// included; "%{json}" for all of them; \n, \t, \r escapes; %% for %), plus
// this stack's own (snap_start, cert_source, revocation_source, obc_source,
// tls_version, early_data, cert_compression). Presentation only: it reads
// the trace of a finished transfer.

#ifndef TOOLS_FETCH_WRITE_OUT_H_
#define TOOLS_FETCH_WRITE_OUT_H_

#include <string>
#include <utility>
#include <vector>

#include "net/timing/load_timing.h"

namespace net {

// One finished transfer, as -w sees it.
struct WriteOutTransfer {
  // The final hop's trace, and the redirects' before it (not owned).
  const LoadTiming* timing = nullptr;
  const std::vector<LoadTiming>* hops = nullptr;
  std::string url_effective;
  // Where the final response redirected to, when it was not followed.
  std::string redirect_url;
  int result = 0;  // OK or the net error
  std::string error_detail;
};

// WriteOutVariables returns every variable's name and value, in the order
// %{json} lists them.
std::vector<std::pair<std::string, std::string>> WriteOutVariables(
    const WriteOutTransfer& transfer);

// FormatWriteOut expands |format| for |transfer|. Unknown variables expand
// to nothing, as in curl, and are added to |*unknown| (when given) for the
// caller to warn about once. In %{json} the numeric variables (codes,
// times, sizes, counts, the port) are JSON numbers, as curl's.
std::string FormatWriteOut(const std::string& format,
                           const WriteOutTransfer& transfer,
                           std::vector<std::string>* unknown = nullptr);

}  // namespace net

#endif  // TOOLS_FETCH_WRITE_OUT_H_
