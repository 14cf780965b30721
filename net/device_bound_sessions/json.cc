#include "net/device_bound_sessions/json.h"

#include <openssl/bytestring.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/base/json_escape.h"

namespace net {
namespace {

// A number's text is at most this long (doubles need far fewer digits; a
// longer one is an attempt to make strtod work).
constexpr size_t kMaxNumberText = 64;

class Parser {
 public:
  Parser(absl::string_view text, const JsonLimits& limits)
      : total_(text.size()), limits_(limits) {
    CBS_init(&in_, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  }

  absl::StatusOr<JsonValue> ParseDocument() {
    if (total_ > limits_.max_bytes)
      return absl::InvalidArgumentError(
          absl::StrCat("JSON: ", total_, " bytes, more than the limit of ",
                       limits_.max_bytes));
    SkipWhitespace();
    JsonValue value;
    absl::Status status = ParseValue(0, &value);
    if (!status.ok()) return status;
    SkipWhitespace();
    if (CBS_len(&in_) != 0) return Error("trailing characters after the value");
    return value;
  }

 private:
  size_t offset() const { return total_ - CBS_len(&in_); }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON: ", what, " at byte ", offset()));
  }

  // Peek returns the next byte without consuming it, or -1 at the end.
  int Peek() const {
    if (CBS_len(&in_) == 0) return -1;
    return CBS_data(&in_)[0];
  }

  bool Consume(uint8_t expected) {
    if (Peek() != expected) return false;
    CBS_skip(&in_, 1);
    return true;
  }

  void SkipWhitespace() {
    for (;;) {
      int c = Peek();
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      CBS_skip(&in_, 1);
    }
  }

  // ConsumeLiteral consumes |word| if the input starts with it.
  bool ConsumeLiteral(absl::string_view word) {
    if (CBS_len(&in_) < word.size()) return false;
    absl::string_view head(reinterpret_cast<const char*>(CBS_data(&in_)),
                           word.size());
    if (head != word) return false;
    CBS_skip(&in_, word.size());
    return true;
  }

  absl::Status CountValue() {
    if (++values_ > limits_.max_values)
      return Error(absl::StrCat("more than ", limits_.max_values, " values"));
    return absl::OkStatus();
  }

  absl::Status ParseValue(int depth, JsonValue* out) {
    absl::Status counted = CountValue();
    if (!counted.ok()) return counted;
    switch (Peek()) {
      case '{':
        return ParseObject(depth, out);
      case '[':
        return ParseArray(depth, out);
      case '"': {
        std::string s;
        absl::Status status = ParseString(&s);
        if (status.ok()) *out = JsonValue::String(std::move(s));
        return status;
      }
      case 't':
        if (!ConsumeLiteral("true")) return Error("invalid literal");
        *out = JsonValue::Bool(true);
        return absl::OkStatus();
      case 'f':
        if (!ConsumeLiteral("false")) return Error("invalid literal");
        *out = JsonValue::Bool(false);
        return absl::OkStatus();
      case 'n':
        if (!ConsumeLiteral("null")) return Error("invalid literal");
        *out = JsonValue();
        return absl::OkStatus();
      case -1:
        return Error("unexpected end of input");
      default:
        if (Peek() == '-' || (Peek() >= '0' && Peek() <= '9'))
          return ParseNumber(out);
        return Error("unexpected character");
    }
  }

  absl::Status EnterContainer(int depth) const {
    // depth counts the containers already open around this one.
    if (depth + 1 > limits_.max_depth)
      return Error(
          absl::StrCat("nesting deeper than ", limits_.max_depth, " levels"));
    return absl::OkStatus();
  }

  absl::Status ParseObject(int depth, JsonValue* out) {
    absl::Status status = EnterContainer(depth);
    if (!status.ok()) return status;
    CBS_skip(&in_, 1);  // '{'
    JsonValue::Members members;
    SkipWhitespace();
    if (Consume('}')) {
      *out = JsonValue::Object(std::move(members));
      return absl::OkStatus();
    }
    // The keys seen: a set, so that an object of max_values keys costs
    // linear time, not quadratic.
    absl::flat_hash_set<std::string> keys;
    for (;;) {
      SkipWhitespace();
      if (Peek() != '"') return Error("expected a string key");
      const size_t key_offset = offset();
      std::string key;
      status = ParseString(&key);
      if (!status.ok()) return status;
      if (!keys.insert(key).second) {
        return absl::InvalidArgumentError(absl::StrCat(
            "JSON: duplicate key ", JsonQuote(key), " at byte ", key_offset));
      }
      SkipWhitespace();
      if (!Consume(':')) return Error("expected ':'");
      SkipWhitespace();
      JsonValue value;
      status = ParseValue(depth + 1, &value);
      if (!status.ok()) return status;
      members.emplace_back(std::move(key), std::move(value));
      SkipWhitespace();
      if (Consume('}')) break;
      if (!Consume(',')) return Error("expected ',' or '}'");
    }
    *out = JsonValue::Object(std::move(members));
    return absl::OkStatus();
  }

  absl::Status ParseArray(int depth, JsonValue* out) {
    absl::Status status = EnterContainer(depth);
    if (!status.ok()) return status;
    CBS_skip(&in_, 1);  // '['
    std::vector<JsonValue> items;
    SkipWhitespace();
    if (Consume(']')) {
      *out = JsonValue::Array(std::move(items));
      return absl::OkStatus();
    }
    for (;;) {
      SkipWhitespace();
      JsonValue value;
      status = ParseValue(depth + 1, &value);
      if (!status.ok()) return status;
      items.push_back(std::move(value));
      SkipWhitespace();
      if (Consume(']')) break;
      if (!Consume(',')) return Error("expected ',' or ']'");
    }
    *out = JsonValue::Array(std::move(items));
    return absl::OkStatus();
  }

  // RFC 8259 section 6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  absl::Status ParseNumber(JsonValue* out) {
    CBS start = in_;
    Consume('-');
    auto digits = [this]() {
      size_t n = 0;
      while (Peek() >= '0' && Peek() <= '9') {
        CBS_skip(&in_, 1);
        ++n;
      }
      return n;
    };
    if (Consume('0')) {
      if (Peek() >= '0' && Peek() <= '9') return Error("leading zero");
    } else if (digits() == 0) {
      return Error("expected a digit");
    }
    if (Consume('.') && digits() == 0)
      return Error("expected a digit after '.'");
    if (Consume('e') || Consume('E')) {
      if (!Consume('+')) Consume('-');
      if (digits() == 0) return Error("expected a digit in the exponent");
    }
    const size_t length = CBS_len(&start) - CBS_len(&in_);
    if (length > kMaxNumberText)
      return Error(
          absl::StrCat("a number longer than ", kMaxNumberText, " characters"));
    absl::string_view text(reinterpret_cast<const char*>(CBS_data(&start)),
                           length);
    double value = 0;
    if (!absl::SimpleAtod(text, &value) || !std::isfinite(value))
      return Error("number out of range");
    *out = JsonValue::Number(value);
    return absl::OkStatus();
  }

  // Reads 4 hex digits of a \u escape.
  bool ReadHex4(uint32_t* out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      uint8_t c;
      if (!CBS_get_u8(&in_, &c)) return false;
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        v |= c - 'A' + 10;
      } else {
        return false;
      }
    }
    *out = v;
    return true;
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  // Consumes one UTF-8 encoded character whose first byte |lead| (>= 0x80)
  // was already read, rejecting overlong forms, surrogates and code points
  // above U+10FFFF (RFC 3629).
  bool ConsumeUtf8Tail(uint8_t lead, std::string* out) {
    int extra;
    uint32_t cp;
    uint32_t min;
    if ((lead & 0xe0) == 0xc0) {
      extra = 1;
      cp = lead & 0x1f;
      min = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
      extra = 2;
      cp = lead & 0x0f;
      min = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
      extra = 3;
      cp = lead & 0x07;
      min = 0x10000;
    } else {
      return false;
    }
    out->push_back(static_cast<char>(lead));
    for (int i = 0; i < extra; ++i) {
      uint8_t c;
      if (!CBS_get_u8(&in_, &c) || (c & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
      out->push_back(static_cast<char>(c));
    }
    return cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  }

  absl::Status ParseString(std::string* out) {
    CBS_skip(&in_, 1);  // '"'
    out->clear();
    for (;;) {
      if (out->size() > limits_.max_string_bytes)
        return Error(absl::StrCat("a string longer than ",
                                  limits_.max_string_bytes, " bytes"));
      uint8_t c;
      if (!CBS_get_u8(&in_, &c)) return Error("unterminated string");
      if (c == '"') break;
      if (c < 0x20) return Error("control character in a string");
      if (c >= 0x80) {
        if (!ConsumeUtf8Tail(c, out)) return Error("invalid UTF-8");
        continue;
      }
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      uint8_t e;
      if (!CBS_get_u8(&in_, &e)) return Error("unterminated string");
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(static_cast<char>(e));
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!ReadHex4(&cp)) return Error("invalid \\u escape");
          if (cp >= 0xdc00 && cp <= 0xdfff)
            return Error("unpaired low surrogate");
          if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t low;
            if (!ConsumeLiteral("\\u") || !ReadHex4(&low) || low < 0xdc00 ||
                low > 0xdfff)
              return Error("unpaired high surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Error("invalid escape");
      }
    }
    if (out->size() > limits_.max_string_bytes)
      return Error(absl::StrCat("a string longer than ",
                                limits_.max_string_bytes, " bytes"));
    return absl::OkStatus();
  }

  CBS in_;
  const size_t total_;
  const JsonLimits& limits_;
  size_t values_ = 0;
};

}  // namespace

JsonValue JsonValue::Bool(bool b) {
  JsonValue v;
  v.type_ = Type::kBool;
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::Number(double n) {
  JsonValue v;
  v.type_ = Type::kNumber;
  v.number_ = n;
  return v;
}

JsonValue JsonValue::String(std::string s) {
  JsonValue v;
  v.type_ = Type::kString;
  v.string_ = std::move(s);
  return v;
}

JsonValue JsonValue::Array(std::vector<JsonValue> items) {
  JsonValue v;
  v.type_ = Type::kArray;
  v.items_ = std::move(items);
  return v;
}

JsonValue JsonValue::Object(Members members) {
  JsonValue v;
  v.type_ = Type::kObject;
  v.members_ = std::move(members);
  return v;
}

const JsonValue* JsonValue::Find(absl::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const auto& member : members_) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

bool JsonValue::operator==(const JsonValue& other) const {
  if (type_ != other.type_) return false;
  switch (type_) {
    case Type::kNull:
      return true;
    case Type::kBool:
      return bool_ == other.bool_;
    case Type::kNumber:
      return number_ == other.number_;
    case Type::kString:
      return string_ == other.string_;
    case Type::kArray:
      return items_ == other.items_;
    case Type::kObject:
      return members_ == other.members_;
  }
  return false;
}

std::string JsonValue::Serialize() const {
  std::string out;
  SerializeTo(&out);
  return out;
}

void JsonValue::SerializeTo(std::string* out) const {
  switch (type_) {
    case Type::kNull:
      *out += "null";
      return;
    case Type::kBool:
      *out += bool_ ? "true" : "false";
      return;
    case Type::kNumber:
      // 2^53: every integer below it is exact in a double.
      if (std::trunc(number_) == number_ &&
          std::fabs(number_) < 9007199254740992.0) {
        absl::StrAppend(out, static_cast<int64_t>(number_));
      } else {
        absl::StrAppend(out, absl::StrFormat("%.17g", number_));
      }
      return;
    case Type::kString:
      *out += JsonQuote(string_);
      return;
    case Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) out->push_back(',');
        items_[i].SerializeTo(out);
      }
      out->push_back(']');
      return;
    case Type::kObject:
      out->push_back('{');
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i) out->push_back(',');
        *out += JsonQuote(members_[i].first);
        out->push_back(':');
        members_[i].second.SerializeTo(out);
      }
      out->push_back('}');
      return;
  }
}

absl::StatusOr<JsonValue> ParseJson(absl::string_view text,
                                    const JsonLimits& limits) {
  return Parser(text, limits).ParseDocument();
}

std::string JsonQuote(absl::string_view s) {
  return absl::StrCat("\"", JsonEscape(s), "\"");
}

}  // namespace net
