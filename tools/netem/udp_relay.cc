#include "tools/netem/udp_relay.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

namespace netem {
namespace {

constexpr size_t kMaxDatagram = 65536;
constexpr int kMaxDatagramsPerEvent = 64;

}  // namespace

UdpListener::UdpListener(EventLoop* loop, LinkModel* link, ScopedFd fd,
                         const SocketAddress& target, int64_t idle_timeout_ns)
    : Handler(loop),
      link_(link),
      target_(target),
      idle_timeout_ns_(idle_timeout_ns) {
  socket_.fd = std::move(fd);
}

void UdpListener::Start() { Watch(&socket_, EPOLLIN); }

void UdpListener::OnFdReady(int tag, uint32_t events) {
  thread_local char buf[kMaxDatagram];
  for (int i = 0; i < kMaxDatagramsPerEvent; ++i) {
    SocketAddress from;
    socklen_t len = sizeof(sockaddr_storage);
    ssize_t n = recvfrom(socket_.fd.get(), buf, sizeof(buf), 0,
                         from.mutable_sockaddr_ptr(), &len);
    if (n < 0) return;  // EAGAIN, or an ICMP error we have no use for
    from.set_len(len);
    int64_t now = MonotonicNowNs();
    const std::string key = from.Key();
    UdpMapping* mapping = nullptr;
    if (auto it = mappings_.find(key); it != mappings_.end()) {
      mapping = static_cast<UdpMapping*>(loop()->Find(it->second));
    }
    if (mapping == nullptr) {
      ScopedFd upstream(socket(target_.family(),
                               SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
      if (!upstream.is_valid() ||
          connect(upstream.get(), target_.sockaddr_ptr(), target_.len()) != 0) {
        std::fprintf(stderr, "netem: udp upstream to %s: %s\n",
                     target_.ToString().c_str(), std::strerror(errno));
        continue;
      }
      mapping = loop()->Add(std::make_unique<UdpMapping>(
          loop(), link_, id(), from, std::move(upstream), idle_timeout_ns_));
      mappings_[key] = mapping->id();
      mapping->Start();
    }
    mapping->FromClient(buf, n, now);
  }
}

void UdpListener::SendToClient(const SocketAddress& client,
                               const std::string& data) {
  sendto(socket_.fd.get(), data.data(), data.size(), MSG_DONTWAIT,
         client.sockaddr_ptr(), client.len());
}

void UdpListener::Forget(const std::string& client_key) {
  mappings_.erase(client_key);
}

UdpMapping::UdpMapping(EventLoop* loop, LinkModel* link, uint64_t listener_id,
                       const SocketAddress& client, ScopedFd upstream,
                       int64_t idle_timeout_ns)
    : Handler(loop),
      link_(link),
      listener_id_(listener_id),
      client_(client),
      idle_timeout_ns_(idle_timeout_ns),
      buffer_limit_(link->flow_buffer_bytes()),
      last_activity_ns_(MonotonicNowNs()) {
  upstream_.fd = std::move(upstream);
  up_.direction = Direction::kUp;
  down_.direction = Direction::kDown;
}

void UdpMapping::Start() {
  Watch(&upstream_, EPOLLIN);
  Rearm();
}

void UdpMapping::FromClient(const char* data, size_t len, int64_t now_ns) {
  Enqueue(up_, data, len, now_ns);
  Deliver(MonotonicNowNs());
  Rearm();
}

void UdpMapping::OnFdReady(int tag, uint32_t events) {
  thread_local char buf[kMaxDatagram];
  for (int i = 0; i < kMaxDatagramsPerEvent; ++i) {
    // Errors here are ICMP reports (e.g. port unreachable) from the target;
    // a UDP relay just carries on.
    ssize_t n = recv(upstream_.fd.get(), buf, sizeof(buf), 0);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      continue;
    }
    Enqueue(down_, buf, n, MonotonicNowNs());
  }
  Deliver(MonotonicNowNs());
  Rearm();
}

void UdpMapping::OnTimer(int64_t now_ns) {
  if (armed_ns_ <= now_ns) armed_ns_ = -1;
  Deliver(MonotonicNowNs());
  if (up_.datagrams.empty() && down_.datagrams.empty() &&
      now_ns - last_activity_ns_ >= idle_timeout_ns_) {
    if (auto* listener =
            static_cast<UdpListener*>(loop()->Find(listener_id_))) {
      listener->Forget(client_.Key());
    }
    Close();
    return;
  }
  Rearm();
}

void UdpMapping::Enqueue(Queue& queue, const char* data, size_t len,
                         int64_t now_ns) {
  last_activity_ns_ = now_ns;
  if (queue.bytes + len > buffer_limit_) return;  // tail drop, like a router
  int64_t due =
      link_->Schedule(queue.direction, now_ns, len, &queue.last_due_ns);
  queue.datagrams.push_back(Datagram{due, std::string(data, len)});
  queue.bytes += len;
}

void UdpMapping::Deliver(int64_t now_ns) {
  while (!up_.datagrams.empty() && up_.datagrams.front().due_ns <= now_ns) {
    const std::string& data = up_.datagrams.front().data;
    send(upstream_.fd.get(), data.data(), data.size(), MSG_DONTWAIT);
    up_.bytes -= data.size();
    up_.datagrams.pop_front();
  }
  auto* listener = static_cast<UdpListener*>(loop()->Find(listener_id_));
  while (!down_.datagrams.empty() && down_.datagrams.front().due_ns <= now_ns) {
    if (listener != nullptr) {
      listener->SendToClient(client_, down_.datagrams.front().data);
    }
    down_.bytes -= down_.datagrams.front().data.size();
    down_.datagrams.pop_front();
  }
}

void UdpMapping::Rearm() {
  // The idle clock only matters once nothing is queued; a queued datagram
  // keeps the mapping alive until it is delivered.
  int64_t next;
  if (up_.datagrams.empty() && down_.datagrams.empty()) {
    next = last_activity_ns_ + idle_timeout_ns_;
  } else {
    next = INT64_MAX;
    if (!up_.datagrams.empty()) next = up_.datagrams.front().due_ns;
    if (!down_.datagrams.empty()) {
      next = std::min(next, down_.datagrams.front().due_ns);
    }
  }
  // A wake-up already requested for an earlier time will re-arm from there.
  if (armed_ns_ >= 0 && armed_ns_ <= next) return;
  armed_ns_ = next;
  WakeAt(next);
}

}  // namespace netem
