#include "net/context/preconnector.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/http/http3_stream.h"
#include "net/http/ssl_connect_job.h"

namespace net {

// Job: one preconnect, with the deadline that bounds all of it. Begin
// starts the connection; Finish hands what came of it to the session.
class Preconnector::Job {
 public:
  Job(Preconnector* owner, std::string key)
      : owner_(owner), key_(std::move(key)) {}
  virtual ~Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const std::string& key() const { return key_; }

  void Start(absl::Duration timeout) {
    // The deadline bounds the whole preconnect (a TCP connect job's own
    // timeout bounds each attempt only).
    deadline_.Start(timeout, [this] {
      Abandon();
      owner_->OnJobDone(this, ERR_TIMED_OUT);
    });
    int rv = Begin([weak = weak_factory_.GetWeakPtr()](int rv) {
      if (weak) weak->Done(rv);
    });
    if (rv != ERR_IO_PENDING) {
      // Never inside Preconnect(); the job may be gone by then (its
      // deadline passed, or the owner died).
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
        if (weak) weak->Done(rv);
      });
    }
  }

  // The preconnect ended with |result| (its own or ERR_TIMED_OUT): what it
  // made goes to the session.
  virtual void Finish(int result) = 0;

 protected:
  // Starts connecting: OK, an error, or ERR_IO_PENDING and |callback|.
  virtual int Begin(CompletionOnceCallback callback) = 0;
  // The connection ended with |result|, before Finish.
  virtual void OnConnected(int result) {}
  // The deadline passed: stop what is in flight now.
  virtual void Abandon() = 0;

  Preconnector* const owner_;

 private:
  void Done(int rv) {
    // Done: the deadline must not fire while this job waits to be reaped.
    deadline_.Stop();
    OnConnected(rv);
    owner_->OnJobDone(this, rv);
  }

  const std::string key_;
  OneShotTimer deadline_;
  WeakPtrFactory<Job> weak_factory_{this};
};

// TcpJob: an SSLConnectJob through the session's factory, TLS context and
// config (so session caching, coalescing and OBCs apply as for any
// connection of the session). Always BoringSSL: no Snap Start context (a
// Snap Start attempt sends its first request with the ClientHello, and a
// preconnect has none). The socket goes to the session's idle pool.
class Preconnector::TcpJob : public Preconnector::Job {
 public:
  // |proxy|: through the session's HTTP proxy (a CONNECT tunnel), as the
  // requests that will use the socket go.
  TcpJob(Preconnector* owner, std::string host, uint16_t port,
         std::optional<ProxyServer> proxy, std::string key,
         std::unique_ptr<HttpNetworkSession::SocketSlot> slot)
      : Job(owner, std::move(key)),
        slot_(std::move(slot)),
        host_(host),
        proxied_(proxy.has_value()),
        connect_(std::make_unique<SSLConnectJob>(
            owner->session_->host_resolver(), owner->session_->socket_factory(),
            Params(owner->session_, std::move(host), port, std::move(proxy)))) {
  }

  void Finish(int result) override {
    if (result == OK) {
      owner_->session_->ReleaseSocketSlot(std::move(slot_), std::move(socket_),
                                          /*preconnected=*/true);
    } else {
      slot_.reset();  // the slot is free now, not when the job goes
    }
  }

 private:
  static SSLConnectJobParams Params(HttpNetworkSession* session,
                                    std::string host, uint16_t port,
                                    std::optional<ProxyServer> proxy) {
    SSLConnectJobParams params;
    params.proxy = std::move(proxy);
    params.host = std::move(host);
    params.port = port;
    params.connect_timeout = session->params().connect_timeout;
    // No early data: a preconnected socket carries no request, and one left
    // in 0-RTT (handshake unfinished, the server's flight unread) would not
    // be idle; nor may a later POST go out as early data on it.
    params.ssl_config = session->params().ssl_config;
    params.ssl_config.early_data_enabled = false;
    params.ssl_context = session->ssl_client_context();
    params.transport.clock = session->clock();
    params.transport.connect_to = &session->params().connect_to;
    // The origin's HTTPS record, as the request's connection would use it
    // (never through a proxy: it resolves the origin).
    params.transport.https_record = !params.proxy;
    return params;
  }

  int Begin(CompletionOnceCallback callback) override {
    return connect_->Connect(std::move(callback));
  }

  void Abandon() override {
    // The handshake in flight goes now, while the session's TLS context it
    // uses is alive (this job is destroyed from a task).
    connect_.reset();
    socket_.reset();
  }

  void OnConnected(int rv) override {
    if (rv != OK) return;
    socket_ = connect_->TakeSocket();
    NoteRtt();
  }

  // The connection's round trip, for the session's TCP Fast Open hints: a
  // later connection to the host that puts data in its SYN is raced after
  // about one RTT when no SYN-ACK comes (a path that drops such SYNs).
  void NoteRtt() {
    if (proxied_) return;
    const ConnectTiming t = connect_->timing();
    const absl::Duration handshake =
        t.connect_start.is_null() || t.ssl_start.is_null()
            ? absl::ZeroDuration()
            : t.ssl_start - t.connect_start;
    owner_->session_->tcp_fast_open_hints()->NoteRtt(
        host_, ConnectionRttSample(socket_->GetTcpFastOpenInfo(), handshake),
        RttSampleSource::kPreconnect);
  }

  // One of the group's connection slots (the per-host limit), held while
  // connecting; freed if the preconnect fails.
  std::unique_ptr<HttpNetworkSession::SocketSlot> slot_;
  const std::string host_;
  // Through a proxy the handshake's RTT is the proxy path's, not the
  // server's: no sample for the Fast Open hints then.
  const bool proxied_;
  std::unique_ptr<SSLConnectJob> connect_;
  std::unique_ptr<StreamSocket> socket_;
};

// Http3Job: the origin's HTTP/3 session, opened as its request would open
// it (Http3Stream::OpenSession, the session's QUIC parameters) and marked
// preconnected; it lives in the session's Http3SessionPool, where the
// request finds it (still connecting: it waits for it). A QUIC failure
// marks the origin broken for QUIC, so the request goes straight to TCP
// instead of waiting for a handshake timeout of its own.
class Preconnector::Http3Job : public Preconnector::Job {
 public:
  Http3Job(Preconnector* owner, Origin origin, IPEndPoint peer, std::string key)
      : Job(owner, std::move(key)),
        origin_(std::move(origin)),
        peer_(std::move(peer)) {}

  void Finish(int result) override {
    // Open: it counts against the preconnect limit until a request takes
    // it or it closes.
    if (result == OK) {
      owner_->http3_sessions_.push_back(session_);
      return;
    }
    // ERR_TIMED_OUT is the preconnect's deadline: the connection itself
    // goes on (its handshake timeout ends it).
    if (result == ERR_TIMED_OUT || !Http3Stream::IsQuicConnectFailure(result))
      return;
    std::string detail = session_ ? session_->error_detail() : error_detail_;
    owner_->session_->http3_session_pool()->MarkBroken(
        origin_,
        absl::StrCat("preconnect: ", ErrorToShortString(result),
                     detail.empty() ? "" : absl::StrCat(": ", detail)));
  }

 private:
  int Begin(CompletionOnceCallback callback) override {
    Http3Stream::Params params = owner_->session_->Http3StreamParams();
    params.quic.port = peer_.port();
    int rv;
    Http3Session* session = Http3Stream::OpenSession(params, origin_, peer_,
                                                     std::move(callback), &rv);
    session->set_preconnected();
    session_ = session->GetWeakPtr();
    // A connection that failed at once is gone from the pool before Finish.
    if (rv != OK && rv != ERR_IO_PENDING)
      error_detail_ = session->error_detail();
    return rv;
  }

  void Abandon() override {}

  const Origin origin_;
  const IPEndPoint peer_;
  WeakPtr<Http3Session> session_;
  std::string error_detail_;
};

namespace {

Preconnector::Options WithLowerCaseHosts(Preconnector::Options options) {
  options.ports = LowerCaseKeys(std::move(options.ports));
  return options;
}

// The https URL of host:port (an IPv6 literal in brackets): what the
// session's proxy configuration is asked about.
absl::StatusOr<Url> OriginUrl(const std::string& host, uint16_t port) {
  return Url::Parse(absl::StrCat(
      "https://", host.find(':') != std::string::npos ? "[" + host + "]" : host,
      ":", port, "/"));
}

}  // namespace

Preconnector::Preconnector(Options options, HttpNetworkSession* session)
    : options_(WithLowerCaseHosts(std::move(options))), session_(session) {}

Preconnector::~Preconnector() = default;

void Preconnector::OnHostPrefetched(const std::string& host, int result,
                                    const HostResolveResult& answer) {
  if (result != OK) return;
  auto it = options_.ports.find(host);
  const uint16_t port =
      it != options_.ports.end() ? it->second : options_.default_port;
  std::optional<IPEndPoint> peer;
  if (!WillUseHttp3(host, port, answer, &peer)) {
    Preconnect(host, port);
  } else if (peer) {
    PreconnectHttp3(host, port, *peer);
  } else {
    ++skipped_;  // over HTTP/3, somewhere this preconnector cannot go
  }
}

bool Preconnector::WillUseHttp3(const std::string& host, uint16_t port,
                                const HostResolveResult& answer,
                                std::optional<IPEndPoint>* peer) const {
  const HttpNetworkSessionParams& params = session_->params();
  absl::StatusOr<Url> url = OriginUrl(host, port);
  // Never through a proxy (HTTP proxies carry TCP).
  if (!url.ok() || params.proxy.ProxyFor(*url) != nullptr) return false;
  const Origin origin("https", host, port);
  if (!session_->http3_session_pool()->BrokenReason(origin).empty() ||
      session_->server_properties()->RequiresHttp11(
          HttpNetworkSession::GroupKey("https", host, port, nullptr)))
    return false;
  // Where the request's QUIC connection goes, as HttpNetworkTransaction::
  // Http3Allowed and OnHostResolved decide, in their order. The prefetch
  // resolved |host| itself: no QUIC preconnect where the request resolves
  // another name (a --connect-to rule, an Alt-Svc alternative or a
  // record's target elsewhere).
  const bool connect_to =
      params.connect_to.Apply(host, port) != std::make_pair(host, port);
  const HttpsRecordInfo& https = answer.https;
  uint16_t quic_port = port;
  if (params.http3) {
    // Every https request: to the host's own addresses.
    if (connect_to || (https.used() && https.target != host)) return true;
  } else if (std::optional<AltSvcCache::Alternative> alt =
                 params.alt_svc_h3
                     ? session_->alt_svc_cache()->GetHttp3(origin, absl::Now())
                     : std::nullopt) {
    if ((!alt->host.empty() && alt->host != host) ||
        params.connect_to.Apply(host, alt->port) !=
            std::make_pair(host, alt->port))
      return true;
    quic_port = alt->port;
  } else if (session_->Http3FromHttpsRecordAllowed() && https.used() &&
             https.SupportsAlpn("h3") && !session_->EchApplies(https)) {
    // A record that applies and offers h3: its endpoint.
    if (connect_to) return false;  // the request's lookup is another name's
    quic_port = https.port.value_or(port);
  } else {
    return false;
  }
  if (!answer.addresses.empty())
    *peer = IPEndPoint(answer.addresses[0], quic_port);
  return true;
}

size_t Preconnector::InUse() {
  // QUIC sessions opened here that no request took yet and that are still
  // open count as preconnected sockets do.
  http3_sessions_.erase(
      std::remove_if(http3_sessions_.begin(), http3_sessions_.end(),
                     [](const WeakPtr<Http3Session>& s) {
                       return !s || !s->preconnected() || !s->IsAvailable();
                     }),
      http3_sessions_.end());
  return session_->preconnected_socket_count() + jobs_.size() +
         http3_sessions_.size();
}

void Preconnector::PreconnectHttp3(const std::string& host, uint16_t port,
                                   const IPEndPoint& peer) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  const Origin origin("https", host, port);
  const std::string key =
      HttpNetworkSession::GroupKey("https", host, port, nullptr);
  bool opening = false;
  for (const auto& job : jobs_) opening = opening || job->key() == key;
  // One session per origin: none while the origin has one (open or
  // connecting) or a preconnect is opening one.
  if (opening || session_->http3_session_pool()->Find(origin) != nullptr ||
      InUse() >= options_.max_total) {
    ++skipped_;
    return;
  }
  ++started_;
  jobs_.push_back(std::make_unique<Http3Job>(this, origin, peer, key));
  jobs_.back()->Start(options_.timeout);
}

void Preconnector::Preconnect(const std::string& host, uint16_t port) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The route the requests will take: through the session's proxy, if it
  // has one for this origin (then the socket is a tunnel's, pooled under
  // the proxy's key), else direct.
  absl::StatusOr<Url> url = OriginUrl(host, port);
  if (!url.ok()) {
    ++skipped_;
    return;
  }
  std::optional<ProxyServer> proxy;
  if (const ProxyServer* p = session_->params().proxy.ProxyFor(*url))
    proxy = *p;
  const std::string key = HttpNetworkSession::GroupKey(
      "https", host, port, proxy ? &*proxy : nullptr);
  size_t for_host = session_->preconnected_socket_count(key);
  for (const auto& job : jobs_) for_host += job->key() == key;
  const size_t total = InUse();
  if (for_host >= options_.max_per_host || total >= options_.max_total) {
    ++skipped_;
    return;
  }
  // A preconnect is a connection of its group like any other: none when the
  // group is at its limit or requests are waiting for it.
  std::unique_ptr<HttpNetworkSession::SocketSlot> slot =
      session_->TryReserveSocketSlot(key);
  if (!slot) {
    ++skipped_;
    return;
  }
  ++started_;
  jobs_.push_back(std::make_unique<TcpJob>(this, host, port, std::move(proxy),
                                           key, std::move(slot)));
  jobs_.back()->Start(options_.timeout);
}

void Preconnector::OnJobDone(Job* job, int result) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(),
                         [job](const auto& j) { return j.get() == job; });
  if (it == jobs_.end()) return;
  std::unique_ptr<Job> done = std::move(*it);
  jobs_.erase(it);
  if (result == OK)
    ++succeeded_;
  else
    ++failed_;
  done->Finish(result);
  // |done| may be inside its own callback: destroy it from a task.
  EventLoop::Current()->PostTask([done = std::move(done)]() {});
  MaybeRunIdleCallbacks();
}

void Preconnector::WhenIdle(absl::AnyInvocable<void()> callback) {
  idle_callbacks_.push_back(std::move(callback));
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak) weak->MaybeRunIdleCallbacks();
  });
}

void Preconnector::MaybeRunIdleCallbacks() {
  if (!jobs_.empty()) return;
  std::vector<absl::AnyInvocable<void()>> callbacks;
  callbacks.swap(idle_callbacks_);
  for (auto& callback : callbacks) std::move(callback)();
}

}  // namespace net
