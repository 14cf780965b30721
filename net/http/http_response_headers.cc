#include "net/http/http_response_headers.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace net {
namespace {

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && !strchr("!#$%&'*+-.^_`|~", c)) return false;
  }
  return true;
}

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed HTTP response: ", why));
}

}  // namespace

absl::StatusOr<HttpResponseHeaders> HttpResponseHeaders::Parse(
    absl::string_view raw) {
  HttpResponseHeaders h;
  h.raw_ = std::string(raw);
  std::vector<absl::string_view> lines = absl::StrSplit(raw, '\n');
  if (lines.empty()) return Malformed("empty");
  auto strip_cr = [](absl::string_view line) {
    return absl::StripSuffix(line, "\r");
  };

  absl::string_view status = strip_cr(lines[0]);
  if (absl::StartsWith(status, "HTTP/1.1 ")) {
    h.version_ = 11;
  } else if (absl::StartsWith(status, "HTTP/1.0 ")) {
    h.version_ = 10;
  } else {
    return Malformed(
        absl::StrCat("bad status line '", status.substr(0, 40), "'"));
  }
  absl::string_view rest = status.substr(9);
  if (rest.size() < 3 || !absl::ascii_isdigit(rest[0]) ||
      !absl::ascii_isdigit(rest[1]) || !absl::ascii_isdigit(rest[2]) ||
      (rest.size() > 3 && rest[3] != ' ')) {
    return Malformed("bad status code");
  }
  absl::SimpleAtoi(rest.substr(0, 3), &h.status_code_);
  if (h.status_code_ < 100) return Malformed("bad status code");
  h.reason_ = std::string(rest.size() > 4 ? rest.substr(4) : "");

  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = strip_cr(lines[i]);
    if (line.empty()) {
      if (i + 1 != lines.size() &&
          !(i + 2 == lines.size() && lines[i + 1].empty())) {
        return Malformed("data after the header block");
      }
      break;
    }
    if (line.front() == ' ' || line.front() == '\t')
      return Malformed("obsolete line folding");
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos)
      return Malformed("header line without colon");
    absl::string_view name = line.substr(0, colon);
    if (!IsToken(name)) return Malformed("bad header name");
    absl::string_view value =
        absl::StripAsciiWhitespace(line.substr(colon + 1));
    h.headers_.emplace_back(std::string(name), std::string(value));
  }

  for (const auto& [name, value] : h.headers_) {
    if (absl::EqualsIgnoreCase(name, "content-length")) {
      int64_t length;
      if (!absl::SimpleAtoi(value, &length) || length < 0 ||
          !absl::ascii_isdigit(value.empty() ? 'x' : value[0])) {
        return Malformed("bad Content-Length");
      }
      if (h.content_length_ >= 0 && h.content_length_ != length)
        return Malformed("conflicting Content-Length headers");
      h.content_length_ = length;
    } else if (absl::EqualsIgnoreCase(name, "transfer-encoding")) {
      std::vector<absl::string_view> codings = absl::StrSplit(value, ',');
      absl::string_view last = absl::StripAsciiWhitespace(codings.back());
      if (absl::EqualsIgnoreCase(last, "chunked")) {
        h.chunked_ = true;
      } else {
        return Malformed(
            absl::StrCat("unsupported Transfer-Encoding '", value, "'"));
      }
    }
  }
  // RFC 9112 6.3: chunked wins over Content-Length; drop the length.
  if (h.chunked_) h.content_length_ = -1;
  return h;
}

std::optional<std::string> HttpResponseHeaders::GetHeader(
    absl::string_view name) const {
  for (const auto& [n, v] : headers_) {
    if (absl::EqualsIgnoreCase(n, name)) return v;
  }
  return std::nullopt;
}

bool HttpResponseHeaders::IsKeepAlive() const {
  std::optional<std::string> connection = GetHeader("connection");
  std::string value = connection ? absl::AsciiStrToLower(*connection) : "";
  if (version_ == 10) return absl::StrContains(value, "keep-alive");
  return !absl::StrContains(value, "close");
}

std::string HttpResponseHeaders::status_line() const {
  return absl::StrCat(version_ == 10 ? "HTTP/1.0 " : "HTTP/1.1 ", status_code_,
                      reason_.empty() ? "" : " ", reason_);
}

}  // namespace net
