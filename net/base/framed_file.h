// FramedFile: the frame every profile file is stored in (host history,
// revocation cache, cookies, origin-bound certificates, prefetched bundles,
// Snap Start information), so that damage of any kind is detected rather than
// misread: a file cut at any byte, a flipped bit, bytes appended, or a file of
// another store or version.
//
// The frame is the canonical protobuf encoding of
//
//   message Frame {
//     fixed32 magic = 1;          // the store's, e.g. "CKJ1" little-endian
//     uint32 version = 2;         // the store's format version (>= 1)
//     bytes payload = 3;          // the store's own serialization
//     bytes payload_sha256 = 4;   // SHA-256 of payload
//   }
//
// (each field once, in order, shortest varints, empty payload omitted), so
// a store may describe it in its .proto (cookie_jar.proto's CookieFile and
// obc_store.proto's OriginBoundCertFile are this message). The checksum comes
// last: any strict prefix of a frame lacks it and is reported as truncated.

#ifndef NET_BASE_FRAMED_FILE_H_
#define NET_BASE_FRAMED_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// FrameFileContents returns the file bytes for |payload|.
std::string FrameFileContents(uint32_t magic, uint32_t version,
                              absl::string_view payload);

// UnframeFileContents checks |bytes| against the frame and returns the
// payload. DataLoss with the reason alone ("empty file", "bad magic",
// "unknown version 2", "truncated", "checksum mismatch", ...) otherwise;
// callers name the file with CorruptFileError.
[[nodiscard]] absl::StatusOr<std::string> UnframeFileContents(
    absl::string_view bytes, uint32_t magic, uint32_t version);

// CorruptFileError is the one message every store gives for a damaged file:
// "<name> is corrupt (<why>); it was left untouched: <remedy>".
absl::Status CorruptFileError(absl::string_view name, absl::string_view why,
                              absl::string_view remedy);

}  // namespace net

#endif  // NET_BASE_FRAMED_FILE_H_
