#include "net/ssl/ssl_server_socket.h"

#include <openssl/err.h>

#include "net/ssl/openssl_util.h"

namespace net {

SSLServerSocket::SSLServerSocket(std::unique_ptr<StreamSocket> transport,
                                 SSLServerContext* context)
    : SSLSocketBase(std::move(transport)),
      tickets_at_handshake_(context->config().tls13_tickets_at_handshake) {
  AttachSSL(bssl::UniquePtr<SSL>(SSL_new(context->ssl_ctx())));
  AttachSSLInfo(ssl(), &ssl_info_);
  SSL_set_accept_state(ssl());
}

SSLServerSocket::~SSLServerSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int SSLServerSocket::Handshake(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  handshake_start_ = TimeTicks::Now();
  int rv = DoHandshake();
  if (rv != OK && rv != ERR_IO_PENDING) FillEarlyDataInfo();
  if (rv == ERR_IO_PENDING) handshake_callback_ = std::move(callback);
  return rv;
}

int SSLServerSocket::DoHandshake() {
  for (;;) {
    int rv = SSL_do_handshake(ssl());
    if (rv == 1) {
      adapter()->Pump();
      FinishHandshake();
      return OK;
    }
    int ssl_error = SSL_get_error(ssl(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter()->Pump()) continue;
      if (adapter()->read_eof()) {
        error_detail_ = "client closed the connection during the handshake";
        return ERR_SSL_HANDSHAKE_CLOSED;
      }
      if (adapter()->read_error() != OK) return adapter()->read_error();
      return ERR_IO_PENDING;
    }
    return MapError(rv, /*in_handshake=*/true);
  }
}

void SSLServerSocket::FinishHandshake() {
  handshake_done_ = true;
  handshake_end_ = TimeTicks::Now();
  // Anything still buffered came in the same flight as the client's
  // Finished: in TLS 1.2 that is False Start's early application data.
  app_data_with_finished_ = adapter()->buffered_input() > 0;
  FillNegotiatedInfo(&ssl_info_);
  FillEarlyDataInfo();
  // BoringSSL holds TLS 1.3 NewSessionTickets until the server next writes
  // (so a client that never reads cannot stall it). A browser client may
  // preconnect and send nothing for a while, or open parallel connections
  // that wait for this one's session: send them now, as nginx does
  // (SSLServerConfig::tls13_tickets_at_handshake). A zero-length write only
  // flushes what is pending.
  if (tickets_at_handshake_ && !SSL_in_early_data(ssl())) {
    SSL_write(ssl(), "", 0);
    ERR_clear_error();
    adapter()->Pump();
  }
}

void SSLServerSocket::FillEarlyDataInfo() {
  // With 0-RTT accepted the handshake "completes" right after the server's
  // first flight (SSL_in_early_data). The ClientHello callback marked an
  // offer; once the server has decided (its flight sent), one not accepted
  // was rejected. A client whose early data was rejected abandons the
  // connection, so that is usually learnt from a failed handshake.
  const ssl_early_data_reason_t reason = SSL_get_early_data_reason(ssl());
  if (SSL_in_early_data(ssl()) || SSL_early_data_accepted(ssl())) {
    ssl_info_.early_data = EarlyDataState::kAccepted;
  } else if (ssl_info_.early_data == EarlyDataState::kOffered &&
             reason != ssl_early_data_unknown) {
    ssl_info_.early_data = EarlyDataState::kRejected;
  }
  if (ssl_info_.early_data_reason.empty() &&
      ssl_info_.early_data != EarlyDataState::kNotOffered) {
    if (const char* name = SSL_early_data_reason_string(reason))
      ssl_info_.early_data_reason = name;
  }
}

void SSLServerSocket::OnHandshakeIOReady() {
  if (!handshake_callback_) return;
  int rv = DoHandshake();
  if (rv == ERR_IO_PENDING) return;
  if (rv != OK) FillEarlyDataInfo();
  CompletionOnceCallback cb = std::move(handshake_callback_);
  handshake_callback_ = nullptr;
  std::move(cb)(rv);
}

void SSLServerSocket::Disconnect() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (handshake_done_) {
    SSL_shutdown(ssl());  // Queue close_notify; best effort.
    adapter()->Pump();
  }
  handshake_callback_ = nullptr;
  DisconnectTransport();
}

}  // namespace net
