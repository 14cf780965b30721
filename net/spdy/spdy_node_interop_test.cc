// SpdySession against a real SPDY/3 peer, node-spdy (npm spdy@4.0.2 on the
// machine's Node.js; ../shared/PEERS.md), started by this test from
// testdata/node_spdy_peer.js and stopped by PID whatever happens. Over TLS
// with ALPN spdy/3 and in plain mode: 20 concurrent requests over one
// connection with the right bodies, a 1 MB body each way through flow
// control, a GOAWAY and a RST_STREAM handled, PING. In plain mode the bytes
// of a session that sends every frame type we send (SETTINGS, SYN_STREAM,
// DATA, WINDOW_UPDATE, PING, RST_STREAM, CREDENTIAL, GOAWAY) are written to
// a pcap file (as a TCP connection) and dissected by tshark, which must
// name each of them and report no error.
//
// The test fails, naming the peer, if node, the spdy module or tshark is
// missing (tools/setup.sh installs all three).

#include <fcntl.h>
#include <openssl/sha.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/obc_crypto.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/tcp_client_socket.h"
#include "net/spdy/spdy_session.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_client_socket.h"

namespace net {
namespace {

constexpr char kPeerName[] = "node-spdy (npm spdy@4.0.2)";

std::string Generated(size_t n) {
  static const std::string kPattern =
      "netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n";
  std::string out;
  out.reserve(n + kPattern.size());
  while (out.size() < n) out += kPattern;
  out.resize(n);
  return out;
}

std::string Hex(const uint8_t* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[p[i] >> 4]);
    out.push_back(kDigits[p[i] & 15]);
  }
  return out;
}

// FindProgram returns the path of |name| on PATH (and the usual places), or
// "".
std::string FindProgram(const std::string& name) {
  std::string path = getenv("PATH") ? getenv("PATH") : "";
  path += ":/usr/bin:/usr/local/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    if (dir.empty()) continue;
    std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// NodeSpdyPeer runs node_spdy_peer.js and stops it (by PID) when
// destroyed. Its stdin is a pipe we hold, so node also exits if this
// process dies.
class NodeSpdyPeer {
 public:
  ~NodeSpdyPeer() { Stop(); }

  // Start returns "" or why the peer could not start.
  std::string Start() {
    std::string node = FindProgram("node");
    if (node.empty())
      return absl::StrCat(kPeerName,
                          ": Node.js (node) is not installed; run "
                          "tools/setup.sh");
    std::string node_path;
    if (const char* env = getenv("NETSTACK_NODE_PATH")) node_path = env;
    node_path += ":/usr/lib/node_modules:/usr/local/lib/node_modules";
    int out[2], err[2], in[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        pipe2(in, O_CLOEXEC) != 0)
      return "pipe failed";
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      setenv("NODE_PATH", node_path.c_str(), 1);
      setenv("NODE_NO_WARNINGS", "1", 1);
      execl(node.c_str(), "node", "net/spdy/testdata/node_spdy_peer.js",
            "cert/testdata/good_leaf.key", "cert/testdata/good_leaf_chain.pem",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    stdin_fd_ = in[1];
    err_fd_ = err[0];
    // The ports, within 10 s.
    std::string line;
    pollfd p{out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos) {
      if (poll(&p, 1, 10000) <= 0) break;
      char buf[256];
      ssize_t n = read(out[0], buf, sizeof(buf));
      if (n <= 0) break;
      line.append(buf, n);
    }
    close(out[0]);
    std::smatch m;
    std::regex re("\"tls\":(\\d+),\"plain\":(\\d+)");
    if (!std::regex_search(line, m, re)) {
      std::string why = ReadStderr();
      Stop();
      return absl::StrCat(kPeerName, " did not start (", why,
                          why.find("not installed") != std::string::npos
                              ? "; run tools/setup.sh"
                              : "",
                          ")");
    }
    tls_port_ = static_cast<uint16_t>(std::stoi(m[1]));
    plain_port_ = static_cast<uint16_t>(std::stoi(m[2]));
    return "";
  }

  void Stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (stdin_fd_ >= 0) close(stdin_fd_);
    if (err_fd_ >= 0) close(err_fd_);
    stdin_fd_ = err_fd_ = -1;
  }

  uint16_t tls_port() const { return tls_port_; }
  uint16_t plain_port() const { return plain_port_; }

 private:
  std::string ReadStderr() {
    std::string out;
    pollfd p{err_fd_, POLLIN, 0};
    while (poll(&p, 1, 500) > 0) {
      char buf[512];
      ssize_t n = read(err_fd_, buf, sizeof(buf));
      if (n <= 0) break;
      out.append(buf, n);
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int err_fd_ = -1;
  uint16_t tls_port_ = 0;
  uint16_t plain_port_ = 0;
};

// RecordingSocket passes everything to the socket it wraps and keeps the
// bytes of each direction, in order, for the pcap.
class RecordingSocket : public StreamSocket {
 public:
  struct Segment {
    bool from_client;
    std::string bytes;
  };
  RecordingSocket(std::unique_ptr<StreamSocket> inner,
                  std::vector<Segment>* segments)
      : inner_(std::move(inner)), segments_(segments) {}

  int Connect(CompletionOnceCallback cb) override {
    return inner_->Connect(std::move(cb));
  }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback cb) override {
    int rv =
        inner_->Read(buf, len, [this, buf, cb = std::move(cb)](int rv) mutable {
          Record(false, buf.get(), rv);
          cb(rv);
        });
    if (rv != ERR_IO_PENDING) Record(false, buf.get(), rv);
    return rv;
  }
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback cb) override {
    int rv = inner_->Write(buf, len,
                           [this, buf, cb = std::move(cb)](int rv) mutable {
                             Record(true, buf.get(), rv);
                             cb(rv);
                           });
    if (rv != ERR_IO_PENDING) Record(true, buf.get(), rv);
    return rv;
  }
  void Disconnect() override { inner_->Disconnect(); }
  bool IsConnected() const override { return inner_->IsConnected(); }
  bool IsConnectedAndIdle() const override {
    return inner_->IsConnectedAndIdle();
  }
  int GetPeerAddress(IPEndPoint* a) const override {
    return inner_->GetPeerAddress(a);
  }
  int GetLocalAddress(IPEndPoint* a) const override {
    return inner_->GetLocalAddress(a);
  }

 private:
  void Record(bool from_client, IOBuffer* buf, int rv) {
    if (rv > 0)
      segments_->push_back({from_client, std::string(buf->data(), rv)});
  }
  std::unique_ptr<StreamSocket> inner_;
  std::vector<RecordingSocket::Segment>* segments_;
};

// WritePcap writes |segments| as one TCP connection 127.0.0.1:50000 ->
// 127.0.0.1:|server_port| (three-way handshake, then the data in segments
// of at most 1400 bytes, each acknowledging the other side), Ethernet
// link type.
bool WritePcap(const std::string& file,
               const std::vector<RecordingSocket::Segment>& segments,
               uint16_t server_port) {
  std::string out;
  auto u32le = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  };
  auto u16le = [&](uint16_t v) {
    out.push_back(static_cast<char>(v));
    out.push_back(static_cast<char>(v >> 8));
  };
  u32le(0xa1b2c3d4);
  u16le(2);
  u16le(4);
  u32le(0);
  u32le(0);
  u32le(65535);
  u32le(1);                        // LINKTYPE_ETHERNET
  uint32_t seq[2] = {1000, 9000};  // client, server
  uint32_t usec = 0;
  auto packet = [&](bool from_client, uint8_t flags, absl::string_view data) {
    std::string p;
    auto be16 = [&](uint16_t v) {
      p.push_back(static_cast<char>(v >> 8));
      p.push_back(static_cast<char>(v));
    };
    auto be32 = [&](uint32_t v) {
      for (int i = 3; i >= 0; --i) p.push_back(static_cast<char>(v >> (8 * i)));
    };
    // Ethernet.
    p += std::string(from_client ? "\x02\0\0\0\0\x02" : "\x02\0\0\0\0\x01", 6);
    p += std::string(from_client ? "\x02\0\0\0\0\x01" : "\x02\0\0\0\0\x02", 6);
    be16(0x0800);
    // IPv4.
    size_t ip_start = p.size();
    p.push_back(0x45);
    p.push_back(0);
    be16(static_cast<uint16_t>(20 + 20 + data.size()));
    be16(0);
    be16(0x4000);
    p.push_back(64);
    p.push_back(6);
    be16(0);  // checksum, below
    be32(0x7f000001);
    be32(0x7f000001);
    uint32_t sum = 0;
    for (size_t i = ip_start; i < ip_start + 20; i += 2)
      sum += (static_cast<uint8_t>(p[i]) << 8) | static_cast<uint8_t>(p[i + 1]);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    p[ip_start + 10] = static_cast<char>(~sum >> 8);
    p[ip_start + 11] = static_cast<char>(~sum);
    // TCP.
    int me = from_client ? 0 : 1;
    be16(from_client ? 50000 : server_port);
    be16(from_client ? server_port : 50000);
    be32(seq[me]);
    be32((flags & 0x10) ? seq[1 - me] : 0);
    p.push_back(0x50);
    p.push_back(static_cast<char>(flags));
    be16(65535);
    be16(0);
    be16(0);
    p.append(data.data(), data.size());
    seq[me] += data.size() + ((flags & 0x02) ? 1 : 0);
    u32le(1);
    u32le(usec += 100);
    u32le(static_cast<uint32_t>(p.size()));
    u32le(static_cast<uint32_t>(p.size()));
    out += p;
  };
  packet(true, 0x02, "");   // SYN
  packet(false, 0x12, "");  // SYN-ACK
  packet(true, 0x10, "");   // ACK
  for (const auto& s : segments) {
    absl::string_view rest = s.bytes;
    while (!rest.empty()) {
      size_t n = std::min<size_t>(rest.size(), 1400);
      packet(s.from_client, 0x18, rest.substr(0, n));  // PSH, ACK
      rest.remove_prefix(n);
    }
  }
  std::ofstream f(file, std::ios::binary);
  f << out;
  return static_cast<bool>(f);
}

// RunCommand runs |argv| and returns its stdout, and its exit status in
// |*status|.
std::string RunCommand(const std::vector<std::string>& argv, int* status) {
  std::string cmd;
  for (const std::string& a : argv) absl::StrAppend(&cmd, "'", a, "' ");
  cmd += "2>/dev/null";  // tshark warns about running as root
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) {
    *status = -1;
    return "";
  }
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  *status = pclose(f);
  return out;
}

struct Result {
  int error = ERR_IO_PENDING;
  int status = 0;
  std::string body;
};

// Runs the loop until |done()| or 20 s.
template <typename Pred>
bool RunUntil(Pred done) {
  TimeTicks deadline = TimeTicks::Now() + absl::Seconds(20);
  while (!done() && TimeTicks::Now() < deadline) {
    EventLoop::Current()->PostDelayedTask(absl::Milliseconds(2),
                                          [] { EventLoop::Current()->Quit(); });
    EventLoop::Current()->Run();
  }
  return done();
}

enum class Mode { kTls, kPlain };

class SpdyNodeInteropTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    std::string why = peer_.Start();
    ASSERT_EQ("", why);
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
  }

  uint16_t port() const {
    return GetParam() == Mode::kTls ? peer_.tls_port() : peer_.plain_port();
  }
  std::string scheme() const {
    return GetParam() == Mode::kTls ? "https" : "http";
  }

  std::unique_ptr<SpdySession> Connect(
      std::vector<RecordingSocket::Segment>* record = nullptr,
      SpdySessionParams params = SpdySessionParams()) {
    std::unique_ptr<StreamSocket> socket = std::make_unique<TCPClientSocket>(
        IPEndPoint(IPAddress::IPv4Localhost(), port()), absl::Seconds(5));
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(socket->Connect(cb.callback())));
    if (record)
      socket = std::make_unique<RecordingSocket>(std::move(socket), record);
    if (GetParam() == Mode::kTls) {
      SSLConfig config;
      config.alpn_protos = {"spdy/3"};
      auto ssl = std::make_unique<SSLClientSocket>(std::move(socket),
                                                   "www.example.test", port(),
                                                   config, context_.get());
      EXPECT_EQ(OK, cb.GetResult(ssl->Connect(cb.callback())));
      EXPECT_EQ("spdy/3", ssl->ssl_info().alpn) << kPeerName;
      socket = std::move(ssl);
    }
    params.origin = Origin(scheme(), "www.example.test", port());
    auto session = std::make_unique<SpdySession>(std::move(socket), params);
    session->Start();
    return session;
  }

  std::unique_ptr<SpdyStream> Start(
      SpdySession* session, const std::string& path, std::string body = "",
      const ClientCert* cert = nullptr,
      const std::string& host = "www.example.test") {
    SpdyStreamParams params;
    params.origin = Origin(scheme(), host, port());
    params.client_cert = cert;
    std::unique_ptr<SpdyStream> stream;
    EXPECT_EQ(OK, session->CreateStream(params, &stream));
    if (!stream) return nullptr;
    sends_.push_back(std::make_unique<TestCompletionCallback>());
    int rv = stream->SendRequest(
        MakeSpdyRequestHeaders(
            body.empty() ? "GET" : "POST",
            *Url::Parse(absl::StrCat(scheme(), "://", host, ":", port(), path)),
            {{"user-agent", "netstack"}}),
        std::move(body), sends_.back()->callback());
    EXPECT_TRUE(rv == ERR_IO_PENDING || rv == OK);
    return stream;
  }

  static Result Finish(SpdyStream* stream) {
    Result r;
    TestCompletionCallback cb;
    r.error = cb.GetResult(stream->ReadResponseHeaders(cb.callback()));
    if (r.error != OK) return r;
    r.status = SpdyResponseStatus(stream->response_headers());
    auto buf = std::make_shared<IOBuffer>(16384);
    for (;;) {
      int n = cb.GetResult(stream->ReadBody(buf, 16384, cb.callback()));
      if (n <= 0) {
        r.error = n;
        return r;
      }
      r.body.append(buf->data(), n);
    }
  }

  EventLoop loop_;
  NodeSpdyPeer peer_;
  std::unique_ptr<CertVerifier> verifier_;
  std::unique_ptr<SSLClientContext> context_;
  std::vector<std::unique_ptr<TestCompletionCallback>> sends_;
};

TEST_P(SpdyNodeInteropTest, TwentyConcurrentRequestsOnOneConnection) {
  auto session = Connect();
  std::vector<std::unique_ptr<SpdyStream>> streams;
  for (int i = 0; i < 20; ++i)
    streams.push_back(
        Start(session.get(), absl::StrCat("/size/", 1 + 4999 * i)));
  RunUntil([&] {
    return session->active_streams() == 20 || streams[19]->stream_id();
  });
  for (int i = 0; i < 20; ++i) {
    Result r = Finish(streams[i].get());
    ASSERT_EQ(OK, r.error) << kPeerName << " stream " << i << ": "
                           << ErrorToShortString(r.error);
    EXPECT_EQ(200, r.status);
    EXPECT_EQ(static_cast<SpdyStreamId>(1 + 2 * i), streams[i]->stream_id());
    EXPECT_TRUE(r.body == Generated(1 + 4999 * i)) << "stream " << i;
  }
  EXPECT_EQ(20u, session->stats().streams_started);
  EXPECT_TRUE(session->IsAvailable());
  // node-spdy's SETTINGS arrived (INITIAL_WINDOW_SIZE 1 MB, with a persist
  // flag we ignore safely).
  EXPECT_EQ(1u << 20, session->peer_initial_window());
}

TEST_P(SpdyNodeInteropTest, OneMegabyteEachWayThroughFlowControl) {
  auto session = Connect();
  auto download = Start(session.get(), "/size/1048576");
  // Read slowly: the stream never holds more than its 64 KB window.
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(download->ReadResponseHeaders(cb.callback())));
  std::string got;
  size_t max_buffered = 0;
  auto buf = std::make_shared<IOBuffer>(8192);
  for (;;) {
    max_buffered = std::max(max_buffered, download->buffered_body_bytes());
    int n = cb.GetResult(download->ReadBody(buf, 8192, cb.callback()));
    ASSERT_GE(n, 0) << kPeerName << ": " << ErrorToShortString(n);
    if (n == 0) break;
    got.append(buf->data(), n);
  }
  EXPECT_TRUE(got == Generated(1 << 20)) << got.size();
  EXPECT_LE(max_buffered, 65536u);
  EXPECT_GE(session->stats().window_updates_sent, 15u);
  // Upload: node-spdy's window is 1 MB, so 3 MB needs its WINDOW_UPDATEs.
  std::string body = Generated(3 << 20);
  body[777] = '#';
  auto upload = Start(session.get(), "/echo", body);
  Result r = Finish(upload.get());
  ASSERT_EQ(OK, r.error) << kPeerName << ": " << ErrorToShortString(r.error);
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(body.data()), body.size(), digest);
  EXPECT_EQ(absl::StrCat("{\"bytes\":3145728,\"sha256\":\"",
                         Hex(digest, sizeof(digest)), "\"}"),
            r.body);
  EXPECT_EQ(OK, sends_.back()->WaitForResult());
  EXPECT_GT(
      session->stats().frames_received.count(SpdyFrameType::kWindowUpdate), 0u);
}

TEST_P(SpdyNodeInteropTest, RstStreamAndGoAway) {
  auto session = Connect();
  // RST_STREAM REFUSED_STREAM from node-spdy: retryable, session fine.
  auto rst = Start(session.get(), "/rst");
  Result r = Finish(rst.get());
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM, r.error) << kPeerName;
  r = Finish(Start(session.get(), "/after-rst").get());
  EXPECT_EQ(OK, r.error);
  EXPECT_EQ("path=/after-rst", r.body);
  // PING.
  TestCompletionCallback ping;
  ASSERT_EQ(ERR_IO_PENDING, session->Ping(ping.callback()));
  EXPECT_EQ(OK, ping.WaitForResult()) << kPeerName;
  EXPECT_GT(session->last_ping_rtt(), absl::ZeroDuration());
  // GOAWAY with last good = the /goaway stream: it is answered, the one
  // sent right behind it is refused (retry elsewhere), no new streams.
  auto goaway = Start(session.get(), "/goaway");
  auto behind = Start(session.get(), "/behind");
  r = Finish(goaway.get());
  EXPECT_EQ(OK, r.error) << kPeerName;
  EXPECT_EQ("going away", r.body);
  Result refused = Finish(behind.get());
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM, refused.error)
      << ErrorToShortString(refused.error);
  ASSERT_TRUE(session->received_goaway().has_value());
  EXPECT_EQ(goaway->stream_id(),
            session->received_goaway()->last_good_stream_id);
  std::unique_ptr<SpdyStream> late;
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM,
            session->CreateStream(SpdyStreamParams(), &late));
  EXPECT_TRUE(RunUntil(
      [&] { return session->state() == SpdySession::State::kClosed; }));
}

INSTANTIATE_TEST_SUITE_P(Modes, SpdyNodeInteropTest,
                         ::testing::Values(Mode::kTls, Mode::kPlain),
                         [](const auto& info) {
                           return info.param == Mode::kTls ? "Tls" : "Plain";
                         });

// Plain mode, recorded and dissected by tshark.
class SpdyTsharkTest : public SpdyNodeInteropTest {};

TEST_P(SpdyTsharkTest, TsharkDissectsEveryFrameTypeWeSend) {
  std::string tshark = FindProgram("tshark");
  ASSERT_FALSE(tshark.empty())
      << "tshark is not installed (Debian tshark; tools/setup.sh installs it)";
  std::vector<RecordingSocket::Segment> segments;
  // A made-up exporter, so that plain mode sends a CREDENTIAL as well
  // (node-spdy ignores type 10).
  SpdySessionParams params;
  params.export_keying_material = [](absl::string_view, size_t length,
                                     std::string* out) {
    out->assign(length, '\x33');
    return OK;
  };
  auto session = Connect(&segments, params);
  // SYN_STREAM + DATA (an upload), WINDOW_UPDATE (a download).
  EXPECT_EQ(OK,
            Finish(Start(session.get(), "/echo", Generated(5000)).get()).error);
  EXPECT_EQ(OK, Finish(Start(session.get(), "/size/200000").get()).error);
  // PING.
  TestCompletionCallback ping;
  session->Ping(ping.callback());
  EXPECT_EQ(OK, ping.WaitForResult());
  // CREDENTIAL before a SYN_STREAM naming slot 1 (no handshake certificate:
  // the first slot is free).
  absl::StatusOr<ObcKeyMaterial> m =
      MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now());
  ASSERT_TRUE(m.ok());
  ClientCert cert;
  cert.cert_der = m->cert_der;
  cert.key = std::move(m->key);
  auto with_cert =
      Start(session.get(), "/pooled", "", &cert, "other.example.test");
  EXPECT_EQ(OK, Finish(with_cert.get()).error);
  EXPECT_EQ(1, with_cert->credential_slot());
  // RST_STREAM CANCEL: a stream dropped before its answer.
  auto cancelled = Start(session.get(), "/size/3000000");
  ASSERT_TRUE(RunUntil([&] {
    return cancelled->stream_id() != 0 && cancelled->buffered_body_bytes() > 0;
  }));
  cancelled.reset();
  // GOAWAY, written before the session closes.
  bool closed = false;
  session->set_on_closed([&](SpdySession*) { closed = true; });
  session->GoAway();
  ASSERT_TRUE(RunUntil([&] { return closed; }));
  for (SpdyFrameType type :
       {SpdyFrameType::kSettings, SpdyFrameType::kSynStream,
        SpdyFrameType::kData, SpdyFrameType::kWindowUpdate,
        SpdyFrameType::kPing, SpdyFrameType::kRstStream,
        SpdyFrameType::kCredential, SpdyFrameType::kGoAway}) {
    EXPECT_GT(session->stats().frames_sent.count(type), 0u) << ToString(type);
  }

  // Kept among the test's outputs (bazel-testlogs/.../outputs.zip).
  const char* outputs = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  std::string pcap = absl::StrCat(
      outputs ? outputs : ::testing::TempDir().c_str(), "/spdy_plain.pcap");
  ASSERT_TRUE(WritePcap(pcap, segments, port()));
  int status = 0;
  const std::string decode = absl::StrCat("tcp.port==", port(), ",spdy");
  // One line per packet we sent: the SPDY frames tshark found in it
  // ("CREDENTIAL, SYN_STREAM"), and whether it found anything malformed.
  std::string out =
      RunCommand({tshark, "-n", "-r", pcap, "-d", decode, "-Y",
                  "tcp.srcport==50000 && spdy", "-T", "fields", "-e",
                  "_ws.col.Info", "-e", "spdy.slot", "-e", "_ws.malformed"},
                 &status);
  ASSERT_EQ(0, status) << out;
  std::map<std::string, uint64_t> dissected;
  bool slot_one = false;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    fields.resize(3);
    for (absl::string_view name :
         absl::StrSplit(fields[0], ", ", absl::SkipEmpty()))
      ++dissected[std::string(name.substr(0, name.find(' ')))];
    for (absl::string_view slot :
         absl::StrSplit(fields[1], ',', absl::SkipEmpty()))
      if (slot == "1") slot_one = true;
    EXPECT_TRUE(fields[2].empty()) << "malformed: " << line;
  }
  // Every frame we sent, of every type, and nothing else.
  std::map<std::string, uint64_t> sent;
  for (const auto& [type, count] : session->stats().frames_sent)
    sent[ToString(type)] = count;
  EXPECT_EQ(sent, dissected) << out;
  EXPECT_EQ(8u, dissected.size()) << out;
  EXPECT_TRUE(slot_one) << out;
  // No expert error in our direction. (node-spdy ends each response with an
  // empty DATA frame with FIN, on which Wireshark 4.0's SPDY dissector trips
  // an assertion of its own; that is the server's direction.)
  std::string expert = RunCommand({tshark, "-n", "-r", pcap, "-d", decode, "-q",
                                   "-z", "expert,error,tcp.srcport==50000"},
                                  &status);
  EXPECT_EQ(0, status) << expert;
  EXPECT_EQ(std::string::npos, expert.find("Errors")) << expert;
}

INSTANTIATE_TEST_SUITE_P(Plain, SpdyTsharkTest, ::testing::Values(Mode::kPlain),
                         [](const auto&) { return "Plain"; });

}  // namespace
}  // namespace net
