#include "tools/experiments/tls_transaction.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "net/base/net_errors.h"

namespace net {

void TlsTransaction::Start(Params params, DoneCallback done) {
  params_ = std::move(params);
  done_ = std::move(done);
  outcome_ = Outcome();
  tcp_ = std::make_unique<TCPClientSocket>(params_.server, absl::Seconds(5));
  int rv = tcp_->Connect([this](int rv) { OnTcpConnect(rv); });
  if (rv != ERR_IO_PENDING) OnTcpConnect(rv);
}

void TlsTransaction::OnTcpConnect(int rv) {
  if (rv != OK) return Done(rv, "tcp connect");
  ssl_ = std::make_unique<SSLClientSocket>(std::move(tcp_), params_.host,
                                           params_.server.port(),
                                           *params_.config, params_.context);
  rv = ssl_->Connect([this](int rv) { OnTlsConnect(rv); });
  if (rv != ERR_IO_PENDING) OnTlsConnect(rv);
}

void TlsTransaction::OnTlsConnect(int rv) {
  if (rv != OK) return Done(rv, "tls: " + ssl_->error_detail());
  outcome_.resumed = ssl_->ssl_info().resumed;
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
