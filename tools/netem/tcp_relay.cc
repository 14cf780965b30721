#include "tools/netem/tcp_relay.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace netem {
namespace {

constexpr size_t kReadBytes = 64 * 1024;
constexpr int kMaxIov = 64;
constexpr int kMaxAcceptsPerEvent = 64;
constexpr int64_t kAcceptBackoffNs = 100'000'000;

bool WouldBlock(int err) {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

}  // namespace

TcpListener::TcpListener(EventLoop* loop, LinkModel* link, ScopedFd listen_fd,
                         const SocketAddress& target)
    : Handler(loop), link_(link), target_(target) {
  listen_.fd = std::move(listen_fd);
}

void TcpListener::Start() { Watch(&listen_, EPOLLIN); }

void TcpListener::OnTimer(int64_t now_ns) { Watch(&listen_, EPOLLIN); }

void TcpListener::OnFdReady(int tag, uint32_t events) {
  for (int i = 0; i < kMaxAcceptsPerEvent; ++i) {
    int fd = accept4(listen_.fd.get(), nullptr, nullptr,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (WouldBlock(errno) || errno == ECONNABORTED) return;
      std::fprintf(stderr, "netem: accept: %s\n", std::strerror(errno));
      // Out of descriptors: the pending connection stays readable, so stop
      // watching for a moment instead of spinning on it.
      Watch(&listen_, 0);
      WakeAt(MonotonicNowNs() + kAcceptBackoffNs);
      return;
    }
    SetNoDelay(fd);
    loop()
        ->Add(std::make_unique<TcpConnection>(loop(), link_, ScopedFd(fd),
                                              target_))
        ->Start();
  }
}

TcpConnection::TcpConnection(EventLoop* loop, LinkModel* link, ScopedFd client,
                             const SocketAddress& target)
    : Handler(loop),
      link_(link),
      target_(target),
      buffer_limit_(link->flow_buffer_bytes()) {
  fds_[kClient].fd = std::move(client);
  fds_[kClient].tag = kClient;
  fds_[kTarget].tag = kTarget;
  pipes_[0].direction = Direction::kUp;
  pipes_[0].from = kClient;
  pipes_[0].to = kTarget;
  pipes_[1].direction = Direction::kDown;
  pipes_[1].from = kTarget;
  pipes_[1].to = kClient;
}

void TcpConnection::Start() {
  // The target is dialled at once rather than after the up delay: the
  // client's own handshake already completed at loopback speed, so delaying
  // the upstream one would not make the client see a slower connect.
  fds_[kTarget].fd.reset(
      socket(target_.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fds_[kTarget].fd.is_valid()) {
    std::fprintf(stderr, "netem: socket: %s\n", std::strerror(errno));
    OnSideError(kTarget);
    return;
  }
  SetNoDelay(fds_[kTarget].fd.get());
  if (connect(fds_[kTarget].fd.get(), target_.sockaddr_ptr(), target_.len()) ==
      0) {
    connecting_ = false;
  } else if (errno != EINPROGRESS) {
    OnSideError(kTarget);
    return;
  }
  UpdateInterest();
}

void TcpConnection::FinishConnect() {
  int err = 0;
  socklen_t len = sizeof(err);
  getsockopt(fds_[kTarget].fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) {
    OnSideError(kTarget);
    return;
  }
  connecting_ = false;
  // Client bytes that came due while connecting go out now.
  Pump(PipeTo(kTarget));
}

void TcpConnection::OnFdReady(int tag, uint32_t events) {
  Side side = tag == kClient ? kClient : kTarget;
  if (side == kTarget && connecting_) {
    FinishConnect();
  } else {
    Pipe& out = PipeTo(side);
    if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && out.write_blocked) {
      out.write_blocked = false;
      Pump(out);
    }
    if (!closed() && (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) &&
        (fds_[side].events & EPOLLIN) && !PipeFrom(side).read_closed) {
      Read(side);
    }
  }
  if (closed()) return;
  UpdateInterest();
  MaybeFinish();
}

void TcpConnection::OnTimer(int64_t now_ns) {
  for (Pipe& pipe : pipes_) {
    if (closed()) return;
    if (!pipe.queue.empty() && pipe.armed_due_ns <= now_ns) {
      pipe.armed_due_ns = -1;
    }
    Pump(pipe);
  }
  if (closed()) return;
  UpdateInterest();
  MaybeFinish();
}

void TcpConnection::Read(Side side) {
  Pipe& pipe = PipeFrom(side);
  char buf[kReadBytes];
  ssize_t n = recv(fds_[side].fd.get(), buf, sizeof(buf), 0);
  if (n < 0) {
    if (!WouldBlock(errno)) OnSideError(side);
    return;
  }
  int64_t now = MonotonicNowNs();
  pipe.read_closed = n == 0;
  if (n == 0) {
    Enqueue(pipe, Kind::kFin, nullptr, 0, now);
  } else {
    const size_t segment = link_->max_segment_bytes();
    for (size_t off = 0; off < static_cast<size_t>(n); off += segment) {
      Enqueue(pipe, Kind::kData, buf + off,
              std::min(segment, static_cast<size_t>(n) - off), now);
    }
    if (pipe.queued_bytes >= buffer_limit_) pipe.paused = true;
  }
  Pump(pipe);
}

void TcpConnection::Enqueue(Pipe& pipe, Kind kind, const char* data, size_t len,
                            int64_t now_ns) {
  Item item;
  item.kind = kind;
  item.due_ns = link_->Schedule(pipe.direction, now_ns, len, &pipe.last_due_ns);
  if (len > 0) item.data.assign(data, len);
  pipe.queued_bytes += len;
  pipe.queue.push_back(std::move(item));
}

void TcpConnection::Pump(Pipe& pipe) {
  if (pipe.write_blocked || (pipe.to == kTarget && connecting_)) return;
  const int fd = fds_[pipe.to].fd.get();
  int64_t now = MonotonicNowNs();
  while (!pipe.queue.empty() && pipe.queue.front().due_ns <= now) {
    Item& head = pipe.queue.front();
    if (head.kind == Kind::kReset) {
      Abort();
      return;
    }
    if (head.kind == Kind::kFin) {
      // Errors are ignored: the peer may already have closed, and the FIN
      // still must count as delivered.
      shutdown(fd, SHUT_WR);
      pipe.fin_sent = true;
      pipe.queue.pop_front();
      continue;
    }
    // Gather every due data item into one write.
    iovec iov[kMaxIov];
    int count = 0;
    size_t total = 0;
    for (auto it = pipe.queue.begin();
         it != pipe.queue.end() && count < kMaxIov && it->due_ns <= now &&
         it->kind == Kind::kData;
         ++it) {
      iov[count].iov_base = it->data.data() + it->offset;
      iov[count].iov_len = it->data.size() - it->offset;
      total += iov[count].iov_len;
      ++count;
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (WouldBlock(errno)) {
        pipe.write_blocked = true;
        break;
      }
      OnSideError(pipe.to);
      return;
    }
    pipe.queued_bytes -= n;
    size_t left = n;
    while (left > 0) {
      Item& front = pipe.queue.front();
      size_t avail = front.data.size() - front.offset;
      if (left >= avail) {
        left -= avail;
        pipe.queue.pop_front();
      } else {
        front.offset += left;
        left = 0;
      }
    }
    if (static_cast<size_t>(n) < total) {
      // The socket buffer is full; wait for EPOLLOUT.
      pipe.write_blocked = true;
      break;
    }
  }
  if (pipe.paused && pipe.queued_bytes <= buffer_limit_ / 2) {
    pipe.paused = false;
  }
  if (!pipe.queue.empty() && !pipe.write_blocked &&
      pipe.queue.front().due_ns != pipe.armed_due_ns) {
    pipe.armed_due_ns = pipe.queue.front().due_ns;
    WakeAt(pipe.armed_due_ns);
  }
}

void TcpConnection::OnSideError(Side side) {
  // A failed connect is over; stop waiting for it to become writable.
  if (side == kTarget) connecting_ = false;
  Pipe& to_side = PipeTo(side);
  to_side.queue.clear();
  to_side.queued_bytes = 0;
  to_side.write_blocked = false;
  to_side.dropped = true;

  Pipe& from_side = PipeFrom(side);
  from_side.read_closed = true;
  if (!from_side.dropped && !from_side.reset_queued) {
    from_side.reset_queued = true;
    Enqueue(from_side, Kind::kReset, nullptr, 0, MonotonicNowNs());
    Pump(from_side);
  }
  if (closed()) return;
  UpdateInterest();
  MaybeFinish();
}

void TcpConnection::Abort() {
  for (EventLoop::WatchedFd& w : fds_) {
    if (w.fd.is_valid()) SetLingerZero(w.fd.get());
  }
  Close();
}

void TcpConnection::UpdateInterest() {
  for (Side side : {kClient, kTarget}) {
    uint32_t events = 0;
    const Pipe& in = PipeFrom(side);
    const Pipe& out = PipeTo(side);
    if (side == kTarget && connecting_) {
      events = in.dropped && out.dropped ? 0 : EPOLLOUT;
    } else {
      if (!in.read_closed && !in.paused && !in.dropped) events |= EPOLLIN;
      if (out.write_blocked) events |= EPOLLOUT;
    }
    Watch(&fds_[side], events);
  }
}

void TcpConnection::MaybeFinish() {
  if (!closed() && pipes_[0].finished() && pipes_[1].finished()) Close();
}

}  // namespace netem
