// ObcStoreFile: reading and writing one profile's origin-bound certificates
// (<profile>/origin_bound_certs.pb, obc_store.proto), and ProfileLock, which
// keeps two stores from writing one profile at once.
//
// Save writes a unique temporary (<file>.tmp.<pid>.<n>), fsyncs it, renames
// it over the file and fsyncs the directory (WriteFileAtomically): a crash
// (even kill -9 in the middle) leaves the old or the new file, never a torn
// one. Load checks the frame (net/base/framed_file.h: magic, version,
// SHA-256 of the payload, canonical encoding) and every record (scope syntax,
// key parses, algorithm matches, the certificate carries the key, no duplicate
// scopes), and reports any damage as DataLoss; it never repairs or replaces
// the file.
//
// Synchronous and thread-compatible: OriginBoundCertStore calls Save on the
// worker pool, one write at a time per profile (ObcFileWriter).

#ifndef CERT_OBC_OBC_STORE_FILE_H_
#define CERT_OBC_OBC_STORE_FILE_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "cert/obc/obc_scope.h"
#include "cert/obc/obc_types.h"
#include "net/base/file_util.h"

namespace net {

// ObcRecord is one scope's certificate and key, as stored.
struct ObcRecord {
  ObcScope scope;
  KeyAlgorithm algorithm = KeyAlgorithm::kEcdsaP256;
  std::string cert_der;
  std::string key_pkcs8;
  // The parsed |key_pkcs8|.
  bssl::UniquePtr<EVP_PKEY> key;
  int64_t created_unix_seconds = 0;
};

class ObcStoreFile {
 public:
  static constexpr char kFileName[] = "origin_bound_certs.pb";
  static constexpr uint32_t kMagic = 0x3143424f;  // "OBC1"
  static constexpr uint32_t kVersion = 1;

  // Load reads |path|. A missing file is an empty store. DataLoss if the
  // file is damaged in any way (the message says what); PermissionDenied or
  // Internal on I/O errors. The file is never modified.
  [[nodiscard]] static absl::StatusOr<std::vector<ObcRecord>> Load(
      const std::string& path);

  // Save atomically replaces |path| with |records| (see above). The file and
  // its temporary are mode 0600. On error the old file is untouched.
  static absl::Status Save(
      const std::string& path,
      const std::vector<std::shared_ptr<const ObcRecord>>& records);

  // Serialize returns the file bytes for |records| (Save's content).
  static std::string Serialize(
      const std::vector<std::shared_ptr<const ObcRecord>>& records);
  // Parse is Load on bytes; |name| is used in error messages.
  [[nodiscard]] static absl::StatusOr<std::vector<ObcRecord>> Parse(
      const std::string& bytes, const std::string& name);
};

// ProfileLock holds an exclusive flock(2) on <dir>/origin_bound_certs.lock
// while it lives. The kernel drops it when the process dies, so a killed
// process never leaves a stale lock.
class ProfileLock {
 public:
  static constexpr char kFileName[] = "origin_bound_certs.lock";
  // Acquire fails with FailedPrecondition if another ProfileLock (in this or
  // another process) holds |dir|, or with an I/O error.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<ProfileLock>> Acquire(
      const std::string& dir);
  ~ProfileLock() = default;
  ProfileLock(const ProfileLock&) = delete;
  ProfileLock& operator=(const ProfileLock&) = delete;

 private:
  explicit ProfileLock(std::unique_ptr<FileLock> lock)
      : lock_(std::move(lock)) {}
  std::unique_ptr<FileLock> lock_;
};

// ObcFileWriter serializes Saves of one profile's file across worker
// threads and drops a Save older than one already written, so writes posted
// out of order never put stale content back. Shared (shared_ptr) by the
// store and the write tasks it posts; it holds the profile lock, so the lock
// outlives a store destroyed while its last write is still running.
class ObcFileWriter {
 public:
  ObcFileWriter(std::string path, std::unique_ptr<ProfileLock> lock)
      : path_(std::move(path)), lock_(std::move(lock)) {}

  // Write saves |records|, which reflect the store's mutation number |seq|.
  // A Write whose |seq| is not newer than the last written one returns OK
  // without writing.
  absl::Status Write(
      uint64_t seq,
      const std::vector<std::shared_ptr<const ObcRecord>>& records);
  const std::string& path() const { return path_; }

 private:
  const std::string path_;
  const std::unique_ptr<ProfileLock> lock_;
  std::mutex mu_;
  uint64_t written_seq_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace net

#endif  // CERT_OBC_OBC_STORE_FILE_H_
