#include "net/snap_start/tls12_socket_base.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace net {
namespace {
constexpr int kReadSize = 16 * 1024 + 64;
}  // namespace

Tls12SocketBase::Tls12SocketBase(Side side,
                                 std::unique_ptr<StreamSocket> transport,
                                 std::string initial_bytes)
    : side_(side), transport_(std::move(transport)) {
  records_.Append(initial_bytes);
}

Tls12SocketBase::~Tls12SocketBase() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int Tls12SocketBase::Fail(int error, std::string detail,
                          std::optional<TlsAlert> alert) {
  if (error_detail_.empty()) error_detail_ = std::move(detail);
  if (alert) SendAlert(kAlertLevelFatal, *alert);
  // Whatever went wrong, the connection is over: nothing more goes out
  // (RFC 5246 section 7.2.2), and later Reads and Writes see the error.
  write_closed_ = true;
  fatal_error_ = error;
  return error;
}

int Tls12SocketBase::Fail(const HandshakeFailure& failure) {
  return Fail(failure.error, failure.detail, failure.alert);
}

void Tls12SocketBase::SendAlert(uint8_t level, TlsAlert description) {
  const bool can_send = !write_closed_ && transport_ &&
                        transport_->IsConnected() &&
                        // Never beside a pending write (one Write at a time
                        // on the transport).
                        !write_buf_;
  if (level == kAlertLevelFatal) write_closed_ = true;
  if (!can_send) return;
  const char body[2] = {static_cast<char>(level),
                        static_cast<char>(description)};
  // Under the write state in force: plaintext until this side's
  // ChangeCipherSpec, when the peer cannot decrypt anything yet.
  std::string record =
      write_cipher_ ? write_cipher_->Seal(kTlsAlert, absl::string_view(body, 2))
                    : SerializeRecord(kTlsAlert, kRecordVersion,
                                      absl::string_view(body, 2));
  // Best effort: one write attempt; the result does not matter.
  auto buf = std::make_shared<IOBuffer>(record);
  transport_->Write(buf, static_cast<int>(record.size()), [buf](int) {});
}

void Tls12SocketBase::set_randoms(std::string client_random,
                                  std::string server_random) {
  client_random_ = std::move(client_random);
  server_random_ = std::move(server_random);
}

void Tls12SocketBase::DeriveMasterSecret(absl::string_view premaster,
                                         bool extended) {
  master_secret_ =
      extended ? Tls12ExtendedMasterSecret(premaster, transcript_.Hash())
               : Tls12MasterSecret(premaster, client_random_, server_random_);
}

int Tls12SocketBase::InstallPendingKeys() {
  const Tls12KeyBlock keys =
      Tls12DeriveKeys(master_secret_, client_random_, server_random_);
  const bool client = side_ == Side::kClient;
  absl::StatusOr<std::unique_ptr<RecordCipher>> write = RecordCipher::Create(
      client ? keys.client_write_key : keys.server_write_key,
      client ? keys.client_write_iv : keys.server_write_iv);
  absl::StatusOr<std::unique_ptr<RecordCipher>> read = RecordCipher::Create(
      client ? keys.server_write_key : keys.client_write_key,
      client ? keys.server_write_iv : keys.client_write_iv);
  if (!write.ok() || !read.ok()) {
    return Fail(ERR_UNEXPECTED, "cannot set up the record keys",
                kAlertInternalError);
  }
  pending_write_cipher_ = std::move(*write);
  pending_read_cipher_ = std::move(*read);
  return OK;
}

std::string Tls12SocketBase::ChangeCipherSpecRecord() {
  NET_DCHECK(pending_write_cipher_);
  write_cipher_ = std::move(pending_write_cipher_);
  return SerializeRecord(kTlsChangeCipherSpec, kRecordVersion, "\x01");
}

int Tls12SocketBase::ReceiveChangeCipherSpec() {
  if (!pending_read_cipher_) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                "ChangeCipherSpec before the key exchange",
                kAlertUnexpectedMessage);
  }
  read_cipher_ = std::move(pending_read_cipher_);
  return OK;
}

std::string Tls12SocketBase::OwnFinished() {
  std::string finished = Tls12FinishedMessage(
      master_secret_, side_ == Side::kServer, transcript_.Hash());
  transcript_.Update(finished);
  return finished;
}

std::string Tls12SocketBase::ExpectedPeerFinished() const {
  return Tls12FinishedMessage(master_secret_, side_ == Side::kClient,
                              transcript_.Hash());
}

std::string Tls12SocketBase::CcsAndFinished(absl::string_view finished) {
  std::string out = ChangeCipherSpecRecord();
  if (!write_cipher_) return out;  // not reached (checked above)
  out += write_cipher_->Seal(kTlsHandshake, finished);
  return out;
}

int Tls12SocketBase::VerifyPeerFinished(const HandshakeMessage& message,
                                        const std::string* precomputed) {
  const std::string expected =
      precomputed ? *precomputed : ExpectedPeerFinished();
  if (!FinishedMatches(message.raw, expected)) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                absl::StrCat(side_ == Side::kServer ? "client" : "server",
                             " Finished does not verify"),
                kAlertDecryptError);
  }
  if (!precomputed) transcript_.Update(message.raw);
  return OK;
}

void Tls12SocketBase::ResetHandshakeKeys() {
  pending_read_cipher_.reset();
  pending_write_cipher_.reset();
  read_cipher_.reset();
  write_cipher_.reset();
  master_secret_.clear();
  transcript_.Reset();
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
        const uint8_t level = static_cast<uint8_t>(record.fragment[0]);
        const uint8_t description = static_cast<uint8_t>(record.fragment[1]);
        if (description == kAlertCloseNotify) {
          peer_closed_ = true;
          // A clean end of stream; ReadAppData turns it into 0.
          if (!for_handshake) return ERR_CONNECTION_CLOSED;
          return Fail(ERR_SSL_HANDSHAKE_CLOSED,
                      "peer sent close_notify during the handshake");
        }
        // Not answered: after the peer's alert nothing more goes out.
        return Fail(ERR_SSL_PEER_ALERT,
                    absl::StrCat("peer sent ",
                                 level == kAlertLevelFatal ? "fatal " : "",
                                 "alert ", description));
      }
      *out = std::move(record);
      return OK;
    }
    if (transport_eof_) {
      if (for_handshake) {
        return Fail(ERR_SSL_HANDSHAKE_CLOSED,
                    "connection closed during the handshake");
      }
      if (!records_.empty()) {
        return Fail(ERR_CONNECTION_CLOSED, "connection closed mid-record");
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
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
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
    if (write_closed_ && fatal_error_ != OK) return fatal_error_;
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
      rv = OnPostHandshakeRecord(record);
      if (rv != OK) return rv;
      continue;
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

int Tls12SocketBase::OnPostHandshakeRecord(const TlsRecord& record) {
  // TLS 1.2 has no post-handshake messages, so a handshake message here
  // starts a renegotiation, which the core refuses as BoringSSL does
  // (ssl_do_post_handshake): a server answers any of them with a fatal
  // no_renegotiation; a client, a HelloRequest with a fatal no_renegotiation
  // and anything else with decode_error.
  if (side_ == Side::kServer) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                "client attempted renegotiation, which the core refuses",
                kAlertNoRenegotiation);
  }
  if (record.fragment.empty()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, "empty handshake record",
                kAlertDecodeError);
  }
  handshake_buffer_.Append(record.fragment);
  absl::StatusOr<std::optional<HandshakeMessage>> message =
      handshake_buffer_.Next();
  if (!message.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, std::string(message.status().message()),
                kAlertDecodeError);
  }
  if (!message->has_value()) return OK;  // the rest is still to come
  if ((*message)->type == kHelloRequestType && (*message)->body.empty()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                "server requested renegotiation (HelloRequest), which the "
                "core refuses",
                kAlertNoRenegotiation);
  }
  return Fail(ERR_SSL_PROTOCOL_ERROR,
              absl::StrCat("handshake message ", (*message)->type,
                           " after the handshake"),
              kAlertDecodeError);
}

int Tls12SocketBase::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!handshake_done_ || !write_cipher_) return ERR_SOCKET_NOT_CONNECTED;
  if (write_closed_)
    return fatal_error_ != OK ? fatal_error_ : ERR_CONNECTION_CLOSED;
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
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // close_notify only on a connection that is still healthy: never after a
  // fatal alert, sent or received.
  if (handshake_done_ && write_cipher_) {
    SendAlert(kAlertLevelWarning, kAlertCloseNotify);
  }
  write_closed_ = true;
  if (transport_) transport_->Disconnect();
}

bool Tls12SocketBase::IsConnected() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_ && transport_->IsConnected() && !peer_closed_;
}

bool Tls12SocketBase::IsConnectedAndIdle() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return handshake_done_ && app_data_.empty() && records_.empty() &&
         !peer_closed_ && !write_closed_ && transport_ &&
         transport_->IsConnectedAndIdle();
}

int Tls12SocketBase::GetPeerAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_ ? transport_->GetPeerAddress(address)
                    : ERR_SOCKET_NOT_CONNECTED;
}

int Tls12SocketBase::GetLocalAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return transport_ ? transport_->GetLocalAddress(address)
                    : ERR_SOCKET_NOT_CONNECTED;
}

}  // namespace net
