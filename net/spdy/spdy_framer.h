// SpdyFramer builds SPDY/3 frames (the sending half of the framer; the
// receiving half is SpdyDeframer in spdy_deframer.h). It is sans-I/O: frames
// come out as bytes for the session to write.
//
// One SpdyFramer per connection, owned by the session: it owns the zlib
// stream that compresses every header block we send, so the frames it
// returns must all be written, in the order they were built. Not
// thread-safe.

#ifndef NET_SPDY_SPDY_FRAMER_H_
#define NET_SPDY_SPDY_FRAMER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/spdy/spdy_header_compression.h"
#include "net/spdy/spdy_protocol.h"

namespace net {

class SpdyFramer {
 public:
  // |limits| bounds what it builds: max_frame_length for any frame, and the
  // header block rules of spdy_header_block.h (max_control_frame_length is
  // what we accept, not what the peer accepts, so it does not apply here).
  explicit SpdyFramer(const SpdyLimits& limits = SpdyLimits());
  SpdyFramer(const SpdyFramer&) = delete;
  SpdyFramer& operator=(const SpdyFramer&) = delete;

  // SerializeFrame returns one frame's bytes. Fails, without touching the
  // compression stream, with InvalidArgument for a frame the spec forbids:
  // a stream id of 0 or above 2^31-1 where a stream is required, a priority
  // above 7, RST_STREAM status 0, a WINDOW_UPDATE delta of 0 or above
  // 2^31-1, a SETTINGS id above 24 bits, a CREDENTIAL with slot 0 or no (or
  // an empty) certificate, or an invalid header name or value; and with
  // ResourceExhausted when the frame would break the limits. Fails with
  // Internal when zlib fails; the framer is then unusable (broken()).
  [[nodiscard]] absl::StatusOr<std::string> SerializeFrame(
      const SpdyFrameIR& frame);

  // SerializeData is SerializeFrame for DATA without copying |data| into an
  // IR first.
  [[nodiscard]] absl::StatusOr<std::string> SerializeData(
      SpdyStreamId stream_id, absl::string_view data, bool fin);

  bool broken() const { return compressor_.broken(); }

 private:
  absl::StatusOr<std::string> SerializeSynStream(const SpdySynStreamIR& f);
  absl::StatusOr<std::string> SerializeSynReply(const SpdySynReplyIR& f);
  absl::StatusOr<std::string> SerializeRstStream(const SpdyRstStreamIR& f);
  absl::StatusOr<std::string> SerializeSettings(const SpdySettingsIR& f);
  absl::StatusOr<std::string> SerializePing(const SpdyPingIR& f);
  absl::StatusOr<std::string> SerializeGoAway(const SpdyGoAwayIR& f);
  absl::StatusOr<std::string> SerializeHeaders(const SpdyHeadersIR& f);
  absl::StatusOr<std::string> SerializeWindowUpdate(
      const SpdyWindowUpdateIR& f);
  absl::StatusOr<std::string> SerializeCredential(const SpdyCredentialIR& f);

  // CompressHeaders serializes and compresses |headers| after checking that
  // the result will fit in a frame with |fixed_bytes| before the block.
  absl::StatusOr<std::string> CompressHeaders(const SpdyHeaderBlock& headers,
                                              size_t fixed_bytes);

  const SpdyLimits limits_;
  SpdyHeaderCompressor compressor_;
};

}  // namespace net

#endif  // NET_SPDY_SPDY_FRAMER_H_
