#include "net/context/server_rtt_prober.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "net/base/event_loop.h"
#include "net/base/url.h"
#include "net/http/http_network_session.h"
#include "net/socket/tcp_fast_open.h"
#include "net/socket/transport_connect_job.h"

namespace net {

// Probe: one TransportConnectJob (the session's resolver, factory and
// connect-to rules; no Fast Open, so Connect spans the TCP handshake), whose
// socket is closed as soon as it connected.
class ServerRttProber::Probe {
 public:
  Probe(ServerRttProber* owner, std::string host, uint16_t port)
      : owner_(owner),
        host_(host),
        job_(owner->session_->host_resolver(),
             owner->session_->socket_factory(), std::move(host), port,
             owner->session_->params().connect_timeout,
             Options(owner->session_)) {}

  const std::string& host() const { return host_; }

  void Start() {
    const int rv = job_.Connect([this](int result) { OnConnected(result); });
    if (rv != ERR_IO_PENDING) {
      // Never call the owner back from inside MaybeProbe.
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
        if (weak) weak->OnConnected(rv);
      });
    }
  }

 private:
  static TransportConnectJob::Options Options(HttpNetworkSession* session) {
    TransportConnectJob::Options options;
    options.clock = session->clock();
    options.connect_to = &session->params().connect_to;
    return options;
  }

  void OnConnected(int result) {
    bool sampled = false;
    if (result == OK) {
      std::unique_ptr<StreamSocket> socket = job_.TakeSocket();
      const ConnectTiming t = job_.timing();
      const absl::Duration handshake =
          t.connect_start.is_null() || t.connect_end.is_null()
              ? absl::ZeroDuration()
              : t.connect_end - t.connect_start;
      const absl::Duration rtt =
          ConnectionRttSample(socket->GetTcpFastOpenInfo(), handshake);
      if (rtt > absl::ZeroDuration()) {
        owner_->session_->tcp_fast_open_hints()->NoteRtt(
            host_, rtt, RttSampleSource::kRttProbe);
        sampled = true;
      }
      socket->Disconnect();
    }
    owner_->OnProbeDone(this, sampled);  // may destroy |this| (from a task)
  }

  ServerRttProber* const owner_;
  const std::string host_;
  TransportConnectJob job_;
  WeakPtrFactory<Probe> weak_factory_{this};
};

ServerRttProber::ServerRttProber(HttpNetworkSession* session,
                                 size_t max_concurrent)
    : session_(session), max_concurrent_(max_concurrent) {}

ServerRttProber::~ServerRttProber() = default;

void ServerRttProber::MaybeProbe(const std::string& host, uint16_t port) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  TcpFastOpenHints* hints = session_->tcp_fast_open_hints();
  if (!hints->enabled() || hints->RttFor(host)) {
    ++skipped_;
    return;
  }
  // The direct path is not the one a proxied request takes (and a probe
  // would bypass the proxy): no probe where a proxy applies.
  absl::StatusOr<Url> url = Url::Parse(absl::StrCat(
      "https://", host.find(':') != std::string::npos ? "[" + host + "]" : host,
      ":", port, "/"));
  if (!url.ok() || session_->params().proxy.ProxyFor(*url) != nullptr) {
    ++skipped_;
    return;
  }
  const bool running =
      std::any_of(probes_.begin(), probes_.end(),
                  [&host](const auto& probe) { return probe->host() == host; });
  if (running || probes_.size() >= max_concurrent_) {
    ++skipped_;
    return;
  }
  ++started_;
  probes_.push_back(std::make_unique<Probe>(this, host, port));
  probes_.back()->Start();
}

void ServerRttProber::OnProbeDone(Probe* probe, bool sampled) {
  auto it = std::find_if(probes_.begin(), probes_.end(),
                         [probe](const auto& p) { return p.get() == probe; });
  if (it == probes_.end()) return;
  std::unique_ptr<Probe> done = std::move(*it);
  probes_.erase(it);
  ++(sampled ? sampled_ : failed_);
  // |done| may be inside its own callback: destroy it from a task.
  EventLoop::Current()->PostTask([done = std::move(done)]() {});
  MaybeRunIdleCallbacks();
}

void ServerRttProber::WhenIdle(absl::AnyInvocable<void()> callback) {
  idle_callbacks_.push_back(std::move(callback));
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak) weak->MaybeRunIdleCallbacks();
  });
}

void ServerRttProber::MaybeRunIdleCallbacks() {
  if (!probes_.empty()) return;
  std::vector<absl::AnyInvocable<void()>> callbacks;
  callbacks.swap(idle_callbacks_);
  for (auto& callback : callbacks) std::move(callback)();
}

}  // namespace net
