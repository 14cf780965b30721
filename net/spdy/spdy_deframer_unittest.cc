// SpdyDeframer on hand-built bytes: every way a frame can be invalid gives
// its named error, errors are sticky, limits hold before anything is
// buffered, reserved bits are ignored, unknown control frames pass by.

#include "net/spdy/spdy_deframer.h"

#include <zlib.h>

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/net_errors.h"
#include "net/spdy/spdy_framer.h"
#include "net/spdy/spdy_header_block.h"
#include "net/spdy/spdy_header_compression.h"
#include "net/spdy/spdy_test_util.h"

namespace net {
namespace {

using namespace std::string_literals;

std::string U32(uint32_t v) {
  return std::string({static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                      static_cast<char>(v >> 8), static_cast<char>(v)});
}
std::string U16(uint16_t v) {
  return std::string({static_cast<char>(v >> 8), static_cast<char>(v)});
}

std::string Control(uint16_t type, uint8_t flags, const std::string& payload,
                    uint16_t version = 3) {
  size_t n = payload.size();
  return U16(0x8000 | version) + U16(type) +
         std::string({static_cast<char>(flags), static_cast<char>(n >> 16),
                      static_cast<char>(n >> 8), static_cast<char>(n)}) +
         payload;
}

std::string Data(uint32_t stream_id, uint8_t flags,
                 const std::string& payload) {
  size_t n = payload.size();
  return U32(stream_id) +
         std::string({static_cast<char>(flags), static_cast<char>(n >> 16),
                      static_cast<char>(n >> 8), static_cast<char>(n)}) +
         payload;
}

// The first compressed block of a fresh stream holding |raw|, which need
// not be a valid header block.
std::string Compressed(const std::string& raw) {
  SpdyHeaderCompressor compressor;
  return *compressor.Compress(raw);
}

std::string Pair(const std::string& name, const std::string& value) {
  return U32(name.size()) + name + U32(value.size()) + value;
}

std::string ValidBlock() { return Compressed(U32(1) + Pair(":status", "200")); }

struct ErrorCase {
  std::string name;
  std::string bytes;
  SpdyDeframerError error;
};

std::vector<ErrorCase> ErrorCases() {
  const std::string syn_fixed = U32(1) + U32(0) + std::string(2, '\0');
  std::string bomb_raw = U32(1) + Pair("x-bomb", std::string(300000, 'a'));
  std::string many_raw = U32(1100);
  for (int i = 0; i < 1100; ++i) many_raw += Pair(absl::StrCat("x-", i), "");
  return {
      {"control version 2", Control(1, 0, syn_fixed + ValidBlock(), 2),
       SpdyDeframerError::kUnsupportedVersion},
      {"control version 4", Control(4, 0, U32(0), 4),
       SpdyDeframerError::kUnsupportedVersion},
      // SYN_STREAM
      {"syn_stream short", Control(1, 0, syn_fixed.substr(0, 9)),
       SpdyDeframerError::kInvalidControlFrame},
      {"syn_stream flags", Control(1, 0x04, syn_fixed + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrameFlags},
      {"syn_stream stream 0",
       Control(1, 0, U32(0) + U32(0) + std::string(2, '\0') + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrame},
      {"syn_stream stream 0 (X bit set)",
       Control(1, 0,
               U32(0x80000000) + U32(0) + std::string(2, '\0') + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrame},
      {"syn_stream without a header block", Control(1, 0, syn_fixed),
       SpdyDeframerError::kInvalidHeaderBlock},
      // SYN_REPLY
      {"syn_reply short", Control(2, 0, "\0\0\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"syn_reply flags", Control(2, 0x02, U32(1) + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrameFlags},
      {"syn_reply stream 0", Control(2, 0, U32(0) + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrame},
      {"syn_reply garbage block", Control(2, 0, U32(1) + "garbage!"),
       SpdyDeframerError::kDecompressFailure},
      {"syn_reply upper-case name",
       Control(2, 0, U32(1) + Compressed(U32(1) + Pair("Status", "200"))),
       SpdyDeframerError::kInvalidHeaderBlock},
      {"syn_reply duplicate name",
       Control(2, 0,
               U32(1) + Compressed(U32(2) + Pair("a", "1") + Pair("a", "2"))),
       SpdyDeframerError::kInvalidHeaderBlock},
      {"syn_reply empty name",
       Control(2, 0, U32(1) + Compressed(U32(1) + Pair("", "1"))),
       SpdyDeframerError::kInvalidHeaderBlock},
      {"syn_reply value with empty part",
       Control(2, 0,
               U32(1) + Compressed(U32(1) + Pair("a", std::string("1\0\0"
                                                                  "2",
                                                                  4)))),
       SpdyDeframerError::kInvalidHeaderBlock},
      {"syn_reply block with trailing bytes",
       Control(2, 0, U32(1) + Compressed(U32(0) + "x")),
       SpdyDeframerError::kInvalidHeaderBlock},
      {"syn_reply zlib bomb", Control(2, 0, U32(1) + Compressed(bomb_raw)),
       SpdyDeframerError::kHeaderBlockTooLarge},
      {"syn_reply 1100 headers", Control(2, 0, U32(1) + Compressed(many_raw)),
       SpdyDeframerError::kHeaderBlockTooLarge},
      {"syn_reply 9 KB name",
       Control(2, 0,
               U32(1) + Compressed(U32(1) + Pair(std::string(9000, 'n'), ""))),
       SpdyDeframerError::kHeaderBlockTooLarge},
      // RST_STREAM
      {"rst_stream 7 bytes", Control(3, 0, U32(1) + "\0\0\x05"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"rst_stream 9 bytes", Control(3, 0, U32(1) + U32(5) + "\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"rst_stream status 0", Control(3, 0, U32(1) + U32(0)),
       SpdyDeframerError::kInvalidControlFrame},
      {"rst_stream stream 0", Control(3, 0, U32(0) + U32(5)),
       SpdyDeframerError::kInvalidControlFrame},
      {"rst_stream flags", Control(3, 0x01, U32(1) + U32(5)),
       SpdyDeframerError::kInvalidControlFrameFlags},
      // SETTINGS
      {"settings short", Control(4, 0, "\0\0\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"settings count above entries", Control(4, 0, U32(1)),
       SpdyDeframerError::kInvalidControlFrame},
      {"settings entries above count", Control(4, 0, U32(0) + U32(4) + U32(1)),
       SpdyDeframerError::kInvalidControlFrame},
      {"settings partial entry", Control(4, 0, U32(1) + U32(4) + "\0\0\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"settings huge count", Control(4, 0, U32(0x20000000)),
       SpdyDeframerError::kInvalidControlFrame},
      {"settings frame flags", Control(4, 0x02, U32(0)),
       SpdyDeframerError::kInvalidControlFrameFlags},
      {"settings entry flags", Control(4, 0, U32(1) + U32(0x04000004) + U32(1)),
       SpdyDeframerError::kInvalidControlFrame},
      // PING
      {"ping 3 bytes", Control(6, 0, "\0\0\x01"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"ping 5 bytes", Control(6, 0, U32(1) + "\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"ping empty", Control(6, 0, ""),
       SpdyDeframerError::kInvalidControlFrame},
      {"ping flags", Control(6, 0x01, U32(1)),
       SpdyDeframerError::kInvalidControlFrameFlags},
      // GOAWAY
      {"goaway 4 bytes (SPDY/2 layout)", Control(7, 0, U32(1)),
       SpdyDeframerError::kInvalidControlFrame},
      {"goaway 12 bytes", Control(7, 0, U32(1) + U32(0) + U32(0)),
       SpdyDeframerError::kInvalidControlFrame},
      {"goaway flags", Control(7, 0x01, U32(1) + U32(0)),
       SpdyDeframerError::kInvalidControlFrameFlags},
      // HEADERS
      {"headers short", Control(8, 0, "\0\0\x01"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"headers stream 0", Control(8, 0, U32(0) + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrame},
      {"headers flags", Control(8, 0x02, U32(1) + ValidBlock()),
       SpdyDeframerError::kInvalidControlFrameFlags},
      // WINDOW_UPDATE
      {"window_update 4 bytes", Control(9, 0, U32(1)),
       SpdyDeframerError::kInvalidControlFrame},
      {"window_update stream 0", Control(9, 0, U32(0) + U32(1)),
       SpdyDeframerError::kInvalidControlFrame},
      {"window_update delta 0", Control(9, 0, U32(1) + U32(0)),
       SpdyDeframerError::kInvalidControlFrame},
      {"window_update delta only the X bit",
       Control(9, 0, U32(1) + U32(0x80000000)),
       SpdyDeframerError::kInvalidControlFrame},
      {"window_update flags", Control(9, 0x01, U32(1) + U32(1)),
       SpdyDeframerError::kInvalidControlFrameFlags},
      // CREDENTIAL
      {"credential slot 0",
       Control(10, 0, U16(0) + U32(1) + "p" + U32(1) + "c"),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential truncated fixed part", Control(10, 0, U16(1) + "\0\0\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential proof overruns", Control(10, 0, U16(1) + U32(10) + "p"),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential certificate overruns",
       Control(10, 0, U16(1) + U32(1) + "p" + U32(10) + "c"),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential partial certificate length",
       Control(10, 0, U16(1) + U32(1) + "p" + U32(1) + "c" + "\0\0"s),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential without certificate", Control(10, 0, U16(1) + U32(1) + "p"),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential empty certificate",
       Control(10, 0, U16(1) + U32(1) + "p" + U32(0)),
       SpdyDeframerError::kInvalidControlFrame},
      {"credential 17 certificates",
       [] {
         std::string payload = U16(1) + U32(1) + "p";
         for (int i = 0; i < 17; ++i) payload += U32(1) + "c";
         return Control(10, 0, payload);
       }(),
       SpdyDeframerError::kFrameTooLarge},
      {"credential flags",
       Control(10, 0x01, U16(1) + U32(1) + "p" + U32(1) + "c"),
       SpdyDeframerError::kInvalidControlFrameFlags},
      // DATA
      {"data stream 0", Data(0, 0, "x"), SpdyDeframerError::kInvalidDataFrame},
      {"data FLAG_COMPRESS", Data(1, 0x02, "x"),
       SpdyDeframerError::kInvalidDataFrame},
      {"data unknown flag", Data(1, 0x81, "x"),
       SpdyDeframerError::kInvalidDataFrame},
      // Lengths
      {"control frame over 256 KB",
       Control(4, 0, U32(32769) + std::string(32769 * 8, '\0')),
       SpdyDeframerError::kFrameTooLarge},
  };
}

TEST(SpdyDeframerTest, InvalidFramesGiveNamedStickyErrors) {
  SpdyFramer framer;
  const std::string valid = *framer.SerializeFrame(SpdyPingIR{1});
  for (const ErrorCase& c : ErrorCases()) {
    SCOPED_TRACE(c.name);
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    size_t consumed = deframer.ProcessInput(c.bytes);
    EXPECT_TRUE(deframer.HasError());
    EXPECT_EQ(deframer.error(), c.error)
        << ToString(deframer.error()) << ": " << deframer.error_detail();
    EXPECT_EQ(visitor.error_count, 1);
    EXPECT_EQ(visitor.error, c.error);
    EXPECT_FALSE(deframer.error_detail().empty());
    EXPECT_TRUE(visitor.frames.empty());
    EXPECT_LE(consumed, c.bytes.size());
    // Sticky: nothing more is consumed or reported.
    EXPECT_EQ(deframer.ProcessInput(valid), 0u);
    EXPECT_EQ(deframer.ProcessInput(c.bytes), 0u);
    EXPECT_EQ(visitor.error_count, 1);
    EXPECT_TRUE(visitor.frames.empty());
    EXPECT_EQ(deframer.state(), SpdyDeframer::State::kError);
  }
}

TEST(SpdyDeframerTest, ErrorsMapToNamedNetErrors) {
  EXPECT_EQ(SpdyDeframerErrorToNetError(SpdyDeframerError::kNoError), OK);
  EXPECT_EQ(SpdyDeframerErrorToNetError(SpdyDeframerError::kDecompressFailure),
            ERR_SPDY_COMPRESSION_ERROR);
  EXPECT_EQ(SpdyDeframerErrorToNetError(SpdyDeframerError::kFrameTooLarge),
            ERR_SPDY_FRAME_SIZE_ERROR);
  EXPECT_EQ(
      SpdyDeframerErrorToNetError(SpdyDeframerError::kHeaderBlockTooLarge),
      ERR_SPDY_FRAME_SIZE_ERROR);
  for (SpdyDeframerError e : {SpdyDeframerError::kUnsupportedVersion,
                              SpdyDeframerError::kInvalidControlFrame,
                              SpdyDeframerError::kInvalidControlFrameFlags,
                              SpdyDeframerError::kInvalidDataFrame,
                              SpdyDeframerError::kInvalidHeaderBlock}) {
    EXPECT_EQ(SpdyDeframerErrorToNetError(e), ERR_SPDY_PROTOCOL_ERROR)
        << ToString(e);
  }
  EXPECT_EQ(ErrorToShortString(ERR_SPDY_COMPRESSION_ERROR),
            "ERR_SPDY_COMPRESSION_ERROR");
  EXPECT_EQ(ERR_SPDY_PROTOCOL_ERROR, -600);
  EXPECT_EQ(ERR_SPDY_COMPRESSION_ERROR, -601);
  EXPECT_EQ(ERR_SPDY_FRAME_SIZE_ERROR, -602);
  EXPECT_EQ(ToString(SpdyDeframerError::kInvalidControlFrame),
            "INVALID_CONTROL_FRAME");
  EXPECT_EQ(ToString(SpdyDeframer::State::kReadingDataPayload),
            "READING_DATA_PAYLOAD");
}

TEST(SpdyDeframerTest, OversizedFramesAreRefusedFromTheirHeader) {
  SpdyLimits limits;
  limits.max_frame_length = 100;
  limits.max_control_frame_length = 50;
  {
    // Only the 8-byte header is consumed; the payload is never buffered.
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor, limits);
    std::string frame = Data(1, 0, std::string(101, 'x'));
    EXPECT_EQ(deframer.ProcessInput(frame), 8u);
    EXPECT_EQ(deframer.error(), SpdyDeframerError::kFrameTooLarge);
    EXPECT_TRUE(visitor.data_pieces.empty());
  }
  {
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor, limits);
    std::string frame = Control(99, 0, std::string(51, 'x'));
    EXPECT_EQ(deframer.ProcessInput(frame.substr(0, 8)), 8u);
    EXPECT_EQ(deframer.error(), SpdyDeframerError::kFrameTooLarge);
  }
  {
    // Exactly at the limits is fine.
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor, limits);
    std::string bytes = Data(1, 0, std::string(100, 'x')) +
                        Control(99, 0, std::string(50, 'x'));
    EXPECT_EQ(deframer.ProcessInput(bytes), bytes.size());
    EXPECT_FALSE(deframer.HasError()) << deframer.error_detail();
    EXPECT_EQ(visitor.frames.size(), 1u);
    EXPECT_EQ(visitor.unknown_frames.size(), 1u);
  }
  {
    // The default accepts what the spec says everyone must (8192 bytes).
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    std::string payload = U32(1023) + std::string(1023 * 8, '\0');
    ASSERT_EQ(payload.size(), kSpdyMinAcceptedControlFrameLength - 4);
    EXPECT_EQ(deframer.ProcessInput(Control(4, 0, payload)),
              payload.size() + 8);
    EXPECT_FALSE(deframer.HasError()) << deframer.error_detail();
  }
}

TEST(SpdyDeframerTest, ReservedBitsAreIgnored) {
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  std::string bytes =
      // SYN_STREAM with X bits set, priority byte 0xff (unused bits set).
      Control(1, 0,
              U32(0x80000001) + U32(0x80000000) + "\xff\x07" + ValidBlock()) +
      Control(3, 0, U32(0x80000003) + U32(5)) +
      Control(7, 0, U32(0x80000009) + U32(0)) +
      Control(9, 0, U32(0x80000001) + U32(0x80000005));
  EXPECT_EQ(deframer.ProcessInput(bytes), bytes.size());
  ASSERT_FALSE(deframer.HasError()) << deframer.error_detail();
  SpdySynStreamIR syn;
  syn.stream_id = 1;
  syn.associated_stream_id = 0;
  syn.priority = 7;
  syn.slot = 7;
  syn.headers = {{":status", "200"}};
  EXPECT_EQ(
      visitor.frames,
      (std::vector<SpdyFrameIR>{
          syn, SpdyRstStreamIR{3, SpdyRstStreamStatus::kCancel},
          SpdyGoAwayIR{9, SpdyGoAwayStatus::kOk}, SpdyWindowUpdateIR{1, 5}}));
}

TEST(SpdyDeframerTest, UnknownControlFramesPassBy) {
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  std::string bytes = Control(5, 0, "") +             // SPDY/2 NOOP
                      Control(0xffff, 0xaa, "abc") +  // unknown type
                      Control(0, 0, "z") +            // type 0
                      Control(6, 0, U32(2));          // then a PING
  EXPECT_EQ(deframer.ProcessInput(bytes), bytes.size());
  EXPECT_FALSE(deframer.HasError());
  ASSERT_EQ(visitor.unknown_frames.size(), 3u);
  EXPECT_EQ(visitor.unknown_frames[0].type, 5);
  EXPECT_EQ(visitor.unknown_frames[1].type, 0xffff);
  EXPECT_EQ(visitor.unknown_frames[1].flags, 0xaa);
  EXPECT_EQ(visitor.unknown_frames[1].payload, "abc");
  EXPECT_EQ(visitor.unknown_frames[2].type, 0);
  EXPECT_EQ(visitor.frames, (std::vector<SpdyFrameIR>{SpdyPingIR{2}}));
}

TEST(SpdyDeframerTest, ConsumedStopsAtTheBadFrame) {
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  std::string good = Control(6, 0, U32(1));
  std::string bad = Control(6, 0, U32(1) + "\0"s);
  std::string bytes = good + bad + good;
  EXPECT_EQ(deframer.ProcessInput(bytes), good.size() + bad.size());
  EXPECT_EQ(visitor.frames, (std::vector<SpdyFrameIR>{SpdyPingIR{1}}));
}

TEST(SpdyDeframerTest, SettingsKeepsEveryEntryInWireOrder) {
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  // A repeated id: the spec says the first counts; the session applies that.
  std::string bytes =
      Control(4, 0x01,
              U32(3) + U32(0x01000007) + U32(1000) + U32(0x02000004) + U32(10) +
                  U32(0x00000007) + U32(2000));
  deframer.ProcessInput(bytes);
  SpdySettingsIR want;
  want.clear_settings = true;
  want.entries = {{1, 7, 1000}, {2, 4, 10}, {0, 7, 2000}};
  EXPECT_EQ(visitor.frames, (std::vector<SpdyFrameIR>{want}));
}

TEST(SpdyDeframerTest, HeaderBlocksNeedTheSharedStream) {
  // A block compressed by one stream and a second by another: the second
  // cannot be inflated by the first's peer (the context is per direction
  // and persists), which the deframer reports as a compression error.
  SpdyHeaderCompressor a;
  SpdyHeaderCompressor b;
  std::string raw = U32(1) + Pair(":status", "200");
  std::string bytes = Control(2, 0, U32(1) + *a.Compress(raw)) +
                      Control(2, 0, U32(3) + *b.Compress(raw));
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  deframer.ProcessInput(bytes);
  EXPECT_EQ(visitor.frames.size(), 1u);
  EXPECT_EQ(deframer.error(), SpdyDeframerError::kDecompressFailure);
  EXPECT_EQ(SpdyDeframerErrorToNetError(deframer.error()),
            ERR_SPDY_COMPRESSION_ERROR);
}

}  // namespace
}  // namespace net
