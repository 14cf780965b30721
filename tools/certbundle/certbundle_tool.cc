#include "tools/certbundle/certbundle_tool.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cert/x509_util.h"
#include "prefetch/cert_bundle.h"

namespace net {
namespace {

constexpr char kUsage[] =
    R"(usage:
  certbundle make --host HOST [--port N] --chain CHAIN.pem [--orbit HEX16]
                  [--cipher NAME|0xHHHH] [--no-compress] [--created UNIX]
                  [--tcp-fast-open-no-cookie] --format txt|well-known|cdn
  certbundle pointer --host HOST --url URL
  certbundle inspect [--format auto|txt|file] [--json] [--host HOST]
                     [--port N] [--now UNIX] FILE|-
  certbundle --help

make      builds a certificate bundle from a PEM chain (leaf first) and
          writes it to stdout in one carrier's form:
            txt         the DNS TXT record: its name (_certbundle.HOST) on the
                        first line, then each string of the record (at most
                        255 bytes) on its own line, unquoted
            well-known  the bundle file, to serve at
                        http://HOST/.well-known/cert-bundle
            cdn         the same bundle file, to serve as <cdn-base>/HOST.crt
          The chain is zlib-compressed unless --no-compress (the TXT form
          always compresses). --cipher defaults to
          TLS_RSA_WITH_AES_128_GCM_SHA256 (0x009c, Snap Start's suite) for an
          RSA leaf and TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 (0xc02b) for an
          ECDSA leaf. --orbit is the server's 8-byte Snap Start orbit in hex.
          --created defaults to now. --tcp-fast-open-no-cookie says the
          server takes TCP Fast Open SYN data on the port without a cookie
          (a version-2 bundle; without it, version 1). Binary forms are not
          written to a terminal.
pointer   writes a TXT record pointing at a bundle file elsewhere
          ("v=cb1; url=URL"), in the txt form above.
inspect   reads a bundle (file or TXT form; auto-detected by default) from
          FILE or stdin (-) and prints what it holds: host, port, chain
          subjects, cipher suite, orbit, not_after, created, the sizes of
          each form, and the result of the checks a prefetcher runs
          (ValidateBundleShape) for --host/--port (default: the TXT record's
          name or the bundle's own) at --now (default: now). --json prints
          one JSON object.

exit codes:
  0  success
  1  bad input: unreadable file, malformed PEM/bundle/record, or a bundle
     that fails the checks (inspect)
  2  usage error: unknown command or flag, missing or bad flag value
)";

struct Io {
  std::FILE* in;
  std::FILE* out;
  std::FILE* err;
};

int Fail(const Io& io, int code, absl::string_view message) {
  absl::FPrintF(io.err, "certbundle: %s\n", message);
  if (code == kCertbundleExitUsage)
    absl::FPrintF(io.err, "run 'certbundle --help' for usage\n");
  return code;
}

// Flags: "--name value" or "--name=value"; booleans take no value.
struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> positional;
};

absl::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args,
                                 size_t first,
                                 const std::vector<std::string>& with_value,
                                 const std::vector<std::string>& booleans) {
  Flags flags;
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-" || !absl::StartsWith(a, "--")) {
      flags.positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool has_value = false;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    bool takes_value = std::find(with_value.begin(), with_value.end(), name) !=
                       with_value.end();
    bool is_bool =
        std::find(booleans.begin(), booleans.end(), name) != booleans.end();
    if (!takes_value && !is_bool)
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    if (is_bool) {
      if (has_value)
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " takes no value"));
      flags.values[name] = "1";
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size())
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      value = args[++i];
    }
    flags.values[name] = value;
  }
  return flags;
}

std::optional<std::string> Get(const Flags& f, const std::string& name) {
  auto it = f.values.find(name);
  if (it == f.values.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<uint16_t> ParsePort(absl::string_view s) {
  uint32_t port;
  if (!absl::SimpleAtoi(s, &port) || port == 0 || port > 65535)
    return absl::InvalidArgumentError(
        absl::StrCat("--port must be 1..65535, not '", s, "'"));
  return static_cast<uint16_t>(port);
}

absl::StatusOr<absl::Time> ParseUnixSeconds(absl::string_view flag,
                                            absl::string_view s) {
  int64_t t;
  if (!absl::SimpleAtoi(s, &t) || t < 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, " must be Unix seconds (>= 0), not '", s, "'"));
  return absl::FromUnixSeconds(t);
}

absl::StatusOr<std::string> ReadAll(std::FILE* f, const std::string& name,
                                    size_t limit) {
  std::string data;
  char buf[16384];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
    data.append(buf, n);
    // Read one byte past the limit, so the decoder reports the size.
    if (data.size() > limit) break;
  }
  if (std::ferror(f))
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": read error: ", std::strerror(errno)));
  return data;
}

absl::StatusOr<std::string> ReadInput(const Io& io, const std::string& path,
                                      size_t limit) {
  if (path == "-") return ReadAll(io.in, "stdin", limit);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", std::strerror(errno)));
  absl::StatusOr<std::string> data = ReadAll(f, path, limit);
  std::fclose(f);
  return data;
}

std::string NameToString(X509_NAME* name) {
  bssl::UniquePtr<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0)
    return "(unprintable)";
  const uint8_t* data;
  size_t len;
  BIO_mem_contents(bio.get(), &data, &len);
  return std::string(reinterpret_cast<const char*>(data), len);
}

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      out += absl::StrFormat("\\u%04x", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

void PrintTxt(const Io& io, absl::string_view host,
              const std::vector<std::string>& strings) {
  absl::FPrintF(io.out, "%s\n", BundleTxtName(host));
  for (const std::string& s : strings) absl::FPrintF(io.out, "%s\n", s);
}

// --- make -----------------------------------------------------------------

int RunMake(const Io& io, const std::vector<std::string>& args) {
  absl::StatusOr<Flags> flags = ParseFlags(
      args, 1,
      {"host", "port", "chain", "orbit", "cipher", "format", "created"},
      {"no-compress", "tcp-fast-open-no-cookie"});
  if (!flags.ok())
    return Fail(io, kCertbundleExitUsage, flags.status().message());
  if (!flags->positional.empty())
    return Fail(
        io, kCertbundleExitUsage,
        absl::StrCat("make takes no argument '", flags->positional[0], "'"));
  std::optional<std::string> host = Get(*flags, "host");
  std::optional<std::string> chain_path = Get(*flags, "chain");
  std::optional<std::string> format = Get(*flags, "format");
  if (!host || host->empty())
    return Fail(io, kCertbundleExitUsage, "make needs --host");
  if (!chain_path)
    return Fail(io, kCertbundleExitUsage, "make needs --chain CHAIN.pem");
  if (!format)
    return Fail(io, kCertbundleExitUsage,
                "make needs --format txt|well-known|cdn");
  if (*format != "txt" && *format != "well-known" && *format != "cdn")
    return Fail(io, kCertbundleExitUsage,
                absl::StrCat("unknown --format '", *format,
                             "' (want txt, well-known or cdn)"));
  uint16_t port = 443;
  if (auto p = Get(*flags, "port")) {
    absl::StatusOr<uint16_t> parsed = ParsePort(*p);
    if (!parsed.ok())
      return Fail(io, kCertbundleExitUsage, parsed.status().message());
    port = *parsed;
  }
  std::optional<std::string> orbit;
  if (auto o = Get(*flags, "orbit")) {
    bool hex = o->size() == 2 * kCertBundleOrbitSize &&
               std::all_of(o->begin(), o->end(),
                           [](char c) { return absl::ascii_isxdigit(c); });
    if (!hex)
      return Fail(
          io, kCertbundleExitUsage,
          absl::StrCat("--orbit must be 16 hex digits, not '", *o, "'"));
    orbit = absl::HexStringToBytes(*o);
  }
  absl::Time created = absl::Now();
  if (auto c = Get(*flags, "created")) {
    absl::StatusOr<absl::Time> t = ParseUnixSeconds("created", *c);
    if (!t.ok()) return Fail(io, kCertbundleExitUsage, t.status().message());
    created = *t;
  }
  std::optional<uint16_t> cipher;
  if (auto c = Get(*flags, "cipher")) {
    absl::StatusOr<uint16_t> parsed = ParseCipherSuite(*c);
    if (!parsed.ok())
      return Fail(io, kCertbundleExitUsage, parsed.status().message());
    cipher = *parsed;
  }
  bool binary = *format != "txt";
  if (binary && isatty(fileno(io.out)))
    return Fail(io, kCertbundleExitUsage,
                "refusing to write a binary bundle file to a terminal; "
                "redirect stdout");

  absl::StatusOr<std::vector<std::string>> chain =
      LoadPemCertificatesFromFile(*chain_path);
  if (!chain.ok())
    return Fail(io, kCertbundleExitBadInput, chain.status().message());
  bssl::UniquePtr<X509> leaf = DerToX509((*chain)[0]);
  if (!leaf)
    return Fail(io, kCertbundleExitBadInput,
                absl::StrCat(*chain_path, ": the leaf does not parse"));
  bssl::UniquePtr<EVP_PKEY> key(X509_get_pubkey(leaf.get()));
  int key_type = key ? EVP_PKEY_id(key.get()) : EVP_PKEY_NONE;
  if (!cipher) {
    if (key_type == EVP_PKEY_RSA) {
      cipher = kSnapStartCipherSuite;
    } else if (key_type == EVP_PKEY_EC) {
      cipher = 0xc02b;  // TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
    } else {
      return Fail(io, kCertbundleExitUsage,
                  "the leaf's key is neither RSA nor ECDSA: give --cipher");
    }
  }
  if (orbit && key_type != EVP_PKEY_RSA)
    absl::FPrintF(io.err,
                  "certbundle: warning: --orbit with a non-RSA leaf: Snap "
                  "Start needs static RSA, clients will not use the orbit\n");

  absl::StatusOr<CertBundle> bundle = MakeCertBundle(
      *host, port, *std::move(chain), *cipher, std::move(orbit), created);
  if (!bundle.ok())
    return Fail(io, kCertbundleExitBadInput, bundle.status().message());
  if (Get(*flags, "tcp-fast-open-no-cookie")) SetTcpFastOpenNoCookie(&*bundle);

  if (*format == "txt") {
    absl::StatusOr<std::vector<std::string>> strings = EncodeBundleTxt(*bundle);
    if (!strings.ok())
      return Fail(io, kCertbundleExitBadInput, strings.status().message());
    PrintTxt(io, bundle->host, *strings);
  } else {
    absl::StatusOr<std::string> file =
        EncodeBundleFile(*bundle, !Get(*flags, "no-compress").has_value());
    if (!file.ok())
      return Fail(io, kCertbundleExitBadInput, file.status().message());
    std::fwrite(file->data(), 1, file->size(), io.out);
  }
  if (std::fflush(io.out) != 0)
    return Fail(io, kCertbundleExitBadInput,
                absl::StrCat("cannot write stdout: ", std::strerror(errno)));
  return kCertbundleExitOk;
}

// --- pointer --------------------------------------------------------------

int RunPointer(const Io& io, const std::vector<std::string>& args) {
  absl::StatusOr<Flags> flags = ParseFlags(args, 1, {"host", "url"}, {});
  if (!flags.ok())
    return Fail(io, kCertbundleExitUsage, flags.status().message());
  std::optional<std::string> host = Get(*flags, "host");
  std::optional<std::string> url = Get(*flags, "url");
  if (!host || host->empty() || !url || !flags->positional.empty())
    return Fail(io, kCertbundleExitUsage, "pointer needs --host and --url");
  absl::StatusOr<std::vector<std::string>> strings =
      EncodeBundlePointerTxt(*url);
  if (!strings.ok())
    return Fail(io, kCertbundleExitUsage, strings.status().message());
  PrintTxt(io, *host, *strings);
  return kCertbundleExitOk;
}

// --- inspect --------------------------------------------------------------

struct TxtInput {
  std::optional<std::string> name_host;  // from a _certbundle.HOST line
  std::vector<std::string> strings;
};

TxtInput SplitTxtInput(absl::string_view text) {
  TxtInput input;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty()) continue;
    std::string lower = absl::AsciiStrToLower(line);
    if (first && absl::StartsWith(lower, kBundleTxtNamePrefix)) {
      input.name_host = std::string(line.substr(strlen(kBundleTxtNamePrefix)));
    } else {
      input.strings.emplace_back(line);
    }
    first = false;
  }
  return input;
}

int RunInspect(const Io& io, const std::vector<std::string>& args) {
  absl::StatusOr<Flags> flags =
      ParseFlags(args, 1, {"format", "host", "port", "now"}, {"json"});
  if (!flags.ok())
    return Fail(io, kCertbundleExitUsage, flags.status().message());
  if (flags->positional.size() != 1)
    return Fail(io, kCertbundleExitUsage,
                "inspect needs exactly one FILE (or - for stdin)");
  std::string format = Get(*flags, "format").value_or("auto");
  if (format != "auto" && format != "txt" && format != "file")
    return Fail(io, kCertbundleExitUsage,
                absl::StrCat("unknown --format '", format,
                             "' (want auto, txt or file)"));
  std::optional<uint16_t> expected_port;
  if (auto p = Get(*flags, "port")) {
    absl::StatusOr<uint16_t> parsed = ParsePort(*p);
    if (!parsed.ok())
      return Fail(io, kCertbundleExitUsage, parsed.status().message());
    expected_port = *parsed;
  }
  absl::Time now = absl::Now();
  if (auto n = Get(*flags, "now")) {
    absl::StatusOr<absl::Time> t = ParseUnixSeconds("now", *n);
    if (!t.ok()) return Fail(io, kCertbundleExitUsage, t.status().message());
    now = *t;
  }
  bool json = Get(*flags, "json").has_value();

  const std::string& path = flags->positional[0];
  // Read a little more than either form may hold, so oversize is reported
  // by the decoder rather than silently cut.
  absl::StatusOr<std::string> data =
      ReadInput(io, path, 2 * kMaxBundleFileBytes);
  if (!data.ok())
    return Fail(io, kCertbundleExitBadInput, data.status().message());
  if (format == "auto") {
    absl::string_view head = absl::StripLeadingAsciiWhitespace(*data);
    if (absl::StartsWith(
            *data, absl::string_view(kBundleFileMagic, kBundleFileMagicSize))) {
      format = "file";
    } else if (absl::StartsWithIgnoreCase(head, kBundleTxtNamePrefix) ||
               absl::StartsWith(head, "v=")) {
      format = "txt";
    } else {
      return Fail(io, kCertbundleExitBadInput,
                  absl::StrCat(path,
                               ": neither a bundle file (no magic) nor a "
                               "certbundle TXT record; starts with \"",
                               absl::CHexEscape(head.substr(0, 16)), "\""));
    }
  }

  std::optional<std::string> name_host;
  absl::StatusOr<BundleTxtRecord> record = absl::InternalError("not decoded");
  if (format == "file") {
    absl::StatusOr<CertBundle> bundle = DecodeBundleFile(*data);
    if (bundle.ok()) {
      record = BundleTxtRecord(*std::move(bundle));
    } else {
      record = bundle.status();
    }
  } else {
    TxtInput input = SplitTxtInput(*data);
    name_host = input.name_host;
    record = ParseBundleTxt(input.strings);
  }
  if (!record.ok())
    return Fail(io, kCertbundleExitBadInput,
                absl::StrCat(path, ": ", record.status().message()));

  if (const BundlePointer* pointer = std::get_if<BundlePointer>(&*record)) {
    if (json) {
      absl::FPrintF(io.out, "{\"form\":\"txt\",\"pointer\":%s%s}\n",
                    JsonString(pointer->url),
                    name_host
                        ? absl::StrCat(",\"name\":",
                                       JsonString(BundleTxtName(*name_host)))
                        : "");
    } else {
      if (name_host)
        absl::FPrintF(io.out, "name:        %s\n", BundleTxtName(*name_host));
      absl::FPrintF(io.out, "pointer:     %s\n", pointer->url);
    }
    return kCertbundleExitOk;
  }
  const CertBundle& bundle = std::get<CertBundle>(*record);

  std::string expected_host =
      Get(*flags, "host").value_or(name_host.value_or(bundle.host));
  absl::Status check = ValidateBundleShape(
      bundle, expected_host, expected_port.value_or(bundle.port), now);

  // Sizes of every form of this bundle.
  size_t der_bytes = 0;
  for (const std::string& c : bundle.chain) der_bytes += c.size();
  absl::StatusOr<std::string> file_zlib = EncodeBundleFile(bundle, true);
  absl::StatusOr<std::string> file_plain = EncodeBundleFile(bundle, false);
  absl::StatusOr<std::vector<std::string>> txt = EncodeBundleTxt(bundle);
  size_t txt_bytes = 0;
  if (txt.ok())
    for (const std::string& s : *txt) txt_bytes += s.size();

  std::optional<std::string> cipher_name = CipherSuiteName(bundle.cipher_suite);
  std::string cipher_hex = absl::StrFormat("0x%04x", bundle.cipher_suite);
  std::string orbit_hex =
      bundle.orbit ? absl::BytesToHexString(*bundle.orbit) : "";

  struct CertInfo {
    std::string subject, issuer;
    size_t bytes;
  };
  std::vector<CertInfo> certs;
  for (const std::string& der : bundle.chain) {
    bssl::UniquePtr<X509> x = DerToX509(der);
    certs.push_back(
        {x ? NameToString(X509_get_subject_name(x.get())) : "(does not parse)",
         x ? NameToString(X509_get_issuer_name(x.get())) : "", der.size()});
  }

  if (json) {
    std::string chain_json;
    for (const CertInfo& c : certs) {
      absl::StrAppend(&chain_json, chain_json.empty() ? "" : ",",
                      "{\"subject\":", JsonString(c.subject),
                      ",\"issuer\":", JsonString(c.issuer),
                      ",\"bytes\":", c.bytes, "}");
    }
    absl::FPrintF(
        io.out,
        "{\"form\":\"%s\",%s\"version\":%d,\"host\":%s,\"port\":%d,"
        "\"cipher_suite\":\"%s\",\"cipher_name\":%s,\"orbit\":%s,"
        "\"tcp_fast_open_no_cookie\":%s,"
        "\"not_after\":\"%s\",\"not_after_unix\":%d,\"created\":\"%s\","
        "\"created_unix\":%d,\"chain\":[%s],\"sizes\":{\"input\":%d,"
        "\"chain_der\":%d,\"file_zlib\":%d,\"file_plain\":%d,\"txt\":%d,"
        "\"txt_strings\":%d},\"check\":%s}\n",
        format,
        name_host ? absl::StrCat(
                        "\"name\":", JsonString(BundleTxtName(*name_host)), ",")
                  : "",
        bundle.version, JsonString(bundle.host), bundle.port, cipher_hex,
        cipher_name ? JsonString(*cipher_name) : "null",
        bundle.orbit ? JsonString(orbit_hex) : "null",
        bundle.tcp_fast_open_no_cookie ? "true" : "false",
        Rfc3339(bundle.not_after), absl::ToUnixSeconds(bundle.not_after),
        Rfc3339(bundle.created), absl::ToUnixSeconds(bundle.created),
        chain_json, data->size(), der_bytes,
        file_zlib.ok() ? file_zlib->size() : 0,
        file_plain.ok() ? file_plain->size() : 0, txt_bytes,
        txt.ok() ? txt->size() : 0,
        check.ok() ? "\"ok\"" : JsonString(check.ToString()));
  } else {
    absl::FPrintF(io.out, "form:        %s (%d bytes)\n", format, data->size());
    if (name_host)
      absl::FPrintF(io.out, "name:        %s\n", BundleTxtName(*name_host));
    absl::FPrintF(io.out, "version:     %d\n", bundle.version);
    absl::FPrintF(io.out, "host:        %s\n", bundle.host);
    absl::FPrintF(io.out, "port:        %d\n", bundle.port);
    absl::FPrintF(io.out, "cipher:      %s %s\n", cipher_hex,
                  cipher_name.value_or("(unknown)"));
    absl::FPrintF(io.out, "orbit:       %s\n",
                  bundle.orbit ? orbit_hex : "none");
    absl::FPrintF(io.out, "tcp fast open: %s\n",
                  bundle.tcp_fast_open_no_cookie ? "SYN data without a cookie"
                                                 : "not announced");
    absl::FPrintF(io.out, "not_after:   %s (%d)\n", Rfc3339(bundle.not_after),
                  absl::ToUnixSeconds(bundle.not_after));
    absl::FPrintF(io.out, "created:     %s (%d)\n", Rfc3339(bundle.created),
                  absl::ToUnixSeconds(bundle.created));
    absl::FPrintF(io.out, "chain:       %d certificates, %d bytes DER\n",
                  certs.size(), der_bytes);
    for (size_t i = 0; i < certs.size(); ++i)
      absl::FPrintF(io.out, "  [%d] %s (issuer %s, %d bytes)\n", i,
                    certs[i].subject, certs[i].issuer, certs[i].bytes);
    absl::FPrintF(io.out,
                  "sizes:       file %d bytes (zlib) / %d (plain); txt %d "
                  "bytes in %d strings\n",
                  file_zlib.ok() ? file_zlib->size() : 0,
                  file_plain.ok() ? file_plain->size() : 0, txt_bytes,
                  txt.ok() ? txt->size() : 0);
    absl::FPrintF(io.out, "check:       %s\n",
                  check.ok() ? "ok" : check.ToString());
  }
  if (!check.ok()) {
    absl::FPrintF(io.err, "certbundle: %s: %s\n", path, check.message());
    return kCertbundleExitBadInput;
  }
  return kCertbundleExitOk;
}

}  // namespace

absl::StatusOr<uint16_t> ParseCipherSuite(absl::string_view s) {
  if (absl::StartsWith(s, "0x") || absl::StartsWith(s, "0X")) {
    uint32_t value;
    if (s.size() < 3 || s.size() > 6 ||
        !absl::SimpleHexAtoi(s.substr(2), &value))
      return absl::InvalidArgumentError(
          absl::StrCat("--cipher '", s, "' is not 0xHHHH"));
    return static_cast<uint16_t>(value);
  }
  for (uint32_t v = 0; v <= 0xffff; ++v) {
    const SSL_CIPHER* c = SSL_get_cipher_by_value(static_cast<uint16_t>(v));
    if (!c) continue;
    const char* standard = SSL_CIPHER_standard_name(c);
    const char* openssl = SSL_CIPHER_get_name(c);
    if ((standard && s == standard) || (openssl && s == openssl))
      return static_cast<uint16_t>(v);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --cipher '", s,
                   "' (give an IETF or OpenSSL name BoringSSL knows, or "
                   "0xHHHH)"));
}

std::optional<std::string> CipherSuiteName(uint16_t suite) {
  const SSL_CIPHER* c = SSL_get_cipher_by_value(suite);
  if (!c || !SSL_CIPHER_standard_name(c)) return std::nullopt;
  return std::string(SSL_CIPHER_standard_name(c));
}

int RunCertbundle(const std::vector<std::string>& args, std::FILE* in,
                  std::FILE* out, std::FILE* err) {
  Io io{in, out, err};
  if (args.empty())
    return Fail(io, kCertbundleExitUsage,
                "no command (make, pointer or inspect)");
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    absl::FPrintF(out, "%s", kUsage);
    return kCertbundleExitOk;
  }
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      absl::FPrintF(out, "%s", kUsage);
      return kCertbundleExitOk;
    }
  }
  if (command == "make") return RunMake(io, args);
  if (command == "pointer") return RunPointer(io, args);
  if (command == "inspect") return RunInspect(io, args);
  return Fail(io, kCertbundleExitUsage,
              absl::StrCat("unknown command '", command,
                           "' (want make, pointer or inspect)"));
}

}  // namespace net
