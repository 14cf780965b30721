#include "net/spdy/spdy_header_block.h"

#include <openssl/bytestring.h>

#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace net {

namespace {

// Each pair takes at least 8 bytes (two u32 lengths).
constexpr size_t kMinPairBytes = 8;

absl::string_view View(const CBS& cbs) {
  return absl::string_view(reinterpret_cast<const char*>(CBS_data(&cbs)),
                           CBS_len(&cbs));
}

absl::Status CheckPair(absl::string_view name, absl::string_view value,
                       const SpdyLimits& limits) {
  if (name.size() > limits.max_header_name_length) {
    return absl::ResourceExhaustedError(
        absl::StrCat("header name of ", name.size(), " bytes (limit ",
                     limits.max_header_name_length, ")"));
  }
  if (value.size() > limits.max_header_value_length) {
    return absl::ResourceExhaustedError(
        absl::StrCat("header value of ", value.size(), " bytes (limit ",
                     limits.max_header_value_length, ")"));
  }
  if (!IsValidHeaderName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid header name \"", absl::CHexEscape(name.substr(0, 64)), "\""));
  }
  if (!IsValidHeaderValue(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid value for header \"", absl::CHexEscape(name),
                     "\" (empty part, or CR/LF)"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsValidHeaderName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c < 0x21 || c > 0x7e || (c >= 'A' && c <= 'Z')) return false;
  }
  return true;
}

bool IsValidHeaderValue(absl::string_view value) {
  if (value.empty()) return true;
  if (value.front() == '\0' || value.back() == '\0') return false;
  if (value.find(absl::string_view("\0\0", 2)) != absl::string_view::npos)
    return false;
  return value.find_first_of("\r\n") == absl::string_view::npos;
}

absl::StatusOr<std::string> SerializeHeaderBlock(const SpdyHeaderBlock& headers,
                                                 const SpdyLimits& limits) {
  if (headers.size() > limits.max_headers) {
    return absl::ResourceExhaustedError(absl::StrCat(
        headers.size(), " headers (limit ", limits.max_headers, ")"));
  }
  size_t total = 4;
  for (const auto& [name, value] : headers) {
    if (absl::Status s = CheckPair(name, value, limits); !s.ok()) return s;
    total += kMinPairBytes + name.size() + value.size();
  }
  if (total > limits.max_header_block_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("header block of ", total, " bytes (limit ",
                     limits.max_header_block_bytes, ")"));
  }
  bssl::ScopedCBB cbb;
  if (!CBB_init(cbb.get(), total) ||
      !CBB_add_u32(cbb.get(), static_cast<uint32_t>(headers.size()))) {
    return absl::InternalError("CBB failed");
  }
  for (const auto& [name, value] : headers) {
    if (!CBB_add_u32(cbb.get(), static_cast<uint32_t>(name.size())) ||
        !CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(name.data()),
                       name.size()) ||
        !CBB_add_u32(cbb.get(), static_cast<uint32_t>(value.size())) ||
        !CBB_add_bytes(cbb.get(),
                       reinterpret_cast<const uint8_t*>(value.data()),
                       value.size())) {
      return absl::InternalError("CBB failed");
    }
  }
  return std::string(reinterpret_cast<const char*>(CBB_data(cbb.get())),
                     CBB_len(cbb.get()));
}

absl::StatusOr<SpdyHeaderBlock> ParseHeaderBlock(absl::string_view block,
                                                 const SpdyLimits& limits) {
  if (block.size() > limits.max_header_block_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("header block of ", block.size(), " bytes (limit ",
                     limits.max_header_block_bytes, ")"));
  }
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(block.data()), block.size());
  uint32_t count;
  if (!CBS_get_u32(&cbs, &count))
    return absl::InvalidArgumentError("header block shorter than its count");
  if (count > limits.max_headers) {
    return absl::ResourceExhaustedError(
        absl::StrCat(count, " headers (limit ", limits.max_headers, ")"));
  }
  // A count the remaining bytes cannot hold is malformed; checking it first
  // keeps a lying count from driving the loop.
  if (uint64_t{count} * kMinPairBytes > CBS_len(&cbs)) {
    return absl::InvalidArgumentError(absl::StrCat("header block announces ",
                                                   count, " pairs in ",
                                                   CBS_len(&cbs), " bytes"));
  }
  SpdyHeaderBlock headers;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t name_len, value_len;
    CBS name, value;
    if (!CBS_get_u32(&cbs, &name_len))
      return absl::InvalidArgumentError("header block truncated");
    if (name_len > limits.max_header_name_length) {
      return absl::ResourceExhaustedError(
          absl::StrCat("header name of ", name_len, " bytes (limit ",
                       limits.max_header_name_length, ")"));
    }
    if (!CBS_get_bytes(&cbs, &name, name_len) ||
        !CBS_get_u32(&cbs, &value_len)) {
      return absl::InvalidArgumentError("header block truncated");
    }
    if (value_len > limits.max_header_value_length) {
      return absl::ResourceExhaustedError(
          absl::StrCat("header value of ", value_len, " bytes (limit ",
                       limits.max_header_value_length, ")"));
    }
    if (!CBS_get_bytes(&cbs, &value, value_len))
      return absl::InvalidArgumentError("header block truncated");
    if (absl::Status s = CheckPair(View(name), View(value), limits); !s.ok())
      return s;
    auto [it, inserted] =
        headers.emplace(std::string(View(name)), std::string(View(value)));
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          "duplicate header name \"", absl::CHexEscape(it->first), "\""));
    }
  }
  if (CBS_len(&cbs) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(CBS_len(&cbs), " bytes after the last header pair"));
  }
  return headers;
}

}  // namespace net
