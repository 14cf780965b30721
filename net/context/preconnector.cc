#include "net/context/preconnector.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "net/base/event_loop.h"
#include "net/http/ssl_connect_job.h"

namespace net {

// Job: an SSLConnectJob through the session's factory, TLS context and
// config (so session caching, coalescing and OBCs apply as for any
// connection of the session). Always BoringSSL: no Snap Start context (a
// Snap Start attempt sends its first request with the ClientHello, and a
// preconnect has none).
class Preconnector::Job {
 public:
  // |proxy|: through the session's HTTP proxy (a CONNECT tunnel), as the
  // requests that will use the socket go.
  Job(Preconnector* owner, std::string host, uint16_t port,
      std::optional<ProxyServer> proxy, std::string key,
      std::unique_ptr<HttpNetworkSession::SocketSlot> slot)
      : slot_(std::move(slot)),
        owner_(owner),
        host_(host),
        proxied_(proxy.has_value()),
        key_(std::move(key)),
        connect_(std::make_unique<SSLConnectJob>(
            owner->session_->host_resolver(), owner->session_->socket_factory(),
            Params(owner->session_, std::move(host), port, std::move(proxy)))) {
  }

  const std::string& key() const { return key_; }

  void Start(absl::Duration timeout) {
    // The whole preconnect: the job's connect timeout bounds each TCP
    // attempt only.
    deadline_.Start(timeout, [this] {
      // The handshake in flight goes now, while the session's TLS context
      // it uses is alive (this job is destroyed from a task).
      connect_.reset();
      socket_.reset();
      owner_->OnJobDone(this, ERR_TIMED_OUT);
    });
    int rv = connect_->Connect([this](int rv) { OnConnected(rv); });
    if (rv != ERR_IO_PENDING) PostDone(rv);  // never inside Preconnect()
  }

  std::unique_ptr<StreamSocket> TakeSocket() { return std::move(socket_); }
  std::unique_ptr<HttpNetworkSession::SocketSlot> TakeSlot() {
    return std::move(slot_);
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

  void PostDone(int rv) {
    // The job may be gone by then (its deadline passed, or the owner died).
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
      if (weak) weak->OnConnected(rv);
    });
  }

  void OnConnected(int rv) {
    // Done: the deadline must not fire while this job waits to be reaped.
    deadline_.Stop();
    if (rv == OK) {
      socket_ = connect_->TakeSocket();
      NoteRtt();
    }
    owner_->OnJobDone(this, rv);
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
  Preconnector* const owner_;
  const std::string host_;
  // Through a proxy the handshake's RTT is the proxy path's, not the
  // server's: no sample for the Fast Open hints then.
  const bool proxied_;
  const std::string key_;
  std::unique_ptr<SSLConnectJob> connect_;
  std::unique_ptr<StreamSocket> socket_;
  OneShotTimer deadline_;
  WeakPtrFactory<Job> weak_factory_{this};
};

Preconnector::Preconnector(Options options, HttpNetworkSession* session)
    : options_(std::move(options)), session_(session) {}

Preconnector::~Preconnector() = default;

void Preconnector::OnHostPrefetched(const std::string& host, int result,
                                    const HostResolveResult& answer) {
  if (result != OK) return;
  auto it = options_.ports.find(host);
  Preconnect(host,
             it != options_.ports.end() ? it->second : options_.default_port);
}

void Preconnector::Preconnect(const std::string& host, uint16_t port) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The route the requests will take: through the session's proxy, if it
  // has one for this origin (then the socket is a tunnel's, pooled under
  // the proxy's key), else direct.
  absl::StatusOr<Url> url = Url::Parse(absl::StrCat(
      "https://", host.find(':') != std::string::npos ? "[" + host + "]" : host,
      ":", port, "/"));
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
  const size_t total = session_->preconnected_socket_count() + jobs_.size();
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
  jobs_.push_back(std::make_unique<Job>(this, host, port, std::move(proxy), key,
                                        std::move(slot)));
  jobs_.back()->Start(options_.timeout);
}

void Preconnector::OnJobDone(Job* job, int result) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(),
                         [job](const auto& j) { return j.get() == job; });
  if (it == jobs_.end()) return;
  std::unique_ptr<Job> done = std::move(*it);
  jobs_.erase(it);
  if (result == OK) {
    ++succeeded_;
    session_->ReleaseSocketSlot(done->TakeSlot(), done->TakeSocket(),
                                /*preconnected=*/true);
  } else {
    ++failed_;
    done->TakeSlot().reset();  // the slot is free now, not when |done| goes
  }
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
