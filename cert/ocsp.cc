#include "cert/ocsp.h"

#include <openssl/base64.h>
#include <openssl/bytestring.h>
#include <openssl/digest.h>
#include <openssl/evp.h>
#include <openssl/mem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cert/x509_util.h"

namespace net {
namespace {

constexpr uint8_t kOidSha1[] = {0x2b, 0x0e, 0x03, 0x02, 0x1a};
constexpr uint8_t kOidSha256[] = {0x60, 0x86, 0x48, 0x01, 0x65,
                                  0x03, 0x04, 0x02, 0x01};
constexpr uint8_t kOidOcspBasic[] = {0x2b, 0x06, 0x01, 0x05, 0x05,
                                     0x07, 0x30, 0x01, 0x01};
constexpr uint8_t kOidOcspNonce[] = {0x2b, 0x06, 0x01, 0x05, 0x05,
                                     0x07, 0x30, 0x01, 0x02};

struct SigAlg {
  std::vector<uint8_t> oid;
  const EVP_MD* (*md)();
};

const SigAlg kSigAlgs[] = {
    {{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b},
     EVP_sha256},  // sha256WithRSA
    {{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c},
     EVP_sha384},  // sha384WithRSA
    {{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d},
     EVP_sha512},  // sha512WithRSA
    {{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05},
     EVP_sha1},  // sha1WithRSA
    {{0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02},
     EVP_sha256},  // ecdsa-with-SHA256
    {{0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03},
     EVP_sha384},  // ecdsa-with-SHA384
    {{0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01}, EVP_sha1},  // ecdsa-with-SHA1
};

absl::Status Bad(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("OCSP: ", why));
}

std::string ToString(const CBS& cbs) {
  return std::string(reinterpret_cast<const char*>(CBS_data(&cbs)),
                     CBS_len(&cbs));
}

bool OidEquals(const CBS& oid, const uint8_t* want, size_t len) {
  return CBS_len(&oid) == len && memcmp(CBS_data(&oid), want, len) == 0;
}

// The parts of a certificate OCSP needs.
struct CertParts {
  std::string subject;          // full DER of the subject Name
  std::string issuer;           // full DER of the issuer Name
  std::string serial;           // INTEGER content octets
  std::string public_key_bits;  // subjectPublicKey BIT STRING contents, without
                                // the pad byte
};

absl::StatusOr<CertParts> ParseCert(absl::string_view der) {
  CBS cbs, cert, tbs, skip, name, spki, key;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(der.data()), der.size());
  CertParts parts;
  CBS serial;
  if (!CBS_get_asn1(&cbs, &cert, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&cert, &tbs, CBS_ASN1_SEQUENCE) ||
      !CBS_get_optional_asn1(
          &tbs, nullptr, nullptr,
          CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0) ||
      !CBS_get_asn1(&tbs, &serial, CBS_ASN1_INTEGER) ||
      !CBS_get_asn1(&tbs, &skip, CBS_ASN1_SEQUENCE) ||          // signature
      !CBS_get_asn1_element(&tbs, &name, CBS_ASN1_SEQUENCE)) {  // issuer
    return Bad("certificate does not parse");
  }
  parts.serial = ToString(serial);
  parts.issuer = ToString(name);
  if (!CBS_get_asn1(&tbs, &skip, CBS_ASN1_SEQUENCE) ||          // validity
      !CBS_get_asn1_element(&tbs, &name, CBS_ASN1_SEQUENCE) ||  // subject
      !CBS_get_asn1(&tbs, &spki, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&spki, &skip, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&spki, &key, CBS_ASN1_BITSTRING) || CBS_len(&key) < 1 ||
      CBS_data(&key)[0] != 0) {
    return Bad("certificate does not parse");
  }
  parts.subject = ToString(name);
  parts.public_key_bits = std::string(
      reinterpret_cast<const char*>(CBS_data(&key)) + 1, CBS_len(&key) - 1);
  return parts;
}

std::string Hash(OcspHash hash, absl::string_view data) {
  if (hash == OcspHash::kSha1) {
    uint8_t out[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const uint8_t*>(data.data()), data.size(), out);
    return std::string(reinterpret_cast<char*>(out), sizeof(out));
  }
  uint8_t out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof(out));
}

bool AddCertId(CBB* parent, const OcspCertId& id) {
  CBB cert_id, alg, oid, octets, serial;
  const uint8_t* oid_bytes = id.hash == OcspHash::kSha1 ? kOidSha1 : kOidSha256;
  size_t oid_len =
      id.hash == OcspHash::kSha1 ? sizeof(kOidSha1) : sizeof(kOidSha256);
  return CBB_add_asn1(parent, &cert_id, CBS_ASN1_SEQUENCE) &&
         CBB_add_asn1(&cert_id, &alg, CBS_ASN1_SEQUENCE) &&
         CBB_add_asn1(&alg, &oid, CBS_ASN1_OBJECT) &&
         CBB_add_bytes(&oid, oid_bytes, oid_len) &&
         CBB_add_asn1(&alg, &octets, CBS_ASN1_NULL) && CBB_flush(&cert_id) &&
         CBB_add_asn1(&cert_id, &octets, CBS_ASN1_OCTETSTRING) &&
         CBB_add_bytes(
             &octets,
             reinterpret_cast<const uint8_t*>(id.issuer_name_hash.data()),
             id.issuer_name_hash.size()) &&
         CBB_add_asn1(&cert_id, &octets, CBS_ASN1_OCTETSTRING) &&
         CBB_add_bytes(
             &octets,
             reinterpret_cast<const uint8_t*>(id.issuer_key_hash.data()),
             id.issuer_key_hash.size()) &&
         CBB_add_asn1(&cert_id, &serial, CBS_ASN1_INTEGER) &&
         CBB_add_bytes(&serial,
                       reinterpret_cast<const uint8_t*>(id.serial.data()),
                       id.serial.size()) &&
         CBB_flush(parent);
}

absl::StatusOr<OcspCertId> ParseCertId(CBS* cbs) {
  CBS cert_id, alg, oid, name_hash, key_hash, serial;
  if (!CBS_get_asn1(cbs, &cert_id, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&cert_id, &alg, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&alg, &oid, CBS_ASN1_OBJECT) ||
      !CBS_get_asn1(&cert_id, &name_hash, CBS_ASN1_OCTETSTRING) ||
      !CBS_get_asn1(&cert_id, &key_hash, CBS_ASN1_OCTETSTRING) ||
      !CBS_get_asn1(&cert_id, &serial, CBS_ASN1_INTEGER) ||
      CBS_len(&cert_id) != 0) {
    return Bad("malformed CertID");
  }
  OcspCertId id;
  if (OidEquals(oid, kOidSha1, sizeof(kOidSha1))) {
    id.hash = OcspHash::kSha1;
  } else if (OidEquals(oid, kOidSha256, sizeof(kOidSha256))) {
    id.hash = OcspHash::kSha256;
  } else {
    return Bad("CertID uses an unsupported hash");
  }
  id.issuer_name_hash = ToString(name_hash);
  id.issuer_key_hash = ToString(key_hash);
  id.serial = ToString(serial);
  return id;
}

absl::StatusOr<absl::Time> GetTime(CBS* cbs) {
  CBS t;
  if (!CBS_get_asn1(cbs, &t, CBS_ASN1_GENERALIZEDTIME))
    return Bad("missing GeneralizedTime");
  std::optional<absl::Time> time = ParseGeneralizedTime(ToString(t));
  if (!time) return Bad("malformed GeneralizedTime");
  return *time;
}

// Walks an Extensions SEQUENCE: rejects any critical extension, and returns
// the nonce (if any) through |nonce|.
absl::Status CheckExtensions(CBS extensions, std::string* nonce) {
  while (CBS_len(&extensions) > 0) {
    CBS ext, oid, value;
    int critical = 0;
    if (!CBS_get_asn1(&extensions, &ext, CBS_ASN1_SEQUENCE) ||
        !CBS_get_asn1(&ext, &oid, CBS_ASN1_OBJECT)) {
      return Bad("malformed extension");
    }
    if (CBS_peek_asn1_tag(&ext, CBS_ASN1_BOOLEAN) &&
        !CBS_get_asn1_bool(&ext, &critical))
      return Bad("malformed extension");
    if (!CBS_get_asn1(&ext, &value, CBS_ASN1_OCTETSTRING) || CBS_len(&ext) != 0)
      return Bad("malformed extension");
    if (OidEquals(oid, kOidOcspNonce, sizeof(kOidOcspNonce))) {
      CBS inner;
      // The nonce is an OCTET STRING inside the extension value (RFC 8954).
      if (CBS_get_asn1(&value, &inner, CBS_ASN1_OCTETSTRING) &&
          CBS_len(&value) == 0) {
        if (nonce) *nonce = ToString(inner);
      } else if (nonce) {
        *nonce = ToString(value);
      }
      continue;
    }
    if (critical) return Bad("critical extension makes the response unusable");
  }
  return absl::OkStatus();
}

bool VerifySignature(X509* signer, const CBS& sig_alg_oid, const CBS& tbs,
                     const CBS& sig) {
  const EVP_MD* md = nullptr;
  for (const SigAlg& alg : kSigAlgs) {
    if (OidEquals(sig_alg_oid, alg.oid.data(), alg.oid.size())) md = alg.md();
  }
  if (!md) return false;
  bssl::UniquePtr<EVP_PKEY> key(X509_get_pubkey(signer));
  if (!key) return false;
  bssl::ScopedEVP_MD_CTX ctx;
  if (!EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key.get()))
    return false;
  // BIT STRING with no unused bits.
  if (CBS_len(&sig) < 1 || CBS_data(&sig)[0] != 0) return false;
  return EVP_DigestVerify(ctx.get(), CBS_data(&sig) + 1, CBS_len(&sig) - 1,
                          CBS_data(&tbs), CBS_len(&tbs)) == 1;
}

bool ValidAt(X509* cert, absl::Time now) {
  time_t t = absl::ToTimeT(now);
  return X509_cmp_time(X509_get0_notBefore(cert), &t) <= 0 &&
         X509_cmp_time(X509_get0_notAfter(cert), &t) >= 0;
}

}  // namespace

const char* OcspCertStatusToString(OcspCertStatus status) {
  switch (status) {
    case OcspCertStatus::kGood:
      return "good";
    case OcspCertStatus::kRevoked:
      return "revoked";
    case OcspCertStatus::kUnknown:
      return "unknown";
  }
  return "?";
}

std::optional<absl::Time> ParseGeneralizedTime(absl::string_view text) {
  // YYYYMMDDHHMMSS[.fff]Z
  if (text.size() < 15 || text.back() != 'Z') return std::nullopt;
  int v[6];
  const int widths[6] = {4, 2, 2, 2, 2, 2};
  size_t pos = 0;
  for (int i = 0; i < 6; ++i) {
    absl::string_view part = text.substr(pos, widths[i]);
    for (char c : part) {
      if (!absl::ascii_isdigit(c)) return std::nullopt;
    }
    absl::SimpleAtoi(part, &v[i]);
    pos += widths[i];
  }
  if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 ||
      v[4] > 59 || v[5] > 60)
    return std::nullopt;
  absl::CivilSecond civil(v[0], v[1], v[2], v[3], v[4], v[5]);
  if (civil.day() != v[2]) return std::nullopt;  // e.g. February 30
  return absl::FromCivil(civil, absl::UTCTimeZone());
}

absl::StatusOr<OcspCertId> BuildOcspCertId(absl::string_view cert_der,
                                           absl::string_view issuer_der,
                                           OcspHash hash) {
  absl::StatusOr<CertParts> cert = ParseCert(cert_der);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<CertParts> issuer = ParseCert(issuer_der);
  if (!issuer.ok()) return issuer.status();
  OcspCertId id;
  id.hash = hash;
  id.issuer_name_hash = Hash(hash, issuer->subject);
  id.issuer_key_hash = Hash(hash, issuer->public_key_bits);
  id.serial = cert->serial;
  return id;
}

absl::StatusOr<std::string> BuildOcspRequest(const OcspCertId& id,
                                             absl::string_view nonce) {
  bssl::ScopedCBB cbb;
  CBB request, tbs, list, single;
  if (!CBB_init(cbb.get(), 128) ||
      !CBB_add_asn1(cbb.get(), &request, CBS_ASN1_SEQUENCE) ||
      !CBB_add_asn1(&request, &tbs, CBS_ASN1_SEQUENCE) ||
      !CBB_add_asn1(&tbs, &list, CBS_ASN1_SEQUENCE) ||
      !CBB_add_asn1(&list, &single, CBS_ASN1_SEQUENCE) ||
      !AddCertId(&single, id) || !CBB_flush(&tbs)) {
    return absl::InternalError("cannot build OCSP request");
  }
  if (!nonce.empty()) {
    CBB explicit_tag, exts, ext, oid, value, inner;
    if (!CBB_add_asn1(&tbs, &explicit_tag,
                      CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 2) ||
        !CBB_add_asn1(&explicit_tag, &exts, CBS_ASN1_SEQUENCE) ||
        !CBB_add_asn1(&exts, &ext, CBS_ASN1_SEQUENCE) ||
        !CBB_add_asn1(&ext, &oid, CBS_ASN1_OBJECT) ||
        !CBB_add_bytes(&oid, kOidOcspNonce, sizeof(kOidOcspNonce)) ||
        !CBB_add_asn1(&ext, &value, CBS_ASN1_OCTETSTRING) ||
        !CBB_add_asn1(&value, &inner, CBS_ASN1_OCTETSTRING) ||
        !CBB_add_bytes(&inner, reinterpret_cast<const uint8_t*>(nonce.data()),
                       nonce.size()) ||
        !CBB_flush(&tbs)) {
      return absl::InternalError("cannot build OCSP nonce");
    }
  }
  uint8_t* out;
  size_t out_len;
  if (!CBB_finish(cbb.get(), &out, &out_len))
    return absl::InternalError("CBB_finish");
  std::string der(reinterpret_cast<char*>(out), out_len);
  OPENSSL_free(out);
  return der;
}

std::optional<std::string> OcspGetUrl(absl::string_view responder_url,
                                      absl::string_view request_der) {
  size_t b64_len;
  EVP_EncodedLength(&b64_len, request_der.size());
  std::string b64(b64_len, '\0');
  size_t n = EVP_EncodeBlock(
      reinterpret_cast<uint8_t*>(b64.data()),
      reinterpret_cast<const uint8_t*>(request_der.data()), request_der.size());
  b64.resize(n);
  std::string escaped;
  for (char c : b64) {
    if (c == '+')
      escaped += "%2B";
    else if (c == '/')
      escaped += "%2F";
    else if (c == '=')
      escaped += "%3D";
    else
      escaped.push_back(c);
  }
  // RFC 6960 A.1 / RFC 5019: GET for requests whose encoding is under 255
  // bytes.
  if (escaped.size() >= 255) return std::nullopt;
  std::string url(responder_url);
  if (url.empty() || url.back() != '/') url.push_back('/');
  return url + escaped;
}

absl::StatusOr<OcspResult> VerifyOcspResponse(
    absl::string_view response_der, absl::string_view cert_der,
    absl::string_view issuer_der, const OcspVerifyOptions& options) {
  CBS cbs, response, bytes_explicit, bytes, type, basic_octets;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(response_der.data()),
           response_der.size());
  uint64_t status;
  CBS status_cbs;
  if (!CBS_get_asn1(&cbs, &response, CBS_ASN1_SEQUENCE) || CBS_len(&cbs) != 0 ||
      !CBS_get_asn1(&response, &status_cbs, CBS_ASN1_ENUMERATED) ||
      CBS_len(&status_cbs) != 1) {
    return Bad("malformed OCSPResponse");
  }
  status = CBS_data(&status_cbs)[0];
  if (status != 0)
    return Bad(absl::StrCat("responder status ", status, " (not successful)"));
  if (!CBS_get_asn1(&response, &bytes_explicit,
                    CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0) ||
      !CBS_get_asn1(&bytes_explicit, &bytes, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&bytes, &type, CBS_ASN1_OBJECT) ||
      !CBS_get_asn1(&bytes, &basic_octets, CBS_ASN1_OCTETSTRING)) {
    return Bad("malformed responseBytes");
  }
  if (!OidEquals(type, kOidOcspBasic, sizeof(kOidOcspBasic)))
    return Bad("not a basic OCSP response");

  CBS basic, tbs_element, tbs, sig_alg, sig_alg_oid, signature;
  if (!CBS_get_asn1(&basic_octets, &basic, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1_element(&basic, &tbs_element, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&basic, &sig_alg, CBS_ASN1_SEQUENCE) ||
      !CBS_get_asn1(&sig_alg, &sig_alg_oid, CBS_ASN1_OBJECT) ||
      !CBS_get_asn1(&basic, &signature, CBS_ASN1_BITSTRING)) {
    return Bad("malformed BasicOCSPResponse");
  }
  std::vector<bssl::UniquePtr<X509>> certs;
  if (CBS_len(&basic) > 0) {
    CBS certs_explicit, certs_seq;
    if (!CBS_get_asn1(&basic, &certs_explicit,
                      CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0) ||
        !CBS_get_asn1(&certs_explicit, &certs_seq, CBS_ASN1_SEQUENCE)) {
      return Bad("malformed certs");
    }
    while (CBS_len(&certs_seq) > 0) {
      CBS c;
      if (!CBS_get_asn1_element(&certs_seq, &c, CBS_ASN1_SEQUENCE))
        return Bad("malformed certs");
      bssl::UniquePtr<X509> x = DerToX509(ToString(c));
      if (!x) return Bad("a certificate in the response does not parse");
      certs.push_back(std::move(x));
    }
  }

  // ResponseData.
  tbs = tbs_element;
  CBS data, responder_id, responses;
  unsigned responder_tag;
  if (!CBS_get_asn1(&tbs, &data, CBS_ASN1_SEQUENCE) ||
      !CBS_get_optional_asn1(
          &data, nullptr, nullptr,
          CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0) ||
      !CBS_get_any_asn1(&data, &responder_id, &responder_tag)) {
    return Bad("malformed ResponseData");
  }
  absl::StatusOr<absl::Time> produced_at = GetTime(&data);
  if (!produced_at.ok()) return produced_at.status();
  if (!CBS_get_asn1(&data, &responses, CBS_ASN1_SEQUENCE))
    return Bad("missing responses");
  std::string nonce;
  if (CBS_len(&data) > 0) {
    CBS exts_explicit, exts;
    if (!CBS_get_asn1(&data, &exts_explicit,
                      CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1) ||
        !CBS_get_asn1(&exts_explicit, &exts, CBS_ASN1_SEQUENCE) ||
        CBS_len(&data) != 0) {
      return Bad("malformed responseExtensions");
    }
    absl::Status s = CheckExtensions(exts, &nonce);
    if (!s.ok()) return s;
  }

  // Who signed it: the issuer, or a delegate the issuer certified.
  bssl::UniquePtr<X509> issuer = DerToX509(issuer_der);
  if (!issuer) return Bad("issuer certificate does not parse");
  auto matches_responder_id = [&](X509* candidate) -> bool {
    uint8_t* der = nullptr;
    int len = i2d_X509(candidate, &der);
    if (len <= 0) return false;
    absl::StatusOr<CertParts> parts =
        ParseCert(std::string(reinterpret_cast<char*>(der), len));
    OPENSSL_free(der);
    if (!parts.ok()) return false;
    if (responder_tag ==
        (CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1)) {
      return ToString(responder_id) == parts->subject;
    }
    if (responder_tag ==
        (CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 2)) {
      CBS key_hash;
      CBS id = responder_id;
      return CBS_get_asn1(&id, &key_hash, CBS_ASN1_OCTETSTRING) &&
             ToString(key_hash) ==
                 Hash(OcspHash::kSha1, parts->public_key_bits);
    }
    return false;
  };
  X509* signer = nullptr;
  bool delegate = false;
  if (matches_responder_id(issuer.get())) {
    signer = issuer.get();
  } else {
    bssl::UniquePtr<EVP_PKEY> issuer_key(X509_get_pubkey(issuer.get()));
    for (auto& candidate : certs) {
      if (!matches_responder_id(candidate.get())) continue;
      if (X509_verify(candidate.get(), issuer_key.get()) != 1 ||
          X509_check_issued(issuer.get(), candidate.get()) != X509_V_OK) {
        return Bad(
            "the responder certificate was not issued by the certificate's "
            "issuer");
      }
      if (!(X509_get_extended_key_usage(candidate.get()) & XKU_OCSP_SIGN) ||
          X509_get_extended_key_usage(candidate.get()) == UINT32_MAX) {
        return Bad("the responder certificate lacks the OCSP-signing EKU");
      }
      if (!ValidAt(candidate.get(), options.now))
        return Bad("the responder certificate is not valid now");
      signer = candidate.get();
      delegate = true;
      break;
    }
  }
  if (!signer) return Bad("signed by an unknown or unauthorised responder");
  if (!VerifySignature(signer, sig_alg_oid, tbs_element, signature))
    return Bad("bad signature");

  if (!options.expected_nonce.empty() && !nonce.empty() &&
      nonce != options.expected_nonce)
    return Bad("nonce mismatch");

  // The SingleResponse for our certificate.
  OcspResult result;
  result.produced_at = *produced_at;
  result.signed_by_delegate = delegate;
  bool found = false;
  while (CBS_len(&responses) > 0) {
    CBS single;
    if (!CBS_get_asn1(&responses, &single, CBS_ASN1_SEQUENCE))
      return Bad("malformed SingleResponse");
    absl::StatusOr<OcspCertId> id = ParseCertId(&single);
    if (!id.ok()) return id.status();
    absl::StatusOr<OcspCertId> ours =
        BuildOcspCertId(cert_der, issuer_der, id->hash);
    if (!ours.ok()) return ours.status();
    CBS cert_status;
    unsigned status_tag;
    if (!CBS_get_any_asn1(&single, &cert_status, &status_tag))
      return Bad("malformed certStatus");
    absl::StatusOr<absl::Time> this_update = GetTime(&single);
    if (!this_update.ok()) return this_update.status();
    std::optional<absl::Time> next_update;
    CBS next_explicit;
    int has_next = 0;
    if (!CBS_get_optional_asn1(
            &single, &next_explicit, &has_next,
            CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0)) {
      return Bad("malformed nextUpdate");
    }
    if (has_next) {
      absl::StatusOr<absl::Time> t = GetTime(&next_explicit);
      if (!t.ok()) return t.status();
      next_update = *t;
    }
    if (CBS_len(&single) > 0) {
      CBS exts_explicit, exts;
      if (!CBS_get_asn1(&single, &exts_explicit,
                        CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1) ||
          !CBS_get_asn1(&exts_explicit, &exts, CBS_ASN1_SEQUENCE)) {
        return Bad("malformed singleExtensions");
      }
      absl::Status s = CheckExtensions(exts, nullptr);
      if (!s.ok()) return s;
    }
    if (!(*id == *ours)) continue;
    found = true;
    if (status_tag == (CBS_ASN1_CONTEXT_SPECIFIC | 0)) {
      result.status = OcspCertStatus::kGood;
    } else if (status_tag ==
               (CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1)) {
      result.status = OcspCertStatus::kRevoked;
      absl::StatusOr<absl::Time> when = GetTime(&cert_status);
      if (when.ok()) result.revocation_time = *when;
    } else if (status_tag == (CBS_ASN1_CONTEXT_SPECIFIC | 2)) {
      result.status = OcspCertStatus::kUnknown;
    } else {
      return Bad("unknown certStatus");
    }
    result.this_update = *this_update;
    result.next_update = next_update;
    break;
  }
  if (!found) return Bad("the response is for another certificate");
  if (result.this_update > options.now + options.skew)
    return Bad("thisUpdate is in the future");
  if (result.produced_at > options.now + options.skew)
    return Bad("producedAt is in the future");
  if (result.next_update) {
    if (*result.next_update < options.now)
      return Bad("expired (nextUpdate has passed)");
  } else if (result.this_update + options.max_age < options.now) {
    return Bad("too old (no nextUpdate and older than the max age)");
  }
  return result;
}

}  // namespace net
