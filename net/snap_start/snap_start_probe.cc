#include "net/snap_start/snap_start_probe.h"

#include "absl/strings/str_cat.h"
#include "net/snap_start/tls12_crypto.h"

namespace net {
namespace {
constexpr uint8_t kAlertUserCanceled = 90;
}  // namespace

std::optional<SnapStartInfo> SnapStartProbeResult::ToSnapStartInfo() const {
  if (!orbit || chain_der.empty()) return std::nullopt;
  SnapStartInfo info;
  info.chain_der = chain_der;
  info.cipher_suite = cipher_suite;
  info.orbit = *orbit;
  info.server_hello = server_hello;
  info.verified = false;
  return info;
}

SnapStartProbe::SnapStartProbe(std::unique_ptr<StreamSocket> transport,
                               std::string host)
    : Tls12SocketBase(std::move(transport), std::string()),
      host_(std::move(host)) {}

SnapStartProbe::~SnapStartProbe() = default;

int SnapStartProbe::Run(CompletionOnceCallback callback) {
  ClientHello hello;
  hello.version = kTls12Version;
  hello.random = NewHelloRandom();
  hello.cipher_suites = {kTlsRsaWithAes128GcmSha256,
                         kEmptyRenegotiationInfoScsv};
  hello.compression_methods = std::string(1, '\0');
  hello.has_extensions = true;
  hello.extensions.emplace_back(kServerNameExtension,
                                ServerNameExtension(host_));
  // Tickets offered so the ServerHello template matches what a connecting
  // client will be answered.
  hello.extensions.emplace_back(kSessionTicketExtension, std::string());
  hello.extensions.emplace_back(kSnapStartExtension, std::string());
  const std::string raw =
      SerializeHandshake(kClientHelloType, SerializeClientHello(hello));
  next_state_ = STATE_SEND_HELLO_COMPLETE;
  int rv = WriteFlight(SerializeHandshakeRecords(raw));
  if (rv != ERR_IO_PENDING) rv = DoLoop(rv);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

void SnapStartProbe::OnHandshakeIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv != ERR_IO_PENDING) std::move(callback_)(rv);
}

int SnapStartProbe::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_SEND_HELLO_COMPLETE:
        if (rv == OK) next_state_ = STATE_READ_SERVER_HELLO;
        break;
      case STATE_READ_SERVER_HELLO:
        rv = DoReadServerHello(rv);
        break;
      case STATE_READ_CERTIFICATE:
        rv = DoReadCertificate(rv);
        break;
      case STATE_READ_SERVER_HELLO_DONE:
        rv = DoReadServerHelloDone(rv);
        break;
      case STATE_NONE:
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

int SnapStartProbe::DoReadServerHello(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kServerHelloType, "ServerHello", &message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_SERVER_HELLO;
  if (rv != OK) return rv;
  absl::StatusOr<ServerHello> hello = ParseServerHello(message.body);
  if (!hello.ok()) {
    return Fail(ERR_SSL_PROTOCOL_ERROR, std::string(hello.status().message()),
                kAlertDecodeError);
  }
  result_.cipher_suite = hello->cipher_suite;
  result_.server_hello = message.body;
  if (const std::string* ext = hello->FindExtension(kSnapStartExtension)) {
    absl::StatusOr<SnapStartServerInfo> info =
        ParseSnapStartServerExtension(*ext);
    if (info.ok()) result_.orbit = info->orbit;
  }
  next_state_ = STATE_READ_CERTIFICATE;
  return OK;
}

int SnapStartProbe::DoReadCertificate(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_CERTIFICATE;
  if (rv != OK) return rv;
  absl::StatusOr<std::vector<std::string>> chain =
      message.type == kCertificateType
          ? ParseCertificate(message.body)
          : absl::InvalidArgumentError("expected Certificate");
  if (!chain.ok() || chain->empty()) {
    return Fail(ERR_SSL_SERVER_CERT_MISSING,
                chain.ok() ? "empty Certificate"
                           : std::string(chain.status().message()),
                kAlertDecodeError);
  }
  result_.chain_der = std::move(*chain);
  next_state_ = STATE_READ_SERVER_HELLO_DONE;
  return OK;
}

int SnapStartProbe::DoReadServerHelloDone(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv == ERR_IO_PENDING) next_state_ = STATE_READ_SERVER_HELLO_DONE;
  if (rv != OK) return rv;
  if (message.type == kServerHelloDoneType ||
      message.type == kServerKeyExchangeType ||
      message.type == kCertificateRequestType) {
    // Enough seen: abort so that the server completes nothing.
    SendAlertBestEffort(2, kAlertUserCanceled);
    transport()->Disconnect();
    return OK;
  }
  return Fail(ERR_SSL_PROTOCOL_ERROR,
              absl::StrCat("unexpected handshake message ", message.type),
              kAlertUnexpectedMessage);
}

}  // namespace net
