#include "tools/experiments/tls_transaction.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "net/base/net_errors.h"
#include "net/http/default_client_socket_factory.h"

namespace net {

void TlsTransaction::Start(Params params, DoneCallback done) {
  params_ = std::move(params);
  done_ = std::move(done);
  outcome_ = Outcome();
  // The one connect path: an SSLConnectJob through the production socket
  // factory, given the server's address (no lookup).
  SSLConnectJobParams job_params;
  job_params.host = params_.host;
  job_params.port = params_.server.port();
  job_params.connect_timeout = absl::Seconds(5);
  job_params.ssl_config = *params_.config;
  job_params.ssl_context = params_.context;
  HostResolveResult resolved;
  resolved.addresses = {params_.server.address()};
  job_params.transport.resolved = std::move(resolved);
  connect_job_ = std::make_unique<SSLConnectJob>(
      /*resolver=*/nullptr, GetDefaultClientSocketFactory(),
      std::move(job_params));
  int rv = connect_job_->Connect([this](int rv) { OnConnect(rv); });
  if (rv != ERR_IO_PENDING) OnConnect(rv);
}

void TlsTransaction::OnConnect(int rv) {
  if (rv != OK) {
    if (connect_job_->phase() != ConnectJob::Phase::kSSLHandshake)
      return Done(rv, "tcp connect");
    return Done(rv, "tls: " + connect_job_->error_detail());
  }
  ssl_ = connect_job_->TakeSocket();
  outcome_.resumed = connect_job_->ssl_info()->resumed;
  request_ = std::make_shared<DrainableIOBuffer>(params_.request());
  rv = ssl_->Write(request_, request_->BytesRemaining(),
                   [this](int rv) { OnWrite(rv); });
  if (rv != ERR_IO_PENDING) OnWrite(rv);
}

void TlsTransaction::OnWrite(int rv) {
  if (rv < 0) return Done(rv, "write");
  request_->DidConsume(rv);
  if (request_->BytesRemaining() > 0) {
    rv = ssl_->Write(request_, request_->BytesRemaining(),
                     [this](int rv) { OnWrite(rv); });
    if (rv != ERR_IO_PENDING) OnWrite(rv);
    return;
  }
  Read();
}

void TlsTransaction::Read() {
  for (;;) {
    read_buf_ = std::make_shared<IOBuffer>(16 * 1024);
    int rv = ssl_->Read(read_buf_, 16 * 1024, [this](int rv) { OnRead(rv); });
    if (rv == ERR_IO_PENDING) return;
    if (rv <= 0) return OnRead(rv);
    outcome_.response.append(read_buf_->data(), rv);
  }
}

void TlsTransaction::OnRead(int rv) {
  if (rv > 0) {
    outcome_.response.append(read_buf_->data(), rv);
    Read();
    return;
  }
  // Connection: close: the response ends with the connection.
  const std::string& response = outcome_.response;
  bool ok = params_.is_good(response);
  Done(ok ? OK : (rv < 0 ? rv : ERR_EMPTY_RESPONSE),
       ok ? ""
          : absl::StrCat("response: ", response.size(), " bytes, read ", rv));
}

void TlsTransaction::Done(int rv, const std::string& why) {
  outcome_.rv = rv;
  outcome_.error =
      rv == OK ? "" : absl::StrCat(why, " (", ErrorToShortString(rv), ")");
  done_(outcome_);
}

}  // namespace net
