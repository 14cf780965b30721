// Writes to stdout the bytes a netstack SPDY/3 client sends to open a
// session and make two GET requests (SETTINGS, SYN_STREAM 1, SYN_STREAM 3,
// PING 1), built by SpdyFramer. testdata/capture_node_spdy_reply.js sends
// them to a node-spdy server and records its answer, so
// spdy_interop_unittest.cc can show that node-spdy understood our frames
// (header compression included: the second block depends on the first).
//
//   bazel run //net/spdy:interop_request >
//   net/spdy/testdata/netstack_request.bin

#include <cstdio>
#include <string>
#include <vector>

#include "net/spdy/spdy_framer.h"

int main() {
  net::SpdyFramer framer;
  net::SpdySettingsIR settings;
  settings.entries = {
      {0, static_cast<uint32_t>(net::SpdySettingsId::kMaxConcurrentStreams),
       100},
      {0, static_cast<uint32_t>(net::SpdySettingsId::kInitialWindowSize),
       65536}};
  net::SpdySynStreamIR first;
  first.stream_id = 1;
  first.priority = 0;
  first.fin = true;
  first.headers = {{":method", "GET"},
                   {":path", "/from-netstack"},
                   {":version", "HTTP/1.1"},
                   {":host", "example.test"},
                   {":scheme", "http"},
                   {"accept", "*/*"},
                   {"user-agent", "netstack-spdy-framer"}};
  net::SpdySynStreamIR second = first;
  second.stream_id = 3;
  second.priority = 3;
  second.headers[":path"] = "/second-from-netstack?y=2";
  std::string out;
  for (const net::SpdyFrameIR& frame : std::vector<net::SpdyFrameIR>{
           settings, first, second, net::SpdyPingIR{1}}) {
    auto bytes = framer.SerializeFrame(frame);
    if (!bytes.ok()) {
      std::fprintf(stderr, "%s\n", bytes.status().ToString().c_str());
      return 1;
    }
    out += *bytes;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
