// SpdyDeframer parses SPDY/3 frames from received bytes (the receiving half
// of the framer; SpdyFramer builds them). Sans-I/O, in the shape of QUICHE's
// Http2DecoderAdapter: bytes go in through ProcessInput, which says how much
// it consumed, and events come out to a SpdyDeframerVisitorInterface.
//
// Frames may arrive split anywhere across calls. DATA payload is handed to
// the visitor as it arrives, never buffered; a control frame is buffered
// whole (at most SpdyLimits::max_control_frame_length bytes) and reported
// once complete, its header block decompressed and parsed.
//
// One SpdyDeframer per connection, owned by the session: it owns the zlib
// stream that inflates every header block we receive. The visitor is not
// owned and must outlive the deframer. Not thread-safe.
//
// Errors are sticky: the first invalid frame puts the deframer in kError,
// OnError runs once, and every later ProcessInput consumes nothing. (A
// SPDY/3 connection cannot recover from a framing or compression error:
// the peer's zlib stream and ours are no longer in step.)

#ifndef NET_SPDY_SPDY_DEFRAMER_H_
#define NET_SPDY_SPDY_DEFRAMER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "net/spdy/spdy_header_compression.h"
#include "net/spdy/spdy_protocol.h"

namespace net {

enum class SpdyDeframerError {
  kNoError,
  // A control frame whose version is not 3.
  kUnsupportedVersion,
  // A control frame whose fields break the spec: a wrong fixed length, a
  // stream id of 0 where a stream is required, RST_STREAM status 0, a
  // WINDOW_UPDATE delta of 0, SETTINGS entries that do not fill the frame,
  // a CREDENTIAL with slot 0, lengths that overrun it or no certificate.
  kInvalidControlFrame,
  // A control frame with flags its type does not define.
  kInvalidControlFrameFlags,
  // A DATA frame for stream 0 or with flags other than FIN.
  kInvalidDataFrame,
  // A frame longer than max_frame_length, a control frame longer than
  // max_control_frame_length, or a CREDENTIAL with too many certificates.
  kFrameTooLarge,
  // A header block that inflates past max_header_block_bytes, or holds too
  // many headers, or a name or value over its limit.
  kHeaderBlockTooLarge,
  // A header block that inflated but is malformed (truncated, trailing
  // bytes, invalid or duplicate name, invalid value).
  kInvalidHeaderBlock,
  // zlib could not inflate a header block.
  kDecompressFailure,
};

// ToString names the error ("INVALID_CONTROL_FRAME", ...).
std::string ToString(SpdyDeframerError error);

// SpdyDeframerErrorToNetError maps a deframer error to the net error a
// session reports: ERR_SPDY_COMPRESSION_ERROR for kDecompressFailure,
// ERR_SPDY_FRAME_SIZE_ERROR for the two size errors, and
// ERR_SPDY_PROTOCOL_ERROR for the rest (OK for kNoError).
int SpdyDeframerErrorToNetError(SpdyDeframerError error);

// SpdyDeframerVisitorInterface receives the deframer's events. Every method
// has a no-op default. The visitor must not call back into the deframer or
// destroy it from inside an event.
class SpdyDeframerVisitorInterface {
 public:
  virtual ~SpdyDeframerVisitorInterface() = default;

  // OnError runs once, when the deframer enters its error state.
  virtual void OnError(SpdyDeframerError error, const std::string& detail) {}

  // A DATA frame: OnDataFrameHeader once its 8-byte header is in, then
  // OnStreamFrameData for each piece of payload as it arrives (none for an
  // empty frame), then, if the frame carried FIN, OnStreamEnd after the
  // last byte.
  virtual void OnDataFrameHeader(SpdyStreamId stream_id, size_t length,
                                 bool fin) {}
  virtual void OnStreamFrameData(SpdyStreamId stream_id,
                                 absl::string_view data) {}
  virtual void OnStreamEnd(SpdyStreamId stream_id) {}

  // One event per complete control frame.
  virtual void OnSynStream(const SpdySynStreamIR& frame) {}
  virtual void OnSynReply(const SpdySynReplyIR& frame) {}
  virtual void OnRstStream(const SpdyRstStreamIR& frame) {}
  virtual void OnSettings(const SpdySettingsIR& frame) {}
  virtual void OnPing(const SpdyPingIR& frame) {}
  virtual void OnGoAway(const SpdyGoAwayIR& frame) {}
  virtual void OnHeaders(const SpdyHeadersIR& frame) {}
  virtual void OnWindowUpdate(const SpdyWindowUpdateIR& frame) {}
  virtual void OnCredential(const SpdyCredentialIR& frame) {}
  // A version-3 control frame of a type SPDY/3 does not define (5, the
  // SPDY/2 NOOP, included). The spec gives no rule; the session decides.
  virtual void OnUnknownControlFrame(uint16_t type, uint8_t flags,
                                     absl::string_view payload) {}
};

class SpdyDeframer {
 public:
  enum class State {
    kReadingFrameHeader,
    kReadingDataPayload,
    kReadingControlPayload,
    kError,
  };

  // |visitor| must outlive the deframer.
  explicit SpdyDeframer(SpdyDeframerVisitorInterface* visitor,
                        const SpdyLimits& limits = SpdyLimits());
  SpdyDeframer(const SpdyDeframer&) = delete;
  SpdyDeframer& operator=(const SpdyDeframer&) = delete;

  // ProcessInput parses as much of |data| as it can and returns how many
  // bytes it consumed: all of them unless an error occurred, in which case
  // state() is kError and the count stops at the byte that completed the
  // bad frame (or its header). A partial frame is kept for the next call.
  size_t ProcessInput(absl::string_view data);

  State state() const { return state_; }
  bool HasError() const { return state_ == State::kError; }
  SpdyDeframerError error() const { return error_; }
  // What was wrong, for logs ("" before an error).
  const std::string& error_detail() const { return error_detail_; }
  // True between frames: no partial frame is buffered.
  bool AtFrameBoundary() const {
    return state_ == State::kReadingFrameHeader && header_length_ == 0;
  }

 private:
  void ProcessFrameHeader();
  void FinishDataFrame();
  void ProcessControlFrame();
  // Parse* check a complete control frame's payload and report it.
  void ParseSynStream(absl::string_view payload);
  void ParseSynReply(absl::string_view payload);
  void ParseRstStream(absl::string_view payload);
  void ParseSettings(absl::string_view payload);
  void ParsePing(absl::string_view payload);
  void ParseGoAway(absl::string_view payload);
  void ParseHeaders(absl::string_view payload);
  void ParseWindowUpdate(absl::string_view payload);
  void ParseCredential(absl::string_view payload);
  // DecodeHeaderBlock inflates and parses |compressed| into |headers|;
  // false (with the error set) on failure.
  bool DecodeHeaderBlock(absl::string_view compressed,
                         SpdyHeaderBlock* headers);
  // CheckFlags sets kInvalidControlFrameFlags if |flags_| has bits outside
  // |allowed|.
  bool CheckFlags(uint8_t allowed);
  // The current control frame's name for error details ("SYN_REPLY").
  std::string FrameName() const;
  // SetInvalidFrame sets kInvalidControlFrame with "<frame name> |what|".
  void SetInvalidFrame(absl::string_view what);
  // SetBadLength sets kInvalidControlFrame for a payload of |length| bytes,
  // saying what the length should be (|expected|, e.g. "must be 8").
  void SetBadLength(size_t length, absl::string_view expected);
  // CheckStreamId sets kInvalidControlFrame ("... for stream 0") unless
  // |stream_id| is non-zero.
  bool CheckStreamId(SpdyStreamId stream_id);
  // ReadTwoU32 reads a payload of exactly two 32-bit words (RST_STREAM,
  // GOAWAY, WINDOW_UPDATE); false (with the error set) for any other size.
  bool ReadTwoU32(absl::string_view payload, uint32_t* first, uint32_t* second);
  // ParseStreamIdAndHeaders reads the stream ID and header block that make
  // up a SYN_REPLY or HEADERS frame into |frame| (which has stream_id, fin
  // and headers); false (with the error set) on failure.
  template <typename Frame>
  bool ParseStreamIdAndHeaders(absl::string_view payload, Frame* frame);
  void SetError(SpdyDeframerError error, std::string detail);

  SpdyDeframerVisitorInterface* const visitor_;
  const SpdyLimits limits_;
  SpdyHeaderDecompressor decompressor_;

  State state_ = State::kReadingFrameHeader;
  SpdyDeframerError error_ = SpdyDeframerError::kNoError;
  std::string error_detail_;

  // The frame header being read.
  uint8_t header_[kSpdyFrameHeaderSize];
  size_t header_length_ = 0;
  // The current frame, once its header is in.
  bool is_control_ = false;
  uint16_t type_ = 0;
  uint8_t flags_ = 0;
  SpdyStreamId data_stream_id_ = 0;
  size_t remaining_payload_ = 0;
  std::string control_payload_;
};

std::string ToString(SpdyDeframer::State state);

}  // namespace net

#endif  // NET_SPDY_SPDY_DEFRAMER_H_
