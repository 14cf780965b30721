#include "prefetch/prefetch_cache.h"

#include <openssl/bytestring.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"

namespace net {
namespace {

// In net/base/framed_file's frame, as every profile file is.
constexpr uint32_t kMagic = 0x32434650;  // "PFC2" little-endian
constexpr uint32_t kVersion = 1;
// The unframed file of the previous version began with these bytes.
constexpr char kUnframedMagic[] = "PFC1";
constexpr char kRemedy[] = "delete it to start an empty cache";

}  // namespace

std::string PrefetchCache::Key(const std::string& host, uint16_t port) {
  return absl::StrCat(host, ":", port);
}

void PrefetchCache::Put(const FetchedBundle& fetched, absl::Time now) {
  Entry entry;
  entry.fetched = fetched;
  entry.fetched_at = now;
  entry.expires = std::min(fetched.bundle.not_after, now + max_age_);
  entries_[Key(fetched.bundle.host, fetched.bundle.port)] = std::move(entry);
  while (entries_.size() > kMaxEntries) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.fetched_at < oldest->second.fetched_at) oldest = it;
    }
    entries_.erase(oldest);
  }
}

const PrefetchCache::Entry* PrefetchCache::Lookup(const std::string& host,
                                                  uint16_t port,
                                                  absl::Time now) const {
  auto it = entries_.find(Key(host, port));
  if (it == entries_.end() || it->second.expires <= now) return nullptr;
  return &it->second;
}

void PrefetchCache::Remove(const std::string& host, uint16_t port) {
  entries_.erase(Key(host, port));
}

// Payload (in the profile-file frame): u32 count, then per entry: u8 source,
// u64 fetched_at (Unix seconds), u24-prefixed bundle file, u24-prefixed via,
// u24-prefixed ServerHello template, u32 carrier bytes.
std::string PrefetchCache::Serialize() const {
  bssl::ScopedCBB entries;
  CBB_init(entries.get(), 4096);
  uint32_t count = 0;
  for (const auto& [key, entry] : entries_) {
    absl::StatusOr<std::string> file =
        EncodeBundleFile(entry.fetched.bundle, /*compress=*/true);
    if (!file.ok()) continue;  // cannot happen for a bundle that decoded
    ++count;
    CBB field;
    CBB_add_u8(entries.get(), static_cast<uint8_t>(entry.fetched.source));
    CBB_add_u64(entries.get(),
                static_cast<uint64_t>(absl::ToUnixSeconds(entry.fetched_at)));
    const std::string* fields[] = {&*file, &entry.fetched.via,
                                   &entry.fetched.server_hello};
    for (const std::string* bytes : fields) {
      CBB_add_u24_length_prefixed(entries.get(), &field);
      CBB_add_bytes(&field, reinterpret_cast<const uint8_t*>(bytes->data()),
                    bytes->size());
    }
    CBB_add_u32(entries.get(), static_cast<uint32_t>(entry.fetched.bytes));
  }
  // The count is of the entries written, so it always matches them.
  bssl::ScopedCBB payload;
  CBB_init(payload.get(), 4 + CBB_len(entries.get()));
  CBB_add_u32(payload.get(), count);
  CBB_add_bytes(payload.get(), CBB_data(entries.get()), CBB_len(entries.get()));
  return FrameFileContents(
      kMagic, kVersion,
      absl::string_view(reinterpret_cast<const char*>(CBB_data(payload.get())),
                        CBB_len(payload.get())));
}

absl::StatusOr<PrefetchCache> PrefetchCache::Parse(const std::string& bytes,
                                                   absl::Time now,
                                                   absl::Duration max_age,
                                                   const std::string& name) {
  if (absl::StartsWith(bytes, kUnframedMagic)) {
    return CorruptFileError(
        name, "unframed format of an older version, no longer read", kRemedy);
  }
  absl::StatusOr<std::string> payload =
      UnframeFileContents(bytes, kMagic, kVersion);
  if (!payload.ok())
    return CorruptFileError(name, payload.status().message(), kRemedy);
  auto corrupt = [&name](absl::string_view why) {
    return CorruptFileError(name, why, kRemedy);
  };
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(payload->data()),
           payload->size());
  uint32_t count;
  if (!CBS_get_u32(&cbs, &count)) return corrupt("no entry count");
  if (count > kMaxEntries) return corrupt("too many entries");
  PrefetchCache cache(max_age);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t source;
    uint64_t fetched_at;
    CBS file, via, hello;
    uint32_t carrier_bytes;
    if (!CBS_get_u8(&cbs, &source) || !CBS_get_u64(&cbs, &fetched_at) ||
        !CBS_get_u24_length_prefixed(&cbs, &file) ||
        !CBS_get_u24_length_prefixed(&cbs, &via) ||
        !CBS_get_u24_length_prefixed(&cbs, &hello) ||
        !CBS_get_u32(&cbs, &carrier_bytes))
      return corrupt(absl::StrCat("entry ", i, " is truncated"));
    if (source > static_cast<uint8_t>(BundleSourceType::kTruncated))
      return corrupt(absl::StrCat("entry ", i, " has an unknown source"));
    absl::StatusOr<CertBundle> bundle = DecodeBundleFile(std::string(
        reinterpret_cast<const char*>(CBS_data(&file)), CBS_len(&file)));
    if (!bundle.ok())
      return corrupt(
          absl::StrCat("entry ", i, ": ", bundle.status().message()));
    Entry entry;
    entry.fetched.bundle = *std::move(bundle);
    entry.fetched.source = static_cast<BundleSourceType>(source);
    entry.fetched.via.assign(reinterpret_cast<const char*>(CBS_data(&via)),
                             CBS_len(&via));
    entry.fetched.server_hello.assign(
        reinterpret_cast<const char*>(CBS_data(&hello)), CBS_len(&hello));
    entry.fetched.bytes = carrier_bytes;
    entry.fetched_at = absl::FromUnixSeconds(static_cast<int64_t>(fetched_at));
    entry.expires =
        std::min(entry.fetched.bundle.not_after, entry.fetched_at + max_age);
    if (entry.expires <= now) continue;
    cache.entries_[Key(entry.fetched.bundle.host, entry.fetched.bundle.port)] =
        std::move(entry);
  }
  if (CBS_len(&cbs) != 0) return corrupt("trailing bytes");
  return cache;
}

absl::StatusOr<PrefetchCache> PrefetchCache::Load(const std::string& path,
                                                  absl::Time now,
                                                  absl::Duration max_age) {
  if (path.empty()) return PrefetchCache(max_age);
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (absl::IsNotFound(bytes.status())) return PrefetchCache(max_age);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, now, max_age, path);
}

absl::Status PrefetchCache::Save(const std::string& path) const {
  if (path.empty()) return absl::OkStatus();
  return WriteFileAtomically(path, Serialize());
}

}  // namespace net
