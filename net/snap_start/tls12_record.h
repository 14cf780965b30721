// The TLS 1.2 record layer of the Snap Start core: framing (RecordBuffer,
// SerializeRecord), AES-128-GCM protection of one direction (RecordCipher,
// RFC 5288: 4-byte implicit salt, 8-byte explicit nonce = sequence number),
// and reassembly of handshake messages that span records (HandshakeBuffer).
//
// Value types owned by the sockets that use them. All parsing is on CBS and
// bounded: a record over 2^14 + 2048 bytes or a handshake message over
// kMaxHandshakeMessageSize is an error, never an allocation.

#ifndef NET_SNAP_START_TLS12_RECORD_H_
#define NET_SNAP_START_TLS12_RECORD_H_

#include <openssl/aead.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

enum TlsContentType : uint8_t {
  kTlsChangeCipherSpec = 20,
  kTlsAlert = 21,
  kTlsHandshake = 22,
  kTlsApplicationData = 23,
};

// TLS alert descriptions the core sends or names (RFC 5246 section 7.2).
enum TlsAlert : uint8_t {
  kAlertCloseNotify = 0,
  kAlertUnexpectedMessage = 10,
  kAlertBadRecordMac = 20,
  kAlertHandshakeFailure = 40,
  kAlertBadCertificate = 42,
  kAlertIllegalParameter = 47,
  kAlertDecodeError = 50,
  kAlertDecryptError = 51,
  kAlertProtocolVersion = 70,
  kAlertInternalError = 80,
  kAlertUserCanceled = 90,
  kAlertNoRenegotiation = 100,
  kAlertUnsupportedExtension = 110,
};

inline constexpr uint8_t kAlertLevelWarning = 1;
inline constexpr uint8_t kAlertLevelFatal = 2;

// The record-layer version of every record the core writes: TLS 1.2.
inline constexpr uint16_t kRecordVersion = 0x0303;

inline constexpr size_t kTlsRecordHeaderSize = 5;
inline constexpr size_t kMaxPlaintextSize = 16384;
inline constexpr size_t kMaxCiphertextSize = kMaxPlaintextSize + 2048;
inline constexpr size_t kMaxHandshakeMessageSize = 65536;

struct TlsRecord {
  uint8_t type = 0;
  uint16_t version = 0;
  std::string fragment;
};

// The bytes of one record: 5-byte header then |fragment|.
std::string SerializeRecord(uint8_t type, uint16_t version,
                            absl::string_view fragment);

// Handshake messages as plaintext handshake records of at most 2^14 bytes.
std::string SerializeHandshakeRecords(absl::string_view messages);

// RecordBuffer accumulates bytes read from the transport and yields whole
// records in order.
class RecordBuffer {
 public:
  void Append(absl::string_view bytes) {
    buffer_.append(bytes.data(), bytes.size());
  }
  // The next complete record, nullopt if more bytes are needed, or an error
  // for a malformed header (unknown type, wrong major version, oversize).
  absl::StatusOr<std::optional<TlsRecord>> Next();
  bool empty() const { return buffer_.empty(); }

 private:
  std::string buffer_;
};

// RecordCipher protects records in one direction with AES-128-GCM.
class RecordCipher {
 public:
  static absl::StatusOr<std::unique_ptr<RecordCipher>> Create(
      absl::string_view key, absl::string_view fixed_iv);
  ~RecordCipher();
  RecordCipher(const RecordCipher&) = delete;
  RecordCipher& operator=(const RecordCipher&) = delete;

  // Seal encrypts |plaintext| (at most kMaxPlaintextSize) as one record of
  // |type| and returns the record's bytes.
  std::string Seal(uint8_t type, absl::string_view plaintext);
  // SealAll splits |plaintext| into as many records as needed.
  std::string SealAll(uint8_t type, absl::string_view plaintext);
  // Open authenticates and decrypts |record|'s fragment. An error means
  // bad_record_mac.
  absl::StatusOr<std::string> Open(const TlsRecord& record);
  uint64_t sequence() const { return seq_; }

 private:
  RecordCipher() = default;
  void Nonce(uint64_t explicit_nonce, uint8_t out[12]) const;

  EVP_AEAD_CTX ctx_;
  bool initialized_ = false;
  std::string fixed_iv_;
  uint64_t seq_ = 0;
};

// A handshake message: type, body, and the 4-byte-header encoding (what the
// transcript hashes).
struct HandshakeMessage {
  uint8_t type = 0;
  std::string body;
  std::string raw;
};

std::string SerializeHandshake(uint8_t type, absl::string_view body);

// HandshakeBuffer reassembles handshake messages from the plaintext of
// handshake records.
class HandshakeBuffer {
 public:
  void Append(absl::string_view bytes) {
    buffer_.append(bytes.data(), bytes.size());
  }
  absl::StatusOr<std::optional<HandshakeMessage>> Next();
  bool empty() const { return buffer_.empty(); }

 private:
  std::string buffer_;
};

}  // namespace net

#endif  // NET_SNAP_START_TLS12_RECORD_H_
