#include "tools/testserver/test_server.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cert/obc/ssl_client_cert.h"
#include "net/base/event_loop.h"
#include "net/base/weak_ptr.h"
#include "net/session_cache/session_cache.h"
#include "net/snap_start/client_hello_router.h"
#include "net/snap_start/snap_start_server_socket.h"
#include "net/socket/prefixed_stream_socket.h"
#include "net/ssl/ssl_server_socket.h"
#include "net/timing/load_timing.h"
#include "tools/testserver/ech_keys.h"
#include "tools/testserver/http2_server_session.h"
#include "tools/testserver/routes.h"
#include "tools/testserver/spdy_server_session.h"

namespace net {
namespace {

constexpr size_t kMaxRequestHeaders = 64 * 1024;
// Reads of a request head: small, since idle connections hold one.
constexpr int kReadSize = 4 * 1024;
// The listen backlog: a burst of connections waits here, not in SYN retries.
constexpr int kListenBacklog = 1024;

double Ms(absl::Duration d) { return absl::ToDoubleMilliseconds(d); }

// --request-client-cert: any client certificate is acceptable, self-signed
// included; it is an identity (origin-bound certificate), not a credential
// checked against a CA. Clients that send none are accepted too.
ssl_verify_result_t AcceptAnyClientCertificate(SSL*, uint8_t*) {
  return ssl_verify_ok;
}

}  // namespace

struct TestServer::Listener {
  std::string scheme;
  IPEndPoint address;
  TCPServerSocket socket;
  std::unique_ptr<StreamSocket> accepted;
};

// One accepted connection: optional TLS handshake, then requests until the
// client closes or asks to.
class TestServer::Connection {
 public:
  Connection(TestServer* server, std::unique_ptr<StreamSocket> transport,
             bool tls, SSLServerContext* ssl_context, const std::string& local)
      : server_(server),
        id_(server->NextConnectionId()),
        tls_(tls),
        local_(local) {
    IPEndPoint peer;
    transport->GetPeerAddress(&peer);
    peer_ = peer.ToString();
    // Read at accept: whether the connection's SYN carried data this server
    // took (passive TCP Fast Open).
    const TcpFastOpenInfo tfo = transport->GetTcpFastOpenInfo();
    tfo_ = tfo.outcome == TcpFastOpenOutcome::kAccepted;
    tfo_bytes_ = tfo.syn_data_bytes;
    ssl_context_ = ssl_context;
    if (tls) {
      transport_ = std::move(transport);
    } else {
      socket_ = std::move(transport);
    }
  }

  ~Connection() {
    // An HTTP/2 connection still open when the server stops: its line.
    if (h2_) LogConnection();
  }

  void Start() {
    if (!tls_) {
      ArmDeadline(server_->config().idle_timeout, "idle");
      ReadRequest();
      return;
    }
    // Routing the ClientHello and the handshake, together.
    ArmDeadline(server_->config().handshake_timeout, "handshake");
    SnapStartServerContext* snap = server_->snap_start_context();
    // With ECH keys the ClientHello is read first too: its server_name is
    // the outer one, which BoringSSL no longer reports once it decrypted.
    if (!snap && !server_->config().ech) {
      StartHandshake(ClientHelloRouter::Route::kOther, std::move(transport_),
                     std::string());
      return;
    }
    if (server_->config().snap_start_core_only) {
      StartHandshake(ClientHelloRouter::Route::kSnapStartCore,
                     std::move(transport_), std::string());
      return;
    }
    // Every ClientHello is looked at first: one with the Snap Start
    // extension stays in net/snap_start, any other goes to BoringSSL as is.
    router_ = std::make_unique<ClientHelloRouter>(
        std::move(transport_),
        [this](ClientHelloRouter::Route route,
               std::unique_ptr<StreamSocket> transport, std::string bytes) {
          StartHandshake(route, std::move(transport), std::move(bytes));
        });
    router_->Start();
  }

 private:
  void StartHandshake(ClientHelloRouter::Route route,
                      std::unique_ptr<StreamSocket> transport,
                      std::string bytes) {
    if (closed_) return;  // timed out while routing: |transport| closes
    if (server_->config().ech) outer_sni_ = ClientHelloServerName(bytes);
    int rv;
    if (route == ClientHelloRouter::Route::kSnapStartCore &&
        server_->snap_start_context()) {
      auto snap = std::make_unique<SnapStartServerSocket>(
          std::move(transport), std::move(bytes),
          server_->snap_start_context());
      snap_ = snap.get();
      socket_ = std::move(snap);
      rv = snap_->Handshake([this](int rv) { OnHandshake(rv); });
    } else {
      if (!bytes.empty()) {
        transport = std::make_unique<PrefixedStreamSocket>(std::move(transport),
                                                           std::move(bytes));
      }
      auto ssl =
          std::make_unique<SSLServerSocket>(std::move(transport), ssl_context_);
      ssl_ = ssl.get();
      socket_ = std::move(ssl);
      rv = ssl_->Handshake([this](int rv) { OnHandshake(rv); });
    }
    if (rv != ERR_IO_PENDING) OnHandshake(rv);
  }

  // The handshake facts, from whichever TLS stack took the connection.
  const SSLInfo& info() const {
    return snap_ ? snap_->ssl_info() : ssl_->ssl_info();
  }
  const std::string& error_detail() const {
    return snap_ ? snap_->error_detail() : ssl_->error_detail();
  }
  TimeTicks handshake_start() const {
    return snap_ ? snap_->handshake_start() : ssl_->handshake_start();
  }
  TimeTicks handshake_end() const {
    return snap_ ? snap_->handshake_end() : ssl_->handshake_end();
  }
  // Snap Start fields for the log lines, "" when not involved.
  std::string SnapStartLogFields() const {
    std::string out =
        absl::StrCat(",\"stack\":\"", snap_ ? "snap_start" : "boringssl", "\"");
    const SSLInfo& i = info();
    if (i.snap_start != SnapStartOutcome::kNone) {
      absl::StrAppend(
          &out, ",\"snap_start\":\"", SnapStartOutcomeToString(i.snap_start),
          "\",\"snap_start_detail\":\"", JsonEscape(i.snap_start_detail), "\"");
    }
    return out;
  }

  // ECH fields for the log lines (BoringSSL connections): whether the
  // server decrypted an inner ClientHello, and the names inside and out.
  // Without ECH keys (or when ECH was not accepted) the only name there is
  // is the outer one.
  std::string EchLogFields() const {
    if (!ssl_) return "";
    const bool accepted = info().ech == EchOutcome::kAccepted;
    const std::string name = ssl_->server_name();
    return absl::StrCat(
        ",\"ech_accepted\":", accepted ? "true" : "false", ",\"sni_inner\":",
        accepted ? absl::StrCat("\"", JsonEscape(name), "\"") : "null",
        ",\"sni_outer\":\"",
        JsonEscape(server_->config().ech ? outer_sni_ : name), "\"");
  }

  // Early data fields for the log lines (BoringSSL connections): a client
  // whose 0-RTT was rejected abandons the connection, so the
  // handshake_failed line says so too.
  std::string EarlyDataLogFields() const {
    if (!ssl_) return "";
    const SSLInfo& i = info();
    return absl::StrCat(
        ",\"early_data\":\"", EarlyDataStateToString(i.early_data),
        "\",\"early_data_reason\":\"", JsonEscape(i.early_data_reason), "\"");
  }

  void OnHandshake(int rv) {
    if (closed_) return;
    if (rv != OK) {
      server_->Log(absl::StrCat(
          "{\"event\":\"handshake_failed\",\"conn\":", id_, ",\"local\":\"",
          local_, "\",\"peer\":\"", peer_, "\",\"error\":\"",
          ErrorToShortString(rv), "\",\"detail\":\"",
          JsonEscape(error_detail()), "\"", SnapStartLogFields(),
          EarlyDataLogFields(), EchLogFields(), "}"));
      Close();
      return;
    }
    server_->OnHandshake(info().resumed);
    ArmDeadline(server_->config().idle_timeout, "idle");
    if (snap_) {
      ReadRequest();
      return;
    }
    // A resumed session carries the certificate of the handshake that made
    // it, so the identity is the same either way.
    absl::StatusOr<std::string> spki =
        PeerLeafSpkiSha256FromSession(ssl_->session());
    if (spki.ok()) {
      obc_spki_ = *spki;
      obc_spki_hex_ = HexEncode(*spki);
    }
    if (server_->config().spdy && info().alpn == "spdy/3") {
      StartSpdy();
      return;
    }
    if (server_->config().http2 && info().alpn == "h2") {
      StartHttp2();
      return;
    }
    ReadRequest();
  }

  // HTTP/2 takes the connection over (http2_server_session.h), with its own
  // timers. The connection's log line is written when the session ends, so
  // that it can say how many streams the connection carried.
  void StartHttp2() {
    deadline_.Stop();
    Http2ServerConnectionInfo h2_info;
    h2_info.conn_id = id_;
    h2_info.ssl_info = info();
    h2_info.server_name = ssl_->server_name();
    h2_info.handshake_obc_spki = obc_spki_;
    SSLServerSocket* ssl = ssl_;  // outlives h2_ (declared before it)
    h2_info.in_early_data = [ssl] { return ssl->in_early_data(); };
    h2_info.next_connect = [server = server_, ssl](const std::string& value) {
      return server->NextConnectNote(ssl->session(), value);
    };
    h2_ = std::make_unique<Http2ServerSession>(server_, socket_.get(),
                                               std::move(h2_info), [this] {
                                                 LogConnection();
                                                 Close();
                                               });
    h2_->Start();
  }

  // SPDY/3 takes the connection over (spdy_server_session.h); it keeps its
  // own idle timer.
  void StartSpdy() {
    deadline_.Stop();
    LogConnection();
    SpdyServerConnectionInfo spdy_info;
    spdy_info.conn_id = id_;
    spdy_info.ssl_info = info();
    spdy_info.server_name = ssl_->server_name();
    spdy_info.handshake_obc_spki = obc_spki_;
    SSLServerSocket* ssl = ssl_;  // outlives spdy_ (declared before it)
    spdy_info.export_keying_material = [ssl](absl::string_view label,
                                             size_t length, std::string* out) {
      out->assign(length, '\0');
      return ssl->ExportKeyingMaterial(
          label, kSpdyCredentialExporterHasContext, "",
          reinterpret_cast<uint8_t*>(out->data()), length);
    };
    spdy_ = std::make_unique<SpdyServerSession>(
        server_, socket_.get(), std::move(spdy_info), [this] { Close(); });
    spdy_->Start();
  }

  void LogConnection() {
    if (logged_connection_) return;
    logged_connection_ = true;
    std::string line = absl::StrCat(
        "{\"event\":\"connection\",\"conn\":", id_, ",\"scheme\":\"",
        tls_ ? "https" : "http", "\",\"local\":\"", local_, "\",\"peer\":\"",
        peer_, "\"", ",\"tfo\":", tfo_ ? "true" : "false");
    if (tfo_) absl::StrAppend(&line, ",\"tfo_syn_bytes\":", tfo_bytes_);
    if (tls_) {
      const SSLInfo& info = this->info();
      absl::StrAppend(
          &line, ",\"handshake\":\"", info.resumed ? "resumed" : "full",
          "\",\"version\":\"", info.version, "\",\"cipher\":\"", info.cipher,
          "\",\"group\":\"", info.group, "\",\"alpn\":\"", info.alpn, "\"",
          absl::StrFormat(",\"handshake_ms\":%.3f",
                          Ms(handshake_end() - handshake_start())),
          ",\"app_data_with_finished\":",
          (ssl_ ? ssl_->app_data_with_finished()
                : info.snap_start == SnapStartOutcome::kAccepted)
              ? "true"
              : "false",
          SnapStartLogFields());
      line += EarlyDataLogFields();
      line += EchLogFields();
      if (!info.cert_compression.algorithm.empty()) {
        absl::StrAppend(
            &line, ",\"cert_compression\":{\"algorithm\":\"",
            info.cert_compression.algorithm,
            "\",\"compressed_bytes\":", info.cert_compression.compressed_bytes,
            ",\"uncompressed_bytes\":",
            info.cert_compression.uncompressed_bytes, "}");
      }
      if (server_->config().request_client_cert || !obc_spki_hex_.empty()) {
        absl::StrAppend(&line, ",\"obc_spki_sha256\":",
                        obc_spki_hex_.empty()
                            ? "null"
                            : absl::StrCat("\"", obc_spki_hex_, "\""));
      }
      if (h2_ && first_data_.is_null()) first_data_ = h2_->first_read();
      if (!first_data_.is_null()) {
        absl::StrAppend(
            &line, absl::StrFormat(",\"first_data_after_handshake_ms\":%.3f",
                                   Ms(first_data_ - handshake_end())));
      }
      if (h2_) {
        // Pooling tests count streams per connection here.
        absl::StrAppend(
            &line, ",\"streams\":", h2_->streams(), ",\"h2_end\":\"",
            JsonEscape(h2_->done() ? h2_->end_reason() : "server stopped"),
            "\"");
      }
    }
    line += "}";
    server_->Log(line);
  }

  void ReadRequest() {
    auto buf = std::make_shared<IOBuffer>(kReadSize);
    int rv =
        socket_->Read(buf, kReadSize, [this, buf](int rv) { OnRead(buf, rv); });
    if (rv != ERR_IO_PENDING) OnRead(buf, rv);
  }

  void OnRead(const std::shared_ptr<IOBuffer>& buf, int rv) {
    if (closed_) return;
    if (rv <= 0) {
      LogConnection();
      Close();
      return;
    }
    if (first_data_.is_null()) first_data_ = TimeTicks::Now();
    // Bytes read before the client's Finished were sent as 0-RTT early data.
    if (ssl_ && ssl_->in_early_data()) request_in_early_data_ = true;
    // A request's head must be complete request_timeout after its first
    // byte, however slowly the rest trickles in (slowloris).
    if (pending_.empty())
      ArmDeadline(server_->config().request_timeout, "request");
    pending_.append(buf->data(), rv);
    size_t end = pending_.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (pending_.size() > kMaxRequestHeaders) {
        Respond(431, "Request Header Fields Too Large", "text/plain",
                "headers too large\n", false, "", "");
        return;
      }
      ReadRequest();
      return;
    }
    std::string head = pending_.substr(0, end);
    pending_.erase(0, end + 4);
    LogConnection();
    deadline_.Stop();  // until the response starts (after any --delay-ms)
    HandleRequest(head);
  }

  void HandleRequest(const std::string& head) {
    std::vector<std::string> lines = absl::StrSplit(head, "\r\n");
    std::vector<std::string> parts = absl::StrSplit(lines[0], ' ');
    if (parts.size() != 3 || !absl::StartsWith(parts[2], "HTTP/1.")) {
      Respond(400, "Bad Request", "text/plain", "bad request line\n", false,
              "?", "?");
      return;
    }
    const std::string& method = parts[0];
    const std::string& path = parts[1];
    bool keep_alive = parts[2] == "HTTP/1.1";
    int64_t request_body = 0;
    next_connect_note_.clear();
    obc_note_.clear();
    dbsc_note_.clear();
    request_fields_.clear();
    request_cookie_.clear();
    for (size_t i = 1; i < lines.size(); ++i) {
      size_t colon = lines[i].find(':');
      if (colon == std::string::npos) continue;
      std::string name = absl::AsciiStrToLower(lines[i].substr(0, colon));
      std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
      request_fields_.emplace_back(name, value);
      if (name == "connection") {
        std::string v = absl::AsciiStrToLower(value);
        if (v == "close") keep_alive = false;
        if (v == "keep-alive") keep_alive = true;
      } else if (name == "content-length") {
        absl::SimpleAtoi(value, &request_body);
      } else if (name == "x-next-connect") {
        NoteNextConnect(value);
      } else if (name == "cookie") {
        absl::StrAppend(&request_cookie_, request_cookie_.empty() ? "" : "; ",
                        value);
      }
    }
    // Request bodies are discarded (nothing here accepts uploads).
    if (request_body > 0) {
      size_t drop = std::min<size_t>(pending_.size(), request_body);
      pending_.erase(0, drop);
    }
    // DBSC registrations and refreshes are (empty) POSTs.
    const bool dbsc_post = method == "POST" && absl::StartsWith(path, "/dbsc/");
    if (method != "GET" && method != "HEAD" && !dbsc_post) {
      Respond(405, "Method Not Allowed", "text/plain", "only GET and HEAD\n",
              keep_alive, method, path);
      return;
    }
    bool head_only = method == "HEAD";
    auto respond = [=, weak = weak_factory_.GetWeakPtr()] {
      if (weak) weak->Route(method, path, keep_alive, head_only);
    };
    if (server_->config().delay > absl::ZeroDuration()) {
      delay_timer_.Start(server_->config().delay, respond);
    } else {
      respond();
    }
  }

  // X-Next-Connect: SECONDS from now (TestServer::NextConnectNote).
  void NoteNextConnect(const std::string& value) {
    next_connect_note_ = server_->NextConnectNote(
        tls_ && ssl_ ? ssl_->session() : nullptr, value);
  }

  // Channel-bound cookies (see test_server.h; routes.h). Returns true if
  // it answered.
  bool RouteObc(const std::string& method, const std::string& path,
                const std::string& raw_path, bool keep_alive, bool head_only) {
    ObcRequest request;
    request.path = path;
    request.cookie_header = request_cookie_;
    request.spki = obc_spki_;
    request.spki_owner = "this connection's OBC";
    request.login_without_obc = absl::StrCat(
        "no origin-bound certificate on this connection: nothing to bind a "
        "session to",
        server_->config().request_client_cert
            ? ""
            : " (start the server with --request-client-cert)",
        "\n");
    ObcResult obc =
        RouteChannelBound(server_->channel_bound_cookies(), request);
    if (!obc.cookie.empty()) {
      obc_note_ = absl::StrCat(",\"obc_cookie\":\"", obc.cookie, "\"");
      if (obc.cookie == "no_obc" || obc.cookie == "mismatch") {
        absl::StrAppend(&obc_note_, ",\"obc_cookie_bound_to\":\"",
                        obc.bound_to_hex, "\"");
      }
    }
    if (!obc.response) return false;
    const RouteResponse& r = *obc.response;
    if (!r.set_cookie.empty())
      response_headers_ = absl::StrCat("Set-Cookie: ", r.set_cookie, "\r\n");
    Respond(r.status, ReasonPhrase(r.status), r.content_type, r.body,
            keep_alive, method, raw_path, head_only);
    return true;
  }

  // Device bound sessions (dbsc_server.h). Returns true if it answered.
  bool RouteDbsc(const std::string& method, const std::string& path,
                 const std::string& raw_path, bool keep_alive, bool head_only) {
    DbscRequest request{method, path};
    request.tls = tls_;
    request.cookie_header = request_cookie_;
    for (const auto& [name, value] : request_fields_) {
      if (name == "host") request.host = value;
      if (name == "x-forwarded-proto") request.forwarded_proto = value;
      if (name == "secure-session-response") request.session_response = value;
      if (name == "sec-secure-session-id") request.session_id = value;
      if (name == "authorization") request.authorization = value;
      if (name == "secure-session-skipped") request.skipped = value;
    }
    std::optional<DbscResponse> r = server_->dbsc()->Handle(request);
    if (!r) return false;
    dbsc_note_ = r->log;
    for (const auto& [name, value] : r->headers)
      absl::StrAppend(&response_headers_, name, ": ", value, "\r\n");
    Respond(r->status, ReasonPhrase(r->status), r->content_type, r->body,
            keep_alive, method, raw_path, head_only);
    return true;
  }

  void Route(const std::string& method, const std::string& raw_path,
             bool keep_alive, bool head_only) {
    std::string path = raw_path.substr(0, raw_path.find('?'));
    if (RouteDbsc(method, path, raw_path, keep_alive, head_only)) return;
    if (RouteObc(method, path, raw_path, keep_alive, head_only)) return;
    int64_t n = 0;
    bool chunked = false;
    if (ParseGeneratedPath(path, &n, &chunked)) {
      RespondGenerated("application/octet-stream", n, chunked, keep_alive,
                       method, raw_path, head_only);
      return;
    }
    if (path == "/snap-start") {
      std::optional<std::string> json = server_->SnapStartJson();
      if (!json) {
        Respond(404, "Not Found", "text/plain", "Snap Start is off\n",
                keep_alive, method, raw_path, head_only);
        return;
      }
      Respond(200, "OK", "application/json", *json, keep_alive, method,
              raw_path, head_only);
      return;
    }
    if (path == "/session-cache") {
      std::optional<std::string> json = server_->SessionCacheJson();
      if (!json) {
        Respond(404, "Not Found", "text/plain", "no external session cache\n",
                keep_alive, method, raw_path, head_only);
        return;
      }
      Respond(200, "OK", "application/json", *json, keep_alive, method,
              raw_path, head_only);
      return;
    }
    if (path == "/tls") {
      std::string json = "{\"tls\":false}\n";
      if (tls_) {
        const SSLInfo& info = this->info();
        json = absl::StrCat(
            "{\"snap_start\":\"", SnapStartOutcomeToString(info.snap_start),
            "\",\"version\":\"", info.version, "\",\"cipher\":\"", info.cipher,
            "\",\"resumed\":", info.resumed ? "true" : "false", ",\"alpn\":\"",
            info.alpn, "\",\"early_data\":\"", info.early_data,
            "\",\"request_in_early_data\":",
            request_in_early_data_ ? "true" : "false", ",\"conn\":", id_,
            ",\"obc_spki_sha256\":",
            obc_spki_hex_.empty() ? "null"
                                  : absl::StrCat("\"", obc_spki_hex_, "\""),
            "}\n");
      }
      Respond(200, "OK", "application/json", json, keep_alive, method, raw_path,
              head_only);
      return;
    }
    if (std::optional<RouteResponse> named =
            ServeNamedFile(server_->config().files, path)) {
      Respond(named->status, ReasonPhrase(named->status), named->content_type,
              named->body, keep_alive, method, raw_path, head_only);
      return;
    }
    const std::string& docroot = server_->config().docroot;
    if (!docroot.empty()) {
      RouteResponse file = ServeDocroot(docroot, path);
      Respond(file.status, ReasonPhrase(file.status), file.content_type,
              file.body, keep_alive, method, raw_path, head_only);
      return;
    }
    RespondGenerated("text/plain", server_->config().response_size,
                     /*chunked=*/false, keep_alive, method, raw_path,
                     head_only);
  }

  void Respond(int status, const char* reason, const std::string& type,
               const std::string& body, bool keep_alive,
               const std::string& method, const std::string& path,
               bool head_only = false) {
    std::string out = absl::StrCat(
        "HTTP/1.1 ", status, " ", reason, "\r\nServer: netstack-testserver\r\n",
        "Content-Type: ", type, "\r\nContent-Length: ", body.size(), "\r\n",
        ObcHeaders(), keep_alive ? "" : "Connection: close\r\n", "\r\n");
    if (!head_only) out += body;
    LogRequest(method, path, status, body.size());
    Send(std::move(out), keep_alive);
  }

  // RespondGenerated answers with |size| generated bytes, with a
  // Content-Length or chunked, streamed piece by piece (NextPiece).
  void RespondGenerated(const std::string& type, int64_t size, bool chunked,
                        bool keep_alive, const std::string& method,
                        const std::string& path, bool head_only) {
    std::string out = absl::StrCat(
        "HTTP/1.1 200 OK\r\nServer: netstack-testserver\r\n",
        "Content-Type: ", type, "\r\n",
        chunked ? std::string("Transfer-Encoding: chunked\r\n")
                : absl::StrCat("Content-Length: ", size, "\r\n"),
        ObcHeaders(), keep_alive ? "" : "Connection: close\r\n", "\r\n");
    LogRequest(method, path, 200, size);
    if (!head_only) {
      body_offset_ = 0;
      body_remaining_ = size;
      body_chunked_ = chunked;
      body_last_chunk_pending_ = chunked;
    }
    Send(std::move(out), keep_alive);
  }

  // NextPiece puts the next piece of the generated body (at most kBodyPiece
  // bytes, framed as one chunk if chunked) in out_; false when none is left.
  bool NextPiece() {
    if (body_remaining_ == 0 && !body_last_chunk_pending_) return false;
    size_t n = static_cast<size_t>(
        std::min<int64_t>(body_remaining_, static_cast<int64_t>(kBodyPiece)));
    std::string piece;
    piece.reserve(n + 32);
    if (body_chunked_ && n > 0)
      absl::StrAppend(&piece, absl::StrFormat("%x", n), "\r\n");
    AppendGenerated(&piece, body_offset_, n);
    body_offset_ += n;
    body_remaining_ -= n;
    if (body_chunked_) {
      if (n > 0) piece += "\r\n";
      if (body_remaining_ == 0) {
        piece += "0\r\n\r\n";
        body_last_chunk_pending_ = false;
      }
    }
    out_ = std::make_shared<DrainableIOBuffer>(piece);
    return true;
  }

  // X-OBC-SPKI-SHA256 on every response of a connection with an OBC, and a
  // Set-Cookie the route asked for (once).
  std::string ObcHeaders() {
    std::string headers;
    if (!obc_spki_hex_.empty())
      headers = absl::StrCat("X-OBC-SPKI-SHA256: ", obc_spki_hex_, "\r\n");
    headers += response_headers_;
    response_headers_.clear();
    return headers;
  }

  void LogRequest(const std::string& method, const std::string& path,
                  int status, size_t bytes) {
    server_->OnRequest();
    server_->Log(absl::StrCat(
        "{\"event\":\"request\",\"conn\":", id_, ",\"method\":\"",
        JsonEscape(method), "\",\"path\":\"", JsonEscape(path),
        "\",\"status\":", status, ",\"bytes\":", bytes,
        request_in_early_data_ ? ",\"early_data\":true" : "",
        next_connect_note_,
        obc_spki_hex_.empty()
            ? ""
            : absl::StrCat(",\"obc_spki_sha256\":\"", obc_spki_hex_, "\""),
        obc_note_, dbsc_note_, "}"));
    request_in_early_data_ = false;
  }

  void Send(std::string data, bool keep_alive) {
    if (closed_) return;
    keep_alive_ = keep_alive;
    out_ = std::make_shared<DrainableIOBuffer>(data);
    // A client that stops reading is dropped after idle_timeout without
    // progress.
    ArmDeadline(server_->config().idle_timeout, "write");
    DoWrite();
  }

  // DoWrite writes out_ and then the generated body's pieces. It yields to
  // the event loop after kMaxBytesPerTurn, so that one fast reader of a big
  // body does not keep the server from everyone else.
  void DoWrite() {
    if (closed_) return;
    size_t this_turn = 0;
    for (;;) {
      if (out_->BytesRemaining() == 0 && !NextPiece()) break;
      if (this_turn >= kMaxBytesPerTurn) {
        ArmDeadline(server_->config().idle_timeout, "write");
        EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
          if (weak) weak->DoWrite();
        });
        return;
      }
      int rv = socket_->Write(out_, static_cast<int>(out_->BytesRemaining()),
                              [this](int rv) { OnWrite(rv); });
      if (rv == ERR_IO_PENDING) {
        if (this_turn > 0) ArmDeadline(server_->config().idle_timeout, "write");
        return;
      }
      if (rv < 0) {
        Close();
        return;
      }
      out_->DidConsume(rv);
      this_turn += rv;
    }
    AfterResponse();
  }

  void OnWrite(int rv) {
    if (closed_) return;
    if (rv < 0) {
      Close();
      return;
    }
    out_->DidConsume(rv);
    ArmDeadline(server_->config().idle_timeout, "write");
    DoWrite();
  }

  void AfterResponse() {
    out_.reset();
    if (!keep_alive_) {
      Close();
      return;
    }
    // A pipelined request may already be buffered.
    if (pending_.find("\r\n\r\n") != std::string::npos) {
      size_t end = pending_.find("\r\n\r\n");
      std::string head = pending_.substr(0, end);
      pending_.erase(0, end + 4);
      deadline_.Stop();
      HandleRequest(head);
      return;
    }
    if (pending_.empty()) {
      ArmDeadline(server_->config().idle_timeout, "idle");
    } else {
      ArmDeadline(server_->config().request_timeout, "request");
    }
    ReadRequest();
  }

  void ArmDeadline(absl::Duration timeout, const char* phase) {
    deadline_phase_ = phase;
    deadline_armed_ = TimeTicks::Now();
    deadline_.Start(timeout, [this] { OnDeadline(); });
  }

  void OnDeadline() {
    if (closed_) return;
    server_->OnTimeout();
    server_->Log(
        absl::StrCat("{\"event\":\"timeout\",\"conn\":", id_, ",\"phase\":\"",
                     deadline_phase_, "\",\"local\":\"", local_,
                     "\",\"peer\":\"", peer_, "\"",
                     absl::StrFormat(",\"after_ms\":%.0f",
                                     Ms(TimeTicks::Now() - deadline_armed_)),
                     "}"));
    Close();
  }

  // Close is idempotent. The connection is destroyed on a fresh stack (its
  // callbacks may be running); until then every callback sees closed_.
  void Close() {
    if (closed_) return;
    closed_ = true;
    deadline_.Stop();
    delay_timer_.Stop();
    if (socket_) socket_->Disconnect();
    EventLoop::Current()->PostTask(
        [server = server_->GetWeakPtr(), self = this] {
          if (server) server->RemoveConnection(self);
        });
  }

  TestServer* const server_;
  const uint64_t id_;
  const bool tls_;
  const std::string local_;
  std::string peer_;
  std::unique_ptr<StreamSocket> socket_;
  bool tfo_ = false;
  int64_t tfo_bytes_ = 0;
  SSLServerSocket* ssl_ = nullptr;
  SnapStartServerSocket* snap_ = nullptr;
  SSLServerContext* ssl_context_ = nullptr;
  // The TLS transport until a stack takes it, and the router choosing one.
  std::unique_ptr<StreamSocket> transport_;
  std::unique_ptr<ClientHelloRouter> router_;
  // With ECH keys: the server_name of the ClientHello as it came (outer).
  std::string outer_sni_;
  TimeTicks first_data_;
  bool logged_connection_ = false;
  // The current request (or part of it) arrived as TLS 1.3 early data.
  bool request_in_early_data_ = false;
  std::string pending_;
  std::string next_connect_note_;  // for the request's log line
  // The client's OBC: SHA-256 of its certificate's SPKI (raw and hex);
  // empty if it sent none.
  std::string obc_spki_;
  std::string obc_spki_hex_;
  std::string request_cookie_;  // the request's Cookie header(s)
  std::string obc_note_;        // the cookie verdict for the log line
  std::string dbsc_note_;       // DBSC's fields for the log line
  // The request's header fields (lower-case names), for DBSC.
  std::vector<std::pair<std::string, std::string>> request_fields_;
  std::string response_headers_;  // extra header lines for the response
  std::shared_ptr<DrainableIOBuffer> out_;
  bool keep_alive_ = true;
  // The generated body still to send (NextPiece).
  int64_t body_offset_ = 0;
  int64_t body_remaining_ = 0;
  bool body_chunked_ = false;
  bool body_last_chunk_pending_ = false;
  bool closed_ = false;
  // The one deadline in force: handshake, request, idle or write.
  OneShotTimer deadline_;
  const char* deadline_phase_ = "";
  TimeTicks deadline_armed_;
  OneShotTimer delay_timer_;
  // The SPDY/3 session, once ALPN chose spdy/3 (uses socket_).
  std::unique_ptr<SpdyServerSession> spdy_;
  // The HTTP/2 session, once ALPN chose h2 (uses socket_ and ssl_).
  std::unique_ptr<Http2ServerSession> h2_;
  WeakPtrFactory<Connection> weak_factory_{this};
};

std::optional<std::string> TestServer::SnapStartJson() {
  SnapStartServerContext* snap = snap_start_context();
  if (!snap) return std::nullopt;
  auto& c = snap->counters();
  const std::optional<Orbit>& orbit = snap->config().orbit;
  return absl::StrCat(
      "{\"orbit\":\"", orbit ? OrbitToHex(*orbit) : "",
      "\",\"full_handshakes\":", c.full_handshakes.load(),
      ",\"resumed_handshakes\":", c.resumed_handshakes.load(),
      ",\"snap_start_accepted\":", c.snap_start_accepted.load(),
      ",\"snap_start_recovered\":", c.snap_start_recovered.load(),
      ",\"handshakes_failed\":", c.handshakes_failed.load(),
      ",\"tickets_issued\":", c.tickets_issued.load(), ",\"strikes\":",
      snap->strike_register() ? snap->strike_register()->size() : 0, "}\n");
}

std::optional<std::string> TestServer::SessionCacheJson() {
  SSLServerContext* context = ssl_context();
  auto* cache = context ? context->external_session_cache() : nullptr;
  if (!cache) return std::nullopt;
  const SessionCacheConfig& c = cache->config();
  SessionCacheStats st = cache->stats();
  return absl::StrCat(
      "{\"policy\":\"", EvictionPolicyName(c.policy),
      "\",\"capacity\":", c.capacity, ",\"ways\":", c.ways_per_set(),
      ",\"sets\":", cache->set_count(), ",\"shards\":", cache->shard_count(),
      ",\"size\":", cache->size(), ",\"lookups\":", st.lookups,
      ",\"hits\":", st.hits, ",\"inserts\":", st.inserts,
      ",\"updates\":", st.updates, ",\"evictions\":", st.evictions,
      ",\"expired_evictions\":", st.expired_evictions,
      ",\"rejections\":", st.rejections, ",\"removals\":", st.removals, "}\n");
}

std::string TestServer::NextConnectNote(SSL_SESSION* session,
                                        const std::string& value) {
  double seconds = 0;
  if (!absl::SimpleAtod(value, &seconds) || !(seconds >= 0) ||
      seconds > 86400) {
    return ",\"next_connect\":\"bad\"";
  }
  std::optional<SessionIndex::PutOutcome> outcome;
  SSLServerContext* context = ssl_context();
  if (session && context)
    outcome = context->SetNextConnect(session, absl::Seconds(seconds));
  const char* result = "ignored";  // no external cache, or no session ID
  if (outcome) {
    switch (*outcome) {
      case SessionIndex::PutOutcome::kInserted:
        result = "inserted";
        break;
      case SessionIndex::PutOutcome::kUpdated:
        result = "updated";
        break;
      case SessionIndex::PutOutcome::kRejected:
        result = "rejected";
        break;
    }
  }
  return absl::StrFormat(",\"next_connect_s\":%g,\"session_cache\":\"%s\"",
                         seconds, result);
}

int RaiseDescriptorLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > (1u << 30))
    return 1 << 30;
  return static_cast<int>(limit.rlim_cur);
}

TestServer::TestServer(const TestServerConfig& config)
    : config_(config), dbsc_(config.dbsc) {}

TestServer::~TestServer() {
  connections_.clear();
  if (reserve_fd_ >= 0) close(reserve_fd_);
  if (log_) fclose(log_);
}

absl::Status TestServer::Start() {
  if (!config_.log_file.empty()) {
    log_ = fopen(config_.log_file.c_str(), "a");
    if (!log_)
      return absl::NotFoundError(
          absl::StrCat("cannot open log ", config_.log_file));
  }
  if (!config_.https_listen.empty()) {
    // Server preference order: spdy/3 (asked for with --spdy), h2, then the
    // --alpn list (http/1.1).
    auto& alpn = config_.ssl.alpn_protos;
    if (config_.http2 &&
        std::find(alpn.begin(), alpn.end(), "h2") == alpn.end()) {
      alpn.insert(alpn.begin(), "h2");
    }
    if (config_.spdy && std::find(config_.ssl.alpn_protos.begin(),
                                  config_.ssl.alpn_protos.end(),
                                  "spdy/3") == config_.ssl.alpn_protos.end()) {
      config_.ssl.alpn_protos.insert(config_.ssl.alpn_protos.begin(), "spdy/3");
    }
    auto context = SSLServerContext::Create(config_.ssl);
    if (!context.ok()) return context.status();
    ssl_context_ = std::move(*context);
    if (config_.ech &&
        !SSL_CTX_set1_ech_keys(ssl_context_->ssl_ctx(), config_.ech->keys()))
      return absl::InternalError("SSL_CTX_set1_ech_keys failed");
    if (config_.request_client_cert) {
      // SSL_VERIFY_PEER without FAIL_IF_NO_PEER_CERT: ask, do not require.
      SSL_CTX_set_custom_verify(ssl_context_->ssl_ctx(), SSL_VERIFY_PEER,
                                AcceptAnyClientCertificate);
    }
    if (config_.snap_start) {
      SnapStartServerConfig snap = *config_.snap_start;
      snap.cert_chain_file = config_.ssl.cert_chain_file;
      snap.key_file = config_.ssl.key_file;
      snap.tickets = config_.ssl.tickets;
      auto snap_context = SnapStartServerContext::Create(snap);
      if (!snap_context.ok()) return snap_context.status();
      snap_start_context_ = std::move(*snap_context);
    }
  }
  auto listen = [&](const IPEndPoint& address,
                    const char* scheme) -> absl::Status {
    auto listener = std::make_unique<Listener>();
    listener->scheme = scheme;
    const TestServerConfig::FastOpen fast_open =
        std::string(scheme) == "https" ? config_.tcp_fast_open
                                       : config_.http_tcp_fast_open;
    if (fast_open != TestServerConfig::FastOpen::kOff) {
      listener->socket.SetFastOpen(
          kFastOpenQueue, fast_open == TestServerConfig::FastOpen::kNoCookie);
    }
    int rv = listener->socket.Listen(address, kListenBacklog);
    if (rv != OK) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ",
                                                 address.ToString(), ": ",
                                                 ErrorToShortString(rv)));
    }
    listener->socket.GetLocalAddress(&listener->address);
    bound_.emplace_back(scheme, listener->address);
    listeners_.push_back(std::move(listener));
    return absl::OkStatus();
  };
  for (const IPEndPoint& a : config_.https_listen) {
    absl::Status s = listen(a, "https");
    if (!s.ok()) return s;
  }
  for (const IPEndPoint& a : config_.http_listen) {
    absl::Status s = listen(a, "http");
    if (!s.ok()) return s;
  }
  max_connections_ = config_.max_connections;
  rlimit nofile;
  int64_t soft =
      getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY
          ? static_cast<int64_t>(nofile.rlim_cur)
          : int64_t{1} << 20;
  if (max_connections_ <= 0) {
    max_connections_ = static_cast<int>(
        std::clamp<int64_t>(soft - kReservedDescriptors, 1, int64_t{1} << 20));
  }
  reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  Log(absl::StrCat(
      "{\"event\":\"limits\",\"max_connections\":", max_connections_,
      ",\"nofile\":", soft,
      absl::StrFormat(",\"handshake_timeout_s\":%g,\"request_timeout_s\":%g,"
                      "\"idle_timeout_s\":%g}",
                      absl::ToDoubleSeconds(config_.handshake_timeout),
                      absl::ToDoubleSeconds(config_.request_timeout),
                      absl::ToDoubleSeconds(config_.idle_timeout))));
  for (auto& listener : listeners_) Accept(listener.get());
  return absl::OkStatus();
}

void TestServer::Accept(Listener* listener) {
  // A bounded number per turn: a flood of connections must not keep the
  // loop from the established ones.
  for (int i = 0; i < 64; ++i) {
    int rv = listener->socket.Accept(
        &listener->accepted,
        [this, weak = weak_factory_.GetWeakPtr(), listener](int rv) {
          if (weak && OnAccept(listener, rv)) Accept(listener);
        });
    if (rv == ERR_IO_PENDING) return;
    if (!OnAccept(listener, rv)) return;
  }
  AcceptLater(listener, absl::ZeroDuration());
}

void TestServer::AcceptLater(Listener* listener, absl::Duration delay) {
  auto timer = std::make_unique<OneShotTimer>();
  OneShotTimer* raw = timer.get();
  accept_retry_timers_.push_back(std::move(timer));
  raw->Start(delay, [this, listener, raw] {
    // The timer is freed on a fresh stack (it is running this task).
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), raw] {
      if (!weak) return;
      auto& timers = weak->accept_retry_timers_;
      timers.erase(
          std::remove_if(timers.begin(), timers.end(),
                         [raw](const auto& t) { return t.get() == raw; }),
          timers.end());
    });
    Accept(listener);
  });
}

bool TestServer::OnAccept(Listener* listener, int rv) {
  if (rv == OK) {
    std::unique_ptr<StreamSocket> socket = std::move(listener->accepted);
    if (reserve_fd_ < 0) {
      // The reserve was given up for this accept: take it back, and if no
      // descriptor is left for it, shed this connection to make one.
      reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (reserve_fd_ < 0) {
        Refuse(std::move(socket), "out of file descriptors");
        reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
        return true;
      }
    }
    if (connections_.size() >= static_cast<size_t>(max_connections_)) {
      Refuse(std::move(socket), "connection limit reached");
      return true;
    }
    bool tls = listener->scheme == "https";
    auto connection = std::make_unique<Connection>(
        this, std::move(socket), tls, ssl_context_.get(),
        listener->address.ToString());
    Connection* raw = connection.get();
    connections_.emplace(raw, std::move(connection));
    raw->Start();
    return true;
  }
  if (rv == ERR_INSUFFICIENT_RESOURCES || rv == ERR_OUT_OF_MEMORY) {
    // Out of descriptors: a pending connection would wait in the backlog
    // (and the listener spin). Give up the reserve descriptor so that the
    // next accept succeeds; OnAccept then sheds that connection unless the
    // reserve can be taken back. Without a reserve, retry shortly.
    if (reserve_fd_ >= 0) {
      close(reserve_fd_);
      reserve_fd_ = -1;
      return true;
    }
    Log(absl::StrCat("{\"event\":\"accept_failed\",\"error\":\"",
                     ErrorToShortString(rv), "\",\"retry_ms\":100}"));
    AcceptLater(listener, absl::Milliseconds(100));
    return false;
  }
  // One connection's failure (reset before it was accepted, ...): go on.
  Log(absl::StrCat("{\"event\":\"accept_failed\",\"error\":\"",
                   ErrorToShortString(rv), "\"}"));
  return true;
}

void TestServer::Refuse(std::unique_ptr<StreamSocket> socket,
                        const char* reason) {
  socket.reset();  // closes it: the client sees the connection end at once
  ++refused_;
  ++refused_unlogged_;
  TimeTicks now = TimeTicks::Now();
  if (!last_refusal_log_.is_null() &&
      now - last_refusal_log_ < absl::Seconds(1))
    return;
  last_refusal_log_ = now;
  Log(absl::StrCat("{\"event\":\"connection_limit\",\"reason\":\"", reason,
                   "\",\"open\":", connections_.size(), ",\"max_connections\":",
                   max_connections_, ",\"refused\":", refused_unlogged_,
                   ",\"refused_total\":", refused_,
                   ",\"detail\":\"new connections are closed at once until "
                   "some close\"}"));
  refused_unlogged_ = 0;
}

void TestServer::RemoveConnection(Connection* connection) {
  connections_.erase(connection);
}

void TestServer::Log(const std::string& json_line) {
  std::string line = json_line + "\n";
  if (log_) {
    fputs(line.c_str(), log_);
    fflush(log_);
  }
  if (!config_.quiet) std::cerr << line << std::flush;
}

}  // namespace net
