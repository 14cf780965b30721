#include "prefetch/snap_start_from_bundle.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"

namespace net {

absl::StatusOr<SnapStartInfo> SnapStartInfoFromBundle(
    const FetchedBundle& fetched, bool tickets, bool verified) {
  const CertBundle& bundle = fetched.bundle;
  if (!bundle.orbit || bundle.orbit->size() != kOrbitSize)
    return absl::InvalidArgumentError("the bundle has no Snap Start orbit");
  if (bundle.cipher_suite != kTlsRsaWithAes128GcmSha256)
    return absl::InvalidArgumentError(absl::StrFormat(
        "the bundle's cipher suite 0x%04x is not one Snap Start speaks here",
        bundle.cipher_suite));
  SnapStartInfo info;
  info.chain_der = bundle.chain;
  info.cipher_suite = bundle.cipher_suite;
  std::copy(bundle.orbit->begin(), bundle.orbit->end(), info.orbit.begin());
  info.verified = verified;
  if (!fetched.server_hello.empty()) {
    absl::StatusOr<ServerHello> parsed = ParseServerHello(fetched.server_hello);
    if (!parsed.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("the bundle's ServerHello does not parse: ",
                       parsed.status().message()));
    info.server_hello = fetched.server_hello;
    return info;
  }
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, '\0');  // replaced by the prediction
  hello.cipher_suite = bundle.cipher_suite;
  hello.compression_method = 0;
  hello.has_extensions = true;
  hello.extensions.emplace_back(kRenegotiationInfoExtension,
                                std::string(1, '\0'));
  hello.extensions.emplace_back(kExtendedMasterSecretExtension, std::string());
  if (tickets)
    hello.extensions.emplace_back(kSessionTicketExtension, std::string());
  SnapStartServerInfo server_info;
  server_info.orbit = info.orbit;
  server_info.cipher_suite = bundle.cipher_suite;
  hello.extensions.emplace_back(kSnapStartExtension,
                                SerializeSnapStartServerExtension(server_info));
  info.server_hello = SerializeServerHello(hello);
  return info;
}

}  // namespace net
