#include "net/snap_start/snap_start_client_context.h"

#include <openssl/bytestring.h>
#include <openssl/mem.h>

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"

namespace net {
namespace {

constexpr char kMagic[] = "netstack-snap-start-v1";

bool AddBytes24(CBB* cbb, absl::string_view bytes) {
  CBB child;
  return CBB_add_u24_length_prefixed(cbb, &child) &&
         CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(bytes.data()),
                       bytes.size()) &&
         CBB_flush(cbb);
}

// The same information, the verified mark aside.
bool SameInfo(const SnapStartInfo& a, const SnapStartInfo& b) {
  return a.chain_der == b.chain_der && a.cipher_suite == b.cipher_suite &&
         a.orbit == b.orbit && a.server_hello == b.server_hello;
}

std::string ToString(const CBS& cbs) {
  return std::string(reinterpret_cast<const char*>(CBS_data(&cbs)),
                     CBS_len(&cbs));
}

}  // namespace

SnapStartClientContext::SnapStartClientContext(
    CertVerifier* verifier, const SnapStartClientOptions& options)
    : verifier_(verifier), options_(options) {}

absl::StatusOr<std::unique_ptr<SnapStartClientContext>>
SnapStartClientContext::Create(CertVerifier* verifier,
                               const SnapStartClientOptions& options) {
  std::unique_ptr<SnapStartClientContext> context(
      new SnapStartClientContext(verifier, options));
  if (!options.state_file.empty()) {
    absl::StatusOr<std::string> data = ReadFileToString(options.state_file);
    if (data.ok()) {
      constexpr char kRemedy[] = "delete it to start over";
      // Before the frame, the file was the bare payload.
      if (absl::StartsWith(*data, kMagic)) {
        return CorruptFileError(
            options.state_file,
            "unframed format of an older version, no longer read", kRemedy);
      }
      absl::StatusOr<std::string> payload =
          UnframeFileContents(*data, kFileMagic, kFileVersion);
      if (!payload.ok()) {
        return CorruptFileError(options.state_file, payload.status().message(),
                                kRemedy);
      }
      absl::StatusOr<std::map<std::string, SnapStartInfo>> infos =
          Parse(*payload);
      if (!infos.ok()) {
        return CorruptFileError(
            options.state_file,
            absl::StrCat("payload: ", infos.status().message()), kRemedy);
      }
      context->infos_ = std::move(*infos);
    } else if (!absl::IsNotFound(data.status())) {
      return data.status();
    }
  }
  return context;
}

const SnapStartInfo* SnapStartClientContext::GetInfo(
    const std::string& key) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = infos_.find(key);
  return it == infos_.end() ? nullptr : &it->second;
}

void SnapStartClientContext::PutInfo(const std::string& key,
                                     SnapStartInfo info) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = infos_.find(key);
  // What a full handshake learns is usually what the file already holds:
  // no rewrite (and no fsync on the network thread) when nothing changed.
  const bool unchanged = it != infos_.end() && SameInfo(it->second, info);
  infos_[key] = std::move(info);
  if (!unchanged) Persist();
}

void SnapStartClientContext::MarkVerified(const std::string& key) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = infos_.find(key);
  if (it != infos_.end()) it->second.verified = true;
}

void SnapStartClientContext::MarkVerified(const std::string& key,
                                          const SnapStartInfo& checked) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = infos_.find(key);
  if (it != infos_.end() && SameInfo(it->second, checked)) {
    it->second.verified = true;
    it->second.verify_result = checked.verify_result;
  }
}

void SnapStartClientContext::RemoveInfo(const std::string& key) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (infos_.erase(key) > 0) Persist();
}

void SnapStartClientContext::RemoveInfo(const std::string& key,
                                        const SnapStartInfo& stale) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = infos_.find(key);
  if (it != infos_.end() && SameInfo(it->second, stale)) {
    infos_.erase(it);
    Persist();
  }
}

const Tls12ClientSession* SnapStartClientContext::GetSession(
    const std::string& key) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = sessions_.find(key);
  return it == sessions_.end() ? nullptr : &it->second;
}

void SnapStartClientContext::PutSession(const std::string& key,
                                        Tls12ClientSession session) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  sessions_[key] = std::move(session);
}

void SnapStartClientContext::RemoveSession(const std::string& key) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  sessions_.erase(key);
}

void SnapStartClientContext::Persist() {
  if (options_.state_file.empty()) return;
  absl::Status status = WriteFileAtomically(
      options_.state_file,
      FrameFileContents(kFileMagic, kFileVersion, Serialize(infos_)));
  persist_error_ = status.ok() ? std::string() : status.ToString();
}

std::string SnapStartClientContext::Serialize(
    const std::map<std::string, SnapStartInfo>& m) {
  CBB cbb;
  CBB_init(&cbb, 4096);
  bool ok = CBB_add_bytes(&cbb, reinterpret_cast<const uint8_t*>(kMagic),
                          strlen(kMagic)) &&
            CBB_add_u16(&cbb, static_cast<uint16_t>(m.size()));
  for (const auto& [key, info] : m) {
    CBB child;
    ok = ok && CBB_add_u16_length_prefixed(&cbb, &child) &&
         CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(key.data()),
                       key.size()) &&
         CBB_add_u16(&cbb, info.cipher_suite) &&
         CBB_add_bytes(&cbb, info.orbit.data(), info.orbit.size()) &&
         AddBytes24(&cbb, info.server_hello) &&
         CBB_add_u8(&cbb, static_cast<uint8_t>(info.chain_der.size()));
    for (const std::string& der : info.chain_der) {
      ok = ok && AddBytes24(&cbb, der);
    }
  }
  uint8_t* data = nullptr;
  size_t len = 0;
  if (!ok || !CBB_finish(&cbb, &data, &len)) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  std::string out(reinterpret_cast<char*>(data), len);
  OPENSSL_free(data);
  return out;
}

absl::StatusOr<std::map<std::string, SnapStartInfo>>
SnapStartClientContext::Parse(absl::string_view data) {
  CBS cbs, magic;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(data.data()), data.size());
  uint16_t count;
  if (!CBS_get_bytes(&cbs, &magic, strlen(kMagic)) ||
      memcmp(CBS_data(&magic), kMagic, strlen(kMagic)) != 0 ||
      !CBS_get_u16(&cbs, &count)) {
    return absl::InvalidArgumentError("bad header");
  }
  std::map<std::string, SnapStartInfo> out;
  for (uint16_t i = 0; i < count; ++i) {
    CBS key, orbit, hello;
    SnapStartInfo info;
    uint8_t certs;
    if (!CBS_get_u16_length_prefixed(&cbs, &key) ||
        !CBS_get_u16(&cbs, &info.cipher_suite) ||
        !CBS_get_bytes(&cbs, &orbit, kOrbitSize) ||
        !CBS_get_u24_length_prefixed(&cbs, &hello) ||
        !CBS_get_u8(&cbs, &certs) || certs == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("truncated or malformed entry ", i));
    }
    memcpy(info.orbit.data(), CBS_data(&orbit), kOrbitSize);
    info.server_hello = ToString(hello);
    for (uint8_t c = 0; c < certs; ++c) {
      CBS der;
      if (!CBS_get_u24_length_prefixed(&cbs, &der) || CBS_len(&der) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("truncated certificate in entry ", i));
      }
      info.chain_der.push_back(ToString(der));
    }
    if (!ParseServerHello(info.server_hello).ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("entry ", i, " has a malformed ServerHello"));
    }
    out[ToString(key)] = std::move(info);
  }
  if (CBS_len(&cbs) != 0) return absl::InvalidArgumentError("trailing bytes");
  return out;
}

}  // namespace net
