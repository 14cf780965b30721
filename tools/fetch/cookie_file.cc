#include "tools/fetch/cookie_file.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "net/base/file_util.h"
#include "net/base/url.h"

namespace net {
namespace {

constexpr char kHttpOnlyPrefix[] = "#HttpOnly_";
// A cookie file bigger than this is not one (the jar keeps a few thousand
// cookies of at most 4 KB).
constexpr size_t kMaxCookieFileBytes = 16 << 20;

}  // namespace

absl::StatusOr<int> ReadNetscapeCookies(const std::string& text, CookieJar* jar,
                                        absl::Time now,
                                        std::vector<std::string>* refused) {
  int stored = 0;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    absl::ConsumeSuffix(&line, "\r");
    const bool http_only = absl::ConsumePrefix(&line, kHttpOnlyPrefix);
    if (line.empty() || (!http_only && line[0] == '#')) continue;
    std::vector<absl::string_view> f = absl::StrSplit(line, '\t');
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("cookie file line ", line_number, ": ", why));
    };
    if (f.size() != 7) return bad("expected 7 tab-separated fields");
    absl::string_view domain = f[0];
    const bool dotted = absl::ConsumePrefix(&domain, ".");
    if (domain.empty() ||
        domain.find_first_of("/ ;") != absl::string_view::npos)
      return bad("bad domain");
    if ((f[1] != "TRUE" && f[1] != "FALSE") ||
        (f[3] != "TRUE" && f[3] != "FALSE"))
      return bad("the flags are TRUE or FALSE");
    const bool subdomains = f[1] == "TRUE" || dotted;
    if (f[2].empty() || f[2][0] != '/') return bad("the path starts with /");
    int64_t expiry;
    if (!absl::SimpleAtoi(f[4], &expiry) || expiry < 0)
      return bad("bad expiry");
    if (f[5].empty() || f[5].find_first_of(";=") != absl::string_view::npos ||
        f[6].find(';') != absl::string_view::npos)
      return bad("bad name or value");
    if (expiry != 0 && absl::FromUnixSeconds(expiry) <= now) continue;
    const bool secure = f[3] == "TRUE";
    std::string set_cookie = absl::StrCat(f[5], "=", f[6], "; Path=", f[2]);
    if (subdomains) absl::StrAppend(&set_cookie, "; Domain=", domain);
    if (expiry != 0)
      absl::StrAppend(&set_cookie,
                      "; Max-Age=", expiry - absl::ToUnixSeconds(now));
    if (secure) absl::StrAppend(&set_cookie, "; Secure");
    if (http_only) absl::StrAppend(&set_cookie, "; HttpOnly");
    absl::StatusOr<Url> url =
        Url::Parse(absl::StrCat(secure ? "https://" : "http://", domain, f[2]));
    if (!url.ok()) return bad(url.status().message());
    absl::Status status = jar->SetCookie(*url, set_cookie, now);
    if (!status.ok()) {
      if (refused)
        refused->push_back(
            absl::StrCat("line ", line_number, ": ", status.message()));
      continue;
    }
    ++stored;
  }
  return stored;
}

std::string WriteNetscapeCookies(const CookieJar& jar, absl::Time now) {
  std::string out =
      "# Netscape HTTP Cookie File\n"
      "# Written by netstack's fetch (as curl's -c). Edit at your own "
      "risk.\n\n";
  for (const CanonicalCookie& c : jar.AllCookies()) {
    if (c.IsExpired(now)) continue;
    absl::StrAppend(&out, c.http_only ? kHttpOnlyPrefix : "",
                    c.host_only ? "" : ".", c.domain, "\t",
                    c.host_only ? "FALSE" : "TRUE", "\t", c.path, "\t",
                    c.secure ? "TRUE" : "FALSE", "\t",
                    c.persistent ? absl::ToUnixSeconds(c.expiry) : 0, "\t",
                    c.name, "\t", c.value, "\n");
  }
  return out;
}

absl::Status LoadCookieFiles(const std::vector<std::string>& files,
                             CookieJar* jar,
                             std::vector<std::string>* refused) {
  for (const std::string& file : files) {
    absl::StatusOr<std::string> text =
        ReadFileToString(file, kMaxCookieFileBytes);
    if (!text.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("-b ", file, ": ", text.status().message()));
    absl::StatusOr<int> stored =
        ReadNetscapeCookies(*text, jar, absl::Now(), refused);
    if (!stored.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("-b ", file, ": ", stored.status().message()));
  }
  return absl::OkStatus();
}

absl::Status SaveCookieFile(const std::string& path, const CookieJar& jar) {
  const std::string text = WriteNetscapeCookies(jar, absl::Now());
  FILE* out = path == "-" ? stdout : fopen(path.c_str(), "w");
  if (!out)
    return absl::UnavailableError(absl::StrCat("-c ", path, ": cannot open"));
  bool ok = fwrite(text.data(), 1, text.size(), out) == text.size();
  ok = (out == stdout ? fflush(out) : fclose(out)) == 0 && ok;
  if (!ok)
    return absl::UnavailableError(absl::StrCat("-c ", path, ": cannot write"));
  return absl::OkStatus();
}

}  // namespace net
