// SnapStartProbe: the truncated-handshake probe (prefetch/ uses it to learn a
// server's certificate bundle without a full connection). It sends a TLS 1.2
// ClientHello offering the core's suite with the empty Snap Start extension,
// reads ServerHello, Certificate and ServerHelloDone, then sends a fatal
// alert and closes: the server completes no handshake and so keeps no
// session. The result — chain, suite, orbit, ServerHello — is NOT verified:
// callers must verify the chain (the Prevalidator) before predicting with it.
//
// Run() follows the async contract. Owns the transport; network-thread
// affine; one probe per object.

#ifndef NET_SNAP_START_SNAP_START_PROBE_H_
#define NET_SNAP_START_SNAP_START_PROBE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/base/thread_checker.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/snap_start/snap_start_flight.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_socket_base.h"

namespace net {

struct SnapStartProbeResult {
  std::vector<std::string> chain_der;
  uint16_t cipher_suite = 0;
  // Absent when the server does not do Snap Start, or when its flight would
  // not predict byte for byte from what was read.
  std::optional<Orbit> orbit;
  std::string server_hello;  // body

  // Unverified information for SnapStartClientContext::PutInfo (requires an
  // orbit).
  std::optional<SnapStartInfo> ToSnapStartInfo() const;
};

class SnapStartProbe : public Tls12SocketBase {
 public:
  SnapStartProbe(std::unique_ptr<StreamSocket> transport, std::string host);
  ~SnapStartProbe() override;

  // Run probes the server: OK with result() filled, a net error, or
  // ERR_IO_PENDING.
  int Run(CompletionOnceCallback callback);
  int Connect(CompletionOnceCallback callback) override {
    return Run(std::move(callback));
  }
  const SnapStartProbeResult& result() const { return result_; }

 private:
  enum State {
    STATE_NONE,
    STATE_SEND_HELLO_COMPLETE,
    STATE_READ_HELLO,
    STATE_READ_CHAIN,
    STATE_READ_FLIGHT_END,
  };
  int DoLoop(int result);
  int DoReadHello(int result);
  int DoReadChain(int result);
  int DoReadFlightEnd(int result);
  void OnHandshakeIOComplete(int result) override;

  const std::string host_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;
  ClientHello offered_;
  ServerHello server_hello_;
  // The flight as read, to check that it predicts.
  ServerFlight flight_;
  SnapStartProbeResult result_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_PROBE_H_
