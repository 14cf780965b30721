// Fuzzes ParseBundleTxt: the input's lines ('\n'-separated) are the strings
// of one TXT record, so strings over 255 bytes and empty strings are
// reachable too. Beyond "no crash": whatever parses re-encodes to a record
// that parses to the same value (a bundle re-encodes compressed, so a
// record may only fail to re-encode for being over the TXT size limit).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "prefetch/cert_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> strings = absl::StrSplit(input, '\n');
  absl::StatusOr<net::BundleTxtRecord> record = net::ParseBundleTxt(strings);
  if (!record.ok()) return 0;
  absl::StatusOr<std::vector<std::string>> encoded;
  if (const auto* bundle = std::get_if<net::CertBundle>(&*record)) {
    encoded = net::EncodeBundleTxt(*bundle);
  } else {
    encoded =
        net::EncodeBundlePointerTxt(std::get<net::BundlePointer>(*record).url);
  }
  if (!encoded.ok()) {
    if (encoded.status().code() == absl::StatusCode::kResourceExhausted)
      return 0;
    std::abort();
  }
  for (const std::string& s : *encoded) {
    if (s.size() > net::kMaxTxtStringBytes) std::abort();
  }
  absl::StatusOr<net::BundleTxtRecord> again = net::ParseBundleTxt(*encoded);
  if (!again.ok() || *again != *record) std::abort();
  return 0;
}
