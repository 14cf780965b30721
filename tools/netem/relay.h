// Relay is the netem link emulator as a library: it binds every listener
// named in Options, then runs an EventLoop on its own thread that relays TCP
// and UDP through a LinkModel. Tests and tools own a Relay directly; the
// netem binary is a thin main() over it. Start() and Stop() are called from
// one thread; the destructor stops the relay.

#ifndef TOOLS_NETEM_RELAY_H_
#define TOOLS_NETEM_RELAY_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "tools/netem/event_loop.h"
#include "tools/netem/link_model.h"
#include "tools/netem/options.h"
#include "tools/netem/socket_address.h"

namespace netem {

// A bound listener: what it accepts on and where it forwards to.
struct ListenerInfo {
  Protocol protocol;
  SocketAddress bound;  // the actual port when port 0 was asked for
  SocketAddress target;

  // "listening tcp 127.0.0.1:4431 -> 127.0.0.1:443"
  std::string ToString() const;
};

class Relay {
 public:
  explicit Relay(const Options& options);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Binds every listener and starts relaying on a new thread. On failure
  // (e.g. a port in use) nothing is left running and the error names the
  // address. Call at most once.
  absl::Status Start();

  // Closes every listener and connection and joins the thread. Idempotent.
  void Stop();

  // The bound listeners, in command-line order. Valid after Start().
  const std::vector<ListenerInfo>& listeners() const { return listeners_; }

 private:
  const Options options_;
  LinkModel link_;
  EventLoop loop_;
  std::vector<ListenerInfo> listeners_;
  std::thread thread_;
};

}  // namespace netem

#endif  // TOOLS_NETEM_RELAY_H_
