// net::Url against the web-platform-tests' URL parsing cases
// (third_party/wpt_url/urltestdata.json, see its README): every case whose
// input or base is http(s), and every case without a base.
//
// Each case is parsed as a client would: with no base, Url::Parse(input);
// with an http(s) base, Url::Parse(base)->Resolve(input) (how a Location
// header is followed); with a base of another scheme, Url::Parse(input) if
// the input is an absolute http(s) URL (a special scheme's authority never
// comes from a base of a different scheme), and not at all otherwise.
//
// What Url must do follows from WPT's expectation and Url's documented
// policy (url.h), one rule each:
//   - WPT says failure: Url refuses ("not a valid URL").
//   - The URL's scheme is not http or https: Url refuses ("unsupported
//     scheme"). Nothing in this stack fetches another scheme.
//   - The URL has a username or password: Url refuses ("userinfo"). The
//     Fetch Standard's Request constructor throws on credentials in a URL;
//     this stack has no use for them and will not drop them silently.
//   - The port is 0: Url refuses ("port 0"). Port 0 heads the Fetch
//     Standard's bad-port list (a network error), and Origin uses 0 for "no
//     origin".
//   - Otherwise Url accepts, and spec() is WPT's href without the fragment
//     (Url drops fragments: they are never sent), and scheme, host, Host
//     header, port, request target and origin agree with WPT's protocol,
//     hostname, host, port, pathname + search and origin.
// A case that breaks its rule fails the test unless it is in
// kKnownDifferences below with its reason; a listed case that starts
// following its rule fails the test too, so the list stays true.

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "net/base/url.h"

namespace net {
namespace {

constexpr char kDataPath[] = "third_party/wpt_url/urltestdata.json";

// A case of urltestdata.json: the input, the base (none for JSON null), and
// either failure or the URL API's getters for the parsed URL.
struct WptCase {
  int index = 0;  // among the file's test objects, from 0
  std::string input;
  std::optional<std::string> base;
  bool failure = false;
  std::map<std::string, std::string> parts;  // "href", "protocol", ...

  std::string Part(const std::string& name) const {
    auto it = parts.find(name);
    return it == parts.end() ? std::string() : it->second;
  }
  std::string Describe() const {
    return absl::StrCat("case #", index, " input \"", absl::CHexEscape(input),
                        "\" base ",
                        base ? absl::StrCat("\"", absl::CHexEscape(*base), "\"")
                             : std::string("null"));
  }
};

// A case where Url knowingly does not follow its rule, and why.
struct KnownDifference {
  const char* input;
  const char* base;  // nullptr for a null base
  const char* why;
};

// All from one change of the standard newer than ada 2.9.2: domain to
// ASCII now keeps an all-ASCII domain whose "xn--" labels are not valid
// Punycode (lower-cased) instead of failing. WPT expects it in the data
// vendored here; ada's main branch follows it since 2026-07-11 (ada-idna
// 0.6.0, in no release yet, and ada 3.x needs C++20 anyway). Url refuses
// such hosts: the fail-closed side, and no IDNA-valid name has such a label.
constexpr KnownDifference kKnownDifferences[] = {
    {"http://a.b.c.xn--pokxncvks", nullptr, "invalid Punycode label, kept"},
    {"http://10.0.0.xn--pokxncvks", nullptr, "invalid Punycode label, kept"},
    {"http://a.b.c.XN--pokxncvks", nullptr, "invalid Punycode label, kept"},
    {"http://a.b.c.Xn--pokxncvks", nullptr, "invalid Punycode label, kept"},
    {"http://10.0.0.XN--pokxncvks", nullptr, "invalid Punycode label, kept"},
    {"http://10.0.0.xN--pokxncvks", nullptr, "invalid Punycode label, kept"},
    {"https://xn--/", nullptr, "empty Punycode label, kept"},
    // file: is refused either way; Url says "not a valid URL" (ada 2.9.2
    // fails on the host first) where the rule expects "unsupported scheme".
    {"file://xn--/p", nullptr, "empty Punycode label, kept"},
};

// Listed returns the entry of kKnownDifferences for |c| (recording its
// index in |used|), or nullptr.
const KnownDifference* Listed(const WptCase& c, std::set<size_t>* used) {
  for (size_t i = 0; i < std::size(kKnownDifferences); ++i) {
    const KnownDifference& d = kKnownDifferences[i];
    if (c.input != d.input) continue;
    if ((d.base == nullptr) != !c.base.has_value()) continue;
    if (d.base != nullptr && *c.base != d.base) continue;
    used->insert(i);
    return &d;
  }
  return nullptr;
}

// LoadCases reads the data file; a malformed file fails the test.
std::vector<WptCase> LoadCases() {
  absl::StatusOr<std::string> text = ReadFileToString(kDataPath);
  if (!text.ok()) {
    ADD_FAILURE() << text.status();
    return {};
  }
  google::protobuf::ListValue list;
  auto status = google::protobuf::util::JsonStringToMessage(*text, &list);
  if (!status.ok()) {
    ADD_FAILURE() << kDataPath << " is not a JSON array: " << status;
    return {};
  }
  std::vector<WptCase> cases;
  for (const google::protobuf::Value& value : list.values()) {
    if (value.kind_case() == google::protobuf::Value::kStringValue)
      continue;  // a comment
    if (value.kind_case() != google::protobuf::Value::kStructValue) {
      ADD_FAILURE() << "an element that is neither a comment nor a case";
      continue;
    }
    WptCase c;
    c.index = static_cast<int>(cases.size());
    for (const auto& [key, field] : value.struct_value().fields()) {
      using Kind = google::protobuf::Value;
      if (key == "base" && field.kind_case() == Kind::kNullValue) continue;
      if (key == "failure") {
        if (field.kind_case() != Kind::kBoolValue)
          ADD_FAILURE() << "case #" << c.index << ": failure is not a bool";
        c.failure = field.bool_value();
      } else if (key == "searchParams" || key == "relativeTo" ||
                 key == "comment") {
        // Not about parsing: URLSearchParams, and where else WPT's other
        // tests reuse a failure.
      } else if (field.kind_case() == Kind::kStringValue) {
        if (key == "input")
          c.input = field.string_value();
        else if (key == "base")
          c.base = field.string_value();
        else
          c.parts[key] = field.string_value();
      } else {
        ADD_FAILURE() << "case #" << c.index << ": unexpected field " << key;
      }
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// SchemeOf returns the lower-case scheme of |text| read as the URL parser
// starts reading it (C0 controls and spaces trimmed, tabs and newlines
// removed), or "" when it does not start with a scheme.
std::string SchemeOf(absl::string_view text) {
  while (!text.empty() && static_cast<unsigned char>(text.front()) <= 0x20)
    text.remove_prefix(1);
  std::string scheme;
  for (char c : text) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c == ':') return scheme;
    if (absl::ascii_isalpha(c) ||
        (!scheme.empty() &&
         (absl::ascii_isdigit(c) || c == '+' || c == '-' || c == '.'))) {
      scheme.push_back(absl::ascii_tolower(c));
      continue;
    }
    return "";
  }
  return "";
}

bool IsHttp(absl::string_view scheme) {
  return scheme == "http" || scheme == "https";
}

enum class Route { kSkip, kParse, kResolve };

Route RouteOf(const WptCase& c) {
  if (!c.base) return Route::kParse;
  if (IsHttp(SchemeOf(*c.base))) return Route::kResolve;
  if (IsHttp(SchemeOf(c.input))) return Route::kParse;
  return Route::kSkip;
}

// The rule a case falls under: "" for accept, else the refusal's reason.
std::string RuleOf(const WptCase& c) {
  if (c.failure) return "not a valid URL";
  const std::string protocol = c.Part("protocol");
  if (protocol != "http:" && protocol != "https:") return "unsupported scheme";
  if (!c.Part("username").empty() || !c.Part("password").empty())
    return "userinfo";
  if (c.Part("port") == "0") return "port 0";
  return "";
}

// Check returns how |url| (Url's answer for |c|) breaks the rule of |c|, or
// "" when it follows it.
std::string Check(const WptCase& c, const absl::StatusOr<Url>& url) {
  const std::string rule = RuleOf(c);
  if (!rule.empty()) {
    if (url.ok()) return absl::StrCat("accepted as ", url->spec());
    if (url.status().message().find(rule) == absl::string_view::npos)
      return absl::StrCat("refused, but not for \"", rule,
                          "\": ", url.status().message());
    return "";
  }
  if (!url.ok()) return absl::StrCat("refused: ", url.status().message());

  std::vector<std::string> wrong;
  auto expect = [&wrong](absl::string_view what, const std::string& got,
                         const std::string& want) {
    if (got != want)
      wrong.push_back(absl::StrCat(what, " \"", absl::CHexEscape(got),
                                   "\", WPT \"", absl::CHexEscape(want), "\""));
  };
  const std::string href = c.Part("href");
  const std::string spec = href.substr(0, href.find('#'));
  expect("spec", url->spec(), spec);
  expect("scheme", url->scheme() + ":", c.Part("protocol"));
  std::string hostname = c.Part("hostname");
  if (hostname.size() >= 2 && hostname.front() == '[')
    hostname = hostname.substr(1, hostname.size() - 2);
  expect("host", url->host(), hostname);
  expect("HostHeader", url->HostHeader(), c.Part("host"));
  const std::string port = c.Part("port");
  expect("port", absl::StrCat(url->port()),
         port.empty() ? absl::StrCat(Url::DefaultPortForScheme(url->scheme()))
                      : port);
  expect("has_explicit_port", url->has_explicit_port() ? "yes" : "no",
         port.empty() ? "no" : "yes");
  // WPT's search is "" for an empty query too; the href keeps its "?".
  std::string target = c.Part("pathname") + c.Part("search");
  if (c.Part("search").empty() && !spec.empty() && spec.back() == '?')
    target += "?";
  expect("PathForRequest", url->PathForRequest(), target);
  if (c.parts.count("origin"))  // not every case gives it
    expect("origin", url->GetOrigin().Serialize(), c.Part("origin"));
  absl::StatusOr<Url> again = Url::Parse(url->spec());
  expect("spec parsed again", again.ok() ? again->spec() : "(refused)",
         url->spec());
  return absl::StrJoin(wrong, "; ");
}

TEST(UrlWptTest, FollowsTheWhatwgUrlStandardOnWptCases) {
  const std::vector<WptCase> cases = LoadCases();
  std::map<std::string, int> by_route, by_rule;
  std::set<size_t> listed_used;
  int selected = 0, followed = 0, listed = 0;
  for (const WptCase& c : cases) {
    const Route route = RouteOf(c);
    if (route == Route::kSkip) continue;
    ++selected;
    absl::StatusOr<Url> url;
    if (route == Route::kParse) {
      ++by_route["Url::Parse(input)"];
      url = Url::Parse(c.input);
    } else {
      ++by_route["Url::Parse(base)->Resolve(input)"];
      // A base Url refuses (userinfo) is no place a redirect can start
      // from: its refusal is the answer, and the case's rule judges it.
      absl::StatusOr<Url> base = Url::Parse(*c.base);
      url = base.ok() ? base->Resolve(c.input) : base;
    }
    const std::string rule = RuleOf(c);
    ++by_rule[rule.empty() ? "accepted, parts compared" : "refused: " + rule];
    const std::string broken = Check(c, url);
    if (const KnownDifference* d = Listed(c, &listed_used)) {
      ++listed;
      std::printf("  known difference, %s: %s (%s)\n", d->why,
                  c.Describe().c_str(), broken.c_str());
      EXPECT_NE(broken, "") << c.Describe()
                            << " is in kKnownDifferences but now follows its "
                               "rule: remove it from the list";
      continue;
    }
    if (broken.empty()) {
      ++followed;
    } else {
      ADD_FAILURE() << c.Describe() << ": " << broken;
    }
  }
  for (size_t i = 0; i < std::size(kKnownDifferences); ++i) {
    EXPECT_TRUE(listed_used.count(i))
        << "kKnownDifferences[" << i << "] (input \""
        << absl::CHexEscape(kKnownDifferences[i].input)
        << "\") matches no selected case";
  }

  std::printf(
      "%zu WPT cases in %s; %d selected, %d follow their rule, %d "
      "listed as known differences\n",
      cases.size(), kDataPath, selected, followed, listed);
  for (const auto& [route, n] : by_route)
    std::printf("  %5d by %s\n", n, route.c_str());
  for (const auto& [rule, n] : by_rule)
    std::printf("  %5d %s\n", n, rule.c_str());
  // A truncated or misread file would pass vacuously.
  EXPECT_GE(selected, 700);
  EXPECT_GE(by_rule["accepted, parts compared"], 200);
}

}  // namespace
}  // namespace net
