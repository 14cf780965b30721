// Fuzz target: every parser a Snap Start peer feeds — ClientHello (and the
// dispatch rule), ServerHello, Certificate, NewSessionTicket, RSA
// ClientKeyExchange, the Snap Start extension forms, records and handshake
// reassembly, and the client's state file. Beyond "no crash", each message
// format round-trips exactly: whatever parses re-serializes to the very
// bytes it was parsed from (extensions keep their wire order), records and
// handshake messages re-serialize to the bytes they consumed, and the state
// file re-serializes to a fixed point.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "net/snap_start/snap_start_client_context.h"
#include "net/snap_start/snap_start_server_context.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_handshake.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_record.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "snap_start_messages_fuzzer: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (auto hello = net::ParseClientHello(input); hello.ok()) {
    Check(net::SerializeClientHello(*hello) == input,
          "ClientHello round-trips");
    Check(hello->random.size() == net::kRandomSize, "32-byte random");
    Check(hello->session_id.size() <= 32, "session id at most 32 bytes");
    (void)net::CheckClientHello(*hello);
  }
  if (auto hello = net::ParseServerHello(input); hello.ok()) {
    Check(net::SerializeServerHello(*hello) == input,
          "ServerHello round-trips");
    (void)net::CheckServerHello(
        *hello, net::NewClientHello("example.test", std::string(32, 'r'),
                                    std::string(), std::string()));
  }
  (void)net::PremasterFromPkcs1Block(input, net::kTls12Version,
                                     std::string(48, 'x'));
  if (auto chain = net::ParseCertificate(input); chain.ok()) {
    Check(net::SerializeCertificate(*chain) == input,
          "Certificate round-trips");
  }
  if (auto ticket = net::ParseNewSessionTicket(input); ticket.ok()) {
    Check(net::SerializeNewSessionTicket(*ticket) == input,
          "NewSessionTicket round-trips");
  }
  if (auto cke = net::ParseRsaClientKeyExchange(input); cke.ok()) {
    Check(net::SerializeRsaClientKeyExchange(*cke) == input,
          "ClientKeyExchange round-trips");
  }
  if (auto attempt = net::ParseSnapStartClientExtension(input); attempt.ok()) {
    Check(*attempt ? net::SerializeSnapStartAttempt(**attempt) == input
                   : input.empty(),
          "the client extension round-trips (empty: the capability form)");
  }
  if (auto info = net::ParseSnapStartServerExtension(input); info.ok()) {
    Check(net::SerializeSnapStartServerExtension(*info) == input,
          "the server extension round-trips");
  }
  net::SnapStartServerContext::ClassifyClientHello(input);
  if (auto state = net::SnapStartClientContext::Parse(input); state.ok()) {
    const std::string once = net::SnapStartClientContext::Serialize(*state);
    auto again = net::SnapStartClientContext::Parse(once);
    Check(again.ok(), "a serialized state file parses");
    Check(net::SnapStartClientContext::Serialize(*again) == once,
          "the state file re-serializes to a fixed point");
  }

  net::RecordBuffer records;
  records.Append(input);
  size_t consumed = 0;
  for (int i = 0; i < 64; ++i) {
    auto r = records.Next();
    if (!r.ok() || !r->has_value()) break;
    const std::string bytes =
        net::SerializeRecord((*r)->type, (*r)->version, (*r)->fragment);
    Check(input.compare(consumed, bytes.size(), bytes) == 0,
          "a record re-serializes to the bytes it came from");
    consumed += bytes.size();
  }
  net::HandshakeBuffer handshake;
  handshake.Append(input);
  consumed = 0;
  for (int i = 0; i < 64; ++i) {
    auto m = handshake.Next();
    if (!m.ok() || !m->has_value()) break;
    Check((*m)->raw == net::SerializeHandshake((*m)->type, (*m)->body),
          "a handshake message re-serializes to its raw bytes");
    Check(input.compare(consumed, (*m)->raw.size(), (*m)->raw) == 0,
          "raw is the bytes the message came from");
    consumed += (*m)->raw.size();
  }
  return 0;
}
