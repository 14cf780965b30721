// Fuzz target: every parser a Snap Start peer feeds — ClientHello (and the
// dispatch rule), ServerHello, Certificate, NewSessionTicket, the Snap Start
// extension forms, records and handshake reassembly, and the client's state
// file.

#include <cstddef>
#include <cstdint>
#include <string>

#include "net/snap_start/snap_start_client_context.h"
#include "net/snap_start/snap_start_server_context.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_handshake.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (auto hello = net::ParseClientHello(input); hello.ok()) {
    net::ParseClientHello(net::SerializeClientHello(*hello)).IgnoreError();
    (void)net::CheckClientHello(*hello);
  }
  if (auto hello = net::ParseServerHello(input); hello.ok()) {
    (void)net::CheckServerHello(
        *hello, net::NewClientHello("example.test", std::string(32, 'r'),
                                    std::string(), std::string()));
  }
  (void)net::PremasterFromPkcs1Block(input, net::kTls12Version,
                                     std::string(48, 'x'));
  net::ParseCertificate(input).IgnoreError();
  net::ParseNewSessionTicket(input).IgnoreError();
  net::ParseRsaClientKeyExchange(input).IgnoreError();
  net::ParseSnapStartClientExtension(input).IgnoreError();
  net::ParseSnapStartServerExtension(input).IgnoreError();
  net::SnapStartServerContext::ClassifyClientHello(input);
  net::SnapStartClientContext::Parse(input).IgnoreError();
  net::RecordBuffer records;
  records.Append(input);
  for (int i = 0; i < 64; ++i) {
    auto r = records.Next();
    if (!r.ok() || !r->has_value()) break;
  }
  net::HandshakeBuffer handshake;
  handshake.Append(input);
  for (int i = 0; i < 64; ++i) {
    auto m = handshake.Next();
    if (!m.ok() || !m->has_value()) break;
  }
  return 0;
}
