// SPDY/3 wire constants and the frame types the framer builds and the
// deframer reports (SPDY Protocol Draft 3, section 2; ../shared/SPECS.md
// sections 5 and 6).
//
// Each Spdy*IR struct is a plain value: one frame's fields, with its
// name/value header block uncompressed. The caller owns them; nothing here
// keeps a pointer. SpdyFrameIR is the variant of all ten.

#ifndef NET_SPDY_SPDY_PROTOCOL_H_
#define NET_SPDY_SPDY_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace net {

// A 31-bit stream id (the high bit of every id field is reserved).
using SpdyStreamId = uint32_t;

// SpdyHeaderBlock is a name/value header block, uncompressed. Names are
// unique by construction (the wire forbids duplicates; several values for
// one name are joined with a NUL byte), and it serializes in name order.
using SpdyHeaderBlock = std::map<std::string, std::string>;

inline constexpr uint16_t kSpdyVersion = 3;
// Every frame starts with an 8-byte header: a control frame's
// |1|version(15)|type(16)|flags(8)|length(24)|, a data frame's
// |0|stream_id(31)|flags(8)|length(24)|.
inline constexpr size_t kSpdyFrameHeaderSize = 8;
// The largest length the 24-bit length field can carry.
inline constexpr size_t kSpdyMaxFrameLength = (size_t{1} << 24) - 1;
// The spec's floor: every implementation accepts control frames of at
// least this many bytes (draft 3, 2.2.1).
inline constexpr size_t kSpdyMinAcceptedControlFrameLength = 8192;
inline constexpr uint32_t kSpdyStreamIdMask = 0x7fffffff;
// WINDOW_UPDATE deltas are 1..2^31-1.
inline constexpr uint32_t kSpdyMaxWindowDelta = 0x7fffffff;
inline constexpr int32_t kSpdyInitialWindowSize = 65536;
// Priorities are 3 bits in SPDY/3: 0 is the highest, 7 the lowest.
inline constexpr uint8_t kSpdyLowestPriority = 7;
// SETTINGS ids are 24 bits.
inline constexpr uint32_t kSpdySettingsIdMask = 0x00ffffff;
// The server's client-certificate vector starts with 8 slots (draft 3,
// 2.6.9); slot 0 in a SYN_STREAM means "no credential".
inline constexpr size_t kSpdyInitialCredentialSlots = 8;

// SpdyLimits bounds everything the deframer buffers or allocates for one
// frame, and what the framer agrees to build. A breach is an error, never an
// allocation: frames over a length limit are refused from their 8-byte
// header, header blocks stop inflating at max_header_block_bytes.
struct SpdyLimits {
  // Any frame's length field, DATA included (DATA payload is streamed to
  // the visitor, never buffered). At most kSpdyMaxFrameLength.
  size_t max_frame_length = kSpdyMaxFrameLength;
  // A control frame is buffered whole before it is parsed; this caps that
  // buffer. The spec requires at least kSpdyMinAcceptedControlFrameLength.
  size_t max_control_frame_length = 256 * 1024;
  // One name/value header block after decompression (the same 256 KB the
  // HTTP/1.1 parser allows for a response's headers).
  size_t max_header_block_bytes = 256 * 1024;
  // Name/value pairs in one header block.
  size_t max_headers = 1024;
  size_t max_header_name_length = 8 * 1024;
  size_t max_header_value_length = 128 * 1024;
  // Certificates in one CREDENTIAL frame.
  size_t max_credential_certificates = 16;
};

// Control frame types. Type 5 (NOOP) existed in SPDY/2 only; this framer
// reports it, and any other unknown type, as an unknown control frame.
enum class SpdyFrameType : uint16_t {
  kData = 0,  // not a wire value: data frames have no type field
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9,
  kCredential = 10,
};

// Frame flags. FIN is 0x01 on DATA, SYN_STREAM, SYN_REPLY and HEADERS.
inline constexpr uint8_t kSpdyFlagFin = 0x01;
inline constexpr uint8_t kSpdyFlagUnidirectional = 0x02;  // SYN_STREAM only
inline constexpr uint8_t kSpdyFlagSettingsClearSettings = 0x01;
// Flags of one SETTINGS entry.
inline constexpr uint8_t kSpdySettingsFlagPersistValue = 0x01;
inline constexpr uint8_t kSpdySettingsFlagPersisted = 0x02;

// RST_STREAM status codes (draft 3, 2.6.3). 0 is invalid on the wire.
// Values outside this list are carried through as they are.
enum class SpdyRstStreamStatus : uint32_t {
  kProtocolError = 1,
  kInvalidStream = 2,
  kRefusedStream = 3,
  kUnsupportedVersion = 4,
  kCancel = 5,
  kInternalError = 6,
  kFlowControlError = 7,
  kStreamInUse = 8,
  kStreamAlreadyClosed = 9,
  kInvalidCredentials = 10,
  kFrameTooLarge = 11,
};

// GOAWAY status codes. The draft's text gives INTERNAL_ERROR as 11, but
// Chromium, spdylay and node-spdy all send and expect 2, so 2 it is.
// Other values are carried through as they are.
enum class SpdyGoAwayStatus : uint32_t {
  kOk = 0,
  kProtocolError = 1,
  kInternalError = 2,
};

// SETTINGS ids (draft 3, 2.6.4). Other ids are carried through.
enum class SpdySettingsId : uint32_t {
  kUploadBandwidth = 1,
  kDownloadBandwidth = 2,
  kRoundTripTime = 3,
  kMaxConcurrentStreams = 4,
  kCurrentCwnd = 5,
  kDownloadRetransRate = 6,
  kInitialWindowSize = 7,
  kClientCertificateVectorSize = 8,
};

// ToString gives the spec's name ("SYN_STREAM", "FLOW_CONTROL_ERROR",
// "INITIAL_WINDOW_SIZE"), or "UNKNOWN(n)" for a value outside the list.
std::string ToString(SpdyFrameType type);
std::string ToString(SpdyRstStreamStatus status);
std::string ToString(SpdyGoAwayStatus status);
std::string ToString(SpdySettingsId id);

struct SpdyDataIR {
  SpdyStreamId stream_id = 0;
  std::string data;
  bool fin = false;
};

struct SpdySynStreamIR {
  SpdyStreamId stream_id = 0;
  SpdyStreamId associated_stream_id = 0;  // 0: not a server push
  uint8_t priority = 0;                   // 0 (highest) .. 7
  uint8_t slot = 0;                       // credential slot; 0 = none
  bool fin = false;
  bool unidirectional = false;
  SpdyHeaderBlock headers;
};

struct SpdySynReplyIR {
  SpdyStreamId stream_id = 0;
  bool fin = false;
  SpdyHeaderBlock headers;
};

struct SpdyRstStreamIR {
  SpdyStreamId stream_id = 0;
  SpdyRstStreamStatus status = SpdyRstStreamStatus::kProtocolError;
};

struct SpdySettingsEntry {
  uint8_t flags = 0;  // kSpdySettingsFlag*
  uint32_t id = 0;    // 24 bits; see SpdySettingsId
  uint32_t value = 0;
};

// SpdySettingsIR holds the entries in wire order. When an id repeats, the
// spec says only the first counts; the deframer reports them all and
// leaves that rule to the session.
struct SpdySettingsIR {
  bool clear_settings = false;
  std::vector<SpdySettingsEntry> entries;
};

struct SpdyPingIR {
  uint32_t id = 0;
};

struct SpdyGoAwayIR {
  SpdyStreamId last_good_stream_id = 0;
  SpdyGoAwayStatus status = SpdyGoAwayStatus::kOk;
};

struct SpdyHeadersIR {
  SpdyStreamId stream_id = 0;
  bool fin = false;
  SpdyHeaderBlock headers;
};

struct SpdyWindowUpdateIR {
  SpdyStreamId stream_id = 0;
  uint32_t delta = 0;  // 1..2^31-1
};

// SpdyCredentialIR is the CREDENTIAL frame (draft 3, 2.6.9): a 1-based slot
// in the server's certificate vector, a proof of possession, and the
// certificates (leaf first). The framer treats proof and certificates as
// opaque bytes; what they contain is the session's business.
struct SpdyCredentialIR {
  uint16_t slot = 0;
  std::string proof;
  std::vector<std::string> certificates;
};

using SpdyFrameIR =
    std::variant<SpdyDataIR, SpdySynStreamIR, SpdySynReplyIR, SpdyRstStreamIR,
                 SpdySettingsIR, SpdyPingIR, SpdyGoAwayIR, SpdyHeadersIR,
                 SpdyWindowUpdateIR, SpdyCredentialIR>;

// FrameType names the frame an IR holds.
SpdyFrameType FrameType(const SpdyFrameIR& frame);

bool operator==(const SpdyDataIR& a, const SpdyDataIR& b);
bool operator==(const SpdySynStreamIR& a, const SpdySynStreamIR& b);
bool operator==(const SpdySynReplyIR& a, const SpdySynReplyIR& b);
bool operator==(const SpdyRstStreamIR& a, const SpdyRstStreamIR& b);
bool operator==(const SpdySettingsEntry& a, const SpdySettingsEntry& b);
bool operator==(const SpdySettingsIR& a, const SpdySettingsIR& b);
bool operator==(const SpdyPingIR& a, const SpdyPingIR& b);
bool operator==(const SpdyGoAwayIR& a, const SpdyGoAwayIR& b);
bool operator==(const SpdyHeadersIR& a, const SpdyHeadersIR& b);
bool operator==(const SpdyWindowUpdateIR& a, const SpdyWindowUpdateIR& b);
bool operator==(const SpdyCredentialIR& a, const SpdyCredentialIR& b);

// FrameToString describes a frame for logs and test failures, e.g.
// "SYN_STREAM stream=1 pri=0 slot=0 fin headers={:method: GET, ...}".
std::string FrameToString(const SpdyFrameIR& frame);

}  // namespace net

#endif  // NET_SPDY_SPDY_PROTOCOL_H_
