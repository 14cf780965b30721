#include "cert/crl.h"

#include <openssl/asn1.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "absl/strings/str_cat.h"
#include "cert/x509_util.h"

namespace net {
namespace {

absl::Status Bad(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("CRL: ", why));
}

std::optional<absl::Time> ToTime(const ASN1_TIME* t) {
  if (!t) return std::nullopt;
  bssl::UniquePtr<ASN1_TIME> epoch(ASN1_TIME_set(nullptr, 0));
  int days, secs;
  if (!ASN1_TIME_diff(&days, &secs, epoch.get(), t)) return std::nullopt;
  return absl::FromUnixSeconds(int64_t{days} * 86400 + secs);
}

}  // namespace

absl::StatusOr<CrlResult> CheckCrl(absl::string_view crl_bytes,
                                   absl::string_view cert_der,
                                   absl::string_view issuer_der,
                                   absl::Time now) {
  bssl::UniquePtr<X509_CRL> crl;
  if (crl_bytes.substr(0, 10) == "-----BEGIN") {
    bssl::UniquePtr<BIO> bio(
        BIO_new_mem_buf(crl_bytes.data(), crl_bytes.size()));
    crl.reset(PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr));
  } else {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(crl_bytes.data());
    crl.reset(d2i_X509_CRL(nullptr, &p, crl_bytes.size()));
    if (crl && p != reinterpret_cast<const uint8_t*>(crl_bytes.data()) +
                        crl_bytes.size())
      crl.reset();
  }
  ERR_clear_error();
  if (!crl) return Bad("malformed");
  bssl::UniquePtr<X509> cert = DerToX509(cert_der);
  bssl::UniquePtr<X509> issuer = DerToX509(issuer_der);
  if (!cert || !issuer) return Bad("certificate does not parse");
  if (X509_NAME_cmp(X509_CRL_get_issuer(crl.get()),
                    X509_get_subject_name(issuer.get())) != 0)
    return Bad("issued by someone else");
  bssl::UniquePtr<EVP_PKEY> key(X509_get_pubkey(issuer.get()));
  if (!key || X509_CRL_verify(crl.get(), key.get()) != 1) {
    ERR_clear_error();
    return Bad("bad signature");
  }
  CrlResult result;
  std::optional<absl::Time> this_update =
      ToTime(X509_CRL_get0_lastUpdate(crl.get()));
  if (!this_update) return Bad("malformed thisUpdate");
  result.this_update = *this_update;
  result.next_update = ToTime(X509_CRL_get0_nextUpdate(crl.get()));
  if (result.this_update > now + absl::Minutes(5))
    return Bad("thisUpdate is in the future");
  if (result.next_update && *result.next_update < now)
    return Bad("expired (nextUpdate has passed)");
  X509_REVOKED* revoked = nullptr;
  result.revoked =
      X509_CRL_get0_by_serial(crl.get(), &revoked,
                              X509_get_serialNumber(cert.get())) == 1;
  return result;
}

}  // namespace net
