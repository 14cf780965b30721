#include "tools/revocation_filter/filter_inputs.h"

#include <dirent.h>
#include <openssl/bytestring.h>
#include <openssl/err.h>
#include <openssl/mem.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cert/x509_util.h"
#include "net/base/file_util.h"

namespace net {
namespace {

// Inputs can be large (a CA's whole issuance) but not unbounded.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

absl::Status Bad(absl::string_view source, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", why));
}

enum class Kind { kPem, kDer, kText };

Kind KindOf(absl::string_view bytes) {
  absl::string_view s = absl::StripLeadingAsciiWhitespace(bytes);
  if (absl::StartsWith(s, "-----BEGIN")) return Kind::kPem;
  if (!bytes.empty() && static_cast<uint8_t>(bytes[0]) == 0x30)
    return Kind::kDer;
  return Kind::kText;
}

std::optional<absl::Time> AsnTime(const ASN1_TIME* t) {
  if (!t) return std::nullopt;
  bssl::UniquePtr<ASN1_TIME> epoch(ASN1_TIME_set(nullptr, 0));
  int days, secs;
  if (!ASN1_TIME_diff(&days, &secs, epoch.get(), t)) return std::nullopt;
  return absl::FromUnixSeconds(int64_t{days} * 86400 + secs);
}

std::string Label(X509* cert) {
  X509_NAME* name = X509_get_subject_name(cert);
  int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
  if (i >= 0) {
    const ASN1_STRING* cn =
        X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(cn)),
                       ASN1_STRING_length(cn))
        .substr(0, 255);
  }
  char buf[256];
  X509_NAME_oneline(name, buf, sizeof(buf));
  return buf;
}

// The certificates of one file: PEM (any number) or DER (one).
absl::StatusOr<std::vector<std::string>> Certificates(absl::string_view bytes,
                                                      const std::string& path) {
  if (KindOf(bytes) == Kind::kPem) {
    absl::StatusOr<std::vector<std::string>> ders = ParsePemCertificates(bytes);
    if (!ders.ok()) return Bad(path, ders.status().message());
    return ders;
  }
  if (!DerToX509(bytes)) return Bad(path, "not a certificate");
  return std::vector<std::string>{std::string(bytes)};
}

const IssuerCert* FindIssuer(X509* cert,
                             const std::vector<IssuerCert>& issuers) {
  for (const IssuerCert& issuer : issuers) {
    if (X509_check_issued(issuer.x509.get(), cert) != X509_V_OK) continue;
    bssl::UniquePtr<EVP_PKEY> key(X509_get_pubkey(issuer.x509.get()));
    if (key && X509_verify(cert, key.get()) == 1) return &issuer;
    ERR_clear_error();
  }
  return nullptr;
}

const IssuerCert* FindIssuerBySpki(absl::string_view spki,
                                   const std::vector<IssuerCert>& issuers) {
  for (const IssuerCert& issuer : issuers) {
    if (issuer.spki_sha256 == spki) return &issuer;
  }
  return nullptr;
}

absl::Status ReadKeyList(absl::string_view text, const std::string& path,
                         const std::vector<IssuerCert>& issuers,
                         std::vector<IssuedEntry>* out) {
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    const std::string source = absl::StrCat(path, ":", line_number);
    absl::StatusOr<IssuedEntry> entry = ParseKeyListLine(line);
    if (!entry.ok()) return Bad(source, entry.status().message());
    if (!FindIssuerBySpki(entry->key.issuer_spki_sha256, issuers))
      return Bad(source, "issuer is none of the --issuer certificates");
    entry->source = source;
    out->push_back(*std::move(entry));
  }
  return absl::OkStatus();
}

absl::Status ReadIssuedFile(const std::string& path,
                            const std::vector<IssuerCert>& issuers,
                            std::vector<IssuedEntry>* out) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path, kMaxInputBytes);
  if (!bytes.ok()) return bytes.status();
  if (KindOf(*bytes) == Kind::kText)
    return ReadKeyList(*bytes, path, issuers, out);
  absl::StatusOr<std::vector<std::string>> ders = Certificates(*bytes, path);
  if (!ders.ok()) return ders.status();
  for (const std::string& der : *ders) {
    bssl::UniquePtr<X509> cert = DerToX509(der);
    const IssuerCert* issuer = FindIssuer(cert.get(), issuers);
    if (!issuer) {
      return Bad(path, absl::StrCat("a certificate (", Label(cert.get()),
                                    ") issued by none of the --issuer "
                                    "certificates"));
    }
    absl::StatusOr<CertificateFilterFacts> facts =
        GetCertificateFilterFacts(der, issuer->der);
    if (!facts.ok()) return Bad(path, facts.status().message());
    IssuedEntry entry;
    entry.key = facts->key;
    entry.not_before = facts->not_before;
    entry.not_after = AsnTime(X509_get0_notAfter(cert.get()));
    entry.source = path;
    out->push_back(std::move(entry));
  }
  return absl::OkStatus();
}

// The DER content octets of |serial| (BoringSSL keeps the magnitude).
std::optional<std::string> SerialContent(const ASN1_INTEGER* serial) {
  uint8_t* der = nullptr;
  int len = i2d_ASN1_INTEGER(serial, &der);
  if (len <= 0) return std::nullopt;
  CBS cbs, content;
  CBS_init(&cbs, der, len);
  std::optional<std::string> out;
  if (CBS_get_asn1(&cbs, &content, CBS_ASN1_INTEGER) && CBS_len(&cbs) == 0)
    out = std::string(reinterpret_cast<const char*>(CBS_data(&content)),
                      CBS_len(&content));
  OPENSSL_free(der);
  return out;
}

}  // namespace

absl::StatusOr<IssuedEntry> ParseKeyListLine(absl::string_view line) {
  std::vector<absl::string_view> f =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (f.size() != 2 && f.size() != 4)
    return absl::InvalidArgumentError(
        "want ISSUER_SPKI_SHA256_HEX SERIAL_HEX [NOT_BEFORE NOT_AFTER]");
  auto hex = [](absl::string_view s) {
    return !s.empty() && s.size() % 2 == 0 &&
           s.find_first_not_of("0123456789abcdefABCDEF") ==
               absl::string_view::npos;
  };
  if (!hex(f[0]) || f[0].size() != 2 * kSpkiSha256Bytes)
    return absl::InvalidArgumentError("the issuer is not 64 hex digits");
  if (!hex(f[1]) || f[1].size() > 2 * kMaxSerialBytes)
    return absl::InvalidArgumentError(absl::StrCat(
        "the serial is not 2 to ", 2 * kMaxSerialBytes, " hex digits"));
  IssuedEntry entry;
  entry.key.issuer_spki_sha256 = absl::HexStringToBytes(f[0]);
  entry.key.serial = absl::HexStringToBytes(f[1]);
  if (f.size() == 4) {
    int64_t nb, na;
    if (!absl::SimpleAtoi(f[2], &nb) || !absl::SimpleAtoi(f[3], &na))
      return absl::InvalidArgumentError("times are Unix seconds");
    entry.not_before = absl::FromUnixSeconds(nb);
    entry.not_after = absl::FromUnixSeconds(na);
  }
  return entry;
}

absl::StatusOr<std::vector<IssuerCert>> LoadIssuers(
    const std::vector<std::string>& paths) {
  std::vector<IssuerCert> issuers;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> bytes = ReadFileToString(path, 1 << 20);
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<std::vector<std::string>> ders = Certificates(*bytes, path);
    if (!ders.ok()) return ders.status();
    for (const std::string& der : *ders) {
      IssuerCert issuer;
      issuer.der = der;
      issuer.x509 = DerToX509(der);
      absl::StatusOr<std::string> spki = SpkiSha256OfCertificate(der);
      if (!issuer.x509 || !spki.ok())
        return Bad(path, "a certificate does not parse");
      issuer.spki_sha256 = *spki;
      issuer.label = Label(issuer.x509.get());
      if (!FindIssuerBySpki(issuer.spki_sha256, issuers))
        issuers.push_back(std::move(issuer));
    }
  }
  return issuers;
}

absl::Status ReadIssued(const std::string& path,
                        const std::vector<IssuerCert>& issuers,
                        std::vector<IssuedEntry>* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (!S_ISDIR(st.st_mode)) return ReadIssuedFile(path, issuers, out);
  DIR* dir = opendir(path.c_str());
  if (!dir) return absl::InternalError(absl::StrCat(path, ": cannot list"));
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    names.push_back(e->d_name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string file = absl::StrCat(path, "/", name);
    if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    absl::Status status = ReadIssuedFile(file, issuers, out);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ReadRevoked(const std::string& path,
                         const std::vector<IssuerCert>& issuers,
                         std::vector<RevocationFilterKey>* out) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path, kMaxInputBytes);
  if (!bytes.ok()) return bytes.status();
  const Kind kind = KindOf(*bytes);
  if (kind == Kind::kText) {
    std::vector<IssuedEntry> entries;
    absl::Status status = ReadKeyList(*bytes, path, issuers, &entries);
    if (!status.ok()) return status;
    for (IssuedEntry& e : entries) out->push_back(std::move(e.key));
    return absl::OkStatus();
  }
  bssl::UniquePtr<X509_CRL> crl;
  if (kind == Kind::kPem) {
    bssl::UniquePtr<BIO> bio(BIO_new_mem_buf(bytes->data(), bytes->size()));
    crl.reset(PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr));
  } else {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes->data());
    crl.reset(d2i_X509_CRL(nullptr, &p, bytes->size()));
  }
  ERR_clear_error();
  if (!crl) return Bad(path, "neither a CRL nor a key list");
  const IssuerCert* issuer = nullptr;
  for (const IssuerCert& candidate : issuers) {
    if (X509_NAME_cmp(X509_CRL_get_issuer(crl.get()),
                      X509_get_subject_name(candidate.x509.get())) != 0)
      continue;
    bssl::UniquePtr<EVP_PKEY> key(X509_get_pubkey(candidate.x509.get()));
    if (key && X509_CRL_verify(crl.get(), key.get()) == 1) {
      issuer = &candidate;
      break;
    }
    ERR_clear_error();
  }
  if (!issuer)
    return Bad(path, "a CRL signed by none of the --issuer certificates");
  STACK_OF(X509_REVOKED)* revoked = X509_CRL_get_REVOKED(crl.get());
  for (size_t i = 0; i < sk_X509_REVOKED_num(revoked); ++i) {
    std::optional<std::string> serial = SerialContent(
        X509_REVOKED_get0_serialNumber(sk_X509_REVOKED_value(revoked, i)));
    if (!serial || serial->empty() || serial->size() > kMaxSerialBytes)
      return Bad(path, absl::StrCat("entry ", i + 1, ": bad serial"));
    out->push_back({issuer->spki_sha256, *serial});
  }
  return absl::OkStatus();
}

}  // namespace net
