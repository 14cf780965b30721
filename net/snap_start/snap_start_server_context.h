// SnapStartServerContext: the server side of the Snap Start core — its
// certificate chain and RSA key, the 8-byte orbit, the strike register that
// keeps suggested randoms from ever being accepted twice, the session-ticket
// key, and counters a test server reports. Also the dispatch rule of the test
// server: ClassifyClientHello says whether a ClientHello stays in this module
// (it carries the Snap Start extension and offers the core's suite) or goes to
// BoringSSL untouched.
//
// Time comes from injected clocks: a WallClock for the strike register,
// tickets and hello randoms, a TickClock for handshake timing.
//
// Owned by the server; outlives every SnapStartServerSocket. Thread-safe (the
// strike register locks; counters are atomic).

#ifndef NET_SNAP_START_SNAP_START_SERVER_CONTEXT_H_
#define NET_SNAP_START_SNAP_START_SERVER_CONTEXT_H_

#include <openssl/evp.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/snap_start/strike_register.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/wall_clock.h"

namespace net {

struct SnapStartServerConfig {
  std::string cert_chain_file;  // PEM, leaf first; the leaf key must be RSA
  std::string key_file;         // PEM private key
  // Without an orbit the core never accepts an attempt (every one recovers)
  // and does not advertise Snap Start.
  std::optional<Orbit> orbit;
  absl::Duration window = absl::Seconds(10);
  size_t strike_max_entries = 100000;
  std::string strike_state_file;
  bool tickets = true;
};

// A session a ticket carries.
struct Tls12ServerSession {
  std::string master_secret;
  uint16_t cipher_suite = 0;
  // The master secret is the extended one (RFC 7627); resumption must agree.
  bool extended_master_secret = false;
};

class SnapStartServerContext {
 public:
  // Create loads the chain and key and starts the strike register at the
  // clock's now. |clock| and |tick_clock| (null: the system's) must outlive
  // the context.
  static absl::StatusOr<std::unique_ptr<SnapStartServerContext>> Create(
      const SnapStartServerConfig& config, const WallClock* clock = nullptr,
      const TickClock* tick_clock = nullptr);
  ~SnapStartServerContext();

  const SnapStartServerConfig& config() const { return config_; }
  const WallClock* clock() const { return clock_; }
  const TickClock* tick_clock() const { return tick_clock_; }
  const std::vector<std::string>& chain_der() const { return chain_der_; }
  EVP_PKEY* private_key() const { return key_; }
  // Null without an orbit.
  StrikeRegister* strike_register() { return strike_register_.get(); }

  std::string SealTicket(const Tls12ServerSession& session, absl::Time now);
  std::optional<Tls12ServerSession> OpenTicket(absl::string_view ticket,
                                               absl::Time now) const;

  enum class Route { kNeedMoreData, kSnapStartCore, kOther };
  // ClassifyClientHello looks at the first bytes a client sent. kOther for
  // anything that is not a well-formed ClientHello with the extension (the
  // peer stack will report the problem).
  static Route ClassifyClientHello(absl::string_view bytes);

  struct Counters {
    std::atomic<uint64_t> full_handshakes{0};
    std::atomic<uint64_t> resumed_handshakes{0};
    std::atomic<uint64_t> snap_start_accepted{0};
    std::atomic<uint64_t> snap_start_recovered{0};
    std::atomic<uint64_t> handshakes_failed{0};  // includes probes
    std::atomic<uint64_t> tickets_issued{0};
  };
  Counters& counters() { return counters_; }

 private:
  SnapStartServerContext(const SnapStartServerConfig& config,
                         const WallClock* clock, const TickClock* tick_clock);

  const SnapStartServerConfig config_;
  const WallClock* const clock_;
  const TickClock* const tick_clock_;
  std::vector<std::string> chain_der_;
  EVP_PKEY* key_ = nullptr;
  std::unique_ptr<StrikeRegister> strike_register_;
  std::string ticket_key_name_;  // 16 bytes
  std::string ticket_key_;       // AES-128-GCM
  Counters counters_;
};

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_SERVER_CONTEXT_H_
