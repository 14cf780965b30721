#include "prefetch/prefetch_cache.h"

#include <openssl/bytestring.h>
#include <openssl/mem.h>
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "net/base/file_util.h"

namespace net {
namespace {

constexpr char kMagic[] = "PFC1";
constexpr size_t kMagicSize = 4;

absl::Status Corrupt(const std::string& why) {
  return absl::DataLossError(absl::StrCat("prefetch cache is corrupt (", why,
                                          "); it was left untouched"));
}

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

// Layout: "PFC1", u32 count, then per entry: u8 source, u64 fetched_at
// (Unix seconds), u24-prefixed bundle file, u24-prefixed via, u24-prefixed
// ServerHello template, u32 carrier bytes; then SHA-256 of all of it.
std::string PrefetchCache::Serialize() const {
  bssl::ScopedCBB cbb;
  CBB_init(cbb.get(), 4096);
  CBB_add_bytes(cbb.get(), reinterpret_cast<const uint8_t*>(kMagic),
                kMagicSize);
  CBB_add_u32(cbb.get(), static_cast<uint32_t>(entries_.size()));
  for (const auto& [key, entry] : entries_) {
    absl::StatusOr<std::string> file =
        EncodeBundleFile(entry.fetched.bundle, /*compress=*/true);
    if (!file.ok()) continue;  // cannot happen for a bundle that decoded
    CBB field;
    CBB_add_u8(cbb.get(), static_cast<uint8_t>(entry.fetched.source));
    CBB_add_u64(cbb.get(),
                static_cast<uint64_t>(absl::ToUnixSeconds(entry.fetched_at)));
    const std::string* fields[] = {&*file, &entry.fetched.via,
                                   &entry.fetched.server_hello};
    for (const std::string* bytes : fields) {
      CBB_add_u24_length_prefixed(cbb.get(), &field);
      CBB_add_bytes(&field, reinterpret_cast<const uint8_t*>(bytes->data()),
                    bytes->size());
    }
    CBB_add_u32(cbb.get(), static_cast<uint32_t>(entry.fetched.bytes));
  }
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(CBB_data(cbb.get()), CBB_len(cbb.get()), digest);
  CBB_add_bytes(cbb.get(), digest, sizeof(digest));
  return std::string(reinterpret_cast<const char*>(CBB_data(cbb.get())),
                     CBB_len(cbb.get()));
}

absl::StatusOr<PrefetchCache> PrefetchCache::Parse(const std::string& bytes,
                                                   absl::Time now,
                                                   absl::Duration max_age) {
  if (bytes.size() < kMagicSize + 4 + SHA256_DIGEST_LENGTH)
    return Corrupt("too short");
  const size_t body = bytes.size() - SHA256_DIGEST_LENGTH;
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(bytes.data()), body, digest);
  if (CRYPTO_memcmp(digest, bytes.data() + body, sizeof(digest)) != 0)
    return Corrupt("checksum mismatch");
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(bytes.data()), body);
  CBS magic;
  uint32_t count;
  if (!CBS_get_bytes(&cbs, &magic, kMagicSize) ||
      !CBS_mem_equal(&magic, reinterpret_cast<const uint8_t*>(kMagic),
                     kMagicSize) ||
      !CBS_get_u32(&cbs, &count))
    return Corrupt("bad header");
  if (count > kMaxEntries) return Corrupt("too many entries");
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
      return Corrupt(absl::StrCat("entry ", i, " is truncated"));
    if (source > static_cast<uint8_t>(BundleSourceType::kTruncated))
      return Corrupt(absl::StrCat("entry ", i, " has an unknown source"));
    absl::StatusOr<CertBundle> bundle = DecodeBundleFile(std::string(
        reinterpret_cast<const char*>(CBS_data(&file)), CBS_len(&file)));
    if (!bundle.ok())
      return Corrupt(
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
  if (CBS_len(&cbs) != 0) return Corrupt("trailing bytes");
  return cache;
}

absl::StatusOr<PrefetchCache> PrefetchCache::Load(const std::string& path,
                                                  absl::Time now,
                                                  absl::Duration max_age) {
  if (path.empty()) return PrefetchCache(max_age);
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (absl::IsNotFound(bytes.status())) return PrefetchCache(max_age);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<PrefetchCache> cache = Parse(*bytes, now, max_age);
  if (!cache.ok())
    return absl::Status(cache.status().code(),
                        absl::StrCat(path, ": ", cache.status().message()));
  return cache;
}

absl::Status PrefetchCache::Save(const std::string& path) const {
  if (path.empty()) return absl::OkStatus();
  return WriteFileAtomically(path, Serialize());
}

}  // namespace net
