#include "tools/fetch/curl_flags.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace net {
namespace {

// Short flags that take a value, and those that do not (curl's letters).
constexpr char kValuedShort[] = "oXdwHmAubcDx";
constexpr char kBooleanShort[] = "OIsSvLZfik";

absl::Status FlagError(absl::string_view flag, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", why));
}

// Every regular file in |dir| (curl's --capath is a directory of PEM
// certificates, OpenSSL-hashed names or not), in name order.
absl::StatusOr<std::vector<std::string>> FilesIn(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return FlagError("--capath", absl::StrCat("cannot open ", dir));
  std::vector<std::string> files;
  while (struct dirent* e = readdir(d)) {
    const std::string path = absl::StrCat(dir, "/", e->d_name);
    struct stat st;
    if (e->d_name[0] != '.' && stat(path.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode))
      files.push_back(path);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty())
    return FlagError("--capath", absl::StrCat(dir, " holds no files"));
  return files;
}

}  // namespace

bool IsShortFlagGroup(const std::string& arg) {
  return arg.size() > 2 && arg[0] == '-' && arg[1] != '-';
}

absl::StatusOr<std::vector<std::string>> ExpandShortFlagGroup(
    const std::string& group) {
  std::vector<std::string> out;
  for (size_t c = 1; c < group.size(); ++c) {
    const char letter = group[c];
    out.push_back(std::string("-") + letter);
    if (std::string(kValuedShort).find(letter) != std::string::npos) {
      // The rest is its value; none left: the next argument is.
      if (c + 1 < group.size()) out.push_back(group.substr(c + 1));
      return out;
    }
    if (std::string(kBooleanShort).find(letter) == std::string::npos)
      return FlagError(group,
                       absl::StrCat("unknown flag -", std::string(1, letter)));
  }
  return out;
}

std::optional<absl::Status> ParseCurlFlag(const std::vector<std::string>& args,
                                          size_t* i, FetchOptions* o) {
  const std::string& flag = args[*i];
  auto value = [&]() -> absl::StatusOr<std::string> {
    if (*i + 1 >= args.size()) return FlagError(flag, "needs a value");
    return args[++*i];
  };
  auto take = [&](std::string* out) -> absl::Status {
    absl::StatusOr<std::string> v = value();
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
  auto seconds = [&](absl::Duration* out, bool zero_ok) -> absl::Status {
    absl::StatusOr<std::string> v = value();
    if (!v.ok()) return v.status();
    double s;
    if (!absl::SimpleAtod(*v, &s) || s < 0 || (s == 0 && !zero_ok) || s > 1e6)
      return FlagError(
          flag, zero_ok ? "expected seconds >= 0" : "expected seconds > 0");
    *out = absl::Seconds(s);
    return absl::OkStatus();
  };
  if (flag == "-f" || flag == "--fail") {
    o->fail_on_http_error = true;
  } else if (flag == "-i" || flag == "--include") {
    o->include_headers = true;
  } else if (flag == "-k" || flag == "--insecure") {
    o->insecure = true;
  } else if (flag == "-m") {
    return seconds(&o->max_time, /*zero_ok=*/false);
  } else if (flag == "-A" || flag == "--user-agent") {
    absl::Status s = take(&o->user_agent);
    if (s.ok() && o->user_agent.find_first_of("\r\n") != std::string::npos)
      return FlagError(flag, "contains a line break");
    return s;
  } else if (flag == "-u" || flag == "--user") {
    absl::Status s = take(&o->user);
    if (!s.ok()) return s;
    if (o->user.find(':') == std::string::npos)
      return FlagError(
          flag, "expected USER:PASSWORD (fetch does not prompt for one)");
  } else if (flag == "-b" || flag == "--cookie") {
    std::string v;
    absl::Status s = take(&v);
    if (!s.ok()) return s;
    // curl: with a '=' it is the Cookie header's data, else a file to read.
    if (v.find('=') != std::string::npos) {
      if (v.find_first_of("\r\n") != std::string::npos)
        return FlagError(flag, "contains a line break");
      o->cookie_strings.push_back(v);
    } else {
      o->cookie_files.push_back(v);
    }
  } else if (flag == "-c" || flag == "--cookie-jar") {
    return take(&o->cookie_jar_file);
  } else if (flag == "-D" || flag == "--dump-header") {
    return take(&o->dump_header_file);
  } else if (flag == "--cacert") {
    std::string v;
    absl::Status s = take(&v);
    if (s.ok()) o->trust_anchors.push_back(v);
    return s;
  } else if (flag == "--capath") {
    std::string v;
    absl::Status s = take(&v);
    if (!s.ok()) return s;
    absl::StatusOr<std::vector<std::string>> files = FilesIn(v);
    if (!files.ok()) return files.status();
    o->trust_anchors.insert(o->trust_anchors.end(), files->begin(),
                            files->end());
  } else if (flag == "--compressed") {
    o->compressed = true;
  } else if (flag == "--retry") {
    std::string v;
    absl::Status s = take(&v);
    if (!s.ok()) return s;
    if (!absl::SimpleAtoi(v, &o->retry) || o->retry < 0 || o->retry > 1000)
      return FlagError(flag, "expected a number from 0 to 1000");
  } else if (flag == "--retry-delay") {
    return seconds(&o->retry_delay, /*zero_ok=*/true);
  } else if (flag == "--retry-max-time") {
    return seconds(&o->retry_max_time, /*zero_ok=*/true);
  } else if (flag == "--retry-connrefused") {
    o->retry_connrefused = true;
  } else if (flag == "--http1.1") {
    o->http1_1_only = true;
  } else if (flag == "--http3") {
    o->http3 = true;
  } else if (flag == "--ech") {
    // curl 8.8's values; pn: (a public name override) has no BoringSSL
    // counterpart: the configuration names it.
    std::string v;
    absl::Status s = take(&v);
    if (!s.ok()) return s;
    if (absl::StartsWith(v, "ecl:")) {
      std::string list;
      if (v.size() == 4 || !absl::Base64Unescape(v.substr(4), &list))
        return FlagError(flag, "ecl: wants the base64 of an ECHConfigList");
    } else if (v != "true" && v != "false" && v != "grease" && v != "hard") {
      return FlagError(flag,
                       "expected true, false, grease, hard or ecl:BASE64");
    }
    o->ech = v;
  } else if (flag == "--no-progress-meter") {
    o->no_progress_meter = true;
  } else if (flag == "-x" || flag == "--proxy") {
    std::string v;
    absl::Status s = take(&v);
    if (s.ok()) o->proxy = v;
    return s;
  } else if (flag == "--noproxy") {
    std::string v;
    absl::Status s = take(&v);
    if (s.ok()) o->no_proxy = v;
    return s;
  } else {
    return std::nullopt;
  }
  return absl::OkStatus();
}

std::string FetchVersion() {
  return absl::StrCat(
      "fetch (netstack) 0.9 (BoringSSL, c-ares, zlib, brotli, ada URL "
      "parser)\n",
      "Protocols: http https\n",
      "Features: TLS1.3 0-RTT False-Start Snap-Start SPDY/3 TCP-Fast-Open ECH "
      "HTTPS-RR "
      "Origin-Bound-Certificates Cert-Bundle-Prefetch OCSP CRL "
      "Cert-Compression libz brotli alt-connect(--connect-to) HAR "
      "Trace-Events\n");
}

std::string WithDefaultScheme(const std::string& url) {
  if (url.find("://") != std::string::npos) return url;
  return absl::StrCat("http://", url);
}

}  // namespace net
