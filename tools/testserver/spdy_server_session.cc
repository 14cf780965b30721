#include "tools/testserver/spdy_server_session.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "cert/obc/obc_crypto.h"
#include "net/timing/load_timing.h"
#include "tools/testserver/channel_bound_cookie.h"
#include "tools/testserver/routes.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

constexpr int kReadSize = 32 * 1024;
constexpr size_t kDataFrameSize = 16 * 1024;
constexpr size_t kWriteBatch = 64 * 1024;
// Control frames queued beyond this: the client provokes answers and does
// not read them.
constexpr size_t kMaxControlBytes = 1 << 20;
constexpr int64_t kMaxWindow = 0x7fffffff;

std::string JsonSpki(const std::string& spki) {
  return spki.empty() ? "null" : absl::StrCat("\"", HexEncode(spki), "\"");
}

}  // namespace

SpdyServerSession::SpdyServerSession(TestServer* server, StreamSocket* socket,
                                     SpdyServerConnectionInfo info,
                                     absl::AnyInvocable<void()> on_done)
    : server_(server),
      socket_(socket),
      info_(std::move(info)),
      config_(server->config().spdy.value_or(SpdyServerConfig())),
      on_done_(std::move(on_done)),
      framer_(config_.framer_limits),
      deframer_(this),
      credentials_(
          std::min<size_t>(config_.credential_slots, kSpdyMaxCredentialSlots)),
      idle_timeout_(server->config().idle_timeout) {
  // The draft: the handshake's client certificate goes into slot 1.
  if (!credentials_.empty())
    credentials_[0].spki_sha256 = info_.handshake_obc_spki;
}

SpdyServerSession::~SpdyServerSession() = default;

void SpdyServerSession::Start() {
  SpdySettingsIR settings;
  settings.entries = {
      {0, static_cast<uint32_t>(SpdySettingsId::kMaxConcurrentStreams),
       config_.max_concurrent_streams},
      {0, static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize),
       static_cast<uint32_t>(config_.initial_window)},
      {0, static_cast<uint32_t>(SpdySettingsId::kClientCertificateVectorSize),
       config_.credential_slots}};
  EnqueueControl(settings);
  server_->Log(absl::StrCat(
      "{\"event\":\"spdy_session\",\"conn\":", info_.conn_id,
      ",\"server_name\":\"", JsonEscape(info_.server_name),
      "\",\"credential_slots\":", config_.credential_slots,
      ",\"require_credentials\":",
      config_.require_credentials ? "true" : "false",
      ",\"handshake_obc_spki_sha256\":", JsonSpki(info_.handshake_obc_spki),
      "}"));
  ArmIdleTimer();
  DoRead();
}

void SpdyServerSession::ArmIdleTimer() {
  idle_timer_.Start(idle_timeout_, [weak = weak_factory_.GetWeakPtr()] {
    if (SpdyServerSession* self = weak.get()) {
      self->server_->OnTimeout();
      self->Fail(SpdyGoAwayStatus::kOk, "idle");
    }
  });
}

// ---------------------------------------------------------------------------
// Reading.

void SpdyServerSession::DoRead() {
  while (!done_) {
    if (!read_buf_) read_buf_ = std::make_shared<IOBuffer>(kReadSize);
    int rv = socket_->Read(read_buf_, kReadSize,
                           [weak = weak_factory_.GetWeakPtr()](int rv) {
                             if (SpdyServerSession* self = weak.get())
                               self->OnRead(rv);
                           });
    if (rv == ERR_IO_PENDING) return;
    if (!ProcessInput(rv)) return;
  }
}

void SpdyServerSession::OnRead(int rv) {
  if (ProcessInput(rv)) DoRead();
}

bool SpdyServerSession::ProcessInput(int rv) {
  if (done_) return false;
  if (rv <= 0) {
    Finish();
    return false;
  }
  ArmIdleTimer();
  deframer_.ProcessInput(absl::string_view(read_buf_->data(), rv));
  if (done_) return false;
  if (deframer_.HasError()) {
    Fail(SpdyGoAwayStatus::kProtocolError,
         absl::StrCat(ToString(deframer_.error()), ": ",
                      deframer_.error_detail()));
    return false;
  }
  return !finishing_;
}

// ---------------------------------------------------------------------------
// Frames from the client.

void SpdyServerSession::OnError(SpdyDeframerError, const std::string&) {}

void SpdyServerSession::OnSynStream(const SpdySynStreamIR& frame) {
  if (finishing_) return;
  if (frame.stream_id % 2 == 0 || frame.stream_id <= last_stream_id_) {
    Fail(SpdyGoAwayStatus::kProtocolError,
         absl::StrCat("bad client stream id ", frame.stream_id));
    return;
  }
  last_stream_id_ = frame.stream_id;
  // After our GOAWAY, new streams are ignored (the client retries them).
  if (goaway_sent_) return;
  if (streams_.size() >= config_.max_concurrent_streams) {
    ResetStream(frame.stream_id, SpdyRstStreamStatus::kRefusedStream);
    return;
  }
  auto stream = std::make_unique<Stream>();
  Stream* s = stream.get();
  s->id = frame.stream_id;
  s->slot = frame.slot;
  s->send_window = client_initial_window_;
  s->recv_window = config_.initial_window;
  SHA256_Init(&s->request_sha256);
  auto get = [&](const char* name) {
    auto it = frame.headers.find(name);
    return it == frame.headers.end() ? std::string() : it->second;
  };
  s->method = get(":method");
  s->path = get(":path");
  s->host = get(":host");
  s->scheme = get(":scheme");
  s->cookie =
      absl::StrReplaceAll(get("cookie"), {{std::string(1, '\0'), "; "}});
  // The request's credential: its slot's, or for slot 0 the handshake's if
  // the request is for the origin the TLS connection was made to.
  if (s->slot > 0) {
    if (s->slot <= credentials_.size())
      s->credential_spki = credentials_[s->slot - 1].spki_sha256;
  } else {
    std::string host = s->host.substr(0, s->host.rfind(':'));
    if (s->host.find(':') == std::string::npos) host = s->host;
    if (info_.server_name.empty() ||
        absl::EqualsIgnoreCase(host, info_.server_name)) {
      s->for_handshake_origin = true;
      s->credential_spki = info_.handshake_obc_spki;
    }
  }
  s->request_done = frame.fin;
  streams_[s->id] = std::move(stream);
  if (s->request_done) HandleRequest(s);
}

void SpdyServerSession::OnDataFrameHeader(SpdyStreamId stream_id, size_t length,
                                          bool fin) {
  data_stream_ = 0;
  auto it = streams_.find(stream_id);
  if (it == streams_.end() || it->second->request_done) return;
  Stream* s = it->second.get();
  if (static_cast<int64_t>(length) > s->recv_window) {
    ResetStream(stream_id, SpdyRstStreamStatus::kFlowControlError);
    streams_.erase(it);
    return;
  }
  s->recv_window -= static_cast<int32_t>(length);
  data_stream_ = stream_id;
}

void SpdyServerSession::OnStreamFrameData(SpdyStreamId stream_id,
                                          absl::string_view data) {
  if (stream_id != data_stream_) return;
  auto it = streams_.find(stream_id);
  if (it == streams_.end()) return;
  Stream* s = it->second.get();
  // Request bodies are consumed as they arrive (hashed, not kept), so the
  // window is given back at once.
  SHA256_Update(&s->request_sha256, data.data(), data.size());
  s->request_bytes += data.size();
  s->recv_unacked += static_cast<int32_t>(data.size());
  if (s->recv_unacked >= config_.initial_window / 2) {
    SpdyWindowUpdateIR update;
    update.stream_id = stream_id;
    update.delta = static_cast<uint32_t>(s->recv_unacked);
    s->recv_window += s->recv_unacked;
    s->recv_unacked = 0;
    EnqueueControl(update);
  }
}

void SpdyServerSession::OnStreamEnd(SpdyStreamId stream_id) {
  if (stream_id != data_stream_) return;
  data_stream_ = 0;
  auto it = streams_.find(stream_id);
  if (it == streams_.end()) return;
  it->second->request_done = true;
  HandleRequest(it->second.get());
}

void SpdyServerSession::OnSynReply(const SpdySynReplyIR&) {
  Fail(SpdyGoAwayStatus::kProtocolError, "SYN_REPLY from the client");
}

void SpdyServerSession::OnRstStream(const SpdyRstStreamIR& frame) {
  streams_.erase(frame.stream_id);
  MaybeFinishGoingAway();
}

void SpdyServerSession::OnSettings(const SpdySettingsIR& frame) {
  std::vector<uint32_t> seen;
  for (const SpdySettingsEntry& e : frame.entries) {
    if (std::find(seen.begin(), seen.end(), e.id) != seen.end()) continue;
    seen.push_back(e.id);
    if (e.id == static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize) &&
        e.value <= kMaxWindow) {
      int64_t delta = static_cast<int64_t>(e.value) - client_initial_window_;
      client_initial_window_ = static_cast<int32_t>(e.value);
      for (auto& [id, s] : streams_) {
        s->send_window = static_cast<int32_t>(
            std::min<int64_t>(s->send_window + delta, kMaxWindow));
      }
    }
  }
  ScheduleWrite();
}

void SpdyServerSession::OnPing(const SpdyPingIR& frame) {
  if (frame.id % 2 == 1) EnqueueControl(frame);
}

void SpdyServerSession::OnGoAway(const SpdyGoAwayIR&) {
  // The client is leaving: finish what is open, take nothing new.
  goaway_sent_ = true;
  MaybeFinishGoingAway();
}

void SpdyServerSession::OnHeaders(const SpdyHeadersIR&) {}

void SpdyServerSession::OnWindowUpdate(const SpdyWindowUpdateIR& frame) {
  auto it = streams_.find(frame.stream_id);
  if (it == streams_.end()) return;
  Stream* s = it->second.get();
  int64_t window = static_cast<int64_t>(s->send_window) + frame.delta;
  if (window > kMaxWindow) {
    ResetStream(frame.stream_id, SpdyRstStreamStatus::kFlowControlError);
    streams_.erase(it);
    return;
  }
  s->send_window = static_cast<int32_t>(window);
  ScheduleWrite();
}

void SpdyServerSession::OnCredential(const SpdyCredentialIR& frame) {
  if (frame.slot == 0 || frame.slot > credentials_.size()) {
    Fail(SpdyGoAwayStatus::kProtocolError,
         absl::StrCat("CREDENTIAL slot ", frame.slot, " outside the vector of ",
                      credentials_.size()));
    return;
  }
  if (secret_.empty()) {
    std::string secret;
    int rv =
        info_.export_keying_material
            ? info_.export_keying_material(kSpdyCredentialExporterLabel,
                                           kSpdyCredentialSecretSize, &secret)
            : ERR_NOT_IMPLEMENTED;
    if (rv != OK) {
      Fail(SpdyGoAwayStatus::kInternalError,
           absl::StrCat("cannot export keying material: ",
                        ErrorToShortString(rv)));
      return;
    }
    secret_ = std::move(secret);
  }
  absl::Status verified =
      VerifySpdyCredentialProof(frame.proof, secret_, frame.certificates[0]);
  absl::StatusOr<std::string> spki = SpkiSha256(frame.certificates[0]);
  if (!verified.ok() || !spki.ok()) {
    server_->Log(absl::StrCat(
        "{\"event\":\"spdy_credential\",\"conn\":", info_.conn_id,
        ",\"slot\":", frame.slot, ",\"result\":\"rejected\",\"detail\":\"",
        JsonEscape(std::string(verified.ok() ? spki.status().message()
                                             : verified.message())),
        "\"}"));
    Fail(SpdyGoAwayStatus::kProtocolError,
         absl::StrCat(
             "invalid CREDENTIAL in slot ", frame.slot, ": ",
             verified.ok() ? spki.status().message() : verified.message()));
    return;
  }
  credentials_[frame.slot - 1].spki_sha256 = *spki;
  ++credentials_verified_;
  server_->Log(absl::StrCat(
      "{\"event\":\"spdy_credential\",\"conn\":", info_.conn_id,
      ",\"slot\":", frame.slot,
      ",\"result\":\"verified\",\"obc_spki_sha256\":\"", HexEncode(*spki),
      "\",\"certificates\":", frame.certificates.size(), "}"));
}

// ---------------------------------------------------------------------------
// Requests.

void SpdyServerSession::HandleRequest(Stream* s) {
  ++requests_;
  if (s->method.empty() || s->path.empty() || s->host.empty() ||
      s->scheme.empty()) {
    Respond(s, 400, "text/plain",
            "missing :method, :path, :version, :host or :scheme\n");
    return;
  }
  if (config_.require_credentials && !s->for_handshake_origin &&
      s->credential_spki.empty()) {
    LogRequest(*s, 0, 0, ",\"rst\":\"INVALID_CREDENTIALS\"");
    server_->OnRequest();
    ResetStream(s->id, SpdyRstStreamStatus::kInvalidCredentials);
    streams_.erase(s->id);
    MaybeFinishGoingAway();
    return;
  }
  std::string path = s->path.substr(0, s->path.find('?'));
  // Channel-bound cookies: bound to the credential of the request's
  // origin, whatever connection carried it.
  ObcRequest request;
  request.path = path;
  request.cookie_header = s->cookie;
  request.spki = s->credential_spki;
  request.spki_owner = "this request's credential";
  request.login_without_obc =
      "no origin-bound certificate for this origin on this session\n";
  ObcResult obc = RouteChannelBound(server_->channel_bound_cookies(), request);
  if (obc.response) {
    std::vector<std::pair<std::string, std::string>> extra;
    if (!obc.response->set_cookie.empty())
      extra.emplace_back("set-cookie", obc.response->set_cookie);
    if (!obc.cookie.empty()) extra.emplace_back("x-obc-cookie", obc.cookie);
    Respond(s, obc.response->status, obc.response->content_type,
            std::move(obc.response->body), std::move(extra));
    return;
  }
  int64_t n = 0;
  bool chunked = false;
  if (ParseGeneratedPath(path, &n, &chunked)) {
    RespondGenerated(s, "application/octet-stream", n);
    return;
  }
  if (path == "/tls") {
    const SSLInfo& i = info_.ssl_info;
    Respond(
        s, 200, "application/json",
        absl::StrCat("{\"spdy\":true,\"stream\":", s->id, ",\"slot\":", s->slot,
                     ",\"version\":\"", i.version, "\",\"cipher\":\"", i.cipher,
                     "\",\"resumed\":", i.resumed ? "true" : "false",
                     ",\"alpn\":\"", i.alpn, "\",\"conn\":", info_.conn_id,
                     ",\"server_name\":\"", JsonEscape(info_.server_name),
                     "\",\"host\":\"", JsonEscape(s->host),
                     "\",\"obc_spki_sha256\":", JsonSpki(s->credential_spki),
                     ",\"handshake_obc_spki_sha256\":",
                     JsonSpki(info_.handshake_obc_spki), "}\n"));
    return;
  }
  if (path == "/spdy/credentials") {
    Respond(s, 200, "application/json", CredentialsJson());
    return;
  }
  if (path == "/spdy/upload") {
    uint8_t digest[SHA256_DIGEST_LENGTH];
    SHA256_Final(digest, &s->request_sha256);
    Respond(s, 200, "application/json",
            absl::StrCat(
                "{\"bytes\":", s->request_bytes, ",\"sha256\":\"",
                HexEncode(absl::string_view(
                    reinterpret_cast<const char*>(digest), sizeof(digest))),
                "\"}\n"));
    return;
  }
  if (path == "/spdy/goaway") {
    SpdyStreamId id = s->id;
    Respond(s, 200, "text/plain", "going away\n");  // may free |s|
    SpdyGoAwayIR goaway;
    goaway.last_good_stream_id = id;
    goaway.status = SpdyGoAwayStatus::kOk;
    EnqueueControl(goaway);
    goaway_sent_ = true;
    server_->Log(absl::StrCat("{\"event\":\"spdy_goaway\",\"conn\":",
                              info_.conn_id, ",\"last_good_stream_id\":", id,
                              ",\"status\":\"OK\",\"reason\":\"requested\"}"));
    return;
  }
  if (absl::StartsWith(path, "/spdy/rst/") &&
      absl::SimpleAtoi(path.substr(10), &n) && n > 0 && n < (1 << 30)) {
    LogRequest(*s, 0, 0, absl::StrCat(",\"rst\":", n));
    server_->OnRequest();
    ResetStream(s->id, static_cast<SpdyRstStreamStatus>(n));
    streams_.erase(s->id);
    MaybeFinishGoingAway();
    return;
  }
  if (std::optional<RouteResponse> named =
          ServeNamedFile(server_->config().files, path)) {
    Respond(s, named->status, named->content_type, std::move(named->body));
    return;
  }
  const std::string& docroot = server_->config().docroot;
  if (!docroot.empty()) {
    RouteResponse file = ServeDocroot(docroot, path);
    Respond(s, file.status, file.content_type, std::move(file.body));
    return;
  }
  RespondGenerated(s, "text/plain", server_->config().response_size);
}

std::string SpdyServerSession::CredentialsJson() const {
  std::string out = absl::StrCat("{\"slots\":", credentials_.size(),
                                 ",\"verified\":", credentials_verified_,
                                 ",\"credentials\":[");
  bool first = true;
  for (size_t i = 0; i < credentials_.size(); ++i) {
    if (credentials_[i].spki_sha256.empty()) continue;
    absl::StrAppend(&out, first ? "" : ",", "{\"slot\":", i + 1,
                    ",\"obc_spki_sha256\":\"",
                    HexEncode(credentials_[i].spki_sha256), "\"}");
    first = false;
  }
  out += "]}\n";
  return out;
}

void SpdyServerSession::SendReply(
    Stream* s, int status, const std::string& type, int64_t length,
    std::vector<std::pair<std::string, std::string>> extra) {
  SpdySynReplyIR reply;
  reply.stream_id = s->id;
  reply.fin = length == 0 || s->method == "HEAD";
  reply.headers = {{":status", absl::StrCat(status, " ", ReasonPhrase(status))},
                   {":version", "HTTP/1.1"},
                   {"server", "netstack-testserver"},
                   {"content-type", type},
                   {"content-length", absl::StrCat(length)},
                   {"x-spdy-stream-id", absl::StrCat(s->id)},
                   {"x-spdy-credential-slot", absl::StrCat(s->slot)}};
  if (!s->credential_spki.empty())
    reply.headers["x-obc-spki-sha256"] = HexEncode(s->credential_spki);
  for (auto& [name, value] : extra) reply.headers[name] = value;
  EnqueueControl(reply);
  s->replied = true;
  if (reply.fin) {
    s->fin_queued = true;
    s->body.clear();
    s->generated_remaining = 0;
  }
}

void SpdyServerSession::Respond(
    Stream* s, int status, const std::string& type, std::string body,
    std::vector<std::pair<std::string, std::string>> extra) {
  std::string note;
  for (auto& [name, value] : extra)
    if (name == "x-obc-cookie")
      note = absl::StrCat(",\"obc_cookie\":\"", value, "\"");
  LogRequest(*s, status, body.size(), note);
  server_->OnRequest();
  int64_t length = body.size();
  s->body = std::move(body);
  SendReply(s, status, type, length, std::move(extra));
  if (s->fin_queued && s->request_done) streams_.erase(s->id);
  MaybeFinishGoingAway();
  ScheduleWrite();
}

void SpdyServerSession::RespondGenerated(Stream* s, const std::string& type,
                                         int64_t size) {
  LogRequest(*s, 200, size, "");
  server_->OnRequest();
  s->generated_remaining = size;
  SendReply(s, 200, type, size, {});
  if (s->fin_queued && s->request_done) streams_.erase(s->id);
  MaybeFinishGoingAway();
  ScheduleWrite();
}

void SpdyServerSession::LogRequest(const Stream& s, int status, int64_t bytes,
                                   const std::string& note) {
  server_->Log(absl::StrCat(
      "{\"event\":\"request\",\"conn\":", info_.conn_id,
      ",\"proto\":\"spdy/3\",\"stream\":", s.id, ",\"method\":\"",
      JsonEscape(s.method), "\",\"host\":\"", JsonEscape(s.host),
      "\",\"path\":\"", JsonEscape(s.path), "\",\"status\":", status,
      ",\"bytes\":", bytes, ",\"slot\":", s.slot,
      ",\"obc_spki_sha256\":", JsonSpki(s.credential_spki), note, "}"));
}

void SpdyServerSession::ResetStream(SpdyStreamId id,
                                    SpdyRstStreamStatus status) {
  SpdyRstStreamIR rst;
  rst.stream_id = id;
  rst.status = status;
  EnqueueControl(rst);
}

void SpdyServerSession::FailStream(SpdyStreamId id, const std::string& why) {
  server_->Log(absl::StrCat(
      "{\"event\":\"spdy_error\",\"conn\":", info_.conn_id, ",\"stream\":", id,
      ",\"rst\":\"", ToString(SpdyRstStreamStatus::kInternalError),
      "\",\"detail\":\"cannot build a DATA frame: ", JsonEscape(why), "\"}"));
  streams_.erase(id);
  ResetStream(id, SpdyRstStreamStatus::kInternalError);
  MaybeFinishGoingAway();
}

void SpdyServerSession::Fail(SpdyGoAwayStatus status, const std::string& why) {
  if (finishing_ || done_) return;
  server_->Log(absl::StrCat(
      "{\"event\":\"spdy_goaway\",\"conn\":", info_.conn_id,
      ",\"last_good_stream_id\":", last_stream_id_, ",\"status\":\"",
      ToString(status), "\",\"reason\":\"", JsonEscape(why), "\"}"));
  SpdyGoAwayIR goaway;
  goaway.last_good_stream_id = last_stream_id_;
  goaway.status = status;
  goaway_sent_ = true;
  finishing_ = true;
  // Nothing else goes out: queued control frames, then the GOAWAY.
  EnqueueControl(goaway);
  streams_.clear();
  finish_timer_.Start(absl::Seconds(1), [weak = weak_factory_.GetWeakPtr()] {
    if (SpdyServerSession* self = weak.get()) self->Finish();
  });
  ScheduleWrite();
}

void SpdyServerSession::MaybeFinishGoingAway() {
  if (!goaway_sent_ || finishing_ || !streams_.empty()) return;
  finishing_ = true;
  finish_timer_.Start(absl::Seconds(1), [weak = weak_factory_.GetWeakPtr()] {
    if (SpdyServerSession* self = weak.get()) self->Finish();
  });
  ScheduleWrite();
}

// ---------------------------------------------------------------------------
// Writing.

void SpdyServerSession::EnqueueControl(const SpdyFrameIR& frame) {
  if (done_) return;
  absl::StatusOr<std::string> bytes = framer_.SerializeFrame(frame);
  if (!bytes.ok()) {
    server_->Log(absl::StrCat(
        "{\"event\":\"spdy_error\",\"conn\":", info_.conn_id, ",\"detail\":\"",
        JsonEscape(std::string(bytes.status().message())), "\"}"));
    Finish();
    return;
  }
  control_bytes_ += bytes->size();
  control_.push_back(std::move(*bytes));
  if (control_bytes_ > kMaxControlBytes) {
    server_->Log(
        absl::StrCat("{\"event\":\"spdy_error\",\"conn\":", info_.conn_id,
                     ",\"detail\":\"control frames pile up: the "
                     "client is not reading\"}"));
    Finish();
    return;
  }
  ScheduleWrite();
}

void SpdyServerSession::ScheduleWrite() {
  if (write_scheduled_ || out_ || done_) return;
  write_scheduled_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (SpdyServerSession* self = weak.get()) {
      self->write_scheduled_ = false;
      // A write started since (out_ set) goes on by itself: a second
      // Write must not overlap a pending one.
      if (!self->out_) self->DoWrite();
    }
  });
}

bool SpdyServerSession::FillBatch() {
  std::string batch;
  while (!control_.empty() && batch.size() < kWriteBatch) {
    control_bytes_ -= control_.front().size();
    batch += control_.front();
    control_.pop_front();
  }
  if (!finishing_) {
    // DATA, round robin over the streams that have a body and window.
    std::vector<std::pair<SpdyStreamId, std::string>> failed;
    bool progress = true;
    while (batch.size() < kWriteBatch && progress) {
      progress = false;
      std::vector<SpdyStreamId> finished;
      for (auto& [id, s] : streams_) {
        if (batch.size() >= kWriteBatch) break;
        if (!s->replied || s->fin_queued || s->send_window <= 0) continue;
        size_t body_left = s->body.size() - s->body_offset;
        size_t left = body_left + static_cast<size_t>(s->generated_remaining);
        size_t n = std::min(
            {kDataFrameSize, left, static_cast<size_t>(s->send_window)});
        std::string payload;
        size_t from_body = std::min(n, body_left);
        payload.append(s->body, s->body_offset, from_body);
        if (n > from_body)
          AppendGenerated(&payload, s->generated_offset, n - from_body);
        bool fin = n == left;
        absl::StatusOr<std::string> frame =
            framer_.SerializeData(id, payload, fin);
        if (!frame.ok()) {
          // Skipping the frame would leave a hole in the body: the stream
          // fails instead (below, once the loop is done with streams_).
          failed.emplace_back(id, std::string(frame.status().message()));
          continue;
        }
        // The offsets move only with bytes that are on their way.
        s->body_offset += from_body;
        if (n > from_body) {
          s->generated_offset += n - from_body;
          s->generated_remaining -= n - from_body;
        }
        batch += *frame;
        s->send_window -= static_cast<int32_t>(n);
        progress = true;
        if (fin) {
          s->fin_queued = true;
          if (s->request_done) finished.push_back(id);
        }
      }
      for (SpdyStreamId id : finished) streams_.erase(id);
      for (auto& [id, why] : failed) FailStream(id, why);
      if (done_) return false;
      failed.clear();
    }
  }
  // RST_STREAMs of streams that failed above.
  while (!control_.empty() && batch.size() < kWriteBatch) {
    control_bytes_ -= control_.front().size();
    batch += control_.front();
    control_.pop_front();
  }
  if (batch.empty()) return false;
  out_ = std::make_shared<DrainableIOBuffer>(batch);
  return true;
}

void SpdyServerSession::DoWrite() {
  size_t this_turn = 0;
  while (!done_) {
    if (!out_ && !FillBatch()) {
      MaybeFinishGoingAway();
      if (finishing_ && control_.empty()) Finish();
      return;
    }
    if (this_turn >= 256 * 1024) {
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
        if (SpdyServerSession* self = weak.get()) self->DoWrite();
      });
      return;
    }
    int rv = socket_->Write(out_, static_cast<int>(out_->BytesRemaining()),
                            [weak = weak_factory_.GetWeakPtr()](int rv) {
                              if (SpdyServerSession* self = weak.get())
                                self->OnWrite(rv);
                            });
    if (rv == ERR_IO_PENDING) return;
    if (rv < 0) {
      Finish();
      return;
    }
    this_turn += rv;
    out_->DidConsume(rv);
    OnWriteProgress();
    if (out_->BytesRemaining() == 0) out_.reset();
  }
}

void SpdyServerSession::OnWrite(int rv) {
  if (done_) return;
  if (rv < 0) {
    Finish();
    return;
  }
  out_->DidConsume(rv);
  if (out_->BytesRemaining() == 0) out_.reset();
  OnWriteProgress();
  DoWrite();
}

void SpdyServerSession::OnWriteProgress() {
  // A client taking a long response slowly is not idle (as over HTTP/1.1,
  // where write progress re-arms the deadline); one that stops reading
  // makes no progress and still times out. A session going away keeps the
  // finish timer only.
  if (!finishing_) ArmIdleTimer();
}

void SpdyServerSession::Finish() {
  if (done_) return;
  done_ = true;
  finish_timer_.Stop();
  idle_timer_.Stop();
  streams_.clear();
  control_.clear();
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (SpdyServerSession* self = weak.get())
      if (self->on_done_) self->on_done_();
  });
}

}  // namespace net
