#include "net/snap_start/snap_start_probe.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "net/base/check.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_handshake.h"

namespace net {

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
    : Tls12SocketBase(Side::kClient, std::move(transport), std::string()),
      host_(std::move(host)) {}

SnapStartProbe::~SnapStartProbe() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int SnapStartProbe::Run(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The ClientHello a connecting client sends (tickets offered, extended
  // master secret), so the ServerHello template matches what it will be
  // answered, plus the empty Snap Start extension.
  offered_ = NewClientHello(host_, NewHelloRandom(absl::Now()), std::string(),
                            std::string());
  offered_.extensions.emplace_back(kSnapStartExtension, std::string());
  const std::string raw =
      SerializeHandshake(kClientHelloType, SerializeClientHello(offered_));
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
  return RunDoLoop(&next_state_, result, [this](State state, int rv) -> int {
    switch (state) {
      case STATE_SEND_HELLO_COMPLETE:
        if (rv == OK) next_state_ = STATE_READ_HELLO;
        return rv;
      case STATE_READ_HELLO:
        return DoReadHello(rv);
      case STATE_READ_CHAIN:
        return DoReadChain(rv);
      case STATE_READ_FLIGHT_END:
        return DoReadFlightEnd(rv);
      case STATE_NONE:
      default:
        NET_NOTREACHED();
        return ERR_UNEXPECTED;
    }
  });
}

int SnapStartProbe::DoReadHello(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv =
      ReadHandshakeMessageOfType(kServerHelloType, "ServerHello", &message);
  if (rv != OK) return rv;
  if (std::optional<HandshakeFailure> failure =
          ParseAndCheckServerHello(message.body, offered_, &server_hello_)) {
    return Fail(*failure);
  }
  flight_.server_hello = message.raw;
  result_.cipher_suite = server_hello_.cipher_suite;
  result_.server_hello = message.body;
  if (const std::string* ext =
          server_hello_.FindExtension(kSnapStartExtension)) {
    absl::StatusOr<SnapStartServerInfo> info =
        ParseSnapStartServerExtension(*ext);
    if (info.ok()) result_.orbit = info->orbit;
  }
  next_state_ = STATE_READ_CHAIN;
  return OK;
}

int SnapStartProbe::DoReadChain(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv != OK) return rv;
  if (std::optional<HandshakeFailure> failure =
          ParseServerCertificate(message, &result_.chain_der)) {
    return Fail(*failure);
  }
  flight_.certificate = message.raw;
  next_state_ = STATE_READ_FLIGHT_END;
  return OK;
}

int SnapStartProbe::DoReadFlightEnd(int result) {
  if (result != OK) return result;
  HandshakeMessage message;
  int rv = ReadHandshakeMessage(&message);
  if (rv != OK) return rv;
  if (message.type != kServerHelloDoneType &&
      message.type != kServerKeyExchangeType &&
      message.type != kCertificateRequestType) {
    return Fail(ERR_SSL_PROTOCOL_ERROR,
                absl::StrCat("unexpected handshake message ", message.type),
                kAlertUnexpectedMessage);
  }
  // Enough seen: abort so that the server completes nothing.
  SendAlert(kAlertLevelFatal, kAlertUserCanceled);
  transport()->Disconnect();
  // A client predicts this flight from the ServerHello and the chain; if
  // rebuilding it from them does not give the bytes read (a flight with a
  // ServerKeyExchange or a CertificateRequest, a ServerHelloDone with a body),
  // every attempt would be a misprediction: no orbit, no Snap Start.
  flight_.server_hello_done = message.raw;
  if (BuildServerFlight(server_hello_, &result_.chain_der).Messages() !=
      flight_.Messages()) {
    result_.orbit.reset();
  }
  return OK;
}

}  // namespace net
