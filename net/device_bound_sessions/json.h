// JsonValue and ParseJson: a small, strict, bounded JSON (RFC 8259) reader
// and writer for the documents Device Bound Session Credentials exchange —
// the server's session instructions and the proof JWT's header and payload.
// The project had no JSON library in the client (protobuf's JSON mapping
// accepts camelCase aliases and duplicate keys, which a strict parse of the
// DBSC formats must not), so this one is here, fuzzed by json_fuzzer.cc.
//
// Strict: exactly one value with optional whitespace around it; no comments,
// trailing commas, single quotes, NaN or Infinity, leading zeros or "+";
// strings must be valid UTF-8 with no raw control characters, escapes are
// the nine of RFC 8259 section 7 and \u escapes must pair surrogates; a key
// may appear once per object. Bounded: the input size, the nesting depth,
// the length of each string and the number of values are capped by
// JsonLimits, so a hostile server cannot make the parser use more than a
// small multiple of the input in memory or recurse deeply.
//
// Pure functions and plain values, no I/O; thread-safe.

#ifndef NET_DEVICE_BOUND_SESSIONS_JSON_H_
#define NET_DEVICE_BOUND_SESSIONS_JSON_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// JsonValue is one parsed JSON value. Objects keep their members in document
// order (keys are unique: ParseJson refuses duplicates).
class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Members = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default;  // null
  static JsonValue Bool(bool b);
  static JsonValue Number(double n);
  static JsonValue String(std::string s);
  static JsonValue Array(std::vector<JsonValue> items);
  static JsonValue Object(Members members);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  // The accessors return the value of the matching type, and a default
  // (false, 0, empty) for any other.
  bool bool_value() const { return type_ == Type::kBool && bool_; }
  double number_value() const { return type_ == Type::kNumber ? number_ : 0; }
  const std::string& string_value() const { return string_; }
  const std::vector<JsonValue>& array_items() const { return items_; }
  const Members& object_members() const { return members_; }

  // Find returns the member |key| of an object, or null if this is no
  // object or has no such member.
  const JsonValue* Find(absl::string_view key) const;

  // Serialize returns compact JSON text that ParseJson reads back as an
  // equal value. Numbers that are integers of magnitude below 2^53 print
  // without a fraction; others with 17 significant digits.
  std::string Serialize() const;

  bool operator==(const JsonValue& other) const;
  bool operator!=(const JsonValue& other) const { return !(*this == other); }

 private:
  void SerializeTo(std::string* out) const;

  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  Members members_;
};

// JsonLimits bounds what ParseJson accepts. The defaults fit every DBSC
// document with room to spare (a session instruction is a few hundred
// bytes and four levels deep).
struct JsonLimits {
  size_t max_bytes = 64 * 1024;
  int max_depth = 16;
  size_t max_string_bytes = 8 * 1024;  // decoded, per string or key
  size_t max_values = 4096;            // every value, keys not counted
};

// ParseJson parses |text| as one JSON value. InvalidArgument naming the
// problem and its byte offset ("JSON: duplicate key \"a\" at byte 9") for
// anything RFC 8259 does not allow or the limits refuse.
[[nodiscard]] absl::StatusOr<JsonValue> ParseJson(
    absl::string_view text, const JsonLimits& limits = JsonLimits());

// JsonQuote returns |s| as a JSON string literal, quotes included: '"',
// '\\' and control characters escaped, other bytes as they are (so valid
// UTF-8 in gives valid JSON out).
std::string JsonQuote(absl::string_view s);

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_JSON_H_
