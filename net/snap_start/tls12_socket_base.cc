#include "net/snap_start/tls12_socket_base.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace net {
namespace {
constexpr int kReadSize = 16 * 1024 + 64;
constexpr uint16_t kRecordVersion = 0x0303;
}  // namespace

Tls12SocketBase::Tls12SocketBase(std::unique_ptr<StreamSocket> transport,
                                 std::string initial_bytes)
    : transport_(std::move(transport)) {
  records_.Append(initial_bytes);
}

Tls12SocketBase::~Tls12SocketBase() = default;

int Tls12SocketBase::Fail(int error, std::string detail, uint8_t alert) {
  if (error_detail_.empty()) error_detail_ = std::move(detail);
  if (alert != 0xff) SendAlertBestEffort(2, alert);
  return error;
}

void Tls12SocketBase::SendAlertBestEffort(uint8_t level, uint8_t description) {
  // Never beside a pending write (one Write at a time on the transport).
  if (!transport_ || !transport_->IsConnected() || write_buf_) return;
  const char body[2] = {static_cast<char>(level),
                        static_cast<char>(description)};
  std::string record =
      write_cipher_ ? write_cipher_->Seal(kTlsAlert, absl::string_view(body, 2))
                    : SerializeRecord(kTlsAlert, kRecordVersion,
                                      absl::string_view(body, 2));
  // Best effort: one write attempt; the result does not matter.
  auto buf = std::make_shared<IOBuffer>(record);
  transport_->Write(buf, static_cast<int>(record.size()), [buf](int) {});
}

int Tls12SocketBase::ReadRecord(TlsRecord* out, bool for_handshake) {
  while (true) {
    absl::StatusOr<std::optional<TlsRecord>> next = records_.Next();
    if (!next.ok()) {
      return Fail(ERR_SSL_PROTOCOL_ERROR, std::string(next.status().message()),
                  kAlertDecodeError);
    }
    if (next->has_value()) {
      TlsRecord record = std::move(**next);
      if (read_cipher_) {
        absl::StatusOr<std::string> plaintext = read_cipher_->Open(record);
        if (!plaintext.ok()) {
          return Fail(ERR_SSL_BAD_RECORD_MAC_ALERT,
                      "record failed authentication (bad_record_mac)",
                      kAlertBadRecordMac);
        }
        record.fragment = std::move(*plaintext);
      } else if (record.fragment.size() > kMaxPlaintextSize) {
        return Fail(ERR_SSL_PROTOCOL_ERROR, "plaintext record too long",
                    kAlertDecodeError);
      }
      if (record.type == kTlsAlert) {
        if (record.fragment.size() != 2) {
          return Fail(ERR_SSL_PROTOCOL_ERROR, "malformed alert",
                      kAlertDecodeError);
        }
        const uint8_t description = static_cast<uint8_t>(record.fragment[1]);
        if (description == kAlertCloseNotify) {
          peer_closed_ = true;
          // A clean end of stream; ReadAppData turns it into 0.
          if (!for_handshake) return ERR_CONNECTION_CLOSED;
          return Fail(ERR_SSL_HANDSHAKE_CLOSED,
                      "peer sent close_notify during the handshake", 0xff);
        }
        return Fail(ERR_SSL_PEER_ALERT,
                    absl::StrCat("peer sent fatal alert ", description), 0xff);
      }
      *out = std::move(record);
      return OK;
    }
    if (transport_eof_) {
      if (for_handshake) {
        return Fail(ERR_SSL_HANDSHAKE_CLOSED,
                    "connection closed during the handshake", 0xff);
      }
      if (!records_.empty()) {
        return Fail(ERR_CONNECTION_CLOSED, "connection closed mid-record",
                    0xff);
      }
      clean_eof_ = true;  // between records; ReadAppData turns it into 0
      return ERR_CONNECTION_CLOSED;
    }
    if (transport_read_error_ < 0) return transport_read_error_;
    transport_read_buf_ = std::make_shared<IOBuffer>(kReadSize);
    transport_read_for_handshake_ = for_handshake;
    int rv = transport_->Read(transport_read_buf_, kReadSize,
                              [this](int rv) { OnTransportRead(rv); });
    if (rv == ERR_IO_PENDING) return ERR_IO_PENDING;
    if (rv == 0) {
      transport_eof_ = true;
    } else if (rv < 0) {
      transport_read_error_ = rv;
    } else {
      records_.Append(absl::string_view(transport_read_buf_->data(), rv));
    }
  }
}

void Tls12SocketBase::OnTransportRead(int result) {
  if (result == 0) {
    transport_eof_ = true;
  } else if (result < 0) {
    transport_read_error_ = result;
  } else {
    records_.Append(absl::string_view(transport_read_buf_->data(), result));
  }
  if (transport_read_for_handshake_) {
    // The handshake state re-reads (and sees EOF or the error) when it runs.
    OnHandshakeIOComplete(OK);
    return;
  }
  int rv = ReadAppData();
  if (rv == ERR_IO_PENDING) return;
  user_read_buf_.reset();
  std::move(user_read_callback_)(rv);
}

int Tls12SocketBase::ReadHandshakeOrCcs(HandshakeMessage* out, bool* is_ccs) {
  *is_ccs = false;
  while (true) {
    absl::StatusOr<std::optional<HandshakeMessage>> message =
        handshake_buffer_.Next();
    if (!message.ok()) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  std::string(message.status().message()), kAlertDecodeError);
    }
    if (message->has_value()) {
      *out = std::move(**message);
      return OK;
    }
    TlsRecord record;
    int rv = ReadRecord(&record, /*for_handshake=*/true);
    if (rv != OK) return rv;
    if (record.type == kTlsChangeCipherSpec) {
      if (!handshake_buffer_.empty() || record.fragment != "\x01") {
        return Fail(ERR_SSL_PROTOCOL_ERROR,
                    "ChangeCipherSpec malformed or inside a handshake message",
                    kAlertUnexpectedMessage);
      }
      *is_ccs = true;
      return OK;
    }
    if (record.type != kTlsHandshake) {
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  absl::StrCat("unexpected record type ", record.type,
                               " during the handshake"),
                  kAlertUnexpectedMessage);
    }
    if (record.fragment.empty()) {
      return Fail(ERR_SSL_PROTOCOL_ERROR, "empty handshake record",
                  kAlertDecodeError);
    }
    handshake_buffer_.Append(record.fragment);
  }
}

int Tls12SocketBase::ReadHandshakeMessage(HandshakeMessage* out) {
  bool is_ccs = false;
  int rv = ReadHandshakeOrCcs(out, &is_ccs);
  if (rv == OK && is_ccs) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, "unexpected ChangeCipherSpec",
                kAlertUnexpectedMessage);
  }
  return rv;
}

int Tls12SocketBase::ReadHandshakeMessageOfType(uint8_t type, const char* name,
                                                HandshakeMessage* out) {
  int rv = ReadHandshakeMessage(out);
  if (rv == OK && out->type != type) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, absl::StrCat("expected ", name),
                kAlertUnexpectedMessage);
  }
  return rv;
}

int Tls12SocketBase::WriteFlight(std::string bytes) {
  write_buf_ = std::make_shared<DrainableIOBuffer>(bytes);
  write_for_handshake_ = true;
  return DoWriteLoop();
}

int Tls12SocketBase::DoWriteLoop() {
  while (write_buf_->BytesRemaining() > 0) {
    int rv = transport_->Write(write_buf_,
                               static_cast<int>(write_buf_->BytesRemaining()),
                               [this](int rv) { OnTransportWrite(rv); });
    if (rv == ERR_IO_PENDING) return rv;
    if (rv <= 0) return rv == 0 ? ERR_CONNECTION_CLOSED : rv;
    write_buf_->DidConsume(rv);
  }
  write_buf_.reset();
  return OK;
}

void Tls12SocketBase::OnTransportWrite(int result) {
  int rv = result;
  if (result > 0) {
    write_buf_->DidConsume(result);
    rv = DoWriteLoop();
    if (rv == ERR_IO_PENDING) return;
  } else if (result == 0) {
    rv = ERR_CONNECTION_CLOSED;
  }
  if (write_for_handshake_) {
    OnHandshakeIOComplete(rv);
    return;
  }
  std::move(user_write_callback_)(rv == OK ? user_write_len_ : rv);
}

int Tls12SocketBase::Read(std::shared_ptr<IOBuffer> buf, int len,
                          CompletionOnceCallback callback) {
  if (!handshake_done_) return ERR_SOCKET_NOT_CONNECTED;
  user_read_buf_ = std::move(buf);
  user_read_len_ = len;
  int rv = ReadAppData();
  if (rv == ERR_IO_PENDING) {
    user_read_callback_ = std::move(callback);
  } else {
    user_read_buf_.reset();
  }
  return rv;
}

int Tls12SocketBase::ReadAppData() {
  while (app_data_.empty()) {
    if (peer_closed_) return 0;
    TlsRecord record;
    int rv = ReadRecord(&record, /*for_handshake=*/false);
    // close_notify, or a TCP close between records (servers that skip
    // close_notify, as HTTP/1.0 ones often do): end of stream.
    if (rv == ERR_CONNECTION_CLOSED && (peer_closed_ || clean_eof_)) return 0;
    if (rv != OK) return rv;
    if (record.type == kTlsApplicationData) {
      app_data_ += record.fragment;
      continue;
    }
    if (record.type == kTlsHandshake) {
      // No renegotiation and no post-handshake messages in TLS 1.2 here.
      return Fail(ERR_SSL_PROTOCOL_ERROR,
                  "handshake message after the handshake (renegotiation is "
                  "not supported)",
                  kAlertUnexpectedMessage);
    }
    return Fail(ERR_SSL_PROTOCOL_ERROR, "unexpected record after handshake",
                kAlertUnexpectedMessage);
  }
  const int n = static_cast<int>(
      std::min<size_t>(app_data_.size(), static_cast<size_t>(user_read_len_)));
  memcpy(user_read_buf_->data(), app_data_.data(), n);
  app_data_.erase(0, n);
  return n;
}

int Tls12SocketBase::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  if (!handshake_done_ || !write_cipher_) return ERR_SOCKET_NOT_CONNECTED;
  if (len <= 0) return ERR_INVALID_ARGUMENT;
  std::string records = write_cipher_->SealAll(
      kTlsApplicationData, absl::string_view(buf->data(), len));
  write_buf_ = std::make_shared<DrainableIOBuffer>(records);
  write_for_handshake_ = false;
  user_write_len_ = len;
  int rv = DoWriteLoop();
  if (rv == ERR_IO_PENDING) {
    user_write_callback_ = std::move(callback);
    return rv;
  }
  return rv == OK ? len : rv;
}

void Tls12SocketBase::Disconnect() {
  if (handshake_done_ && write_cipher_ && transport_ &&
      transport_->IsConnected()) {
    SendAlertBestEffort(1, kAlertCloseNotify);
  }
  if (transport_) transport_->Disconnect();
}

bool Tls12SocketBase::IsConnected() const {
  return transport_ && transport_->IsConnected() && !peer_closed_;
}

bool Tls12SocketBase::IsConnectedAndIdle() const {
  return handshake_done_ && app_data_.empty() && records_.empty() &&
         !peer_closed_ && transport_ && transport_->IsConnectedAndIdle();
}

int Tls12SocketBase::GetPeerAddress(IPEndPoint* address) const {
  return transport_ ? transport_->GetPeerAddress(address)
                    : ERR_SOCKET_NOT_CONNECTED;
}

int Tls12SocketBase::GetLocalAddress(IPEndPoint* address) const {
  return transport_ ? transport_->GetLocalAddress(address)
                    : ERR_SOCKET_NOT_CONNECTED;
}

}  // namespace net
