// UdpListener receives datagrams on one socket and relays them to the target
// through a UdpMapping per client source address; each mapping has its own
// connected upstream socket, so replies can be told apart and sent back to
// the right client. Datagrams are held until the LinkModel's delivery time,
// never reordered within a mapping, and dropped if a queue overflows. A
// mapping idle for the configured timeout closes. Listeners and mappings are
// owned by the EventLoop; the LinkModel must outlive them. A mapping finds
// its listener by id, so it never touches a listener that is gone.

#ifndef TOOLS_NETEM_UDP_RELAY_H_
#define TOOLS_NETEM_UDP_RELAY_H_

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

#include "tools/netem/event_loop.h"
#include "tools/netem/link_model.h"
#include "tools/netem/socket_address.h"

namespace netem {

class UdpListener : public EventLoop::Handler {
 public:
  // `fd` is a bound, non-blocking UDP socket.
  UdpListener(EventLoop* loop, LinkModel* link, ScopedFd fd,
              const SocketAddress& target, int64_t idle_timeout_ns);

  // Starts watching for datagrams.
  void Start();

  void OnFdReady(int tag, uint32_t events) override;

  // Sends `data` to `client` from the listening socket; drops it on error.
  void SendToClient(const SocketAddress& client, const std::string& data);

  // Forgets the mapping for `client_key` (called by a closing mapping).
  void Forget(const std::string& client_key);

  size_t mapping_count() const { return mappings_.size(); }

 private:
  LinkModel* const link_;
  EventLoop::WatchedFd socket_;
  const SocketAddress target_;
  const int64_t idle_timeout_ns_;
  // Client address key -> mapping handler id.
  std::unordered_map<std::string, uint64_t> mappings_;
};

class UdpMapping : public EventLoop::Handler {
 public:
  UdpMapping(EventLoop* loop, LinkModel* link, uint64_t listener_id,
             const SocketAddress& client, ScopedFd upstream,
             int64_t idle_timeout_ns);

  // Starts watching the upstream socket and the idle timer.
  void Start();

  // Queues a datagram the client sent at `now_ns` for the target.
  void FromClient(const char* data, size_t len, int64_t now_ns);

  void OnFdReady(int tag, uint32_t events) override;
  void OnTimer(int64_t now_ns) override;

 private:
  struct Datagram {
    int64_t due_ns;
    std::string data;
  };

  struct Queue {
    Direction direction;
    std::deque<Datagram> datagrams;
    size_t bytes = 0;
    int64_t last_due_ns = 0;
  };

  void Enqueue(Queue& queue, const char* data, size_t len, int64_t now_ns);
  void Deliver(int64_t now_ns);
  void Rearm();

  LinkModel* const link_;
  const uint64_t listener_id_;
  const SocketAddress client_;
  const int64_t idle_timeout_ns_;
  const size_t buffer_limit_;
  EventLoop::WatchedFd upstream_;
  Queue up_;
  Queue down_;
  int64_t last_activity_ns_;
  int64_t armed_ns_ = -1;
};

}  // namespace netem

#endif  // TOOLS_NETEM_UDP_RELAY_H_
