#include "cert/ocsp_test_util.h"

#include <openssl/bytestring.h>
#include <openssl/digest.h>
#include <openssl/ec_key.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <cstdio>

#include "absl/strings/str_format.h"

namespace net {
namespace {

constexpr uint8_t kOidSha1[] = {0x2b, 0x0e, 0x03, 0x02, 0x1a};
constexpr uint8_t kOidSha256[] = {0x60, 0x86, 0x48, 0x01, 0x65,
                                  0x03, 0x04, 0x02, 0x01};
constexpr uint8_t kOidOcspBasic[] = {0x2b, 0x06, 0x01, 0x05, 0x05,
                                     0x07, 0x30, 0x01, 0x01};
constexpr uint8_t kOidOcspNonce[] = {0x2b, 0x06, 0x01, 0x05, 0x05,
                                     0x07, 0x30, 0x01, 0x02};
constexpr uint8_t kOidSha256WithRsa[] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
                                         0x0d, 0x01, 0x01, 0x0b};
constexpr uint8_t kOidEcdsaSha256[] = {0x2a, 0x86, 0x48, 0xce,
                                       0x3d, 0x04, 0x03, 0x02};
constexpr uint8_t kOidExperimental[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                        0x82, 0x37, 0x7f, 0x01};

void AddTime(CBB* cbb, absl::Time t) {
  std::string s = absl::FormatTime("%Y%m%d%H%M%SZ", t, absl::UTCTimeZone());
  CBB child;
  CBB_add_asn1(cbb, &child, CBS_ASN1_GENERALIZEDTIME);
  CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(s.data()), s.size());
  CBB_flush(cbb);
}

void AddOid(CBB* cbb, const uint8_t* oid, size_t len) {
  CBB child;
  CBB_add_asn1(cbb, &child, CBS_ASN1_OBJECT);
  CBB_add_bytes(&child, oid, len);
  CBB_flush(cbb);
}

void AddOctets(CBB* cbb, const std::string& data,
               unsigned tag = CBS_ASN1_OCTETSTRING) {
  CBB child;
  CBB_add_asn1(cbb, &child, tag);
  CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(data.data()),
                data.size());
  CBB_flush(cbb);
}

std::string Finish(CBB* cbb) {
  uint8_t* out;
  size_t len;
  CBB_finish(cbb, &out, &len);
  std::string s(reinterpret_cast<char*>(out), len);
  OPENSSL_free(out);
  return s;
}

}  // namespace

std::string X509ToDer(X509* cert) {
  uint8_t* der = nullptr;
  int len = i2d_X509(cert, &der);
  std::string s(reinterpret_cast<char*>(der), len);
  OPENSSL_free(der);
  return s;
}

std::string BuildOcspResponse(const OcspResponseSpec& spec) {
  // ResponseData.
  bssl::ScopedCBB tbs_cbb;
  CBB_init(tbs_cbb.get(), 256);
  CBB data, rid, responses, single;
  CBB_add_asn1(tbs_cbb.get(), &data, CBS_ASN1_SEQUENCE);
  CBB_add_asn1(&data, &rid,
               CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1);
  uint8_t* name_der = nullptr;
  int name_len =
      i2d_X509_NAME(X509_get_subject_name(spec.responder), &name_der);
  CBB_add_bytes(&rid, name_der, name_len);
  OPENSSL_free(name_der);
  CBB_flush(&data);
  AddTime(&data, spec.produced_at);
  CBB_add_asn1(&data, &responses, CBS_ASN1_SEQUENCE);
  CBB_add_asn1(&responses, &single, CBS_ASN1_SEQUENCE);
  {
    CBB cert_id, alg;
    CBB_add_asn1(&single, &cert_id, CBS_ASN1_SEQUENCE);
    CBB_add_asn1(&cert_id, &alg, CBS_ASN1_SEQUENCE);
    if (spec.cert_id.hash == OcspHash::kSha1) {
      AddOid(&alg, kOidSha1, sizeof(kOidSha1));
    } else {
      AddOid(&alg, kOidSha256, sizeof(kOidSha256));
    }
    CBB null;
    CBB_add_asn1(&alg, &null, CBS_ASN1_NULL);
    CBB_flush(&cert_id);
    AddOctets(&cert_id, spec.cert_id.issuer_name_hash);
    AddOctets(&cert_id, spec.cert_id.issuer_key_hash);
    AddOctets(&cert_id, spec.cert_id.serial, CBS_ASN1_INTEGER);
    CBB_flush(&single);
  }
  if (spec.status == OcspCertStatus::kGood) {
    CBB s;
    CBB_add_asn1(&single, &s, CBS_ASN1_CONTEXT_SPECIFIC | 0);
  } else if (spec.status == OcspCertStatus::kRevoked) {
    CBB s;
    CBB_add_asn1(&single, &s,
                 CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1);
    AddTime(&s, spec.this_update - absl::Hours(1));
  } else {
    CBB s;
    CBB_add_asn1(&single, &s, CBS_ASN1_CONTEXT_SPECIFIC | 2);
  }
  CBB_flush(&single);
  AddTime(&single, spec.this_update);
  if (spec.next_update) {
    CBB next;
    CBB_add_asn1(&single, &next,
                 CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0);
    AddTime(&next, *spec.next_update);
    CBB_flush(&single);
  }
  if (spec.critical_single_extension) {
    CBB exp, exts, ext;
    CBB_add_asn1(&single, &exp,
                 CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1);
    CBB_add_asn1(&exp, &exts, CBS_ASN1_SEQUENCE);
    CBB_add_asn1(&exts, &ext, CBS_ASN1_SEQUENCE);
    AddOid(&ext, kOidExperimental, sizeof(kOidExperimental));
    CBB_add_asn1_bool(&ext, 1);
    AddOctets(&ext, std::string("\x05\x00", 2));
    CBB_flush(&single);
  }
  CBB_flush(&data);
  if (!spec.nonce.empty()) {
    CBB exp, exts, ext, value;
    CBB_add_asn1(&data, &exp,
                 CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 1);
    CBB_add_asn1(&exp, &exts, CBS_ASN1_SEQUENCE);
    CBB_add_asn1(&exts, &ext, CBS_ASN1_SEQUENCE);
    AddOid(&ext, kOidOcspNonce, sizeof(kOidOcspNonce));
    CBB_add_asn1(&ext, &value, CBS_ASN1_OCTETSTRING);
    AddOctets(&value, spec.nonce);
    CBB_flush(&data);
  }
  std::string tbs = Finish(tbs_cbb.get());

  // Sign.
  bool ec = EVP_PKEY_id(spec.signer_key) == EVP_PKEY_EC;
  bssl::ScopedEVP_MD_CTX ctx;
  EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr,
                     spec.signer_key);
  size_t sig_len = 0;
  EVP_DigestSign(ctx.get(), nullptr, &sig_len,
                 reinterpret_cast<const uint8_t*>(tbs.data()), tbs.size());
  std::string sig(sig_len, '\0');
  EVP_DigestSign(ctx.get(), reinterpret_cast<uint8_t*>(sig.data()), &sig_len,
                 reinterpret_cast<const uint8_t*>(tbs.data()), tbs.size());
  sig.resize(sig_len);
  if (spec.corrupt_signature) sig[sig.size() / 2] ^= 1;

  bssl::ScopedCBB basic_cbb;
  CBB_init(basic_cbb.get(), 512);
  CBB basic, alg;
  CBB_add_asn1(basic_cbb.get(), &basic, CBS_ASN1_SEQUENCE);
  CBB_add_bytes(&basic, reinterpret_cast<const uint8_t*>(tbs.data()),
                tbs.size());
  CBB_add_asn1(&basic, &alg, CBS_ASN1_SEQUENCE);
  if (ec) {
    AddOid(&alg, kOidEcdsaSha256, sizeof(kOidEcdsaSha256));
  } else {
    AddOid(&alg, kOidSha256WithRsa, sizeof(kOidSha256WithRsa));
    CBB null;
    CBB_add_asn1(&alg, &null, CBS_ASN1_NULL);
  }
  CBB_flush(&basic);
  AddOctets(&basic, std::string(1, '\0') + sig, CBS_ASN1_BITSTRING);
  if (!spec.certs.empty()) {
    CBB exp, seq;
    CBB_add_asn1(&basic, &exp,
                 CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0);
    CBB_add_asn1(&exp, &seq, CBS_ASN1_SEQUENCE);
    for (X509* c : spec.certs) {
      std::string der = X509ToDer(c);
      CBB_add_bytes(&seq, reinterpret_cast<const uint8_t*>(der.data()),
                    der.size());
    }
    CBB_flush(&basic);
  }
  std::string basic_der = Finish(basic_cbb.get());

  bssl::ScopedCBB cbb;
  CBB_init(cbb.get(), 1024);
  CBB response, status, bytes_exp, bytes;
  CBB_add_asn1(cbb.get(), &response, CBS_ASN1_SEQUENCE);
  CBB_add_asn1(&response, &status, CBS_ASN1_ENUMERATED);
  CBB_add_u8(&status, static_cast<uint8_t>(spec.response_status));
  CBB_flush(&response);
  if (spec.response_status == 0) {
    CBB_add_asn1(&response, &bytes_exp,
                 CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0);
    CBB_add_asn1(&bytes_exp, &bytes, CBS_ASN1_SEQUENCE);
    AddOid(&bytes, kOidOcspBasic, sizeof(kOidOcspBasic));
    AddOctets(&bytes, basic_der);
    CBB_flush(&response);
  }
  return Finish(cbb.get());
}

bssl::UniquePtr<EVP_PKEY> MakeP256Key() {
  bssl::UniquePtr<EC_KEY> ec(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  EC_KEY_generate_key(ec.get());
  bssl::UniquePtr<EVP_PKEY> key(EVP_PKEY_new());
  EVP_PKEY_assign_EC_KEY(key.get(), ec.release());
  return key;
}

bssl::UniquePtr<EVP_PKEY> LoadPemKey(const std::string& path) {
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return nullptr;
  bssl::UniquePtr<EVP_PKEY> key(
      PEM_read_PrivateKey(f, nullptr, nullptr, nullptr));
  fclose(f);
  return key;
}

bssl::UniquePtr<X509> MakeCert(const std::string& cn, EVP_PKEY* subject_key,
                               X509* issuer, EVP_PKEY* issuer_key,
                               bool ocsp_signing_eku, absl::Time not_before,
                               absl::Time not_after, bool is_ca,
                               const std::string& ocsp_url,
                               const std::string& crl_url) {
  bssl::UniquePtr<X509> cert(X509_new());
  X509_set_version(cert.get(), X509_VERSION_3);
  uint8_t serial_bytes[8];
  RAND_bytes(serial_bytes, sizeof(serial_bytes));
  serial_bytes[0] &= 0x7f;
  bssl::UniquePtr<BIGNUM> bn(
      BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr));
  BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()));
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const uint8_t*>(cn.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(),
                       issuer ? X509_get_subject_name(issuer) : name);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), absl::ToTimeT(not_before));
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), absl::ToTimeT(not_after));
  X509_set_pubkey(cert.get(), subject_key);
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, issuer ? issuer : cert.get(), cert.get(), nullptr,
                 nullptr, 0);
  auto add = [&](int nid, const char* value) {
    X509_EXTENSION* ext = X509V3_EXT_nconf_nid(nullptr, &v3, nid, value);
    X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
  };
  add(NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
  if (ocsp_signing_eku) add(NID_ext_key_usage, "OCSPSigning");
  if (!ocsp_url.empty()) add(NID_info_access, ("OCSP;URI:" + ocsp_url).c_str());
  if (!crl_url.empty())
    add(NID_crl_distribution_points, ("URI:" + crl_url).c_str());
  X509_sign(cert.get(), issuer_key, EVP_sha256());
  return cert;
}

}  // namespace net
