// TlsTransaction: the client side of one load-generator transaction, shared
// by the TLS load experiments in tools/experiments (obc_load, session_tps):
// a new TCP connection and a TLS handshake with our own stack (an
// SSLConnectJob through the default socket factory), one request written
// whole, and the response read until the server closes the connection (the
// request should say "Connection: close").
//
// Who owns what: the caller owns the SSLClientContext (its session cache is
// the simulated client's) and keeps it, the SSLConfig and the TlsTransaction
// alive until the done callback has run; the transaction owns its sockets and
// buffers. Scheduling, what counts as a good response, and the measurements
// (latency, CPU, resumption rates) stay with each experiment.

#ifndef TOOLS_EXPERIMENTS_TLS_TRANSACTION_H_
#define TOOLS_EXPERIMENTS_TLS_TRANSACTION_H_

#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "net/base/io_buffer.h"
#include "net/base/ip_endpoint.h"
#include "net/http/ssl_connect_job.h"
#include "net/socket/stream_socket.h"
#include "net/ssl/ssl_client_context.h"

namespace net {

class TlsTransaction {
 public:
  struct Outcome {
    // OK, or the net error that ended the transaction (ERR_EMPTY_RESPONSE
    // when the connection closed cleanly on a response |is_good| refused).
    int rv = OK;
    // Empty when OK; else the step that failed and the error, e.g.
    // "tcp connect (ERR_CONNECTION_REFUSED)".
    std::string error;
    // Whether the TLS handshake resumed a session.
    bool resumed = false;
    // Every byte read, head and body.
    std::string response;
  };

  struct Params {
    IPEndPoint server;
    std::string host;  // SNI and verification name
    const SSLConfig* config = nullptr;
    SSLClientContext* context = nullptr;
    // Makes the request once the handshake is done (so it may carry what is
    // known only then).
    absl::AnyInvocable<std::string()> request;
    // Judges the whole response once the server has closed the connection.
    absl::AnyInvocable<bool(const std::string& response)> is_good;
  };

  using DoneCallback = absl::AnyInvocable<void(const Outcome&)>;

  TlsTransaction() = default;
  TlsTransaction(const TlsTransaction&) = delete;
  TlsTransaction& operator=(const TlsTransaction&) = delete;

  // Starts the transaction; |done| runs once, possibly inside Start or a
  // socket callback (so it must not destroy the transaction synchronously).
  void Start(Params params, DoneCallback done);

 private:
  void OnConnect(int rv);
  void OnWrite(int rv);
  void Read();
  void OnRead(int rv);
  void Done(int rv, const std::string& why);

  Params params_;
  DoneCallback done_;
  std::unique_ptr<SSLConnectJob> connect_job_;
  std::unique_ptr<StreamSocket> ssl_;
  std::shared_ptr<DrainableIOBuffer> request_;
  std::shared_ptr<IOBuffer> read_buf_;
  Outcome outcome_;
};

}  // namespace net

#endif  // TOOLS_EXPERIMENTS_TLS_TRANSACTION_H_
