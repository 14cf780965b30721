// Helpers to load and convert certificates with BoringSSL.

#ifndef CERT_X509_UTIL_H_
#define CERT_X509_UTIL_H_

#include <openssl/x509.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/base/file_util.h"

namespace net {

// ParsePemCertificates returns every CERTIFICATE block in |pem| as DER, or an
// error if there is none or one fails to parse.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> ParsePemCertificates(
    absl::string_view pem);

// LoadPemCertificatesFromFile reads |path| and parses it as above.
[[nodiscard]] absl::StatusOr<std::vector<std::string>>
LoadPemCertificatesFromFile(const std::string& path);

// ChainFingerprint is a SHA-256 over a DER chain (each certificate
// length-prefixed), the key of verification caches.
std::string ChainFingerprint(const std::vector<std::string>& chain_der);

// DerToX509 parses one DER certificate; null on failure.
bssl::UniquePtr<X509> DerToX509(absl::string_view der);

// CertificateCoversHost says whether the DER certificate |leaf_der| is valid
// for |host| (BoringSSL's X509_check_host: DNS subjectAltNames with
// wildcards, or an IP address SAN for an IP literal; no partial wildcards).
// SPDY IP pooling asks it of a session's verified leaf.
bool CertificateCoversHost(absl::string_view leaf_der, absl::string_view host);

}  // namespace net

#endif  // CERT_X509_UTIL_H_
