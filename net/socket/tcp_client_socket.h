// TCPClientSocket: a non-blocking TCP connection driven by the EventLoop.
//
// Created by a ClientSocketFactory for an outgoing connection (Connect with
// a timeout), or by TCPServerSocket for an accepted one (already connected).
// Owns its descriptor (two, while a Fast Open fallback races). Network-thread
// affine.
//
// TCP Fast Open (TcpConnectOptions::fast_open, tcp_fast_open.h): Connect()
// completes at once when the kernel may put data in the SYN; the Writes of
// that event-loop turn are gathered (they complete at once) and go out as
// the SYN's data in one send() when the turn ends, so a TLS ClientHello and
// the request written right after it share the SYN. The rest waits for the
// handshake; later Writes queue behind it. A Read before any Write sends the
// SYN without data. With a fallback delay, a SYN with
// data that gets no answer in time is raced by a connection without Fast
// Open, which then carries the same bytes (a path that drops such SYNs).
// Each connection reads TCP_INFO once when its handshake completes: the
// Fast Open outcome and the handshake's RTT (TcpFastOpenInfo).
// Errors of the deferred connect (refused, timed out) arrive through the
// pending Read or Write, or the next one.

#ifndef NET_SOCKET_TCP_CLIENT_SOCKET_H_
#define NET_SOCKET_TCP_CLIENT_SOCKET_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"
#include "net/socket/tcp_fast_open.h"

namespace net {

class TCPClientSocket : public StreamSocket, public FdWatcher {
 public:
  // At most this many bytes are gathered for the SYN; a Write beyond them
  // waits for the handshake.
  static constexpr size_t kMaxSynGather = 64 * 1024;

  // Zero |connect_timeout| means no timeout beyond the kernel's.
  TCPClientSocket(const IPEndPoint& peer, absl::Duration connect_timeout,
                  TcpConnectOptions options = TcpConnectOptions());
  // AdoptConnected wraps an accepted, connected descriptor.
  static std::unique_ptr<TCPClientSocket> AdoptConnected(
      int fd, const IPEndPoint& peer);
  ~TCPClientSocket() override;

  int Connect(CompletionOnceCallback callback) override;
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;
  TcpFastOpenInfo GetTcpFastOpenInfo() const override { return tfo_; }

  // FdWatcher:
  void OnFdReadable(int fd) override;
  void OnFdWritable(int fd) override;

  int fd_for_testing() const { return fd_; }

 private:
  void UpdateWatch();
  void OnConnectComplete(int result);
  // Fast Open: hands the gathered bytes to the kernel (the SYN and its data).
  void SendSynData();
  // The SYN-ACK came (and acknowledged the SYN's data, or not): Fast Open's
  // outcome.
  void OnFastOpenEstablished(bool syn_data_acked, absl::Duration rtt);
  // "115 ms (1.1 x RTT 100 ms + 5 ms)": the race's delay and its basis.
  std::string FallbackDelayText() const;
  void StartFallback();
  void OnFallbackWritable();
  // Sends what is left of unsent_; OK when it is all out.
  int SendUnsent();
  // Ends the connection with |error| and tells the pending Read and Write.
  void FailPending(int error);
  // A pending Write that waited for unsent_ to drain.
  void RunQueuedWrite();

  IPEndPoint peer_;
  absl::Duration connect_timeout_;
  TcpConnectOptions options_;
  int fd_ = -1;
  bool connecting_ = false;
  bool connected_ = false;
  FdWatchController watch_;
  OneShotTimer connect_timer_;
  CompletionOnceCallback connect_callback_;

  // Fast Open. |syn_deferred_|: connect() returned at once, no SYN yet;
  // |unsent_| holds the Writes gathered for it, then whatever of them the
  // SYN did not carry. |syn_sent_|: the SYN went, no SYN-ACK yet.
  bool syn_deferred_ = false;
  bool send_posted_ = false;
  bool syn_sent_ = false;
  std::string unsent_;
  std::string syn_data_;  // what the SYN carried, for the fallback
  int deferred_error_ = OK;
  int fallback_fd_ = -1;
  FdWatchController fallback_watch_;
  OneShotTimer fallback_timer_;
  TcpFastOpenInfo tfo_;

  std::shared_ptr<IOBuffer> read_buf_;
  int read_len_ = 0;
  CompletionOnceCallback read_callback_;
  std::shared_ptr<IOBuffer> write_buf_;
  int write_len_ = 0;
  CompletionOnceCallback write_callback_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<TCPClientSocket> weak_factory_{this};
};

}  // namespace net

#endif  // NET_SOCKET_TCP_CLIENT_SOCKET_H_
