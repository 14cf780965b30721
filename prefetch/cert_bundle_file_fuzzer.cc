// Fuzzes DecodeBundleFile. Beyond "no crash": whatever decodes must
// re-encode, compressed and plain, to a file that decodes to the same
// bundle (decode(encode(decode(x))) == decode(x)), and the shape check must
// not crash on it.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "prefetch/cert_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<net::CertBundle> bundle = net::DecodeBundleFile(input);
  if (!bundle.ok()) return 0;
  for (bool compress : {true, false}) {
    absl::StatusOr<std::string> file = net::EncodeBundleFile(*bundle, compress);
    if (!file.ok()) std::abort();  // a decoded bundle always encodes
    // The plain form of a compressed input can be larger than the input.
    absl::StatusOr<net::CertBundle> again =
        net::DecodeBundleFile(*file, file->size());
    if (!again.ok() || *again != *bundle) std::abort();
  }
  (void)net::ValidateBundleShape(*bundle, bundle->host, bundle->port,
                                 absl::FromUnixSeconds(1'780'000'000));
  return 0;
}
