#include "net/socket/transport_connect_job.h"

#include "absl/strings/str_cat.h"

namespace net {

TransportConnectJob::TransportConnectJob(HostResolver* resolver,
                                         ClientSocketFactory* factory,
                                         std::string host, uint16_t port,
                                         absl::Duration connect_timeout)
    : resolver_(resolver),
      factory_(factory),
      host_(std::move(host)),
      port_(port),
      connect_timeout_(connect_timeout) {}

TransportConnectJob::~TransportConnectJob() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int TransportConnectJob::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  int rv = resolver_->Resolve(
      host_, port_, &resolved_,
      [this](int rv) {
        rv = OnResolved(rv);
        if (rv != ERR_IO_PENDING) RunCallback(rv);
      },
      &resolve_request_);
  if (rv != ERR_IO_PENDING) rv = OnResolved(rv);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int TransportConnectJob::OnResolved(int rv) {
  resolve_request_.reset();
  if (rv == OK && resolved_.addresses.empty()) rv = ERR_NAME_NOT_RESOLVED;
  if (rv != OK) {
    error_detail_ = absl::StrCat(
        "resolving ", host_, ": ",
        resolved_.detail.empty() ? ErrorToShortString(rv) : resolved_.detail);
    return rv;
  }
  socket_ = factory_->CreateTransportClientSocket(
      IPEndPoint(resolved_.addresses[0], port_), connect_timeout_);
  rv = socket_->Connect([this](int rv) {
    if (rv != OK) rv = Fail(rv);
    RunCallback(rv);
  });
  if (rv != OK && rv != ERR_IO_PENDING) return Fail(rv);
  return rv;
}

void TransportConnectJob::RunCallback(int rv) {
  // The callback may destroy this job: run it from a local.
  CompletionOnceCallback callback = std::move(callback_);
  std::move(callback)(rv);
}

int TransportConnectJob::Fail(int rv) {
  error_detail_ = absl::StrCat("connecting to ", host_, ":", port_, ": ",
                               ErrorToShortString(rv));
  socket_.reset();
  return rv;
}

}  // namespace net
