// The test server's SPDY/3 (--spdy) against our client SpdySession over real
// TLS on loopback, in one process: routes over streams, 20 concurrent
// streams and 1 MB both ways on one connection, two origins pooled on one
// session each with its own OBC (the second through a CREDENTIAL frame whose
// proof the server verifies), channel-bound cookies accepted per origin and
// refused when copied to the other, INVALID_CREDENTIALS for an origin
// without a credential (and success on a direct connection to it), a
// corrupted proof answered with GOAWAY and reported as
// ERR_SPDY_GOAWAY_ERROR, and the /spdy/goaway and /spdy/rst/N routes.

#include <openssl/sha.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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
#include "tools/testserver/channel_bound_cookie.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";  // SNI of every connection
constexpr char kPooledHost[] = "localhost";   // also in the certificate

std::string Generated(size_t n) {
  static const std::string kPattern =
      "netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n";
  std::string out;
  while (out.size() < n) out += kPattern;
  out.resize(n);
  return out;
}

// Runs the loop until |done()| or |timeout|.
template <typename Pred>
bool TestSpdySessionRunUntil(Pred done,
                             absl::Duration timeout = absl::Seconds(10)) {
  TimeTicks deadline = TimeTicks::Now() + timeout;
  while (!done() && TimeTicks::Now() < deadline) {
    EventLoop::Current()->PostDelayedTask(absl::Milliseconds(2),
                                          [] { EventLoop::Current()->Quit(); });
    EventLoop::Current()->Run();
  }
  return done();
}

ClientCert CopyCert(const ClientCert& from) {
  ClientCert cert;
  cert.cert_der = from.cert_der;
  EVP_PKEY_up_ref(from.key.get());
  cert.key.reset(from.key.get());
  return cert;
}

ClientCert NewObc() {
  absl::StatusOr<ObcKeyMaterial> m =
      MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now());
  EXPECT_TRUE(m.ok());
  ClientCert cert;
  cert.cert_der = m->cert_der;
  cert.key = std::move(m->key);
  return cert;
}

// Presents one fixed certificate whatever the origin.
class FixedCertProvider : public ClientCertProvider {
 public:
  explicit FixedCertProvider(const ClientCert& cert) : cert_(CopyCert(cert)) {}
  int GetClientCert(const Origin&, ClientCert* cert, CompletionOnceCallback,
                    std::unique_ptr<Request>*) override {
    *cert = CopyCert(cert_);
    return OK;
  }

 private:
  ClientCert cert_;
};

struct Result {
  int error = ERR_IO_PENDING;
  int status = 0;
  SpdyHeaderBlock headers;
  std::string body;
  SpdyStream* stream = nullptr;
};

class SpdyServerTest : public ::testing::Test {
 protected:
  void StartServer(SpdyServerConfig spdy = SpdyServerConfig(),
                   absl::Duration idle_timeout = absl::Seconds(60)) {
    TestServerConfig config;
    config.idle_timeout = idle_timeout;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
    config.ssl.key_file = "cert/testdata/good_leaf.key";
    config.request_client_cert = true;
    config.spdy = spdy;
    config.quiet = true;
    log_path_ = absl::StrCat(
        ::testing::TempDir(), "/spdy_server_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name(),
        ".jsonl");
    std::remove(log_path_.c_str());
    config.log_file = log_path_;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->bound()[0].second.port();
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = std::move(*verifier);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
  }

  Origin OriginOf(const std::string& host) {
    return Origin("https", host, port_);
  }

  // A TLS connection to the server with SNI |sni| that negotiated spdy/3,
  // presenting |cert| in the handshake (null: none).
  std::unique_ptr<SSLClientSocket> ConnectTls(const ClientCert* cert,
                                              const std::string& sni) {
    auto tcp = std::make_unique<TCPClientSocket>(
        IPEndPoint(IPAddress::IPv4Localhost(), port_), absl::Seconds(5));
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(tcp->Connect(cb.callback())));
    SSLConfig ssl_config;
    ssl_config.alpn_protos = {"spdy/3", "http/1.1"};
    ssl_config.session_resumption_enabled = false;
    if (cert) {
      providers_.push_back(std::make_unique<FixedCertProvider>(*cert));
      ssl_config.client_cert_provider = providers_.back().get();
    }
    auto ssl = std::make_unique<SSLClientSocket>(std::move(tcp), sni, port_,
                                                 ssl_config, context_.get());
    EXPECT_EQ(OK, cb.GetResult(ssl->Connect(cb.callback())));
    EXPECT_EQ("spdy/3", ssl->ssl_info().alpn);
    return ssl;
  }

  // A SPDY session to the server with SNI |sni|, presenting |cert| in the
  // handshake (null: none). |exporter_override| replaces the exporter.
  std::unique_ptr<SpdySession> Connect(
      const ClientCert* cert, const std::string& sni = kHost,
      SpdyKeyingMaterialExporter exporter_override = nullptr) {
    std::unique_ptr<SSLClientSocket> ssl = ConnectTls(cert, sni);
    SSLClientSocket* raw = ssl.get();
    SpdySessionParams params;
    params.origin = OriginOf(sni);
    if (cert) params.handshake_cert_der = cert->cert_der;
    params.export_keying_material =
        exporter_override
            ? exporter_override
            : [raw](absl::string_view label, size_t length, std::string* out) {
                out->assign(length, '\0');
                return raw->ExportKeyingMaterial(
                    label, kSpdyCredentialExporterHasContext, "",
                    reinterpret_cast<uint8_t*>(out->data()), length);
              };
    auto session = std::make_unique<SpdySession>(std::move(ssl), params);
    session->Start();
    return session;
  }

  // Starts a request; Finish() completes it.
  std::unique_ptr<SpdyStream> Start(
      SpdySession* session, const std::string& host, const std::string& path,
      const ClientCert* cert = nullptr, const std::string& cookie = "",
      std::string body = "", TestCompletionCallback* sent = nullptr) {
    SpdyStreamParams params;
    params.origin = OriginOf(host);
    params.client_cert = cert;
    std::unique_ptr<SpdyStream> stream;
    EXPECT_EQ(OK, session->CreateStream(params, &stream));
    if (!stream) return nullptr;
    std::vector<std::pair<std::string, std::string>> headers;
    if (!cookie.empty()) headers.emplace_back("cookie", cookie);
    int rv = stream->SendRequest(
        MakeSpdyRequestHeaders(
            body.empty() ? "GET" : "POST",
            *Url::Parse(absl::StrCat("https://", host, ":", port_, path)),
            headers),
        std::move(body),
        sent ? sent->callback() : CompletionOnceCallback([](int) {}));
    EXPECT_TRUE(rv == ERR_IO_PENDING || rv == OK) << ErrorToShortString(rv);
    return stream;
  }

  static Result Finish(SpdyStream* stream) {
    Result r;
    r.stream = stream;
    TestCompletionCallback cb;
    r.error = cb.GetResult(stream->ReadResponseHeaders(cb.callback()));
    if (r.error != OK) return r;
    r.headers = stream->response_headers();
    r.status = SpdyResponseStatus(r.headers);
    auto buf = std::make_shared<IOBuffer>(16384);
    for (;;) {
      int n = cb.GetResult(stream->ReadBody(buf, 16384, cb.callback()));
      if (n <= 0) {
        r.error = n;
        break;
      }
      r.body.append(buf->data(), n);
    }
    return r;
  }

  Result Get(SpdySession* session, const std::string& host,
             const std::string& path, const ClientCert* cert = nullptr,
             const std::string& cookie = "") {
    auto stream = Start(session, host, path, cert, cookie);
    Result r = Finish(stream.get());
    r.stream = nullptr;
    return r;
  }

  static std::string Header(const Result& r, const std::string& name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? "" : it->second;
  }

  // The obc_session=... part of a Set-Cookie value.
  static std::string CookieFrom(const Result& r) {
    std::string set_cookie = Header(r, "set-cookie");
    return set_cookie.substr(0, set_cookie.find(';'));
  }

  std::string Log() {
    std::ifstream in(log_path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  EventLoop loop_;
  std::unique_ptr<TestServer> server_;
  uint16_t port_ = 0;
  std::unique_ptr<CertVerifier> verifier_;
  std::unique_ptr<SSLClientContext> context_;
  std::vector<std::unique_ptr<FixedCertProvider>> providers_;
  std::string log_path_;
};

TEST_F(SpdyServerTest, ServesRoutesOverSpdy) {
  StartServer();
  ClientCert obc = NewObc();
  auto session = Connect(&obc);
  Result r = Get(session.get(), kHost, "/size/100000");
  ASSERT_EQ(OK, r.error) << ErrorToShortString(r.error);
  EXPECT_EQ(200, r.status);
  EXPECT_EQ("HTTP/1.1", Header(r, ":version"));
  EXPECT_EQ("100000", Header(r, "content-length"));
  EXPECT_TRUE(r.body == Generated(100000));
  EXPECT_EQ(HexEncode(*SpkiSha256(obc.cert_der)),
            Header(r, "x-obc-spki-sha256"));
  Result tls = Get(session.get(), kHost, "/tls");
  EXPECT_TRUE(absl::StrContains(tls.body, "\"spdy\":true")) << tls.body;
  EXPECT_TRUE(absl::StrContains(tls.body, "\"alpn\":\"spdy/3\""));
  EXPECT_TRUE(
      absl::StrContains(tls.body, "\"server_name\":\"www.example.test\""));
  Result missing = Get(session.get(), kHost, "/chunked/0");
  EXPECT_EQ(200, missing.status);
  EXPECT_EQ("", missing.body);
  EXPECT_TRUE(absl::StrContains(Log(), "\"proto\":\"spdy/3\""));
  EXPECT_EQ(1, server_->full_handshakes());
}

TEST_F(SpdyServerTest, TwentyConcurrentStreamsAndOneMegabyteBothWays) {
  StartServer();
  auto session = Connect(nullptr);
  std::vector<std::unique_ptr<SpdyStream>> streams;
  for (int i = 0; i < 20; ++i) {
    streams.push_back(
        Start(session.get(), kHost, absl::StrCat("/size/", 1000 + 7919 * i)));
  }
  // A 1 MB download and a 1 MB upload alongside.
  auto download = Start(session.get(), kHost, "/size/1048576");
  std::string upload_body = Generated(1 << 20);
  upload_body[12345] = 'X';
  TestCompletionCallback uploaded;
  auto upload = Start(session.get(), kHost, "/spdy/upload", nullptr, "",
                      upload_body, &uploaded);
  EXPECT_EQ(22u, session->active_streams());
  for (int i = 0; i < 20; ++i) {
    Result r = Finish(streams[i].get());
    ASSERT_EQ(OK, r.error) << i;
    EXPECT_EQ(static_cast<SpdyStreamId>(1 + 2 * i), streams[i]->stream_id());
    EXPECT_TRUE(r.body == Generated(1000 + 7919 * i)) << i;
  }
  Result big = Finish(download.get());
  EXPECT_EQ(OK, big.error);
  EXPECT_TRUE(big.body == Generated(1 << 20));
  EXPECT_EQ(OK, uploaded.WaitForResult());
  Result up = Finish(upload.get());
  uint8_t digest[32];
  SHA256(reinterpret_cast<const uint8_t*>(upload_body.data()),
         upload_body.size(), digest);
  EXPECT_EQ(
      absl::StrCat("{\"bytes\":1048576,\"sha256\":\"",
                   HexEncode(std::string(reinterpret_cast<char*>(digest), 32)),
                   "\"}\n"),
      up.body);
  EXPECT_GT(session->stats().window_updates_sent, 10u);
  EXPECT_EQ(1, server_->full_handshakes());
}

// Two origins on one session, each with its own OBC: www.example.test's in
// the TLS handshake, localhost's through a CREDENTIAL frame (slot 2).
TEST_F(SpdyServerTest, PooledOriginsEachWithItsOwnObc) {
  StartServer();
  ClientCert obc_www = NewObc();
  ClientCert obc_local = NewObc();
  std::string spki_www = HexEncode(*SpkiSha256(obc_www.cert_der));
  std::string spki_local = HexEncode(*SpkiSha256(obc_local.cert_der));
  auto session = Connect(&obc_www);

  Result login_www = Get(session.get(), kHost, "/obc/login", &obc_www);
  ASSERT_EQ(200, login_www.status) << login_www.body;
  EXPECT_EQ(spki_www, Header(login_www, "x-obc-spki-sha256"));
  EXPECT_EQ("0", Header(login_www, "x-spdy-credential-slot"));

  auto login_local_stream =
      Start(session.get(), kPooledHost, "/obc/login", &obc_local);
  Result login_local = Finish(login_local_stream.get());
  ASSERT_EQ(200, login_local.status) << login_local.body;
  EXPECT_EQ(spki_local, Header(login_local, "x-obc-spki-sha256"));
  EXPECT_EQ("2", Header(login_local, "x-spdy-credential-slot"));
  EXPECT_EQ(2, login_local_stream->credential_slot());
  EXPECT_TRUE(login_local_stream->sent_credential());

  std::string cookie_www = CookieFrom(login_www);
  std::string cookie_local = CookieFrom(login_local);
  ASSERT_TRUE(absl::StartsWith(cookie_www, "obc_session="));
  // Each cookie is accepted for its own origin...
  Result whoami_www =
      Get(session.get(), kHost, "/obc/whoami", &obc_www, cookie_www);
  EXPECT_EQ(200, whoami_www.status) << whoami_www.body;
  Result whoami_local =
      Get(session.get(), kPooledHost, "/obc/whoami", &obc_local, cookie_local);
  EXPECT_EQ(200, whoami_local.status) << whoami_local.body;
  // ...and refused when copied to the other one, on the same connection.
  Result stolen =
      Get(session.get(), kPooledHost, "/obc/whoami", &obc_local, cookie_www);
  EXPECT_EQ(403, stolen.status);
  EXPECT_EQ("mismatch", Header(stolen, "x-obc-cookie"));
  Result stolen_back =
      Get(session.get(), kHost, "/obc/whoami", &obc_www, cookie_local);
  EXPECT_EQ(403, stolen_back.status);

  // The server verified one proof and holds both certificates.
  Result creds = Get(session.get(), kHost, "/spdy/credentials");
  EXPECT_EQ(absl::StrCat("{\"slots\":8,\"verified\":1,\"credentials\":[",
                         "{\"slot\":1,\"obc_spki_sha256\":\"", spki_www,
                         "\"},{\"slot\":2,\"obc_spki_sha256\":\"", spki_local,
                         "\"}]}\n"),
            creds.body);
  EXPECT_EQ(1u, session->stats().credentials_sent);
  EXPECT_TRUE(absl::StrContains(Log(), "\"result\":\"verified\""));
  EXPECT_EQ(1, server_->full_handshakes());
}

TEST_F(SpdyServerTest, InvalidCredentialsThenDirectConnection) {
  SpdyServerConfig spdy;
  spdy.require_credentials = true;
  StartServer(spdy);
  ClientCert obc_www = NewObc();
  auto pooled = Connect(&obc_www);
  EXPECT_EQ(200, Get(pooled.get(), kHost, "/size/10", &obc_www).status);
  // localhost on www's session with no certificate of its own: refused.
  Result refused = Get(pooled.get(), kPooledHost, "/size/10");
  EXPECT_EQ(ERR_SPDY_INVALID_CREDENTIALS, refused.error);
  EXPECT_TRUE(IsSpdyRetryableError(refused.error));
  EXPECT_TRUE(pooled->IsAvailable());
  // The retry on a direct connection to localhost, whose handshake
  // presents localhost's OBC, is served.
  ClientCert obc_local = NewObc();
  auto direct = Connect(&obc_local, kPooledHost);
  Result retried = Get(direct.get(), kPooledHost, "/size/10", &obc_local);
  EXPECT_EQ(OK, retried.error);
  EXPECT_EQ(200, retried.status);
  EXPECT_EQ(HexEncode(*SpkiSha256(obc_local.cert_der)),
            Header(retried, "x-obc-spki-sha256"));
  EXPECT_TRUE(absl::StrContains(Log(), "\"rst\":\"INVALID_CREDENTIALS\""));
}

TEST_F(SpdyServerTest, CorruptedProofGetsGoAway) {
  StartServer();
  ClientCert obc_www = NewObc();
  ClientCert obc_local = NewObc();
  // An exporter that lies: the proof signs other bytes than the server's
  // keying material.
  auto session = Connect(
      &obc_www, kHost, [](absl::string_view, size_t length, std::string* out) {
        out->assign(length, '\x42');
        return OK;
      });
  EXPECT_EQ(200, Get(session.get(), kHost, "/size/10", &obc_www).status);
  Result r = Get(session.get(), kPooledHost, "/size/10", &obc_local);
  EXPECT_EQ(ERR_SPDY_GOAWAY_ERROR, r.error) << ErrorToShortString(r.error);
  ASSERT_TRUE(TestSpdySessionRunUntil(
      [&] { return session->state() == SpdySession::State::kClosed; }));
  EXPECT_EQ(ERR_SPDY_GOAWAY_ERROR, session->error());
  std::string log = Log();
  EXPECT_TRUE(absl::StrContains(log, "\"result\":\"rejected\"")) << log;
  EXPECT_TRUE(absl::StrContains(log, "\"status\":\"PROTOCOL_ERROR\""));
}

TEST_F(SpdyServerTest, GoAwayAndResetRoutes) {
  StartServer();
  auto session = Connect(nullptr);
  Result rst = Get(session.get(), kHost, "/spdy/rst/10");
  EXPECT_EQ(ERR_SPDY_INVALID_CREDENTIALS, rst.error);
  rst = Get(session.get(), kHost, "/spdy/rst/3");
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM, rst.error);
  Result bye = Get(session.get(), kHost, "/spdy/goaway");
  EXPECT_EQ(200, bye.status);
  ASSERT_TRUE(TestSpdySessionRunUntil(
      [&] { return session->state() == SpdySession::State::kClosed; }));
  ASSERT_TRUE(session->received_goaway().has_value());
  EXPECT_EQ(5u, session->received_goaway()->last_good_stream_id);
  std::unique_ptr<SpdyStream> late;
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM,
            session->CreateStream(SpdyStreamParams(), &late));
}

// What a raw SPDY client (no WINDOW_UPDATE, no PING: nothing after its
// request) hears from the server.
struct RawClientVisitor : SpdyDeframerVisitorInterface {
  void OnError(SpdyDeframerError error, const std::string& detail) override {
    deframer_error = absl::StrCat(ToString(error), ": ", detail);
  }
  void OnSynReply(const SpdySynReplyIR& frame) override {
    if (frame.stream_id == 1) {
      replied = true;
      fin |= frame.fin;
    }
  }
  void OnStreamFrameData(SpdyStreamId stream_id,
                         absl::string_view data) override {
    if (stream_id == 1) body.append(data.data(), data.size());
  }
  void OnStreamEnd(SpdyStreamId stream_id) override {
    if (stream_id == 1) fin = true;
  }
  void OnRstStream(const SpdyRstStreamIR& frame) override {
    rst = frame.status;
  }
  void OnGoAway(const SpdyGoAwayIR& frame) override { goaway = frame; }

  std::string deframer_error;
  bool replied = false;
  bool fin = false;
  std::string body;
  std::optional<SpdyRstStreamStatus> rst;
  std::optional<SpdyGoAwayIR> goaway;
};

// Runs the event loop (the server's too) for |d|.
void RunFor(absl::Duration d) {
  EventLoop::Current()->PostDelayedTask(d,
                                        [] { EventLoop::Current()->Quit(); });
  EventLoop::Current()->Run();
}

// A body that takes several idle timeouts to deliver, to a client that
// reads it slowly and sends nothing meanwhile (its SETTINGS opened the
// window wide, so no WINDOW_UPDATE is due): the server's writes make
// progress, so the session is not idle and the body arrives whole. Once it
// has, the session is truly idle and gets its GOAWAY.
TEST_F(SpdyServerTest, SlowReaderOfLongBodyIsNotIdle) {
  // The timeout must exceed the longest stall between two writes, which
  // is TCP's (the writer waits until about half the send buffer, several
  // MB on loopback, has drained); the body, several of those buffers.
  const absl::Duration kIdle = absl::Seconds(1);
  constexpr size_t kBodySize = 24 << 20;
  StartServer(SpdyServerConfig(), kIdle);
  std::unique_ptr<SSLClientSocket> ssl = ConnectTls(nullptr, kHost);
  ASSERT_TRUE(ssl);
  SpdyFramer framer;
  SpdySettingsIR settings;
  settings.entries = {
      {0, static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize),
       0x7fffffff}};
  SpdySynStreamIR syn;
  syn.stream_id = 1;
  syn.fin = true;
  syn.headers = {{":method", "GET"},
                 {":path", absl::StrCat("/size/", kBodySize)},
                 {":version", "HTTP/1.1"},
                 {":host", absl::StrCat(kHost, ":", port_)},
                 {":scheme", "https"}};
  absl::StatusOr<std::string> settings_bytes = framer.SerializeFrame(settings);
  absl::StatusOr<std::string> syn_bytes = framer.SerializeFrame(syn);
  ASSERT_TRUE(settings_bytes.ok() && syn_bytes.ok());
  auto request =
      std::make_shared<DrainableIOBuffer>(*settings_bytes + *syn_bytes);
  TestCompletionCallback cb;
  while (request->BytesRemaining() > 0) {
    int rv = cb.GetResult(ssl->Write(
        request, static_cast<int>(request->BytesRemaining()), cb.callback()));
    ASSERT_GT(rv, 0) << ErrorToShortString(rv);
    request->DidConsume(rv);
  }

  RawClientVisitor heard;
  SpdyDeframer deframer(&heard);
  auto buf = std::make_shared<IOBuffer>(16384);
  TimeTicks start = TimeTicks::Now();
  while (!heard.fin && !heard.goaway && heard.deframer_error.empty() &&
         TimeTicks::Now() - start < absl::Seconds(60)) {
    int n = cb.GetResult(ssl->Read(buf, 16384, cb.callback()));
    ASSERT_GT(n, 0) << ErrorToShortString(n) << " after " << heard.body.size()
                    << " body bytes";
    deframer.ProcessInput(absl::string_view(buf->data(), n));
    RunFor(absl::Milliseconds(2));
  }
  absl::Duration took = TimeTicks::Now() - start;
  EXPECT_EQ("", heard.deframer_error);
  EXPECT_FALSE(heard.goaway.has_value()) << "GOAWAY after " << took;
  EXPECT_TRUE(heard.replied);
  EXPECT_TRUE(heard.fin);
  EXPECT_EQ(kBodySize, heard.body.size());
  EXPECT_TRUE(heard.body == Generated(kBodySize));
  // The test means something only if the transfer outlasted the timeout.
  EXPECT_GT(took, 2 * kIdle);
  EXPECT_FALSE(absl::StrContains(Log(), "\"reason\":\"idle\""));

  // Now nothing moves either way: GOAWAY (OK) after the idle timeout
  // (counted from the server's last write, which the client read late).
  start = TimeTicks::Now();
  while (!heard.goaway && TimeTicks::Now() - start < absl::Seconds(10)) {
    int n = cb.GetResult(ssl->Read(buf, 16384, cb.callback()));
    if (n <= 0) break;
    deframer.ProcessInput(absl::string_view(buf->data(), n));
  }
  ASSERT_TRUE(heard.goaway.has_value());
  EXPECT_EQ(SpdyGoAwayStatus::kOk, heard.goaway->status);
  EXPECT_TRUE(absl::StrContains(Log(), "\"reason\":\"idle\"")) << Log();
  EXPECT_EQ(1u, server_->timed_out_connections());
}

// A session with nothing to do after its first request gets GOAWAY (OK)
// after the idle timeout.
TEST_F(SpdyServerTest, IdleSessionGetsGoAway) {
  StartServer(SpdyServerConfig(), absl::Milliseconds(200));
  auto session = Connect(nullptr);
  EXPECT_EQ(200, Get(session.get(), kHost, "/size/10").status);
  ASSERT_TRUE(TestSpdySessionRunUntil(
      [&] { return session->received_goaway().has_value(); }));
  EXPECT_EQ(SpdyGoAwayStatus::kOk, session->received_goaway()->status);
  EXPECT_TRUE(absl::StrContains(Log(), "\"reason\":\"idle\"")) << Log();
  EXPECT_EQ(1u, server_->timed_out_connections());
}

// A DATA frame the server's framer refuses to build (here: longer than
// the framer's max_frame_length) resets that stream with INTERNAL_ERROR,
// logged, rather than skipping the frame and leaving a hole in the body;
// the session goes on serving the others.
TEST_F(SpdyServerTest, DataFrameSerializationFailureResetsStream) {
  SpdyServerConfig spdy;
  spdy.framer_limits.max_frame_length = 1024;
  StartServer(spdy);
  auto session = Connect(nullptr);
  Result big = Get(session.get(), kHost, "/size/5000");
  EXPECT_NE(OK, big.error);
  EXPECT_NE(Generated(5000), big.body);
  std::string log = Log();
  EXPECT_TRUE(absl::StrContains(log, "\"event\":\"spdy_error\"")) << log;
  EXPECT_TRUE(absl::StrContains(log, "\"rst\":\"INTERNAL_ERROR\"")) << log;
  // Small frames still fit: the session serves on.
  Result small = Get(session.get(), kHost, "/size/100");
  EXPECT_EQ(OK, small.error) << ErrorToShortString(small.error);
  EXPECT_EQ(200, small.status);
  EXPECT_TRUE(small.body == Generated(100));
  EXPECT_TRUE(session->IsAvailable());
}

}  // namespace
}  // namespace net
