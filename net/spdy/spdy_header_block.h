// The SPDY/3 name/value header block, uncompressed (draft 3, 2.6.10):
// u32 pair count, then per pair u32 name length, name, u32 value length,
// value. These are pure functions over bytes; compression is
// spdy_header_compression.h's job, framing spdy_framer.h's.
//
// Validity, the same for what we build and what we accept:
// - a name is 1+ bytes of printable US-ASCII (0x21..0x7e) with no upper
//   case letters (pseudo-headers such as ":method" included);
// - names are unique (SpdyHeaderBlock is a map, so duplicates on the wire
//   are an error);
// - a value is empty or NUL-separated non-empty parts: it neither starts
//   nor ends with NUL and holds no two NULs in a row;
// - a value holds no CR or LF, so a header can never be split into two when
//   the HTTP layer turns it into an HTTP/1-style header line.

#ifndef NET_SPDY_SPDY_HEADER_BLOCK_H_
#define NET_SPDY_SPDY_HEADER_BLOCK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/spdy/spdy_protocol.h"

namespace net {

// IsValidHeaderName / IsValidHeaderValue apply the rules above.
bool IsValidHeaderName(absl::string_view name);
bool IsValidHeaderValue(absl::string_view value);

// SerializeHeaderBlock writes |headers| in the uncompressed wire form, names
// in ascending order. Fails with InvalidArgument for a name or value that
// breaks the rules above, and with ResourceExhausted when the block breaks
// |limits| (pair count, name or value length, total size).
[[nodiscard]] absl::StatusOr<std::string> SerializeHeaderBlock(
    const SpdyHeaderBlock& headers, const SpdyLimits& limits = SpdyLimits());

// ParseHeaderBlock reads one whole uncompressed block; nothing may follow
// it. Fails with ResourceExhausted when |limits| are exceeded (checked
// before anything is copied) and InvalidArgument for anything malformed:
// truncation, trailing bytes, an invalid or duplicate name, an invalid
// value.
[[nodiscard]] absl::StatusOr<SpdyHeaderBlock> ParseHeaderBlock(
    absl::string_view block, const SpdyLimits& limits = SpdyLimits());

}  // namespace net

#endif  // NET_SPDY_SPDY_HEADER_BLOCK_H_
