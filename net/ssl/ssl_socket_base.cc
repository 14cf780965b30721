#include "net/ssl/ssl_socket_base.h"

#include <openssl/err.h>

#include "net/base/event_loop.h"
#include "net/ssl/openssl_util.h"

namespace net {
namespace {

// Transport reads one Read (or one pass over idle input) makes before it
// lets the loop run: at most about 270 KB.
constexpr int kMaxPumpsPerTurn = 16;

}  // namespace

SSLSocketBase::SSLSocketBase(std::unique_ptr<StreamSocket> transport)
    : transport_(std::move(transport)), adapter_(transport_.get(), this) {}

SSLSocketBase::~SSLSocketBase() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

void SSLSocketBase::AttachSSL(bssl::UniquePtr<SSL> ssl) {
  ssl_ = std::move(ssl);
  BIO* bio = adapter_.TakeSSLBio();
  SSL_set_bio(ssl_.get(), bio, bio);
}

int SSLSocketBase::MapError(int ssl_rv, bool in_handshake) {
  int ssl_error = SSL_get_error(ssl_.get(), ssl_rv);
  int error = MapOpenSSLError(ssl_error, adapter_.read_error(),
                              adapter_.read_eof(), in_handshake, &error_detail_,
                              adapter_.first_bytes_received());
  adapter_.Pump();  // Send the fatal alert BoringSSL queued, if any.
  return error;
}

void SSLSocketBase::FillNegotiatedInfo(SSLInfo* info) const {
  SSL* s = ssl_.get();
  info->version = SSL_get_version(s);
  if (const SSL_CIPHER* cipher = SSL_get_current_cipher(s))
    info->cipher = SSL_CIPHER_standard_name(cipher);
  uint16_t group = SSL_get_curve_id(s);
  if (group != 0 && SSL_get_curve_name(group))
    info->group = SSL_get_curve_name(group);
  const uint8_t* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(s, &alpn, &alpn_len);
  info->alpn.assign(reinterpret_cast<const char*>(alpn), alpn_len);
  info->resumed = SSL_session_reused(s);
  // Client and server alike: the server decrypted the inner ClientHello.
  if (SSL_ech_accepted(s)) info->ech = EchOutcome::kAccepted;
}

int SSLSocketBase::Read(std::shared_ptr<IOBuffer> buf, int len,
                        CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
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

int SSLSocketBase::DoPayloadRead() {
  // Bounded: a peer that streams nothing but non-application records (TLS
  // 1.3 NewSessionTickets: BoringSSL limits KeyUpdates, empty records and
  // warning alerts, not those) would otherwise keep this loop going for as
  // long as it sends, and no timer could run. After that many transport
  // reads without application data, finish on a later turn of the loop.
  for (int pumps = 0;; ++pumps) {
    int rv = SSL_read(ssl_.get(), user_read_buf_->data(), user_read_len_);
    if (early_data_pending_) CheckEarlyData(rv);
    if (rv > 0) {
      adapter_.Pump();  // Post-handshake messages may have queued output.
      return rv;
    }
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (pumps >= kMaxPumpsPerTurn) {
        EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
          if (weak && weak->handshake_done_ && weak->user_read_callback_)
            weak->OnTransportIOComplete();
        });
        return ERR_IO_PENDING;
      }
      if (adapter_.Pump()) continue;
      if (adapter_.read_error() != OK) return adapter_.read_error();
      return ERR_IO_PENDING;
    }
    if (ssl_error == SSL_ERROR_ZERO_RETURN) return 0;
    if (ssl_error == SSL_ERROR_SYSCALL && adapter_.read_eof() &&
        adapter_.read_error() == OK) {
      // Transport EOF without close_notify: report end of stream and let the
      // HTTP layer judge truncation from its framing.
      return 0;
    }
    return MapError(rv, /*in_handshake=*/SSL_in_init(ssl_.get()));
  }
}

int SSLSocketBase::Write(std::shared_ptr<IOBuffer> buf, int len,
                         CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
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

int SSLSocketBase::DoPayloadWrite() {
  for (;;) {
    int rv = SSL_write(ssl_.get(), user_write_buf_->data(), user_write_len_);
    if (early_data_pending_) CheckEarlyData(rv);
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
    return MapError(rv, /*in_handshake=*/SSL_in_init(ssl_.get()));
  }
}

void SSLSocketBase::CheckEarlyData(int ssl_rv) {
  bool rejected = ssl_rv <= 0 && SSL_get_error(ssl_.get(), ssl_rv) ==
                                     SSL_ERROR_EARLY_DATA_REJECTED;
  if (!rejected && SSL_in_init(ssl_.get())) return;  // Not decided yet.
  early_data_pending_ = false;
  OnEarlyDataResolved(rejected);
}

void SSLSocketBase::OnTransportIOComplete() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!handshake_done_) {
    OnHandshakeIOReady();
    return;
  }
  auto weak = weak_factory_.GetWeakPtr();
  if (!user_read_callback_) ProcessIdleInput();
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

void SSLSocketBase::ProcessInputWhileIdle() {
  process_idle_input_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak) weak->ProcessIdleInput();
  });
}

void SSLSocketBase::ProcessIdleInput() {
  // A pending Read consumes records itself; an unfinished handshake (False
  // Start, 0-RTT) is finished by the next Read or Write, which must see its
  // outcome.
  if (!process_idle_input_ || !handshake_done_ || user_read_callback_ ||
      early_data_pending_ || closed_while_idle_ || !ssl_ ||
      SSL_in_init(ssl_.get())) {
    return;
  }
  // Bounded as DoPayloadRead is: a peer that keeps sending tickets is
  // processed a few records per transport read.
  for (int pumps = 0; pumps < kMaxPumpsPerTurn; ++pumps) {
    uint8_t byte;
    int rv = SSL_peek(ssl_.get(), &byte, 1);
    if (rv > 0) break;  // Application data: kept for Read; not idle.
    int ssl_error = SSL_get_error(ssl_.get(), rv);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (adapter_.Pump()) continue;
      return;
    }
    // End of stream or a failure. BoringSSL keeps the failure and returns
    // it again to the next SSL_read; the socket is no longer reusable.
    closed_while_idle_ = true;
    ERR_clear_error();
    break;
  }
  adapter_.Pump();  // A post-handshake message may have queued output.
}

void SSLSocketBase::DisconnectTransport() {
  handshake_done_ = false;
  user_read_callback_ = nullptr;
  user_write_callback_ = nullptr;
  transport_->Disconnect();
}

bool SSLSocketBase::IsConnected() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return handshake_done_ && transport_->IsConnected() && !adapter_.read_eof() &&
         adapter_.read_error() == OK && !closed_while_idle_;
}

bool SSLSocketBase::IsConnectedAndIdle() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The adapter reads ahead, so check what it has buffered as well as what
  // SSL has decrypted but not handed out.
  return IsConnected() && adapter_.buffered_input() == 0 &&
         SSL_pending(ssl_.get()) == 0;
}

int SSLSocketBase::GetPeerAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->GetPeerAddress(address);
}

int SSLSocketBase::GetLocalAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_->GetLocalAddress(address);
}

int SSLSocketBase::ExportKeyingMaterial(absl::string_view label,
                                        bool has_context,
                                        absl::string_view context, uint8_t* out,
                                        size_t out_len) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!handshake_done_ || !ssl_ || SSL_in_init(ssl_.get()))
    return ERR_SOCKET_NOT_CONNECTED;
  if (!SSL_export_keying_material(
          ssl_.get(), out, out_len, label.data(), label.size(),
          reinterpret_cast<const uint8_t*>(context.data()), context.size(),
          has_context)) {
    ERR_clear_error();
    return ERR_SSL_PROTOCOL_ERROR;
  }
  return OK;
}

std::string SSLSocketBase::server_name() const {
  const char* name =
      ssl_ ? SSL_get_servername(ssl_.get(), TLSEXT_NAMETYPE_host_name)
           : nullptr;
  return name ? name : "";
}

}  // namespace net
