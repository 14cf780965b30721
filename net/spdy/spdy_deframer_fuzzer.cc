// Fuzz target: SpdyDeframer on arbitrary bytes, with two properties checked
// on every input:
// 1. splitting the input into pieces (sizes chosen by the input) changes
//    nothing: the same frames, unknown frames, stream ends and error;
// 2. every frame it reports survives a round trip: SpdyFramer builds it
//    (which must succeed: anything the deframer accepts, the framer may
//    send) and a fresh deframer reads back the same frames.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "net/spdy/spdy_deframer.h"
#include "net/spdy/spdy_framer.h"
#include "net/spdy/spdy_protocol.h"

namespace {

class Recorder : public net::SpdyDeframerVisitorInterface {
 public:
  std::vector<net::SpdyFrameIR> frames;
  std::vector<std::string> unknown;
  std::vector<net::SpdyStreamId> stream_ends;
  net::SpdyDeframerError error = net::SpdyDeframerError::kNoError;

  void OnError(net::SpdyDeframerError e, const std::string&) override {
    error = e;
  }
  void OnDataFrameHeader(net::SpdyStreamId id, size_t, bool fin) override {
    frames.push_back(net::SpdyDataIR{id, "", fin});
  }
  void OnStreamFrameData(net::SpdyStreamId, absl::string_view data) override {
    std::get<net::SpdyDataIR>(frames.back())
        .data.append(data.data(), data.size());
  }
  void OnStreamEnd(net::SpdyStreamId id) override { stream_ends.push_back(id); }
  void OnSynStream(const net::SpdySynStreamIR& f) override { Add(f); }
  void OnSynReply(const net::SpdySynReplyIR& f) override { Add(f); }
  void OnRstStream(const net::SpdyRstStreamIR& f) override { Add(f); }
  void OnSettings(const net::SpdySettingsIR& f) override { Add(f); }
  void OnPing(const net::SpdyPingIR& f) override { Add(f); }
  void OnGoAway(const net::SpdyGoAwayIR& f) override { Add(f); }
  void OnHeaders(const net::SpdyHeadersIR& f) override { Add(f); }
  void OnWindowUpdate(const net::SpdyWindowUpdateIR& f) override { Add(f); }
  void OnCredential(const net::SpdyCredentialIR& f) override { Add(f); }
  void OnUnknownControlFrame(uint16_t type, uint8_t flags,
                             absl::string_view payload) override {
    unknown.push_back(std::to_string(type) + "/" + std::to_string(flags) + "/" +
                      std::string(payload));
  }

 private:
  void Add(const net::SpdyFrameIR& f) { frames.push_back(f); }
};

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  Recorder whole;
  net::SpdyDeframer whole_deframer(&whole);
  whole_deframer.ProcessInput(input);

  Recorder pieces;
  net::SpdyDeframer pieces_deframer(&pieces);
  size_t piece = 1 + (size % 13);
  for (size_t pos = 0; pos < input.size();) {
    size_t n = std::min(piece, input.size() - pos);
    size_t consumed =
        pieces_deframer.ProcessInput(absl::string_view(input).substr(pos, n));
    Check(consumed <= n);
    if (pieces_deframer.HasError()) break;
    Check(consumed == n);
    pos += n;
    piece = piece * 5 % 17 + 1;
  }
  // A DATA frame cut short by the end of input shows up in both, equally.
  Check(whole.frames == pieces.frames);
  Check(whole.unknown == pieces.unknown);
  Check(whole.stream_ends == pieces.stream_ends);
  Check(whole.error == pieces.error);
  Check(whole_deframer.error() == pieces_deframer.error());

  // Round trip through the framer. Only complete frames: a trailing DATA
  // frame may be partial.
  std::vector<net::SpdyFrameIR> complete = whole.frames;
  if (!complete.empty() &&
      whole_deframer.state() == net::SpdyDeframer::State::kReadingDataPayload) {
    complete.pop_back();
  }
  net::SpdyFramer framer;
  std::string wire;
  for (const net::SpdyFrameIR& frame : complete) {
    auto bytes = framer.SerializeFrame(frame);
    Check(bytes.ok());
    wire += *bytes;
  }
  Recorder again;
  net::SpdyDeframer again_deframer(&again);
  Check(again_deframer.ProcessInput(wire) == wire.size());
  Check(!again_deframer.HasError());
  Check(again.frames == complete);
  return 0;
}
