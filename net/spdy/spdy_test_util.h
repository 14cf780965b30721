// Test helpers for net/spdy: RecordingSpdyVisitor, a deframer visitor that
// keeps every event (DATA frames reassembled into SpdyDataIR), and hex
// helpers. Test-only; each test owns its visitor.

#ifndef NET_SPDY_SPDY_TEST_UTIL_H_
#define NET_SPDY_SPDY_TEST_UTIL_H_

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "net/spdy/spdy_deframer.h"
#include "net/spdy/spdy_protocol.h"

namespace net {

class RecordingSpdyVisitor : public SpdyDeframerVisitorInterface {
 public:
  struct UnknownFrame {
    uint16_t type;
    uint8_t flags;
    std::string payload;
  };

  // Complete frames in arrival order; a DATA frame appears once all its
  // payload is in.
  std::vector<SpdyFrameIR> frames;
  std::vector<UnknownFrame> unknown_frames;
  std::vector<SpdyStreamId> stream_ends;
  // Every OnStreamFrameData piece's size, to show DATA is streamed.
  std::vector<size_t> data_pieces;
  int error_count = 0;
  SpdyDeframerError error = SpdyDeframerError::kNoError;
  std::string error_detail;
  // Events in order, one short line each ("SYN_STREAM", "DATA 5", ...).
  std::vector<std::string> events;

  bool data_frame_pending() const { return data_pending_; }

  void OnError(SpdyDeframerError e, const std::string& detail) override {
    ++error_count;
    error = e;
    error_detail = detail;
    events.push_back("ERROR " + ToString(e));
  }
  void OnDataFrameHeader(SpdyStreamId stream_id, size_t length,
                         bool fin) override {
    events.push_back(absl::StrCat("DATA_HEADER ", stream_id, " ", length,
                                  fin ? " fin" : ""));
    partial_ = SpdyDataIR{stream_id, "", fin};
    remaining_ = length;
    data_pending_ = true;
    if (length == 0) CompleteData();
  }
  void OnStreamFrameData(SpdyStreamId stream_id,
                         absl::string_view data) override {
    events.push_back(absl::StrCat("DATA ", stream_id, " ", data.size()));
    data_pieces.push_back(data.size());
    partial_.data.append(data.data(), data.size());
    remaining_ -= data.size();
    if (remaining_ == 0) CompleteData();
  }
  void OnStreamEnd(SpdyStreamId stream_id) override {
    events.push_back(absl::StrCat("END ", stream_id));
    stream_ends.push_back(stream_id);
  }
  void OnSynStream(const SpdySynStreamIR& f) override { Add(f); }
  void OnSynReply(const SpdySynReplyIR& f) override { Add(f); }
  void OnRstStream(const SpdyRstStreamIR& f) override { Add(f); }
  void OnSettings(const SpdySettingsIR& f) override { Add(f); }
  void OnPing(const SpdyPingIR& f) override { Add(f); }
  void OnGoAway(const SpdyGoAwayIR& f) override { Add(f); }
  void OnHeaders(const SpdyHeadersIR& f) override { Add(f); }
  void OnWindowUpdate(const SpdyWindowUpdateIR& f) override { Add(f); }
  void OnCredential(const SpdyCredentialIR& f) override { Add(f); }
  void OnUnknownControlFrame(uint16_t type, uint8_t flags,
                             absl::string_view payload) override {
    events.push_back(absl::StrCat("UNKNOWN ", type));
    unknown_frames.push_back({type, flags, std::string(payload)});
  }

 private:
  void Add(const SpdyFrameIR& frame) {
    events.push_back(FrameToString(frame));
    frames.push_back(frame);
  }
  void CompleteData() {
    data_pending_ = false;
    Add(partial_);
  }

  SpdyDataIR partial_;
  size_t remaining_ = 0;
  bool data_pending_ = false;
};

// HexDecode turns "80 03 00 01" (spaces and newlines ignored) into bytes.
inline std::string HexDecode(absl::string_view hex) {
  std::string out;
  int nibble = -1;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      continue;
    }
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<char>(nibble << 4 | v));
      nibble = -1;
    }
  }
  return out;
}

// ReadTestData returns the bytes of net/spdy/testdata/|name| ("" if it
// cannot be read; tests check the size).
inline std::string ReadTestData(const std::string& name) {
  std::ifstream in("net/spdy/testdata/" + name, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace net

#endif  // NET_SPDY_SPDY_TEST_UTIL_H_
