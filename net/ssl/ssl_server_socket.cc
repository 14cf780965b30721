#include "net/ssl/ssl_server_socket.h"

#include "net/ssl/openssl_util.h"

namespace net {

SSLServerSocket::SSLServerSocket(std::unique_ptr<StreamSocket> transport,
                                 SSLServerContext* context)
    : transport_(std::move(transport)),
      adapter_(transport_.get(), this),
      ssl_(SSL_new(context->ssl_ctx())) {
  SSL_set_accept_state(ssl_.get());
  BIO* bio = adapter_.TakeSSLBio();
  SSL_set_bio(ssl_.get(), bio, bio);
}

SSLServerSocket::~SSLServerSocket() = default;

int SSLServerSocket::Handshake(CompletionOnceCallback callback) {
  handshake_start_ = TimeTicks::Now();
  int rv = DoHandshake();
  if (rv == ERR_IO_PENDING) handshake_callback_ = std::move(callback);
  return rv;
}

int SSLServerSocket::DoHandshake() {
  for (;;) {
    int rv = SSL_do_handshake(ssl_.get());
    if (rv == 1) {
      adapter_.Pump();
      FinishHandshake();
      return OK;
    }
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter_.Pump()) continue;
      if (adapter_.read_eof()) {
        error_detail_ = "client closed the connection during the handshake";
        return ERR_SSL_HANDSHAKE_CLOSED;
      }
      if (adapter_.read_error() != OK) return adapter_.read_error();
      return ERR_IO_PENDING;
    }
    int error = MapOpenSSLError(ssl_error, adapter_.read_error(),
                                adapter_.read_eof(), true, &error_detail_);
    adapter_.Pump();  // Send the fatal alert BoringSSL queued.
    return error;
  }
}

void SSLServerSocket::FinishHandshake() {
  handshake_done_ = true;
  handshake_end_ = TimeTicks::Now();
  // Anything still buffered came in the same flight as the client's
  // Finished: in TLS 1.2 that is False Start's early application data.
  app_data_with_finished_ = adapter_.buffered_input() > 0;
  SSL* ssl = ssl_.get();
  ssl_info_.version = SSL_get_version(ssl);
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  if (cipher) ssl_info_.cipher = SSL_CIPHER_standard_name(cipher);
  uint16_t group = SSL_get_curve_id(ssl);
  if (group != 0 && SSL_get_curve_name(group)) ssl_info_.group = SSL_get_curve_name(group);
  const uint8_t* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
  ssl_info_.alpn.assign(reinterpret_cast<const char*>(alpn), alpn_len);
  ssl_info_.resumed = SSL_session_reused(ssl);
}

int SSLServerSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                          CompletionOnceCallback callback) {
  if (!handshake_done_) return ERR_SOCKET_NOT_CONNECTED;
  user_read_buf_ = std::move(buf);
  user_read_len_ = len;
  int rv = DoPayloadRead();
  if (rv == ERR_IO_PENDING) {
    user_read_callback_ = std::move(callback);
  } else {
    user_read_buf_.reset();
  }
  return rv;
}

int SSLServerSocket::DoPayloadRead() {
  for (;;) {
    int rv = SSL_read(ssl_.get(), user_read_buf_->data(), user_read_len_);
    if (rv > 0) {
      adapter_.Pump();
      return rv;
    }
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter_.Pump()) continue;
      if (adapter_.read_error() != OK) return adapter_.read_error();
      return ERR_IO_PENDING;
    }
    if (ssl_error == SSL_ERROR_ZERO_RETURN) return 0;
    if (ssl_error == SSL_ERROR_SYSCALL && adapter_.read_eof()) return 0;
    return MapOpenSSLError(ssl_error, adapter_.read_error(), adapter_.read_eof(),
                           false, &error_detail_);
  }
}

int SSLServerSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  if (!handshake_done_) return ERR_SOCKET_NOT_CONNECTED;
  user_write_buf_ = std::move(buf);
  user_write_len_ = len;
  int rv = DoPayloadWrite();
  if (rv == ERR_IO_PENDING) {
    user_write_callback_ = std::move(callback);
  } else {
    user_write_buf_.reset();
  }
  return rv;
}

int SSLServerSocket::DoPayloadWrite() {
  for (;;) {
    int rv = SSL_write(ssl_.get(), user_write_buf_->data(), user_write_len_);
    if (rv > 0) {
      adapter_.Pump();
      if (adapter_.write_error() != OK) return adapter_.write_error();
      return rv;
    }
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter_.Pump()) continue;
      if (adapter_.write_error() != OK) return adapter_.write_error();
      return ERR_IO_PENDING;
    }
    return MapOpenSSLError(ssl_error, adapter_.read_error(), adapter_.read_eof(),
                           false, &error_detail_);
  }
}

void SSLServerSocket::OnTransportIOComplete() {
  auto weak = weak_factory_.GetWeakPtr();
  if (!handshake_done_) {
    if (!handshake_callback_) return;
    int rv = DoHandshake();
    if (rv == ERR_IO_PENDING) return;
    CompletionOnceCallback cb = std::move(handshake_callback_);
    handshake_callback_ = nullptr;
    std::move(cb)(rv);
    return;
  }
  if (user_read_callback_) {
    int rv = DoPayloadRead();
    if (rv != ERR_IO_PENDING) {
      user_read_buf_.reset();
      CompletionOnceCallback cb = std::move(user_read_callback_);
      user_read_callback_ = nullptr;
      std::move(cb)(rv);
      if (!weak) return;
    }
  }
  if (user_write_callback_) {
    int rv = DoPayloadWrite();
    if (rv != ERR_IO_PENDING) {
      user_write_buf_.reset();
      CompletionOnceCallback cb = std::move(user_write_callback_);
      user_write_callback_ = nullptr;
      std::move(cb)(rv);
    }
  }
}

void SSLServerSocket::Disconnect() {
  if (handshake_done_) {
    SSL_shutdown(ssl_.get());  // Queue close_notify.
    adapter_.Pump();
  }
  handshake_done_ = false;
  user_read_callback_ = nullptr;
  user_write_callback_ = nullptr;
  handshake_callback_ = nullptr;
  transport_->Disconnect();
}

bool SSLServerSocket::IsConnected() const {
  return handshake_done_ && transport_->IsConnected() && !adapter_.read_eof();
}

bool SSLServerSocket::IsConnectedAndIdle() const {
  return IsConnected() && adapter_.buffered_input() == 0;
}

int SSLServerSocket::GetPeerAddress(IPEndPoint* address) const {
  return transport_->GetPeerAddress(address);
}

int SSLServerSocket::GetLocalAddress(IPEndPoint* address) const {
  return transport_->GetLocalAddress(address);
}

}  // namespace net
