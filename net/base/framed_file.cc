#include "net/base/framed_file.h"

#include <openssl/sha.h>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

// Tags of the frame's fields: (field number << 3) | wire type.
constexpr uint8_t kMagicTag = (1 << 3) | 5;    // fixed32
constexpr uint8_t kVersionTag = (2 << 3) | 0;  // varint
constexpr uint8_t kPayloadTag = (3 << 3) | 2;  // length-delimited
constexpr uint8_t kDigestTag = (4 << 3) | 2;   // length-delimited

std::string Sha256(absl::string_view data) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(data.data()), data.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

void AppendVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// ReadVarint consumes a shortest-form varint from |in|; false if |in| ends
// inside it, it is longer than 64 bits, or it is not in shortest form.
bool ReadVarint(absl::string_view* in, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in->empty()) return false;
    uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return byte != 0 || shift == 0;
  }
  return false;
}

bool ConsumeTag(absl::string_view* in, uint8_t tag) {
  if (in->empty() || static_cast<uint8_t>(in->front()) != tag) return false;
  in->remove_prefix(1);
  return true;
}

}  // namespace

std::string FrameFileContents(uint32_t magic, uint32_t version,
                              absl::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 64);
  out.push_back(static_cast<char>(kMagicTag));
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((magic >> (8 * i)) & 0xff));
  if (version != 0) {
    out.push_back(static_cast<char>(kVersionTag));
    AppendVarint(&out, version);
  }
  if (!payload.empty()) {
    out.push_back(static_cast<char>(kPayloadTag));
    AppendVarint(&out, payload.size());
    out.append(payload.data(), payload.size());
  }
  out.push_back(static_cast<char>(kDigestTag));
  AppendVarint(&out, SHA256_DIGEST_LENGTH);
  out += Sha256(payload);
  return out;
}

absl::StatusOr<std::string> UnframeFileContents(absl::string_view bytes,
                                                uint32_t magic,
                                                uint32_t version) {
  auto corrupt = [](absl::string_view why) { return absl::DataLossError(why); };
  if (bytes.empty()) return corrupt("empty file");
  absl::string_view in = bytes;
  if (!ConsumeTag(&in, kMagicTag)) return corrupt("bad magic");
  if (in.size() < 4) return corrupt("truncated");
  uint32_t got_magic = 0;
  for (int i = 0; i < 4; ++i)
    got_magic |= static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  in.remove_prefix(4);
  if (got_magic != magic) return corrupt("bad magic");
  uint64_t got_version = 0;
  if (ConsumeTag(&in, kVersionTag) && !ReadVarint(&in, &got_version))
    return corrupt(in.empty() ? "truncated" : "bad version field");
  if (got_version != version)
    return corrupt(absl::StrCat("unknown version ", got_version));
  absl::string_view payload;
  if (ConsumeTag(&in, kPayloadTag)) {
    uint64_t length = 0;
    if (!ReadVarint(&in, &length))
      return corrupt(in.empty() ? "truncated" : "bad payload length");
    if (length == 0) return corrupt("frame is not in canonical form");
    if (length > in.size()) return corrupt("truncated");
    payload = in.substr(0, length);
    in.remove_prefix(length);
  }
  if (in.empty()) return corrupt("truncated");
  if (!ConsumeTag(&in, kDigestTag)) return corrupt("unexpected field");
  uint64_t digest_length = 0;
  if (!ReadVarint(&in, &digest_length)) return corrupt("truncated");
  if (digest_length != SHA256_DIGEST_LENGTH)
    return corrupt("bad checksum length");
  if (in.size() < SHA256_DIGEST_LENGTH) return corrupt("truncated");
  absl::string_view digest = in.substr(0, SHA256_DIGEST_LENGTH);
  in.remove_prefix(SHA256_DIGEST_LENGTH);
  if (!in.empty()) return corrupt("bytes after the frame");
  if (digest != Sha256(payload)) return corrupt("checksum mismatch");
  return std::string(payload);
}

absl::Status CorruptFileError(absl::string_view name, absl::string_view why,
                              absl::string_view remedy) {
  return absl::DataLossError(absl::StrCat(
      name, " is corrupt (", why, "); it was left untouched: ", remedy));
}

}  // namespace net
