// Structured Field Values for HTTP (RFC 9651), the subset the DBSC headers
// use: Lists of Items and Inner Lists with Parameters, and the bare item
// types of RFC 8941 (Integer, Decimal, String, Token, Byte Sequence,
// Boolean). RFC 9651's Date and Display String are refused with a named
// error (no DBSC header carries them). Secure-Session-Registration and
// Secure-Session-Challenge are Lists; Secure-Session-Response and
// Sec-Secure-Session-Id are Strings (draft sections "DBSC Formats").
//
// Parsing follows RFC 9651 section 4.2 exactly, failing the whole field on
// any error as it requires. Fuzzed by structured_headers_fuzzer.cc. Pure
// functions and plain values; thread-safe.

#ifndef NET_DEVICE_BOUND_SESSIONS_STRUCTURED_HEADERS_H_
#define NET_DEVICE_BOUND_SESSIONS_STRUCTURED_HEADERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

struct SfBareItem {
  enum class Type {
    kInteger,
    kDecimal,
    kString,
    kToken,
    kByteSequence,
    kBoolean
  };
  Type type = Type::kBoolean;
  int64_t integer = 0;
  double decimal = 0;
  // The String's or Token's characters, or the Byte Sequence's bytes.
  std::string string;
  bool boolean = true;

  bool is_string() const { return type == Type::kString; }
  bool is_token() const { return type == Type::kToken; }
  bool operator==(const SfBareItem& o) const;
};

// Parameters keep their order; a key appears once (a repeated key's last
// value wins, RFC 9651 section 4.2.3.2).
using SfParameters = std::vector<std::pair<std::string, SfBareItem>>;

// FindParameter returns |key|'s value, or null.
const SfBareItem* FindParameter(const SfParameters& params,
                                absl::string_view key);

struct SfItem {
  SfBareItem bare;
  SfParameters params;
};

// A List member: an Item, or an Inner List of Items with Parameters of its
// own.
struct SfListMember {
  bool is_inner_list = false;
  SfItem item;                // when !is_inner_list
  std::vector<SfItem> inner;  // when is_inner_list
  SfParameters params;        // the Inner List's; an Item's are item.params
};

// kMaxSfMembers bounds a parsed field (members plus inner-list items).
inline constexpr size_t kMaxSfMembers = 1024;

// ParseSfList parses a field value as a List (RFC 9651 section 4.2.1); an
// empty value is an empty List. InvalidArgument naming the problem and its
// offset otherwise.
[[nodiscard]] absl::StatusOr<std::vector<SfListMember>> ParseSfList(
    absl::string_view value);

// ParseSfItem parses a field value as an Item (section 4.2.3).
[[nodiscard]] absl::StatusOr<SfItem> ParseSfItem(absl::string_view value);

// CombineFieldLines joins the values of a field's lines with ", ", as
// RFC 9110 section 5.3 and RFC 9651 section 4.2 prescribe before parsing.
std::string CombineFieldLines(const std::vector<std::string>& lines);

// SerializeSfString returns |s| as a String ("..." with '"' and '\'
// escaped), or InvalidArgument if it holds a byte outside printable ASCII
// (0x20-0x7e), which a String cannot carry.
[[nodiscard]] absl::StatusOr<std::string> SerializeSfString(
    absl::string_view s);

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_STRUCTURED_HEADERS_H_
