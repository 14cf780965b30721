#include "net/http/http_response_headers.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "net/base/net_errors.h"
#include "net/http/http_field_grammar.h"
#include "net/http/http_header_scanner.h"

namespace net {
namespace {

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed HTTP response: ", why));
}

// Framing errors carry the net error that names them as a payload.
constexpr char kNetErrorPayload[] = "netstack/net_error";
constexpr int kInvalidContentLength = ERR_INVALID_CONTENT_LENGTH;
constexpr int kMultipleContentLength =
    ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH;

absl::Status FramingError(int net_error, absl::string_view why) {
  absl::Status status = Malformed(why);
  status.SetPayload(kNetErrorPayload, absl::Cord(absl::StrCat(net_error)));
  return status;
}

}  // namespace

absl::StatusOr<HttpResponseHeaders> HttpResponseHeaders::Parse(
    absl::string_view raw) {
  // The scanner vets the line structure (line ends, bare CR, NUL) exactly as
  // HttpStreamParser's does while reading, and finds the blank line.
  HttpHeaderScanner scanner(raw.size());
  int scanned = scanner.Scan(raw);
  if (scanned < 0) return Malformed(scanner.error_detail());
  if (!scanner.block_complete())
    return Malformed("the header block does not end with a blank line");
  if (static_cast<size_t>(scanned) != raw.size())
    return Malformed("data after the header block");

  HttpResponseHeaders h;
  h.raw_ = std::string(raw);
  // Every line ends in LF (the last one is the blank line), and a CR only
  // ever comes right before an LF.
  std::vector<absl::string_view> lines =
      absl::StrSplit(raw.substr(0, raw.size() - 1), '\n');
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

  // The last line is the blank one.
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    absl::string_view line = strip_cr(lines[i]);
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      // obs-fold (RFC 9112 5.2): a user agent MUST replace it with SP, so
      // the line continues the previous field's value. Whitespace before
      // the first field line is invalid (RFC 9112 2.2).
      if (h.headers_.empty())
        return Malformed("whitespace before the first header line");
      std::string& value = h.headers_.back().second;
      absl::string_view more = absl::StripAsciiWhitespace(line);
      if (!more.empty())
        absl::StrAppend(&value, value.empty() ? "" : " ", more);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos)
      return Malformed("header line without colon");
    absl::string_view name = line.substr(0, colon);
    if (!IsToken(name)) return Malformed("bad header name");
    absl::string_view value =
        absl::StripAsciiWhitespace(line.substr(colon + 1));
    h.headers_.emplace_back(std::string(name), std::string(value));
  }

  // RFC 9112 6.3. Transfer-Encoding first: with it, Content-Length plays no
  // part in the framing (rule 3), so it is not validated either.
  std::vector<absl::string_view> codings;
  for (const auto& [name, value] : h.headers_) {
    if (!absl::EqualsIgnoreCase(name, "transfer-encoding")) continue;
    h.has_transfer_encoding_ = true;
    for (absl::string_view coding : absl::StrSplit(value, ',')) {
      // A coding's parameters (";q=...") do not matter here.
      coding = absl::StripAsciiWhitespace(coding.substr(0, coding.find(';')));
      if (!coding.empty()) codings.push_back(coding);
    }
  }
  if (h.has_transfer_encoding_) {
    if (codings.empty()) return Malformed("empty Transfer-Encoding");
    auto is_chunked = [](absl::string_view c) {
      return absl::EqualsIgnoreCase(c, "chunked");
    };
    // Chunked at most once (RFC 9112 7); when it is not the last coding the
    // body runs until the connection closes (6.3 rule 4).
    if (std::count_if(codings.begin(), codings.end(), is_chunked) > 1)
      return Malformed("chunked transfer coding applied twice");
    h.chunked_ = is_chunked(codings.back());
  }

  for (const auto& [name, value] : h.headers_) {
    if (!absl::EqualsIgnoreCase(name, "content-length")) continue;
    h.has_content_length_ = true;
    if (h.has_transfer_encoding_) continue;
    // A list of identical values ("10, 10") is one value (RFC 9110 8.6).
    for (absl::string_view member : absl::StrSplit(value, ',')) {
      // 1*DIGIT, nothing else (no sign, no space inside); leading zeros do
      // not count towards the 19 digits that can fit in int64.
      member = absl::StripAsciiWhitespace(member);
      bool valid = !member.empty() && std::all_of(member.begin(), member.end(),
                                                  absl::ascii_isdigit);
      while (member.size() > 1 && member.front() == '0')
        member.remove_prefix(1);
      uint64_t length = 0;
      if (valid && member.size() <= 19) {
        for (char c : member) length = length * 10 + (c - '0');
        valid = length <= static_cast<uint64_t>(INT64_MAX);
      } else {
        valid = false;
      }
      if (!valid) {
        return FramingError(
            kInvalidContentLength,
            absl::StrCat("bad Content-Length '", value.substr(0, 40), "'"));
      }
      if (h.content_length_ >= 0 &&
          static_cast<uint64_t>(h.content_length_) != length) {
        return FramingError(
            kMultipleContentLength,
            absl::StrCat("conflicting Content-Length values (",
                         h.content_length_, " and ", length, ")"));
      }
      h.content_length_ = static_cast<int64_t>(length);
    }
  }
  return h;
}

int HttpResponseHeaders::NetErrorForParseFailure(const absl::Status& status) {
  auto payload = status.GetPayload(kNetErrorPayload);
  int error;
  if (payload && absl::SimpleAtoi(std::string(*payload), &error) &&
      (error == kInvalidContentLength || error == kMultipleContentLength)) {
    return error;
  }
  return ERR_INVALID_HTTP_RESPONSE;
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
