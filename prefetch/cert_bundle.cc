#include "prefetch/cert_bundle.h"

#include <openssl/asn1.h>
#include <openssl/base64.h>
#include <openssl/bytestring.h>
#include <openssl/mem.h>
#include <openssl/x509.h>
#include <zlib.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "net/base/url.h"
#include "prefetch/cert_bundle.pb.h"

namespace net {
namespace {

// Times outside 1970-01-01 .. 9999-12-31T23:59:59Z are rejected, so every
// accepted value converts to absl::Time and back exactly.
constexpr int64_t kMaxUnixSeconds = 253402300799;
// A bundle made this far in the future of the client's clock is refused.
constexpr absl::Duration kCreatedSkew = absl::Hours(1);
// Longest pointer URL.
constexpr size_t kMaxPointerUrlBytes = 2048;

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

// Quote returns the first bytes of |s| escaped, for error messages.
std::string Quote(absl::string_view s, size_t n = 16) {
  return absl::StrCat("\"", absl::CHexEscape(s.substr(0, n)),
                      s.size() > n ? "...\"" : "\"");
}

absl::string_view StripTrailingDot(absl::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return host;
}

absl::Status CheckHostSyntax(absl::string_view host) {
  if (host.empty()) return Malformed("bundle host is empty");
  if (host.size() > 253)
    return Malformed(
        absl::StrCat("bundle host is ", host.size(), " bytes, more than 253"));
  for (absl::string_view label : absl::StrSplit(host, '.')) {
    if (label.empty() || label.size() > 63)
      return Malformed(absl::StrCat("bundle host ", Quote(host, 64),
                                    " has an empty or over-long label"));
    for (char c : label) {
      if (!absl::ascii_isalnum(c) && c != '-' && c != '_')
        return Malformed(absl::StrCat("bundle host ", Quote(host, 64),
                                      " has a character other than letters, "
                                      "digits, '-', '_' and '.'"));
    }
  }
  return absl::OkStatus();
}

bool TimeInRange(absl::Time t) {
  return t >= absl::UnixEpoch() && t <= absl::FromUnixSeconds(kMaxUnixSeconds);
}

// ParseCertificate parses one DER certificate and insists that it is the
// whole input: a certificate followed by junk is a malformed bundle.
bssl::UniquePtr<X509> ParseCertificate(absl::string_view der) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(der.data());
  const uint8_t* end = p + der.size();
  bssl::UniquePtr<X509> cert(d2i_X509(nullptr, &p, der.size()));
  if (!cert || p != end) return nullptr;
  return cert;
}

absl::StatusOr<absl::Time> NotAfterOf(X509* cert) {
  bssl::UniquePtr<ASN1_TIME> epoch(ASN1_TIME_set(nullptr, 0));
  int days = 0, seconds = 0;
  if (!epoch ||
      !ASN1_TIME_diff(&days, &seconds, epoch.get(), X509_get0_notAfter(cert)))
    return Malformed("certificate notAfter does not parse");
  return absl::FromUnixSeconds(int64_t{days} * 86400 + seconds);
}

// --- zlib ---------------------------------------------------------------

absl::StatusOr<std::string> Deflate(absl::string_view in) {
  z_stream zs{};
  if (deflateInit(&zs, Z_BEST_COMPRESSION) != Z_OK)
    return absl::InternalError("zlib deflateInit failed");
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = in.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  int rv = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rv != Z_STREAM_END) return absl::InternalError("zlib deflate failed");
  return out;
}

// InflateBounded inflates one whole zlib stream of at most |max_out| bytes.
// Memory is bounded by |max_out| plus one chunk whatever the input claims:
// a bomb stops at the limit with kResourceExhausted.
absl::StatusOr<std::string> InflateBounded(absl::string_view in,
                                           size_t max_out) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK)
    return absl::InternalError("zlib inflateInit failed");
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end{&zs};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = in.size();
  std::string out;
  unsigned char chunk[16384];
  for (;;) {
    zs.next_out = chunk;
    zs.avail_out = sizeof(chunk);
    int rv = inflate(&zs, Z_NO_FLUSH);
    size_t produced = sizeof(chunk) - zs.avail_out;
    if (out.size() + produced > max_out)
      return absl::ResourceExhaustedError(
          absl::StrCat("chain_zlib inflates to more than ", max_out, " bytes"));
    out.append(reinterpret_cast<char*>(chunk), produced);
    if (rv == Z_STREAM_END) break;
    if (rv == Z_OK) continue;
    if (rv == Z_BUF_ERROR && zs.avail_in == 0)
      return Malformed("chain_zlib is truncated (zlib stream has no end)");
    return Malformed(absl::StrCat(
        "chain_zlib is corrupt (zlib: ", zs.msg ? zs.msg : "error", ")"));
  }
  if (zs.avail_in != 0)
    return Malformed(absl::StrCat("chain_zlib has ", zs.avail_in,
                                  " bytes after the zlib stream"));
  return out;
}

// --- chain framing: u24 length + DER, repeated (CBB / CBS) ----------------

absl::StatusOr<std::string> FrameChain(const std::vector<std::string>& chain) {
  bssl::ScopedCBB cbb;
  if (!CBB_init(cbb.get(), 4096)) return absl::InternalError("CBB_init");
  for (const std::string& der : chain) {
    CBB cert;
    if (!CBB_add_u24_length_prefixed(cbb.get(), &cert) ||
        !CBB_add_bytes(&cert, reinterpret_cast<const uint8_t*>(der.data()),
                       der.size()))
      return absl::InternalError("cannot frame the chain");
  }
  uint8_t* data;
  size_t len;
  if (!CBB_finish(cbb.get(), &data, &len))
    return absl::InternalError("cannot frame the chain");
  bssl::UniquePtr<uint8_t> free_data(data);
  return std::string(reinterpret_cast<char*>(data), len);
}

absl::StatusOr<std::vector<std::string>> UnframeChain(absl::string_view in) {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(in.data()), in.size());
  std::vector<std::string> chain;
  while (CBS_len(&cbs) > 0) {
    CBS cert;
    if (!CBS_get_u24_length_prefixed(&cbs, &cert))
      return Malformed(absl::StrCat("inflated chain: certificate ",
                                    chain.size(), " is truncated"));
    if (chain.size() == kMaxBundleChainLength)
      return absl::ResourceExhaustedError(absl::StrCat(
          "chain has more than ", kMaxBundleChainLength, " certificates"));
    chain.emplace_back(reinterpret_cast<const char*>(CBS_data(&cert)),
                       CBS_len(&cert));
  }
  return chain;
}

// --- proto <-> struct -----------------------------------------------------

absl::StatusOr<std::string> ToProtoBytes(const CertBundle& bundle,
                                         bool compress) {
  netstack::prefetch::CertBundle proto;
  proto.set_version(bundle.version);
  proto.set_host(bundle.host);
  proto.set_port(bundle.port);
  if (compress) {
    absl::StatusOr<std::string> framed = FrameChain(bundle.chain);
    if (!framed.ok()) return framed.status();
    absl::StatusOr<std::string> deflated = Deflate(*framed);
    if (!deflated.ok()) return deflated.status();
    proto.set_chain_zlib(*std::move(deflated));
  } else {
    for (const std::string& der : bundle.chain) proto.add_chain(der);
  }
  proto.set_cipher_suite(bundle.cipher_suite);
  if (bundle.orbit) proto.set_orbit(*bundle.orbit);
  if (bundle.tcp_fast_open_no_cookie) proto.set_tcp_fast_open_no_cookie(true);
  proto.set_not_after(absl::ToUnixSeconds(bundle.not_after));
  proto.set_created(absl::ToUnixSeconds(bundle.created));
  std::string out;
  if (!proto.SerializeToString(&out))
    return absl::InternalError("cannot serialize CertBundle");
  return out;
}

absl::StatusOr<CertBundle> FromProtoBytes(absl::string_view bytes) {
  netstack::prefetch::CertBundle proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Malformed("CertBundle message does not parse (protobuf)");
  if (proto.version() != kCertBundleVersion &&
      proto.version() != kCertBundleVersionFastOpen)
    return absl::UnimplementedError(
        absl::StrCat("unsupported CertBundle version ", proto.version(),
                     " (this code reads versions ", kCertBundleVersion, " and ",
                     kCertBundleVersionFastOpen, ")"));
  CertBundle bundle;
  bundle.version = proto.version();
  bundle.host = proto.host();
  if (proto.port() == 0 || proto.port() > 0xffff)
    return Malformed(
        absl::StrCat("bundle port ", proto.port(), " is not in 1..65535"));
  bundle.port = static_cast<uint16_t>(proto.port());
  if (proto.cipher_suite() > 0xffff)
    return Malformed(absl::StrCat("bundle cipher suite ", proto.cipher_suite(),
                                  " is not a 16-bit value"));
  bundle.cipher_suite = static_cast<uint16_t>(proto.cipher_suite());
  if (proto.chain_size() > 0 && !proto.chain_zlib().empty())
    return Malformed("bundle has both chain and chain_zlib");
  if (!proto.chain_zlib().empty()) {
    absl::StatusOr<std::string> framed =
        InflateBounded(proto.chain_zlib(), kMaxBundleChainBytes);
    if (!framed.ok()) return framed.status();
    absl::StatusOr<std::vector<std::string>> chain = UnframeChain(*framed);
    if (!chain.ok()) return chain.status();
    bundle.chain = *std::move(chain);
  } else {
    if (proto.chain_size() > static_cast<int>(kMaxBundleChainLength))
      return absl::ResourceExhaustedError(
          absl::StrCat("chain has ", proto.chain_size(),
                       " certificates, more than ", kMaxBundleChainLength));
    bundle.chain.assign(proto.chain().begin(), proto.chain().end());
  }
  if (proto.has_orbit()) bundle.orbit = proto.orbit();
  if (proto.has_tcp_fast_open_no_cookie()) {
    if (proto.version() < kCertBundleVersionFastOpen)
      return Malformed(
          absl::StrCat("bundle version ", proto.version(),
                       " carries tcp_fast_open_no_cookie (a field of version ",
                       kCertBundleVersionFastOpen, ")"));
    if (!proto.tcp_fast_open_no_cookie())
      return Malformed("bundle tcp_fast_open_no_cookie is present but false");
    bundle.tcp_fast_open_no_cookie = true;
  }
  if (proto.not_after() < 0 || proto.not_after() > kMaxUnixSeconds)
    return Malformed(absl::StrCat("bundle not_after ", proto.not_after(),
                                  " is out of range"));
  if (proto.created() < 0 || proto.created() > kMaxUnixSeconds)
    return Malformed(
        absl::StrCat("bundle created ", proto.created(), " is out of range"));
  bundle.not_after = absl::FromUnixSeconds(proto.not_after());
  bundle.created = absl::FromUnixSeconds(proto.created());
  absl::Status status = CheckBundleWellFormed(bundle);
  if (!status.ok()) return status;
  return bundle;
}

absl::Status CheckPointerUrl(absl::string_view url) {
  // http:// only: the bundle is verified on its own (TLS would add nothing),
  // and the fetcher refuses anything else.
  if (!absl::StartsWith(url, "http://"))
    return Malformed(
        absl::StrCat("certbundle TXT url ", Quote(url, 32), " is not http://"));
  if (url.size() > kMaxPointerUrlBytes)
    return absl::ResourceExhaustedError(
        absl::StrCat("certbundle TXT url is ", url.size(), " bytes, more than ",
                     kMaxPointerUrlBytes));
  for (char c : url) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f)
      return Malformed(
          "certbundle TXT url has a space, control or non-ASCII byte");
  }
  absl::StatusOr<Url> parsed = Url::Parse(url);
  if (!parsed.ok())
    return Malformed(
        absl::StrCat("certbundle TXT url: ", parsed.status().message()));
  return absl::OkStatus();
}

std::vector<std::string> SplitTxt(absl::string_view record) {
  std::vector<std::string> strings;
  while (!record.empty()) {
    size_t n = std::min(record.size(), kMaxTxtStringBytes);
    strings.emplace_back(record.substr(0, n));
    record.remove_prefix(n);
  }
  return strings;
}

}  // namespace

bool CertBundle::operator==(const CertBundle& o) const {
  return version == o.version && host == o.host && port == o.port &&
         chain == o.chain && cipher_suite == o.cipher_suite &&
         orbit == o.orbit && not_after == o.not_after && created == o.created &&
         tcp_fast_open_no_cookie == o.tcp_fast_open_no_cookie;
}

absl::StatusOr<absl::Time> EarliestNotAfter(
    const std::vector<std::string>& chain_der) {
  if (chain_der.empty()) return Malformed("chain is empty");
  absl::Time earliest = absl::InfiniteFuture();
  for (size_t i = 0; i < chain_der.size(); ++i) {
    bssl::UniquePtr<X509> cert = ParseCertificate(chain_der[i]);
    if (!cert)
      return Malformed(absl::StrCat("chain certificate ", i,
                                    " is not a DER X.509 certificate"));
    absl::StatusOr<absl::Time> t = NotAfterOf(cert.get());
    if (!t.ok())
      return Malformed(
          absl::StrCat("chain certificate ", i, ": ", t.status().message()));
    earliest = std::min(earliest, *t);
  }
  return earliest;
}

absl::StatusOr<CertBundle> MakeCertBundle(absl::string_view host, uint16_t port,
                                          std::vector<std::string> chain_der,
                                          uint16_t cipher_suite,
                                          std::optional<std::string> orbit,
                                          absl::Time created) {
  CertBundle bundle;
  bundle.host = std::string(StripTrailingDot(host));
  bundle.port = port;
  bundle.cipher_suite = cipher_suite;
  bundle.orbit = std::move(orbit);
  bundle.created = absl::FromUnixSeconds(absl::ToUnixSeconds(created));
  absl::StatusOr<absl::Time> not_after = EarliestNotAfter(chain_der);
  if (!not_after.ok()) return not_after.status();
  bundle.not_after = *not_after;
  bundle.chain = std::move(chain_der);
  absl::Status status = CheckBundleWellFormed(bundle);
  if (!status.ok()) return status;
  return bundle;
}

void SetTcpFastOpenNoCookie(CertBundle* bundle) {
  bundle->tcp_fast_open_no_cookie = true;
  bundle->version = std::max(bundle->version, kCertBundleVersionFastOpen);
}

absl::Status CheckBundleWellFormed(const CertBundle& bundle) {
  if (bundle.version != kCertBundleVersion &&
      bundle.version != kCertBundleVersionFastOpen)
    return absl::UnimplementedError(
        absl::StrCat("unsupported CertBundle version ", bundle.version,
                     " (this code reads versions ", kCertBundleVersion, " and ",
                     kCertBundleVersionFastOpen, ")"));
  if (bundle.tcp_fast_open_no_cookie &&
      bundle.version < kCertBundleVersionFastOpen)
    return Malformed(
        absl::StrCat("a version-", bundle.version,
                     " bundle cannot say tcp_fast_open_no_cookie"));
  absl::Status host = CheckHostSyntax(bundle.host);
  if (!host.ok()) return host;
  if (bundle.port == 0) return Malformed("bundle port is 0");
  if (bundle.chain.empty()) return Malformed("bundle chain is empty");
  if (bundle.chain.size() > kMaxBundleChainLength)
    return absl::ResourceExhaustedError(
        absl::StrCat("chain has ", bundle.chain.size(),
                     " certificates, more than ", kMaxBundleChainLength));
  size_t total = 0;
  for (size_t i = 0; i < bundle.chain.size(); ++i) {
    if (bundle.chain[i].empty())
      return Malformed(absl::StrCat("chain certificate ", i, " is empty"));
    total += bundle.chain[i].size();
  }
  if (total > kMaxBundleChainBytes)
    return absl::ResourceExhaustedError(absl::StrCat(
        "chain is ", total, " bytes of DER, more than ", kMaxBundleChainBytes));
  if (bundle.orbit && bundle.orbit->size() != kCertBundleOrbitSize)
    return Malformed(absl::StrCat("bundle orbit is ", bundle.orbit->size(),
                                  " bytes, not ", kCertBundleOrbitSize));
  if (!TimeInRange(bundle.not_after) || !TimeInRange(bundle.created))
    return Malformed("bundle not_after or created is out of range");
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeBundleFile(const CertBundle& bundle,
                                             bool compress) {
  absl::Status status = CheckBundleWellFormed(bundle);
  if (!status.ok()) return status;
  absl::StatusOr<std::string> message = ToProtoBytes(bundle, compress);
  if (!message.ok()) return message.status();
  bssl::ScopedCBB cbb;
  CBB body;
  if (!CBB_init(cbb.get(), message->size() + 8) ||
      !CBB_add_bytes(cbb.get(),
                     reinterpret_cast<const uint8_t*>(kBundleFileMagic),
                     kBundleFileMagicSize) ||
      !CBB_add_u24_length_prefixed(cbb.get(), &body) ||
      !CBB_add_bytes(&body, reinterpret_cast<const uint8_t*>(message->data()),
                     message->size()))
    return absl::ResourceExhaustedError("bundle file too large to frame");
  uint8_t* data;
  size_t len;
  if (!CBB_finish(cbb.get(), &data, &len))
    return absl::ResourceExhaustedError("bundle file too large to frame");
  bssl::UniquePtr<uint8_t> free_data(data);
  return std::string(reinterpret_cast<char*>(data), len);
}

absl::StatusOr<CertBundle> DecodeBundleFile(absl::string_view bytes,
                                            size_t max_bytes) {
  if (bytes.size() > max_bytes)
    return absl::ResourceExhaustedError(
        absl::StrCat("bundle file is ", bytes.size(),
                     " bytes, more than the limit of ", max_bytes));
  CBS cbs, magic, body;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!CBS_get_bytes(&cbs, &magic, kBundleFileMagicSize) ||
      !CBS_mem_equal(&magic, reinterpret_cast<const uint8_t*>(kBundleFileMagic),
                     kBundleFileMagicSize))
    return Malformed(
        absl::StrCat("not a certificate bundle file (bad magic; starts with ",
                     Quote(bytes, 8), ")"));
  if (!CBS_get_u24_length_prefixed(&cbs, &body))
    return Malformed("bundle file is truncated (length or message)");
  if (CBS_len(&cbs) != 0)
    return Malformed(absl::StrCat("bundle file has ", CBS_len(&cbs),
                                  " bytes after the message"));
  return FromProtoBytes(absl::string_view(
      reinterpret_cast<const char*>(CBS_data(&body)), CBS_len(&body)));
}

std::string BundleTxtName(absl::string_view host) {
  return absl::StrCat(kBundleTxtNamePrefix,
                      absl::AsciiStrToLower(StripTrailingDot(host)));
}

absl::StatusOr<std::vector<std::string>> EncodeBundleTxt(
    const CertBundle& bundle) {
  absl::StatusOr<std::string> file = EncodeBundleFile(bundle, true);
  if (!file.ok()) return file.status();
  std::string record =
      absl::StrCat(kBundleTxtBundlePrefix, absl::Base64Escape(*file));
  if (record.size() > kMaxBundleTxtBytes)
    return absl::ResourceExhaustedError(
        absl::StrCat("TXT record would be ", record.size(),
                     " bytes, more than ", kMaxBundleTxtBytes));
  return SplitTxt(record);
}

absl::StatusOr<std::vector<std::string>> EncodeBundlePointerTxt(
    absl::string_view url) {
  absl::Status status = CheckPointerUrl(url);
  if (!status.ok()) return status;
  return SplitTxt(absl::StrCat(kBundleTxtPointerPrefix, url));
}

absl::StatusOr<BundleTxtRecord> ParseBundleTxt(
    const std::vector<std::string>& strings, size_t max_bytes) {
  if (strings.empty()) return Malformed("certbundle TXT record has no strings");
  size_t total = 0;
  for (size_t i = 0; i < strings.size(); ++i) {
    if (strings[i].size() > kMaxTxtStringBytes)
      return Malformed(absl::StrCat("TXT string ", i, " is ", strings[i].size(),
                                    " bytes; a DNS character-string holds at "
                                    "most 255"));
    total += strings[i].size();
    if (total > max_bytes)
      return absl::ResourceExhaustedError(absl::StrCat(
          "certbundle TXT record is more than ", max_bytes, " bytes"));
  }
  std::string record = absl::StrJoin(strings, "");
  absl::string_view rest = record;
  if (!absl::ConsumePrefix(&rest, "v="))
    return Malformed(absl::StrCat("not a certbundle TXT record (no v= tag; ",
                                  "starts with ", Quote(record), ")"));
  size_t semi = rest.find(';');
  absl::string_view version = rest.substr(0, semi);
  if (version != "cb1")
    return absl::UnimplementedError(absl::StrCat(
        "unsupported certbundle TXT version ", Quote(version), " (want cb1)"));
  if (semi == absl::string_view::npos)
    return Malformed("certbundle TXT record has no field after v=cb1");
  rest.remove_prefix(semi + 1);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
    rest.remove_prefix(1);
  if (absl::ConsumePrefix(&rest, "b=")) {
    if (rest.empty()) return Malformed("certbundle TXT b= is empty");
    size_t max_decoded;
    if (rest.size() % 4 != 0 || !EVP_DecodedLength(&max_decoded, rest.size()))
      return Malformed(absl::StrCat("certbundle TXT b= is not base64 (length ",
                                    rest.size(), " is not a multiple of 4)"));
    std::string file(max_decoded, '\0');
    size_t file_len;
    if (!EVP_DecodeBase64(
            reinterpret_cast<uint8_t*>(file.data()), &file_len, max_decoded,
            reinterpret_cast<const uint8_t*>(rest.data()), rest.size()))
      return Malformed("certbundle TXT b= is not valid base64");
    file.resize(file_len);
    absl::StatusOr<CertBundle> bundle = DecodeBundleFile(file, max_bytes);
    if (!bundle.ok())
      return absl::Status(
          bundle.status().code(),
          absl::StrCat("certbundle TXT b=: ", bundle.status().message()));
    return BundleTxtRecord(*std::move(bundle));
  }
  if (absl::ConsumePrefix(&rest, "url=")) {
    absl::Status status = CheckPointerUrl(rest);
    if (!status.ok()) return status;
    return BundleTxtRecord(BundlePointer{std::string(rest)});
  }
  return Malformed(absl::StrCat("certbundle TXT record has an unknown field ",
                                Quote(rest, 8), " (want b= or url=)"));
}

absl::Status ValidateBundleShape(const CertBundle& bundle,
                                 absl::string_view expected_host,
                                 uint16_t expected_port, absl::Time now) {
  absl::Status status = CheckBundleWellFormed(bundle);
  if (!status.ok()) return status;
  if (!absl::EqualsIgnoreCase(StripTrailingDot(bundle.host),
                              StripTrailingDot(expected_host)))
    return absl::FailedPreconditionError(
        absl::StrCat("bundle is for host ", Quote(bundle.host, 64), ", not ",
                     Quote(expected_host, 64)));
  if (bundle.port != expected_port)
    return absl::FailedPreconditionError(absl::StrCat(
        "bundle is for port ", bundle.port, ", not ", expected_port));
  absl::StatusOr<absl::Time> earliest = EarliestNotAfter(bundle.chain);
  if (!earliest.ok()) return earliest.status();
  if (bundle.not_after > *earliest)
    return Malformed(
        absl::StrCat("bundle not_after ", absl::FormatTime(bundle.not_after),
                     " is later than the chain's earliest notAfter ",
                     absl::FormatTime(*earliest)));
  if (bundle.not_after <= now)
    return absl::FailedPreconditionError(
        absl::StrCat("bundle expired at ", absl::FormatTime(bundle.not_after)));
  if (bundle.created > now + kCreatedSkew)
    return absl::FailedPreconditionError(
        absl::StrCat("bundle created in the future (",
                     absl::FormatTime(bundle.created), ")"));
  return absl::OkStatus();
}

}  // namespace net
