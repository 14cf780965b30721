#include "net/device_bound_sessions/structured_headers.h"

#include <openssl/bytestring.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/http/http_field_grammar.h"

namespace net {
namespace {

bool IsLcAlpha(int c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(int c) { return c >= '0' && c <= '9'; }
bool IsAlpha(int c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c));
}

bool IsBase64Char(int c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' ||
         c == '/' || c == '=';
}

class SfParser {
 public:
  explicit SfParser(absl::string_view value) : total_(value.size()) {
    CBS_init(&in_, reinterpret_cast<const uint8_t*>(value.data()),
             value.size());
  }

  absl::StatusOr<std::vector<SfListMember>> ParseList() {
    SkipSp();
    std::vector<SfListMember> members;
    while (CBS_len(&in_) != 0) {
      SfListMember member;
      absl::Status status = ParseItemOrInnerList(&member);
      if (!status.ok()) return status;
      members.push_back(std::move(member));
      SkipOws();
      if (CBS_len(&in_) == 0) break;
      if (!Consume(',')) return Error("expected ',' between list members");
      SkipOws();
      if (CBS_len(&in_) == 0) return Error("trailing ',' in a list");
    }
    return members;
  }

  absl::StatusOr<SfItem> ParseTopItem() {
    SkipSp();
    SfItem item;
    absl::Status status = ParseItem(&item);
    if (!status.ok()) return status;
    SkipSp();
    if (CBS_len(&in_) != 0) return Error("trailing characters after the item");
    return item;
  }

 private:
  size_t offset() const { return total_ - CBS_len(&in_); }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("structured field: ", what, " at offset ", offset()));
  }
  int Peek() const {
    if (CBS_len(&in_) == 0) return -1;
    return CBS_data(&in_)[0];
  }
  bool Consume(uint8_t c) {
    if (Peek() != c) return false;
    CBS_skip(&in_, 1);
    return true;
  }
  void SkipSp() {
    while (Peek() == ' ') CBS_skip(&in_, 1);
  }
  void SkipOws() {
    while (Peek() == ' ' || Peek() == '\t') CBS_skip(&in_, 1);
  }
  absl::Status Count() {
    if (++count_ > kMaxSfMembers)
      return Error(absl::StrCat("more than ", kMaxSfMembers, " members"));
    return absl::OkStatus();
  }

  absl::Status ParseItemOrInnerList(SfListMember* out) {
    absl::Status status = Count();
    if (!status.ok()) return status;
    if (Peek() != '(') return ParseItem(&out->item);
    out->is_inner_list = true;
    CBS_skip(&in_, 1);
    for (;;) {
      SkipSp();
      if (Consume(')')) return ParseParameters(&out->params);
      status = Count();
      if (!status.ok()) return status;
      SfItem item;
      status = ParseItem(&item);
      if (!status.ok()) return status;
      out->inner.push_back(std::move(item));
      if (Peek() != ' ' && Peek() != ')')
        return Error("expected ' ' or ')' in an inner list");
    }
  }

  absl::Status ParseItem(SfItem* out) {
    absl::Status status = ParseBareItem(&out->bare);
    if (!status.ok()) return status;
    return ParseParameters(&out->params);
  }

  absl::Status ParseParameters(SfParameters* out) {
    while (Consume(';')) {
      SkipSp();
      std::string key;
      absl::Status status = ParseKey(&key);
      if (!status.ok()) return status;
      SfBareItem value;  // Boolean true unless given
      if (Consume('=')) {
        status = ParseBareItem(&value);
        if (!status.ok()) return status;
      }
      bool replaced = false;
      for (auto& param : *out) {
        if (param.first == key) {
          param.second = value;
          replaced = true;
        }
      }
      if (!replaced) {
        status = Count();
        if (!status.ok()) return status;
        out->emplace_back(std::move(key), std::move(value));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ParseKey(std::string* out) {
    if (!IsLcAlpha(Peek()) && Peek() != '*')
      return Error("a key must start with a lower-case letter or '*'");
    for (;;) {
      int c = Peek();
      if (!(IsLcAlpha(c) || IsDigit(c) || c == '_' || c == '-' || c == '.' ||
            c == '*'))
        break;
      out->push_back(static_cast<char>(c));
      CBS_skip(&in_, 1);
    }
    return absl::OkStatus();
  }

  absl::Status ParseBareItem(SfBareItem* out) {
    int c = Peek();
    if (c == '-' || IsDigit(c)) return ParseNumber(out);
    if (c == '"') return ParseString(out);
    if (c == ':') return ParseByteSequence(out);
    if (c == '?') return ParseBoolean(out);
    if (IsAlpha(c) || c == '*') return ParseToken(out);
    if (c == '@' || c == '%')
      return Error("Dates and Display Strings are not supported here");
    return Error("expected an item");
  }

  // RFC 9651 section 4.2.4.
  absl::Status ParseNumber(SfBareItem* out) {
    std::string text;
    bool decimal = false;
    if (Consume('-')) text.push_back('-');
    if (!IsDigit(Peek())) return Error("expected a digit");
    size_t digits_before_point = 0;
    for (;;) {
      int c = Peek();
      if (IsDigit(c)) {
        text.push_back(static_cast<char>(c));
        CBS_skip(&in_, 1);
        if (!decimal) ++digits_before_point;
      } else if (c == '.' && !decimal) {
        if (digits_before_point > 12) return Error("decimal too long");
        decimal = true;
        text.push_back('.');
        CBS_skip(&in_, 1);
      } else {
        break;
      }
      size_t length = text.size() - (text[0] == '-' ? 1 : 0);
      if (!decimal && length > 15) return Error("integer too long");
      if (decimal && length > 16) return Error("decimal too long");
    }
    if (!decimal) {
      out->type = SfBareItem::Type::kInteger;
      if (!absl::SimpleAtoi(text, &out->integer)) return Error("bad integer");
      return absl::OkStatus();
    }
    if (text.back() == '.') return Error("decimal ends in '.'");
    size_t fraction = text.size() - text.find('.') - 1;
    if (fraction > 3) return Error("more than 3 fractional digits");
    out->type = SfBareItem::Type::kDecimal;
    if (!absl::SimpleAtod(text, &out->decimal)) return Error("bad decimal");
    return absl::OkStatus();
  }

  // RFC 9651 section 4.2.5.
  absl::Status ParseString(SfBareItem* out) {
    CBS_skip(&in_, 1);
    out->type = SfBareItem::Type::kString;
    for (;;) {
      uint8_t c;
      if (!CBS_get_u8(&in_, &c)) return Error("unterminated string");
      if (c == '\\') {
        uint8_t next;
        if (!CBS_get_u8(&in_, &next)) return Error("unterminated string");
        if (next != '"' && next != '\\') return Error("invalid escape");
        out->string.push_back(static_cast<char>(next));
      } else if (c == '"') {
        return absl::OkStatus();
      } else if (c < 0x20 || c > 0x7e) {
        return Error("a string holds printable ASCII only");
      } else {
        out->string.push_back(static_cast<char>(c));
      }
    }
  }

  // RFC 9651 section 4.2.6.
  absl::Status ParseToken(SfBareItem* out) {
    out->type = SfBareItem::Type::kToken;
    for (;;) {
      int c = Peek();
      if (!((c >= 0 && IsTokenChar(static_cast<char>(c))) || c == ':' ||
            c == '/'))
        break;
      out->string.push_back(static_cast<char>(c));
      CBS_skip(&in_, 1);
    }
    return absl::OkStatus();
  }

  // RFC 9651 section 4.2.7.
  absl::Status ParseByteSequence(SfBareItem* out) {
    CBS_skip(&in_, 1);
    std::string b64;
    for (;;) {
      uint8_t c;
      if (!CBS_get_u8(&in_, &c)) return Error("unterminated byte sequence");
      if (c == ':') break;
      if (!IsBase64Char(c)) return Error("invalid byte sequence character");
      b64.push_back(static_cast<char>(c));
    }
    out->type = SfBareItem::Type::kByteSequence;
    if (!absl::Base64Unescape(b64, &out->string))
      return Error("invalid base64 in a byte sequence");
    return absl::OkStatus();
  }

  // RFC 9651 section 4.2.8.
  absl::Status ParseBoolean(SfBareItem* out) {
    CBS_skip(&in_, 1);
    out->type = SfBareItem::Type::kBoolean;
    if (Consume('1')) {
      out->boolean = true;
    } else if (Consume('0')) {
      out->boolean = false;
    } else {
      return Error("a boolean is ?0 or ?1");
    }
    return absl::OkStatus();
  }

  CBS in_;
  const size_t total_;
  size_t count_ = 0;
};

}  // namespace

bool SfBareItem::operator==(const SfBareItem& o) const {
  if (type != o.type) return false;
  switch (type) {
    case Type::kInteger:
      return integer == o.integer;
    case Type::kDecimal:
      return decimal == o.decimal;
    case Type::kBoolean:
      return boolean == o.boolean;
    default:
      return string == o.string;
  }
}

const SfBareItem* FindParameter(const SfParameters& params,
                                absl::string_view key) {
  for (const auto& param : params) {
    if (param.first == key) return &param.second;
  }
  return nullptr;
}

absl::StatusOr<std::vector<SfListMember>> ParseSfList(absl::string_view value) {
  return SfParser(value).ParseList();
}

absl::StatusOr<SfItem> ParseSfItem(absl::string_view value) {
  return SfParser(value).ParseTopItem();
}

std::string CombineFieldLines(const std::vector<std::string>& lines) {
  return absl::StrJoin(lines, ", ");
}

absl::StatusOr<std::string> SerializeSfString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e)
      return absl::InvalidArgumentError(
          "a structured-field string holds printable ASCII only");
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace net
