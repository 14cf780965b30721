// Interop with a real SPDY/3 peer, node-spdy (npm spdy@4.0.2 with
// spdy-transport@3.0.0, zlib header compression on), through bytes captured
// on loopback and checked in (testdata/README.md says how):
// - both directions of a connection between node-spdy's client and server,
//   decoded here as the server and as the client would;
// - our SpdyFramer's request (netstack_request.bin) and node-spdy's answer
//   to it, which echoes both request paths: node-spdy inflated our header
//   blocks, the second of which leans on the first.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "net/spdy/spdy_deframer.h"
#include "net/spdy/spdy_protocol.h"
#include "net/spdy/spdy_test_util.h"

namespace net {
namespace {

// Decodes |file| as one direction of a connection, in pieces of |piece|.
std::vector<SpdyFrameIR> Decode(const std::string& file, size_t piece) {
  std::string bytes = ReadTestData(file);
  EXPECT_FALSE(bytes.empty()) << file;
  RecordingSpdyVisitor visitor;
  SpdyDeframer deframer(&visitor);
  for (size_t pos = 0; pos < bytes.size(); pos += piece) {
    std::string chunk = bytes.substr(pos, piece);
    EXPECT_EQ(deframer.ProcessInput(chunk), chunk.size())
        << file << ": " << deframer.error_detail();
  }
  EXPECT_FALSE(deframer.HasError()) << deframer.error_detail();
  EXPECT_TRUE(deframer.AtFrameBoundary());
  EXPECT_TRUE(visitor.unknown_frames.empty());
  return visitor.frames;
}

// node-spdy opens every session with this: INITIAL_WINDOW_SIZE 1 MB, with
// the persist flag set (a client should not set it; we must ignore it).
SpdySettingsIR NodeSpdySettings() {
  SpdySettingsIR settings;
  settings.entries = {
      {kSpdySettingsFlagPersistValue,
       static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize), 1 << 20}};
  return settings;
}

SpdySynStreamIR NodeSpdyRequest(SpdyStreamId id, const std::string& path) {
  SpdySynStreamIR syn;
  syn.stream_id = id;
  syn.priority = 3;
  syn.fin = true;
  syn.headers = {{":method", "GET"},
                 {":path", path},
                 {":version", "HTTP/1.1"},
                 {":host", "127.0.0.1"},
                 {":scheme", "https"}};
  return syn;
}

SpdySynReplyIR NodeSpdyReply(SpdyStreamId id, const std::string& path) {
  SpdySynReplyIR reply;
  reply.stream_id = id;
  reply.headers = {{":status", "200 OK"},
                   {":version", "HTTP/1.1"},
                   {"content-type", "text/plain"},
                   {"x-request-path", path}};
  return reply;
}

TEST(SpdyInteropTest, NodeSpdyClientToServer) {
  std::vector<SpdyFrameIR> want = {NodeSpdySettings(),
                                   NodeSpdyRequest(1, "/first"),
                                   NodeSpdyRequest(3, "/second?x=1")};
  for (size_t piece : {1, 7, 4096}) {
    EXPECT_EQ(Decode("node_spdy_client_to_server.bin", piece), want)
        << "piece " << piece;
  }
}

TEST(SpdyInteropTest, NodeSpdyServerToClient) {
  std::vector<SpdyFrameIR> want = {
      NodeSpdySettings(),
      NodeSpdyReply(1, "/first"),
      SpdyDataIR{1, "hello from node-spdy: /first\n", false},
      SpdyDataIR{1, "", true},
      NodeSpdyReply(3, "/second?x=1"),
      SpdyDataIR{3, "hello from node-spdy: /second?x=1\n", false},
      SpdyDataIR{3, "", true},
  };
  for (size_t piece : {1, 5, 4096}) {
    EXPECT_EQ(Decode("node_spdy_server_to_client.bin", piece), want)
        << "piece " << piece;
  }
}

TEST(SpdyInteropTest, NodeSpdyUnderstoodOurFrames) {
  // What we sent (built by spdy_interop_request_main.cc).
  std::vector<SpdyFrameIR> request = Decode("netstack_request.bin", 4096);
  ASSERT_EQ(request.size(), 4u);
  EXPECT_EQ(FrameType(request[1]), SpdyFrameType::kSynStream);
  EXPECT_EQ(std::get<SpdySynStreamIR>(request[2]).headers.at(":path"),
            "/second-from-netstack?y=2");

  // node-spdy's answer: a reply per request echoing its path and our
  // user-agent, and our PING echoed.
  auto reply = [](SpdyStreamId id, const std::string& path) {
    SpdySynReplyIR r;
    r.stream_id = id;
    r.headers = {{":status", "200 OK"},
                 {":version", "HTTP/1.1"},
                 {"x-request-path", path},
                 {"x-user-agent", "netstack-spdy-framer"}};
    return r;
  };
  std::vector<SpdyFrameIR> want = {
      NodeSpdySettings(),
      reply(1, "/from-netstack"),
      SpdyDataIR{1, "GET /from-netstack\n", false},
      SpdyDataIR{1, "", true},
      SpdyPingIR{1},
      reply(3, "/second-from-netstack?y=2"),
      SpdyDataIR{3, "GET /second-from-netstack?y=2\n", false},
      SpdyDataIR{3, "", true},
  };
  EXPECT_EQ(Decode("node_spdy_reply_to_netstack.bin", 3), want);
}

}  // namespace
}  // namespace net
