#include "net/socket/tcp_client_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// The kernel's view of a connection: its TCP state, whether the SYN-ACK
// acknowledged data sent in the SYN, and its smoothed RTT (right after the
// handshake: the SYN-to-SYN-ACK sample; zero before any). False if TCP_INFO
// cannot be read.
bool ReadTcpInfo(int fd, uint8_t* state, bool* syn_data_acked,
                 absl::Duration* rtt) {
  tcp_info info{};
  socklen_t len = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
  *state = info.tcpi_state;
  *syn_data_acked = (info.tcpi_options & TCPI_OPT_SYN_DATA) != 0;
  *rtt = absl::Microseconds(info.tcpi_rtt);
  return true;
}

// The handshake's RTT of an established connection (zero if unknown).
absl::Duration HandshakeRtt(int fd) {
  uint8_t state = 0;
  bool acked = false;
  absl::Duration rtt;
  return ReadTcpInfo(fd, &state, &acked, &rtt) ? rtt : absl::ZeroDuration();
}

}  // namespace

TCPClientSocket::TCPClientSocket(const IPEndPoint& peer,
                                 absl::Duration connect_timeout,
                                 TcpConnectOptions options)
    : peer_(peer), connect_timeout_(connect_timeout), options_(options) {}

std::unique_ptr<TCPClientSocket> TCPClientSocket::AdoptConnected(
    int fd, const IPEndPoint& peer) {
  auto socket = std::make_unique<TCPClientSocket>(peer, absl::ZeroDuration());
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  SetNoDelay(fd);
  socket->fd_ = fd;
  socket->connected_ = true;
  // The server side of Fast Open: the SYN's data was taken (it is already
  // in the receive queue).
  uint8_t state = 0;
  bool syn_data = false;
  absl::Duration rtt;
  if (ReadTcpInfo(fd, &state, &syn_data, &rtt) && syn_data) {
    socket->tfo_.outcome = TcpFastOpenOutcome::kAccepted;
    int queued = 0;
    if (ioctl(fd, FIONREAD, &queued) == 0) socket->tfo_.syn_data_bytes = queued;
  }
  return socket;
}

TCPClientSocket::~TCPClientSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  Disconnect();
}

int TCPClientSocket::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (connected_) return OK;
  if (peer_.address().empty()) return ERR_ADDRESS_INVALID;
  fd_ = socket(peer_.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return MapSystemError(errno);
  SetNoDelay(fd_);
  bool fast_open = false;
  if (options_.fast_open != TcpFastOpenMode::kOff) {
    tfo_.mode = options_.fast_open;
    int one = 1;
    if (setsockopt(fd_, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)) !=
        0) {
      tfo_.detail = absl::StrCat("the kernel refused TCP_FASTOPEN_CONNECT: ",
                                 ErrorToShortString(MapSystemError(errno)));
    } else if (options_.fast_open == TcpFastOpenMode::kNoCookie &&
               setsockopt(fd_, IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE, &one,
                          sizeof(one)) != 0) {
      tfo_.detail = absl::StrCat("the kernel refused TCP_FASTOPEN_NO_COOKIE: ",
                                 ErrorToShortString(MapSystemError(errno)));
      fast_open = true;
    } else {
      fast_open = true;
    }
  }
  sockaddr_storage storage;
  socklen_t len = peer_.ToSockAddr(&storage);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&storage), len) == 0) {
    connected_ = true;
    // With Fast Open the kernel deferred the SYN to the first write (it has
    // a cookie for the server, or may go without one).
    syn_deferred_ = fast_open;
    if (!fast_open) tfo_.handshake_rtt = HandshakeRtt(fd_);
    return OK;
  }
  if (errno != EINPROGRESS) {
    int rv = MapConnectError(errno);
    Disconnect();
    return rv;
  }
  // A normal handshake; with Fast Open its SYN asks for a cookie.
  if (fast_open) tfo_.outcome = TcpFastOpenOutcome::kCookieRequested;
  connecting_ = true;
  connect_callback_ = std::move(callback);
  UpdateWatch();
  if (connect_timeout_ > absl::ZeroDuration()) {
    connect_timer_.Start(connect_timeout_, [this] {
      OnConnectComplete(ERR_CONNECTION_TIMED_OUT);
    });
  }
  return ERR_IO_PENDING;
}

void TCPClientSocket::OnConnectComplete(int result) {
  connecting_ = false;
  connect_timer_.Stop();
  CompletionOnceCallback callback = std::move(connect_callback_);
  connect_callback_ = nullptr;
  if (result == OK) {
    connected_ = true;
    tfo_.handshake_rtt = HandshakeRtt(fd_);
    UpdateWatch();
  } else {
    Disconnect();
  }
  std::move(callback)(result);
}

int TCPClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                          CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (deferred_error_ != OK) return deferred_error_;
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  // A Read before any Write on a Fast Open socket (a server that speaks
  // first): nothing will ride in the SYN, so it leaves now, without data.
  if (syn_deferred_ && unsent_.empty()) SendSynData();
  if (deferred_error_ != OK) return deferred_error_;
  ssize_t n = read(fd_, buf->data(), len);
  if (n >= 0) return static_cast<int>(n);
  if (errno != EAGAIN && errno != EWOULDBLOCK) return MapSystemError(errno);
  read_buf_ = std::move(buf);
  read_len_ = len;
  read_callback_ = std::move(callback);
  UpdateWatch();
  return ERR_IO_PENDING;
}

int TCPClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (deferred_error_ != OK) return deferred_error_;
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  if (len <= 0) return len == 0 ? 0 : ERR_INVALID_ARGUMENT;
  if (syn_deferred_) {
    if (unsent_.size() + static_cast<size_t>(len) <= kMaxSynGather) {
      // Gathered for the SYN, which leaves when this turn's work is done.
      unsent_.append(buf->data(), len);
      if (!send_posted_) {
        send_posted_ = true;
        EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
          if (weak) weak->SendSynData();
        });
      }
      return len;
    }
    SendSynData();
    if (deferred_error_ != OK) return deferred_error_;
  }
  if (syn_sent_ || !unsent_.empty()) {
    // Behind the SYN's data: sent once the handshake is done.
    write_buf_ = std::move(buf);
    write_len_ = len;
    write_callback_ = std::move(callback);
    UpdateWatch();
    return ERR_IO_PENDING;
  }
  ssize_t n = send(fd_, buf->data(), len, MSG_NOSIGNAL);
  if (n >= 0) return static_cast<int>(n);
  if (errno != EAGAIN && errno != EWOULDBLOCK) return MapSystemError(errno);
  write_buf_ = std::move(buf);
  write_len_ = len;
  write_callback_ = std::move(callback);
  UpdateWatch();
  return ERR_IO_PENDING;
}

void TCPClientSocket::SendSynData() {
  send_posted_ = false;
  if (!syn_deferred_ || fd_ < 0) return;
  syn_deferred_ = false;
  // The deferred connect: the SYN goes with as much of |unsent_| as the
  // kernel puts in it (about one segment); the rest waits for the SYN-ACK.
  ssize_t n = send(fd_, unsent_.data(), unsent_.size(), MSG_NOSIGNAL);
  if (n > 0) {
    tfo_.syn_data_bytes = n;
    tfo_.outcome = TcpFastOpenOutcome::kPending;
    // Kept only for the race, which sends the same bytes again.
    if (options_.fast_open_fallback_delay > absl::ZeroDuration())
      syn_data_.assign(unsent_, 0, static_cast<size_t>(n));
    unsent_.erase(0, static_cast<size_t>(n));
  } else if (n == 0 || errno == EINPROGRESS || errno == EAGAIN) {
    // No data in the SYN after all (the cookie went, say): a normal
    // handshake that asks for a new one.
    tfo_.outcome = TcpFastOpenOutcome::kCookieRequested;
  } else {
    FailPending(MapConnectError(errno));
    return;
  }
  syn_sent_ = true;
  if (connect_timeout_ > absl::ZeroDuration()) {
    connect_timer_.Start(connect_timeout_,
                         [this] { FailPending(ERR_CONNECTION_TIMED_OUT); });
  }
  if (tfo_.syn_data_bytes > 0 &&
      options_.fast_open_fallback_delay > absl::ZeroDuration()) {
    fallback_timer_.Start(options_.fast_open_fallback_delay,
                          [this] { StartFallback(); });
  }
  UpdateWatch();
}

void TCPClientSocket::OnFastOpenEstablished(bool syn_data_acked,
                                            absl::Duration rtt) {
  syn_sent_ = false;
  connect_timer_.Stop();
  fallback_timer_.Stop();
  tfo_.handshake_rtt = rtt;
  const bool raced = fallback_fd_ >= 0;
  if (raced) {
    fallback_watch_.StopWatching();
    close(fallback_fd_);
    fallback_fd_ = -1;
  }
  if (tfo_.outcome == TcpFastOpenOutcome::kPending) {
    if (syn_data_acked) {
      tfo_.outcome = TcpFastOpenOutcome::kAccepted;
    } else {
      tfo_.outcome = TcpFastOpenOutcome::kNotAccepted;
      tfo_.detail =
          "the SYN-ACK did not acknowledge the SYN's data (the server takes "
          "none without a cookie, or has Fast Open off): sent again";
    }
    // A race that was not needed (the delay was shorter than this SYN-ACK
    // took): worth seeing when the delay comes from a too-small RTT.
    if (raced) {
      absl::StrAppend(&tfo_.detail, tfo_.detail.empty() ? "" : "; ",
                      "a connection without Fast Open raced it after ",
                      FallbackDelayText(), ", but this SYN-ACK came first");
    }
  }
  syn_data_.clear();
  syn_data_.shrink_to_fit();
}

void TCPClientSocket::StartFallback() {
  if (!syn_sent_ || fallback_fd_ >= 0) return;
  int fd =
      socket(peer_.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  SetNoDelay(fd);
  sockaddr_storage storage;
  socklen_t len = peer_.ToSockAddr(&storage);
  if (connect(fd, reinterpret_cast<sockaddr*>(&storage), len) != 0 &&
      errno != EINPROGRESS) {
    close(fd);
    return;
  }
  fallback_fd_ = fd;
  fallback_watch_.Watch(EventLoop::Current(), fallback_fd_, false, true, this);
}

void TCPClientSocket::OnFallbackWritable() {
  int error = 0;
  socklen_t len = sizeof(error);
  getsockopt(fallback_fd_, SOL_SOCKET, SO_ERROR, &error, &len);
  fallback_watch_.StopWatching();
  if (error != 0) {
    close(fallback_fd_);
    fallback_fd_ = -1;
    if (fd_ < 0) FailPending(MapConnectError(error));
    return;
  }
  // The connection without Fast Open won the race: it carries the SYN's
  // data and whatever waited behind it.
  watch_.StopWatching();
  if (fd_ >= 0) close(fd_);
  fd_ = fallback_fd_;
  fallback_fd_ = -1;
  unsent_.insert(0, syn_data_);
  syn_data_.clear();
  syn_sent_ = false;
  connect_timer_.Stop();
  fallback_timer_.Stop();
  tfo_.outcome = TcpFastOpenOutcome::kFallback;
  tfo_.handshake_rtt = HandshakeRtt(fd_);
  tfo_.detail = absl::StrCat(
      "raced after ", FallbackDelayText(),
      ": no SYN-ACK to the SYN with data by then (a path that drops them?), "
      "and the connection without Fast Open carried the data");
  OnFdWritable(fd_);
}

std::string TCPClientSocket::FallbackDelayText() const {
  const std::string delay = FormatMs(options_.fast_open_fallback_delay);
  if (options_.fast_open_fallback_basis.empty()) return delay;
  return absl::StrCat(delay, " (", options_.fast_open_fallback_basis, ")");
}

int TCPClientSocket::SendUnsent() {
  while (!unsent_.empty()) {
    ssize_t n = send(fd_, unsent_.data(), unsent_.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return ERR_IO_PENDING;
      return MapSystemError(errno);
    }
    unsent_.erase(0, static_cast<size_t>(n));
  }
  unsent_.shrink_to_fit();
  return OK;
}

void TCPClientSocket::FailPending(int error) {
  CompletionOnceCallback read_cb = std::move(read_callback_);
  CompletionOnceCallback write_cb = std::move(write_callback_);
  Disconnect();
  deferred_error_ = error;
  WeakPtr<TCPClientSocket> weak = weak_factory_.GetWeakPtr();
  if (read_cb) std::move(read_cb)(error);
  if (weak && write_cb) std::move(write_cb)(error);
}

void TCPClientSocket::UpdateWatch() {
  if (fd_ < 0) return;
  bool want_read = connected_ && read_callback_ != nullptr;
  // A deferred-connect socket polls writable before its SYN: not watched.
  bool want_write = connecting_ || syn_sent_ ||
                    (connected_ && !syn_deferred_ &&
                     (write_callback_ != nullptr || !unsent_.empty()));
  watch_.Watch(EventLoop::Current(), fd_, want_read, want_write, this);
}

void TCPClientSocket::OnFdReadable(int fd) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (syn_sent_) {
    // Data (or an error) before the writable event: the SYN-ACK may have
    // come with it. OnFdWritable looks, and finishes the handshake if so.
    WeakPtr<TCPClientSocket> weak = weak_factory_.GetWeakPtr();
    OnFdWritable(fd_);
    // Gone, or the Fast Open descriptor failed while the race's other one
    // connects: nothing to read yet.
    if (!weak || fd_ < 0) return;
  }
  if (!read_callback_) return;
  ssize_t n = read(fd_, read_buf_->data(), read_len_);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  int rv = n >= 0 ? static_cast<int>(n) : MapSystemError(errno);
  read_buf_.reset();
  CompletionOnceCallback cb = std::move(read_callback_);
  read_callback_ = nullptr;
  UpdateWatch();
  std::move(cb)(rv);
}

void TCPClientSocket::OnFdWritable(int fd) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (fallback_fd_ >= 0 && fd == fallback_fd_) {
    OnFallbackWritable();
    return;
  }
  if (connecting_) {
    int error = 0;
    socklen_t len = sizeof(error);
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    OnConnectComplete(error == 0 ? OK : MapConnectError(error));
    return;
  }
  if (syn_sent_) {
    int error = 0;
    socklen_t len = sizeof(error);
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) {
      if (fallback_fd_ >= 0) {
        // The Fast Open connection failed; the race's other runner may not.
        watch_.StopWatching();
        close(fd_);
        fd_ = -1;
        return;
      }
      FailPending(MapConnectError(error));
      return;
    }
    uint8_t state = 0;
    bool acked = false;
    absl::Duration rtt;
    if (!ReadTcpInfo(fd_, &state, &acked, &rtt) || state == TCP_SYN_SENT)
      return;
    OnFastOpenEstablished(acked, rtt);
  }
  if (!unsent_.empty()) {
    int rv = SendUnsent();
    if (rv == ERR_IO_PENDING) {
      UpdateWatch();
      return;
    }
    if (rv != OK) {
      FailPending(rv);
      return;
    }
  }
  if (!write_callback_) {
    UpdateWatch();
    return;
  }
  ssize_t n = send(fd_, write_buf_->data(), write_len_, MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    UpdateWatch();
    return;
  }
  int rv = n >= 0 ? static_cast<int>(n) : MapSystemError(errno);
  write_buf_.reset();
  CompletionOnceCallback cb = std::move(write_callback_);
  write_callback_ = nullptr;
  UpdateWatch();
  std::move(cb)(rv);
}

void TCPClientSocket::Disconnect() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  watch_.StopWatching();
  fallback_watch_.StopWatching();
  connect_timer_.Stop();
  fallback_timer_.Stop();
  if (fd_ >= 0) close(fd_);
  if (fallback_fd_ >= 0) close(fallback_fd_);
  fd_ = -1;
  fallback_fd_ = -1;
  connected_ = false;
  connecting_ = false;
  syn_deferred_ = false;
  syn_sent_ = false;
  deferred_error_ = OK;
  unsent_.clear();
  syn_data_.clear();
  read_callback_ = nullptr;
  write_callback_ = nullptr;
  connect_callback_ = nullptr;
  read_buf_.reset();
  write_buf_.reset();
}

bool TCPClientSocket::IsConnected() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_ || fd_ < 0) return false;
  char c;
  ssize_t n = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return false;  // Peer closed.
  if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
  return true;
}

bool TCPClientSocket::IsConnectedAndIdle() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_ || fd_ < 0 || syn_deferred_ || syn_sent_ || !unsent_.empty())
    return false;
  char c;
  ssize_t n = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

int TCPClientSocket::GetPeerAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  *address = peer_;
  return OK;
}

int TCPClientSocket::GetLocalAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  sockaddr_storage storage;
  socklen_t len = sizeof(storage);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &len) != 0)
    return MapSystemError(errno);
  return address->FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len)
             ? OK
             : ERR_ADDRESS_INVALID;
}

}  // namespace net
