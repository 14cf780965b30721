#include "tools/testserver/routes.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace net {
namespace {

// The generated body repeats this line; byte i is kPattern[i % size].
constexpr char kPattern[] =
    "netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n";
constexpr size_t kPatternSize = sizeof(kPattern) - 1;
// AppendGenerated copies from a tile of whole lines at least this long.
constexpr size_t kTileSize = 64 * 1024;

}  // namespace

void AppendGenerated(std::string* out, int64_t offset, size_t n) {
  static const std::string* const kTile = [] {
    auto* tile = new std::string;
    while (tile->size() < kTileSize + kPatternSize) *tile += kPattern;
    return tile;
  }();
  size_t start = static_cast<size_t>(offset % kPatternSize);
  while (n > 0) {
    size_t take = std::min(n, kTile->size() - start);
    out->append(*kTile, start, take);
    n -= take;
    start = (start + take) % kPatternSize;
  }
}

bool ParseGeneratedPath(const std::string& path, int64_t* size, bool* chunked) {
  int64_t n = 0;
  if (absl::StartsWith(path, "/size/") &&
      absl::SimpleAtoi(path.substr(6), &n)) {
    *chunked = false;
  } else if (absl::StartsWith(path, "/chunked/") &&
             absl::SimpleAtoi(path.substr(9), &n)) {
    *chunked = true;
  } else {
    return false;
  }
  if (n < 0 || n > kMaxGeneratedBody) return false;
  *size = n;
  return true;
}

std::string ContentTypeFor(const std::string& path) {
  if (absl::EndsWith(path, ".html")) return "text/html; charset=utf-8";
  if (absl::EndsWith(path, ".json")) return "application/json";
  if (absl::EndsWith(path, ".pem") || absl::EndsWith(path, ".txt"))
    return "text/plain";
  return "application/octet-stream";
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    default:
      return "";
  }
}

RouteResponse ServeDocroot(const std::string& docroot,
                           const std::string& path) {
  if (path.find("..") != std::string::npos)
    return {403, "text/plain", "forbidden\n"};
  std::string file = docroot + path;
  struct stat st;
  if (stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    file += "/index.html";
  std::ifstream in(file, std::ios::binary);
  if (!in) return {404, "text/plain", "not found\n"};
  std::ostringstream body;
  body << in.rdbuf();
  return {200, ContentTypeFor(file), body.str()};
}

std::optional<RouteResponse> ServeNamedFile(
    const std::map<std::string, std::string>& files, const std::string& path) {
  auto it = files.find(path);
  if (it == files.end()) return std::nullopt;
  std::ifstream in(it->second, std::ios::binary);
  if (!in) return RouteResponse{404, "text/plain", "not found\n"};
  std::ostringstream body;
  body << in.rdbuf();
  return RouteResponse{200, ContentTypeFor(it->second), body.str()};
}

ObcResult RouteChannelBound(const ChannelBoundCookies& cookies,
                            const ObcRequest& request) {
  ObcResult result;
  auto answer = [&](int status, const char* type, std::string body) {
    result.response = RouteResponse{status, type, std::move(body)};
    return result;
  };
  std::optional<std::string> token =
      FindCookie(request.cookie_header, ChannelBoundCookies::kCookieName);
  if (token.has_value()) {
    absl::StatusOr<std::string> bound = cookies.Verify(*token);
    if (!bound.ok()) {
      result.cookie = "invalid";
      return answer(403, "text/plain",
                    absl::StrCat("invalid channel-bound cookie: ",
                                 bound.status().message(), "\n"));
    }
    result.bound_to_hex = HexEncode(*bound);
    if (*bound != request.spki) {
      result.cookie = request.spki.empty() ? "no_obc" : "mismatch";
      return answer(
          403, "text/plain",
          absl::StrCat("channel-bound cookie presented with a different OBC: "
                       "the cookie is bound to ",
                       result.bound_to_hex, ", ", request.spki_owner, " is ",
                       request.spki.empty() ? "none" : HexEncode(request.spki),
                       "\n"));
    }
    result.cookie = "accepted";
  }
  if (request.path == "/obc/login") {
    if (request.spki.empty())
      return answer(403, "text/plain", request.login_without_obc);
    result.cookie = "issued";
    answer(200, "application/json",
           absl::StrCat("{\"session\":\"issued\",\"obc_spki_sha256\":\"",
                        HexEncode(request.spki), "\"}\n"));
    result.response->set_cookie =
        absl::StrCat(ChannelBoundCookies::kCookieName, "=",
                     cookies.Issue(request.spki), "; Secure; HttpOnly; Path=/");
    return result;
  }
  if (request.path == "/obc/whoami") {
    if (!token.has_value()) {
      return answer(401, "text/plain",
                    absl::StrCat("no ", ChannelBoundCookies::kCookieName,
                                 " cookie: get one at /obc/login\n"));
    }
    return answer(
        200, "application/json",
        absl::StrCat("{\"session\":\"accepted\",\"obc_spki_sha256\":\"",
                     HexEncode(request.spki), "\",\"bound_to\":\"",
                     result.bound_to_hex, "\"}\n"));
  }
  return result;
}

}  // namespace net
