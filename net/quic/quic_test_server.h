// Testonly: real QUIC peers for net/quic's and net/http's unit tests.
// - GtlsServer: ngtcp2's own HTTP/3 server (Debian's ngtcp2-server,
//   /usr/sbin/gtlsserver, GnuTLS inside, the same ngtcp2 1.11 as our
//   library) on 127.0.0.1 over loopback UDP, serving a directory with one
//   of cert/testdata's chains; Pause (SIGSTOP) makes it a server that stops
//   answering. Started by fork/exec, waited for until its UDP port is
//   bound, always stopped by PID (destructor).
// - UdpBlackHole: a bound UDP port that reads and never answers (a dropped
//   UDP path), or answers every datagram with junk.
// Network-thread independent: they run as a child process or a thread.

#ifndef NET_QUIC_QUIC_TEST_SERVER_H_
#define NET_QUIC_QUIC_TEST_SERVER_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "net/base/ip_endpoint.h"

namespace net {

// A UDP port on 127.0.0.1 that was free a moment ago.
inline uint16_t PickFreeUdpPort() {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Whether some socket is bound to UDP 127.0.0.1:|port| (/proc/net/udp).
inline bool UdpPortBound(uint16_t port) {
  std::ifstream f("/proc/net/udp");
  std::string line;
  const std::string needle = absl::StrFormat("0100007F:%04X", port);
  while (std::getline(f, line)) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

class GtlsServer {
 public:
  struct Options {
    std::string chain = "cert/testdata/good_leaf_chain.pem";
    std::string key = "cert/testdata/good_leaf.key";
    std::string htdocs;  // required
    // gtlsserver's own options (e.g. "--tx-loss=0.1", "--timeout=2s").
    std::vector<std::string> extra_args;
  };

  GtlsServer() = default;
  ~GtlsServer() { Stop(); }
  GtlsServer(const GtlsServer&) = delete;
  GtlsServer& operator=(const GtlsServer&) = delete;

  static constexpr char kBinary[] = "/usr/sbin/gtlsserver";
  static bool Available() { return access(kBinary, X_OK) == 0; }

  // Starts it; false (with a message in |*why|) if it did not come up.
  bool Start(const Options& options, std::string* why) {
    port_ = PickFreeUdpPort();
    std::vector<std::string> args = {kBinary, "-q", "-d", options.htdocs};
    for (const std::string& a : options.extra_args) args.push_back(a);
    args.push_back("127.0.0.1");
    args.push_back(std::to_string(port_));
    args.push_back(options.key);
    args.push_back(options.chain);
    pid_ = fork();
    if (pid_ == 0) {
      int devnull = open("/dev/null", O_RDWR);
      dup2(devnull, 0);
      dup2(devnull, 1);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(kBinary, argv.data());
      _exit(127);
    }
    for (int i = 0; i < 500; ++i) {
      if (UdpPortBound(port_)) return true;
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        *why = absl::StrCat("gtlsserver exited at start (status ", status, ")");
        return false;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    *why = "gtlsserver did not bind its port within 5s";
    Stop();
    return false;
  }

  // The server stops answering (SIGSTOP), or answers again (SIGCONT).
  void Pause() {
    if (pid_ > 0) kill(pid_, SIGSTOP);
  }
  void Resume() {
    if (pid_ > 0) kill(pid_, SIGCONT);
  }

  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  IPEndPoint endpoint() const {
    return IPEndPoint(IPAddress::IPv4Localhost(), port_);
  }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

// A UDP port that never answers (|junk| false) or answers each datagram
// with 1200 bytes of junk (|junk| true). Counts what it received.
class UdpBlackHole {
 public:
  explicit UdpBlackHole(bool junk = false) : junk_(junk) {
    fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~UdpBlackHole() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  IPEndPoint endpoint() const {
    return IPEndPoint(IPAddress::IPv4Localhost(), port_);
  }
  int received() const { return received_; }

 private:
  void Run() {
    char buf[2048];
    std::string junk(1200, '\0');
    for (size_t i = 0; i < junk.size(); ++i)
      junk[i] = static_cast<char>(i * 131 + 7);
    while (!stop_) {
      pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      sockaddr_storage from;
      socklen_t len = sizeof(from);
      ssize_t n = recvfrom(fd_, buf, sizeof(buf), 0,
                           reinterpret_cast<sockaddr*>(&from), &len);
      if (n <= 0) continue;
      ++received_;
      if (junk_) {
        sendto(fd_, junk.data(), junk.size(), 0,
               reinterpret_cast<sockaddr*>(&from), len);
      }
    }
  }

  const bool junk_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> received_{0};
  std::thread thread_;
};

// Writes |contents| to |dir|/|name| (dir created), for htdocs.
inline void WriteHtdocsFile(const std::string& dir, const std::string& name,
                            const std::string& contents) {
  mkdir(dir.c_str(), 0755);
  std::ofstream f(dir + "/" + name, std::ios::binary);
  f << contents;
}

}  // namespace net

#endif  // NET_QUIC_QUIC_TEST_SERVER_H_
