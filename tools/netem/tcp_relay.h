// TcpListener accepts client connections on one listening socket and starts a
// TcpConnection for each. A TcpConnection relays one client connection to
// the target through the LinkModel: every chunk it reads is held until its
// delivery time, FINs and resets travel the same way, and the connection
// closes once both directions have delivered their FIN. Both are owned by
// the EventLoop; the LinkModel must outlive them.

#ifndef TOOLS_NETEM_TCP_RELAY_H_
#define TOOLS_NETEM_TCP_RELAY_H_

#include <cstdint>
#include <deque>
#include <string>

#include "tools/netem/event_loop.h"
#include "tools/netem/link_model.h"
#include "tools/netem/socket_address.h"

namespace netem {

class TcpListener : public EventLoop::Handler {
 public:
  // `listen_fd` is a bound, listening, non-blocking socket.
  TcpListener(EventLoop* loop, LinkModel* link, ScopedFd listen_fd,
              const SocketAddress& target);

  // Starts watching for connections.
  void Start();

  void OnFdReady(int tag, uint32_t events) override;
  // Resumes accepting after a back-off for running out of descriptors.
  void OnTimer(int64_t now_ns) override;

 private:
  LinkModel* const link_;
  EventLoop::WatchedFd listen_;
  const SocketAddress target_;
};

class TcpConnection : public EventLoop::Handler {
 public:
  // `client` is an accepted, non-blocking socket.
  TcpConnection(EventLoop* loop, LinkModel* link, ScopedFd client,
                const SocketAddress& target);

  // Connects to the target. On failure the client is reset after the down
  // delay, as if the refusal had travelled back over the link.
  void Start();

  void OnFdReady(int tag, uint32_t events) override;
  void OnTimer(int64_t now_ns) override;

 private:
  enum Side { kClient = 0, kTarget = 1 };

  // What a queued item does when it comes due.
  enum class Kind { kData, kFin, kReset };

  struct Item {
    int64_t due_ns;
    Kind kind;
    std::string data;
    size_t offset = 0;  // bytes of `data` already written
  };

  // One direction of the relay: reads from `from`, writes to `to`.
  struct Pipe {
    Direction direction;
    Side from;
    Side to;
    std::deque<Item> queue;
    size_t queued_bytes = 0;
    int64_t last_due_ns = 0;    // for LinkModel::Schedule
    int64_t armed_due_ns = -1;  // the wake-up already requested for the head
    bool read_closed = false;   // EOF or error read; nothing more to read
    bool paused = false;        // queue full; reading stopped
    bool write_blocked = false;
    bool fin_sent = false;
    bool reset_queued = false;
    bool dropped = false;  // `to` is dead; nothing more will be written

    bool finished() const { return queue.empty() && (fin_sent || dropped); }
  };

  Pipe& PipeFrom(Side side) { return pipes_[side == kClient ? 0 : 1]; }
  Pipe& PipeTo(Side side) { return pipes_[side == kClient ? 1 : 0]; }

  void FinishConnect();
  void Read(Side side);
  void Enqueue(Pipe& pipe, Kind kind, const char* data, size_t len,
               int64_t now_ns);
  // Writes every due item of `pipe`. May close the connection.
  void Pump(Pipe& pipe);
  // The peer behind `side` is gone: drop what was going to it and send a
  // reset the other way after the link delay.
  void OnSideError(Side side);
  void Abort();
  void UpdateInterest();
  void MaybeFinish();

  LinkModel* const link_;
  const SocketAddress target_;
  const size_t buffer_limit_;
  EventLoop::WatchedFd fds_[2];
  Pipe pipes_[2];
  bool connecting_ = true;
};

}  // namespace netem

#endif  // TOOLS_NETEM_TCP_RELAY_H_
