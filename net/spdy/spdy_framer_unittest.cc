// SpdyFramer and SpdyDeframer together: exact bytes for every fixed-layout
// frame, round trips of every frame type (whole and split at every size),
// every truncation of every frame, and frames written by an independent
// encoder (testdata/make_vectors.py).

#include "net/spdy/spdy_framer.h"

#include <zlib.h>

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/spdy/spdy_deframer.h"
#include "net/spdy/spdy_header_block.h"
#include "net/spdy/spdy_test_util.h"

namespace net {
namespace {

std::string Serialize(SpdyFramer& framer, const SpdyFrameIR& frame) {
  auto bytes = framer.SerializeFrame(frame);
  EXPECT_TRUE(bytes.ok()) << FrameToString(frame) << ": " << bytes.status();
  return bytes.ok() ? *bytes : "";
}

std::string SerializeFresh(const SpdyFrameIR& frame) {
  SpdyFramer framer;
  return Serialize(framer, frame);
}

// Inflates |compressed| as the first block of a fresh SPDY/3 stream with
// zlib directly (not SpdyHeaderDecompressor).
std::string RawInflateFirstBlock(absl::string_view compressed) {
  z_stream zs = {};
  EXPECT_EQ(inflateInit(&zs), Z_OK);
  std::string out(64 * 1024, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = compressed.size();
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = out.size();
  int rv = inflate(&zs, Z_SYNC_FLUSH);
  EXPECT_EQ(rv, Z_NEED_DICT);
  EXPECT_EQ(zs.adler, 0xe3c6a7c2u);
  EXPECT_EQ(inflateSetDictionary(&zs, kSpdy3Dictionary, kSpdy3DictionarySize),
            Z_OK);
  rv = inflate(&zs, Z_SYNC_FLUSH);
  EXPECT_EQ(rv, Z_OK);
  EXPECT_EQ(zs.avail_in, 0u);
  out.resize(out.size() - zs.avail_out);
  inflateEnd(&zs);
  return out;
}

SpdyHeaderBlock RequestHeaders() {
  return {{":method", "GET"},          {":path", "/index.html?q=1"},
          {":version", "HTTP/1.1"},    {":host", "www.example.test"},
          {":scheme", "https"},        {"accept-encoding", "gzip, deflate"},
          {"user-agent", "netstack/1"}};
}

// One of every frame type, with non-default values in every field.
std::vector<SpdyFrameIR> AllFrames() {
  SpdySynStreamIR syn_stream;
  syn_stream.stream_id = 1;
  syn_stream.associated_stream_id = 0;
  syn_stream.priority = 2;
  syn_stream.slot = 3;
  syn_stream.fin = true;
  syn_stream.headers = RequestHeaders();
  SpdySynStreamIR push;
  push.stream_id = 2;
  push.associated_stream_id = 1;
  push.priority = 7;
  push.unidirectional = true;
  push.headers = {{":scheme", "https"},
                  {":host", "www.example.test"},
                  {":path", "/style.css"}};
  SpdySynReplyIR syn_reply;
  syn_reply.stream_id = 1;
  syn_reply.headers = {{":status", "200 OK"},
                       {":version", "HTTP/1.1"},
                       {"set-cookie", std::string("a=1\0b=2", 7)},
                       {"content-type", "text/html"}};
  SpdyHeadersIR headers;
  headers.stream_id = 1;
  headers.fin = true;
  headers.headers = {{"x-trailer", "1"}};
  SpdySettingsIR settings;
  settings.clear_settings = true;
  settings.entries = {
      {kSpdySettingsFlagPersistValue,
       static_cast<uint32_t>(SpdySettingsId::kMaxConcurrentStreams), 100},
      {0, static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize), 1 << 20},
      {kSpdySettingsFlagPersisted,
       static_cast<uint32_t>(SpdySettingsId::kClientCertificateVectorSize), 16},
      {0, 0xffffff, 0xffffffff}};
  SpdyCredentialIR credential;
  credential.slot = 2;
  credential.proof = std::string(72, '\x30');
  credential.certificates = {std::string(300, 'c'), std::string(200, 'i')};
  return {
      SpdySettingsIR{},
      settings,
      syn_stream,
      SpdyDataIR{1, "request body", false},
      SpdyDataIR{1, "", true},
      syn_reply,
      push,
      headers,
      SpdyDataIR{3, std::string(70000, 'x'), true},
      SpdyRstStreamIR{5, SpdyRstStreamStatus::kCancel},
      SpdyRstStreamIR{7, static_cast<SpdyRstStreamStatus>(99)},
      SpdyPingIR{0xfffffffe},
      SpdyWindowUpdateIR{1, kSpdyMaxWindowDelta},
      credential,
      SpdyGoAwayIR{kSpdyStreamIdMask, SpdyGoAwayStatus::kInternalError},
  };
}

struct FixedVector {
  const char* name;
  SpdyFrameIR frame;
  const char* hex;
};

// Frames without header blocks, spelled out from the draft's diagrams.
std::vector<FixedVector> FixedVectors() {
  SpdySettingsIR settings;
  settings.clear_settings = true;
  settings.entries = {{kSpdySettingsFlagPersistValue, 4, 100}, {0, 7, 65536}};
  SpdyCredentialIR credential;
  credential.slot = 1;
  credential.proof = "pp";
  credential.certificates = {"abc"};
  return {
      {"data", SpdyDataIR{1, "hello", true}, "00000001 01 000005 68656c6c6f"},
      {"empty data", SpdyDataIR{0x7fffffff, "", false}, "7fffffff 00 000000"},
      {"rst_stream", SpdyRstStreamIR{3, SpdyRstStreamStatus::kCancel},
       "8003 0003 00 000008 00000003 00000005"},
      {"settings", settings,
       "8003 0004 01 000014 00000002 01 000004 00000064 00 000007 00010000"},
      {"ping", SpdyPingIR{0x12345678}, "8003 0006 00 000004 12345678"},
      {"goaway", SpdyGoAwayIR{5, SpdyGoAwayStatus::kInternalError},
       "8003 0007 00 000008 00000005 00000002"},
      {"window_update", SpdyWindowUpdateIR{1, 0x7fffffff},
       "8003 0009 00 000008 00000001 7fffffff"},
      {"credential", credential,
       "8003 000a 00 00000f 0001 00000002 7070 00000003 616263"},
  };
}

TEST(SpdyFramerTest, FixedFramesMatchTheDraftLayout) {
  for (const FixedVector& v : FixedVectors()) {
    SCOPED_TRACE(v.name);
    EXPECT_EQ(absl::BytesToHexString(SerializeFresh(v.frame)),
              absl::BytesToHexString(HexDecode(v.hex)));
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    std::string bytes = HexDecode(v.hex);
    EXPECT_EQ(deframer.ProcessInput(bytes), bytes.size());
    ASSERT_EQ(visitor.frames.size(), 1u) << visitor.error_detail;
    EXPECT_EQ(visitor.frames[0], v.frame) << FrameToString(visitor.frames[0]);
  }
}

TEST(SpdyFramerTest, SynStreamLayout) {
  SpdySynStreamIR frame;
  frame.stream_id = 0x01020304;
  frame.associated_stream_id = 0x7fffffff;
  frame.priority = 5;
  frame.slot = 0xab;
  frame.fin = true;
  frame.unidirectional = true;
  frame.headers = {{":path", "/"}, {":method", "GET"}};
  std::string bytes = SerializeFresh(frame);
  ASSERT_GT(bytes.size(), 18u);
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(0, 18)),
            absl::StrCat("80030001", "03",
                         absl::BytesToHexString(std::string(
                             {static_cast<char>((bytes.size() - 8) >> 16),
                              static_cast<char>((bytes.size() - 8) >> 8),
                              static_cast<char>(bytes.size() - 8)})),
                         "01020304", "7fffffff", "a0", "ab"));
  // The block is the draft's name/value form, deflated with the dictionary.
  EXPECT_EQ(absl::BytesToHexString(RawInflateFirstBlock(bytes.substr(18))),
            "00000002"
            "000000073a6d6574686f64"
            "00000003474554"
            "000000053a70617468"
            "000000012f");
}

TEST(SpdyFramerTest, SynReplyAndHeadersLayout) {
  SpdySynReplyIR reply;
  reply.stream_id = 9;
  reply.fin = true;
  reply.headers = {{":status", "200"}};
  std::string bytes = SerializeFresh(reply);
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(0, 5)), "8003000201");
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(8, 4)), "00000009");
  EXPECT_EQ(RawInflateFirstBlock(bytes.substr(12)),
            *SerializeHeaderBlock(reply.headers));

  SpdyHeadersIR headers;
  headers.stream_id = 9;
  headers.headers = {{"x-a", "b"}};
  bytes = SerializeFresh(headers);
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(0, 5)), "8003000800");
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(8, 4)), "00000009");
  EXPECT_EQ(RawInflateFirstBlock(bytes.substr(12)),
            *SerializeHeaderBlock(headers.headers));
}

TEST(SpdyFramerTest, RoundTripsEveryFrameType) {
  SpdyFramer framer;
  std::string wire;
  std::vector<SpdyFrameIR> frames = AllFrames();
  for (const SpdyFrameIR& frame : frames) wire += Serialize(framer, frame);

  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  EXPECT_EQ(deframer.ProcessInput(wire), wire.size());
  EXPECT_FALSE(deframer.HasError()) << deframer.error_detail();
  EXPECT_TRUE(deframer.AtFrameBoundary());
  ASSERT_EQ(visitor.frames.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(visitor.frames[i], frames[i])
        << "want " << FrameToString(frames[i]) << "\n got "
        << FrameToString(visitor.frames[i]);
  }
  EXPECT_EQ(visitor.stream_ends, (std::vector<SpdyStreamId>{1, 3}));
}

TEST(SpdyFramerTest, RoundTripsSplitAtEveryPieceSize) {
  SpdyFramer framer;
  std::string wire;
  std::vector<SpdyFrameIR> frames = AllFrames();
  frames.erase(frames.begin() + 8);  // keep it quick: drop the 70 KB DATA
  for (const SpdyFrameIR& frame : frames) wire += Serialize(framer, frame);
  for (size_t piece = 1; piece <= 64; ++piece) {
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    for (size_t pos = 0; pos < wire.size(); pos += piece) {
      absl::string_view chunk = absl::string_view(wire).substr(pos, piece);
      ASSERT_EQ(deframer.ProcessInput(chunk), chunk.size())
          << "piece " << piece << ": " << deframer.error_detail();
    }
    ASSERT_EQ(visitor.frames, frames) << "piece " << piece;
  }
}

TEST(SpdyFramerTest, EveryTruncationOfEveryFrameWaitsForTheRest) {
  for (const SpdyFrameIR& frame : AllFrames()) {
    SCOPED_TRACE(FrameToString(frame));
    const std::string bytes = SerializeFresh(frame);
    // A 70 KB frame: every cut near its ends, every 997th in between.
    std::vector<size_t> cuts;
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      if (cut < 256 || bytes.size() - cut < 256 || cut % 997 == 0)
        cuts.push_back(cut);
    }
    for (size_t cut : cuts) {
      RecordingSpdyVisitor visitor;
      SpdyDeframer deframer(&visitor);
      ASSERT_EQ(deframer.ProcessInput(bytes.substr(0, cut)), cut);
      ASSERT_FALSE(deframer.HasError())
          << cut << ": " << deframer.error_detail();
      ASSERT_TRUE(visitor.frames.empty()) << "cut at " << cut;
      ASSERT_EQ(deframer.AtFrameBoundary(), cut == 0);
      ASSERT_EQ(deframer.ProcessInput(bytes.substr(cut)), bytes.size() - cut);
      ASSERT_EQ(visitor.frames.size(), 1u) << "cut at " << cut;
      ASSERT_EQ(visitor.frames[0], frame) << "cut at " << cut;
      ASSERT_TRUE(deframer.AtFrameBoundary());
    }
  }
}

TEST(SpdyFramerTest, DataIsStreamedNotBuffered) {
  std::string bytes =
      SerializeFresh(SpdyDataIR{1, std::string(1000, 'd'), true});
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  deframer.ProcessInput(bytes.substr(0, 108));
  EXPECT_EQ(visitor.data_pieces, (std::vector<size_t>{100}));
  EXPECT_TRUE(visitor.stream_ends.empty());
  deframer.ProcessInput(bytes.substr(108));
  EXPECT_EQ(visitor.data_pieces, (std::vector<size_t>{100, 900}));
  EXPECT_EQ(visitor.stream_ends, (std::vector<SpdyStreamId>{1}));
  EXPECT_EQ(visitor.events.front(), "DATA_HEADER 1 1000 fin");
}

TEST(SpdyFramerTest, HeaderCompressionContextSpansFrames) {
  SpdyFramer framer;
  SpdySynStreamIR first;
  first.stream_id = 1;
  first.headers = RequestHeaders();
  SpdySynStreamIR second = first;
  second.stream_id = 3;
  std::string a = Serialize(framer, first);
  std::string b = Serialize(framer, second);
  // The second block leans on the first.
  EXPECT_LT(b.size(), a.size() / 2);
  {
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    deframer.ProcessInput(a + b);
    EXPECT_EQ(visitor.frames, (std::vector<SpdyFrameIR>{first, second}));
  }
  {
    // Without the first frame the second cannot be inflated.
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    deframer.ProcessInput(b);
    EXPECT_TRUE(deframer.HasError());
    EXPECT_EQ(deframer.error(), SpdyDeframerError::kDecompressFailure);
  }
}

TEST(SpdyFramerTest, RejectedFramesLeaveTheCompressionStreamAlone) {
  SpdyFramer framer;
  SpdySynStreamIR bad;
  bad.stream_id = 1;
  bad.headers = {{"Upper", "x"}};
  EXPECT_TRUE(absl::IsInvalidArgument(framer.SerializeFrame(bad).status()));
  SpdyLimits small;
  small.max_frame_length = 100;
  SpdyFramer small_framer(small);
  SpdySynStreamIR big;
  big.stream_id = 1;
  big.headers = {{"x-big", std::string(200, 'b')}};
  EXPECT_TRUE(
      absl::IsResourceExhausted(small_framer.SerializeFrame(big).status()));

  SpdySynStreamIR good;
  good.stream_id = 1;
  good.headers = RequestHeaders();
  for (SpdyFramer* f : {&framer, &small_framer}) {
    good.headers =
        f == &framer ? RequestHeaders() : SpdyHeaderBlock{{":method", "GET"}};
    std::string bytes = Serialize(*f, good);
    RecordingSpdyVisitor visitor;
    SpdyDeframer deframer(&visitor);
    deframer.ProcessInput(bytes);
    ASSERT_EQ(visitor.frames.size(), 1u) << deframer.error_detail();
    EXPECT_EQ(visitor.frames[0], SpdyFrameIR(good));
  }
}

TEST(SpdyFramerTest, RefusesFramesTheSpecForbids) {
  SpdyFramer framer;
  SpdyCredentialIR no_slot;
  no_slot.certificates = {"c"};
  SpdyCredentialIR no_cert;
  no_cert.slot = 1;
  SpdyCredentialIR empty_cert;
  empty_cert.slot = 1;
  empty_cert.certificates = {""};
  SpdySynStreamIR bad_priority;
  bad_priority.stream_id = 1;
  bad_priority.priority = 8;
  SpdySynStreamIR bad_assoc;
  bad_assoc.stream_id = 1;
  bad_assoc.associated_stream_id = 0x80000000;
  SpdySettingsIR bad_id;
  bad_id.entries = {{0, 0x1000000, 1}};
  const std::vector<SpdyFrameIR> cases = {
      SpdyDataIR{0, "x", false},
      SpdyDataIR{0x80000000, "x", false},
      SpdySynStreamIR{},
      bad_priority,
      bad_assoc,
      SpdySynReplyIR{},
      SpdyHeadersIR{},
      SpdyRstStreamIR{0, SpdyRstStreamStatus::kCancel},
      SpdyRstStreamIR{1, static_cast<SpdyRstStreamStatus>(0)},
      SpdyWindowUpdateIR{0, 1},
      SpdyWindowUpdateIR{1, 0},
      SpdyWindowUpdateIR{1, 0x80000000},
      SpdyGoAwayIR{0x80000000, SpdyGoAwayStatus::kOk},
      bad_id,
      no_slot,
      no_cert,
      empty_cert,
  };
  for (const SpdyFrameIR& frame : cases) {
    auto bytes = framer.SerializeFrame(frame);
    EXPECT_TRUE(absl::IsInvalidArgument(bytes.status()))
        << FrameToString(frame) << ": " << bytes.status();
  }
}

TEST(SpdyFramerTest, FrameLengthLimits) {
  SpdyFramer framer;
  std::string max(kSpdyMaxFrameLength, 'x');
  auto ok = framer.SerializeData(1, max, false);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->size(), kSpdyFrameHeaderSize + kSpdyMaxFrameLength);
  EXPECT_TRUE(absl::IsResourceExhausted(
      framer.SerializeData(1, max + "x", false).status()));
  SpdyLimits limits;
  limits.max_frame_length = 1000;
  SpdyFramer small(limits);
  EXPECT_TRUE(small.SerializeData(1, std::string(1000, 'x'), false).ok());
  EXPECT_TRUE(absl::IsResourceExhausted(
      small.SerializeData(1, std::string(1001, 'x'), false).status()));
  SpdyCredentialIR credential;
  credential.slot = 1;
  credential.certificates = {std::string(2000, 'c')};
  EXPECT_TRUE(
      absl::IsResourceExhausted(small.SerializeFrame(credential).status()));
}

// What testdata/make_vectors.py wrote with Python's zlib and struct.
TEST(SpdyFramerTest, IndependentEncoderVectors) {
  std::string wire = ReadTestData("fuzz/frames_seed.bin");
  ASSERT_EQ(wire.size(), 315u);
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  EXPECT_EQ(deframer.ProcessInput(wire), wire.size());
  ASSERT_FALSE(deframer.HasError()) << deframer.error_detail();

  SpdySettingsIR settings;
  settings.entries = {{0, 4, 100}, {kSpdySettingsFlagPersistValue, 7, 65536}};
  SpdySynStreamIR syn_stream;
  syn_stream.stream_id = 1;
  syn_stream.priority = 3;
  syn_stream.slot = 1;
  syn_stream.fin = true;
  syn_stream.headers = {{":method", "GET"},       {":path", "/index.html"},
                        {":version", "HTTP/1.1"}, {":host", "www.example.test"},
                        {":scheme", "https"},     {"accept", "*/*"}};
  SpdySynReplyIR syn_reply;
  syn_reply.stream_id = 1;
  syn_reply.headers = {{":status", "200 OK"},
                       {":version", "HTTP/1.1"},
                       {"set-cookie", std::string("a=1\0b=2", 7)}};
  SpdyHeadersIR headers;
  headers.stream_id = 1;
  headers.headers = {{"x-trailer", "done"}};
  SpdyCredentialIR credential;
  credential.slot = 2;
  credential.proof = "proof";
  credential.certificates = {"cert-a", "cert-b"};
  EXPECT_EQ(visitor.frames,
            (std::vector<SpdyFrameIR>{
                settings, syn_stream, syn_reply, headers,
                SpdyDataIR{1, "hello", true},
                SpdyRstStreamIR{3, SpdyRstStreamStatus::kCancel}, SpdyPingIR{7},
                SpdyWindowUpdateIR{1, 4096}, credential,
                SpdyGoAwayIR{1, SpdyGoAwayStatus::kOk}}));
}

}  // namespace
}  // namespace net
