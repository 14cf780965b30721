#include "tools/netem/netem_shell.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "net/base/event_loop.h"
#include "tools/netem/packet_forwarder.h"
#include "tools/netem/tun_device.h"

namespace netem {
namespace {

// The deepest nesting a shell routes back to (the outer side gets a route
// for each deeper level's /24).
constexpr int kNestedRoutes = 4;

void Note(const ShellOptions& o, const std::string& msg) {
  if (!o.quiet) std::fprintf(stderr, "netem shell: %s\n", msg.c_str());
}

ino_t InodeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// The name of an interface here that is neither loopback nor one of netem's
// links, or "" if there is none. A namespace with one (eth0, a veth, a
// bridge) reaches a network netem did not make: the machine's own
// namespace is one (its /proc/1/ns/net is not always readable to compare).
std::string ForeignInterface() {
  struct if_nameindex* names = if_nameindex();
  if (names == nullptr) return "(unknown: if_nameindex failed)";
  std::string foreign;
  for (struct if_nameindex* n = names; n->if_index != 0; ++n) {
    std::string name = n->if_name;
    if (name != "lo" && name.rfind("netem-", 0) != 0) {
      foreign = name;
      break;
    }
  }
  if_freenameindex(names);
  if (foreign.empty() &&
      InodeOf("/proc/self/ns/net") == InodeOf("/proc/1/ns/net")) {
    foreign = "(none, but this is pid 1's namespace)";
  }
  return foreign;
}

std::string FindIp() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// Runs |argv| (no shell) and waits for it. Returns "" on success, else what
// went wrong with its output.
std::string Run(const std::vector<std::string>& argv) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return "fork failed";
  }
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(out[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  std::string output;
  char buf[512];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof(buf))) > 0) output.append(buf, n);
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return absl::StrCat("'", absl::StrJoin(argv, " "),
                      "' failed: ", output.empty() ? "no output" : output);
}

// Writes a sysctl of the calling thread's network namespace.
std::string WriteSysctl(const std::string& key, const std::string& value) {
  std::string path = "/proc/sys/" + absl::StrReplaceAll(key, {{".", "/"}});
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::StrCat("cannot set ", key, ": ", std::strerror(errno));
  }
  ssize_t n = write(fd, value.data(), value.size());
  int e = errno;
  close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    return absl::StrCat("cannot set ", key, "=", value, ": ", std::strerror(e));
  }
  return "";
}

std::string Ipv4(int depth, int host) {
  return absl::StrCat("198.19.", depth, ".", host);
}

// The first pair 198.19.D.(4K+1)/(4K+2) with neither address in use here.
int FreePair(int depth) {
  std::set<std::string> used;
  struct ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (struct ifaddrs* a = list; a; a = a->ifa_next) {
      for (struct sockaddr* sa : {a->ifa_addr, a->ifa_dstaddr}) {
        if (!sa || sa->sa_family != AF_INET) continue;
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(sa)->sin_addr, text,
                  sizeof(text));
        used.insert(text);
      }
    }
    freeifaddrs(list);
  }
  for (int k = 0; k < 63; ++k) {
    if (!used.count(Ipv4(depth, 4 * k + 1)) &&
        !used.count(Ipv4(depth, 4 * k + 2))) {
      return k;
    }
  }
  return -1;
}

bool WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += n;
  }
  return true;
}

std::string ReadAll(int fd) {
  std::string s;
  char buf[512];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, n);
  }
  return s;
}

// The child between fork and exec: joins a new network namespace, tells the
// parent, waits for its device, configures its side and runs the command.
// Failures are written to |status_fd| (close-on-exec: it reads EOF when the
// exec succeeds).
[[noreturn]] void ChildMain(const ShellOptions& o, pid_t parent, int to_parent,
                            int from_parent, int status_fd,
                            const sigset_t& old_mask, const std::string& ip,
                            const std::string& address, const std::string& peer,
                            int depth) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  auto fail = [&](const std::string& msg, int code) {
    WriteAll(status_fd, msg);
    _exit(code);
  };
  if (unshare(CLONE_NEWNET) != 0) {
    fail(
        absl::StrCat("cannot make a network namespace: ", std::strerror(errno)),
        1);
  }
  if (!WriteAll(to_parent, "u")) _exit(1);
  close(to_parent);
  std::string device = ReadAll(from_parent);
  close(from_parent);
  if (device.empty()) _exit(1);  // the parent gave up and says why
  // No IPv6 chatter (router solicitations, MLD) on the link, which is IPv4
  // only: off before the device comes up.
  WriteSysctl(absl::StrCat("net.ipv6.conf.", device, ".disable_ipv6"), "1");
  std::vector<std::vector<std::string>> steps = {
      {ip, "link", "set", "lo", "up"},
      {ip, "link", "set", device, "mtu", absl::StrCat(o.mtu), "up"},
      {ip, "addr", "add", address, "peer", peer, "dev", device},
  };
  std::vector<std::string> route = {ip,    "route", "add", "default",
                                    "via", peer,    "dev", device};
  if (o.initcwnd > 0) {
    route.push_back("initcwnd");
    route.push_back(absl::StrCat(o.initcwnd));
  }
  if (o.initrwnd > 0) {
    route.push_back("initrwnd");
    route.push_back(absl::StrCat(o.initrwnd));
  }
  steps.push_back(route);
  for (const auto& step : steps) {
    std::string err = Run(step);
    if (!err.empty()) fail(err, 1);
  }
  for (const auto& [key, value] : o.sysctls) {
    std::string err = WriteSysctl(key, value);
    if (!err.empty()) fail(err, 1);
  }
  setenv("NETEM_PEER", peer.c_str(), 1);
  setenv("NETEM_ADDRESS", address.c_str(), 1);
  setenv("NETEM_DEPTH", absl::StrCat(depth).c_str(), 1);
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  std::vector<char*> args;
  for (const std::string& a : o.command)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  fail(absl::StrCat("cannot run ", o.command[0], ": ", std::strerror(errno)),
       127);
  _exit(127);  // not reached
}

// Sends |sig| to every process in the network namespace with inode |ns|.
int SignalNamespace(ino_t ns, int sig) {
  int count = 0;
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  const pid_t self = getpid();
  while (struct dirent* e = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    if (InodeOf(absl::StrCat("/proc/", pid, "/ns/net")) != ns) continue;
    if (kill(pid, sig) == 0) ++count;
  }
  closedir(proc);
  return count;
}

// Reaps every exited child (netem is a subreaper: orphans of the command
// come here); returns true if |child| was among them, with its status.
bool ReapChildren(pid_t child, int* child_status) {
  bool found = false;
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    if (pid == child) {
      *child_status = status;
      found = true;
    }
  }
  return found;
}

// Watches the signalfd: SIGCHLD ends the loop once the command exited;
// SIGTERM, SIGINT, SIGHUP and SIGQUIT are passed to the command.
class SignalWatcher : public net::FdWatcher {
 public:
  SignalWatcher(net::EventLoop* loop, int fd, pid_t child)
      : loop_(loop), fd_(fd), child_(child) {}
  void OnFdReadable(int fd) override {
    struct signalfd_siginfo info;
    while (read(fd_, &info, sizeof(info)) == sizeof(info)) {
      if (info.ssi_signo == SIGCHLD) {
        if (ReapChildren(child_, &status_)) {
          exited_ = true;
          loop_->Quit();
        }
      } else if (!exited_) {
        kill(child_, info.ssi_signo);
      }
    }
  }
  void OnFdWritable(int fd) override {}
  bool exited() const { return exited_; }
  int status() const { return status_; }

 private:
  net::EventLoop* loop_;
  int fd_;
  pid_t child_;
  bool exited_ = false;
  int status_ = 0;
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

int RunShell(const ShellOptions& o) {
  if (absl::Status s = CheckPacketLinkPrivileges(); !s.ok()) {
    std::fprintf(stderr, "netem shell: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  if (std::string other = ForeignInterface(); !other.empty()) {
    std::fprintf(stderr,
                 "netem shell: this namespace has the interface %s, so it may "
                 "be the machine's own network; netem adds devices and routes "
                 "only in namespaces that reach nothing else (just lo and "
                 "netem's links). Run it inside one, e.g. `unshare -n sh -c "
                 "'ip link set lo up; netem shell ... -- CMD'`, or through "
                 "tools/world\n",
                 other.c_str());
    return 1;
  }
  const std::string ip = FindIp();
  if (ip.empty()) {
    std::fprintf(stderr, "netem shell: no `ip` binary (Debian iproute2)\n");
    return 1;
  }
  const char* depth_env = std::getenv("NETEM_DEPTH");
  const int outer_depth = depth_env ? std::atoi(depth_env) : 0;
  const int depth = outer_depth + 1;
  if (depth > 255) {
    std::fprintf(stderr, "netem shell: nested too deep\n");
    return 1;
  }
  const int pair = FreePair(depth);
  if (pair < 0) {
    std::fprintf(
        stderr, "netem shell: no free address pair in 198.19.%d.0/24\n", depth);
    return 1;
  }
  const std::string peer = Ipv4(depth, 4 * pair + 1);
  const std::string address = Ipv4(depth, 4 * pair + 2);

  sigset_t handled, old_mask;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT})
    sigaddset(&handled, s);
  sigprocmask(SIG_BLOCK, &handled, &old_mask);
  signal(SIGPIPE, SIG_IGN);
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  int up[2], down[2], status[2];
  if (pipe2(up, O_CLOEXEC) || pipe2(down, O_CLOEXEC) ||
      pipe2(status, O_CLOEXEC)) {
    std::perror("netem shell: pipe");
    return 1;
  }
  const pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    std::perror("netem shell: fork");
    return 1;
  }
  if (child == 0) {
    close(up[0]);
    close(down[1]);
    close(status[0]);
    ChildMain(o, parent, up[1], down[0], status[1], old_mask, ip, address, peer,
              depth);
  }
  close(up[1]);
  close(down[0]);
  close(status[1]);
  Fd status_fd{status[0]};
  Fd down_fd{down[1]};

  int child_status = 0;
  auto fail = [&](const std::string& msg) {
    // The child reads EOF instead of a device name and exits.
    close(down_fd.fd);
    down_fd.fd = -1;
    std::string why = ReadAll(status_fd.fd);
    std::fprintf(stderr, "netem shell: %s\n",
                 (msg.empty() ? why : msg).c_str());
    kill(child, SIGKILL);
    while (waitpid(child, &child_status, 0) < 0 && errno == EINTR) {
    }
    return 1;
  };

  char c = 0;
  ssize_t got = read(up[0], &c, 1);
  close(up[0]);
  if (got != 1) return fail("");

  // The inner device: made from inside the command's namespace.
  Fd self_ns{open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)};
  Fd inner_ns{open(absl::StrCat("/proc/", child, "/ns/net").c_str(),
                   O_RDONLY | O_CLOEXEC)};
  if (self_ns.fd < 0 || inner_ns.fd < 0) {
    return fail("cannot open the namespaces");
  }
  struct stat inner_stat;
  fstat(inner_ns.fd, &inner_stat);
  if (setns(inner_ns.fd, CLONE_NEWNET) != 0) {
    return fail(absl::StrCat("setns: ", std::strerror(errno)));
  }
  absl::StatusOr<std::unique_ptr<TunDevice>> inner =
      TunDevice::Open("netem-in%d");
  if (setns(self_ns.fd, CLONE_NEWNET) != 0) {
    return fail(absl::StrCat("setns back: ", std::strerror(errno)));
  }
  if (!inner.ok()) return fail(std::string(inner.status().message()));
  absl::StatusOr<std::unique_ptr<TunDevice>> outer =
      TunDevice::Open("netem-out%d");
  if (!outer.ok()) return fail(std::string(outer.status().message()));
  const std::string out_dev = (*outer)->name();
  WriteSysctl(absl::StrCat("net.ipv6.conf.", out_dev, ".disable_ipv6"), "1");
  for (const std::vector<std::string>& step :
       std::vector<std::vector<std::string>>{
           {ip, "link", "set", out_dev, "mtu", absl::StrCat(o.mtu), "up"},
           {ip, "addr", "add", peer, "peer", address, "dev", out_dev}}) {
    std::string err = Run(step);
    if (!err.empty()) return fail(err);
  }
  if (o.outer_initcwnd > 0 || o.outer_initrwnd > 0) {
    std::vector<std::string> change = {ip,      "route", "change", address,
                                       "dev",   out_dev, "proto",  "kernel",
                                       "scope", "link",  "src",    peer};
    for (auto [flag, value] : {std::pair{"initcwnd", o.outer_initcwnd},
                               std::pair{"initrwnd", o.outer_initrwnd}}) {
      if (value > 0) {
        change.push_back(flag);
        change.push_back(absl::StrCat(value));
      }
    }
    std::string err = Run(change);
    if (!err.empty()) return fail(err);
  }
  // Deeper shells inside this one use 198.19.(D+1..).0/24: route them here.
  for (int d = depth + 1; d <= std::min(255, depth + kNestedRoutes); ++d) {
    Run({ip, "route", "add", absl::StrCat("198.19.", d, ".0/24"), "dev",
         out_dev});  // a sibling shell may have it already: that is fine
  }
  if (outer_depth >= 1) {
    // This namespace is a netem shell's: let it carry the inner shell's
    // packets on to the outer ones.
    std::string err = WriteSysctl("net.ipv4.ip_forward", "1");
    if (!err.empty()) return fail(err);
  }
  if (!WriteAll(down_fd.fd, (*inner)->name())) return fail("");
  close(down_fd.fd);
  down_fd.fd = -1;
  std::string child_error = ReadAll(status_fd.fd);
  if (!child_error.empty()) {
    std::fprintf(stderr, "netem shell: %s\n", child_error.c_str());
    while (waitpid(child, &child_status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(child_status) ? WEXITSTATUS(child_status) : 1;
  }

  if (!o.ready_file.empty()) {
    std::string tmp = o.ready_file + ".tmp";
    std::ofstream ready(tmp);
    ready << "{\"pid\": " << child << ", \"address\": \"" << address
          << "\", \"peer\": \"" << peer << "\", \"depth\": " << depth
          << ", \"inner_device\": \"" << (*inner)->name()
          << "\", \"outer_device\": \"" << out_dev
          << "\", \"netns_inode\": " << inner_stat.st_ino
          << ", \"netem_pid\": " << getpid() << "}\n";
    ready.close();
    if (!ready || rename(tmp.c_str(), o.ready_file.c_str()) != 0) {
      Note(o, absl::StrCat("cannot write ", o.ready_file));
    }
  }

  std::string stats;
  {
    net::EventLoop loop;
    std::vector<PathParams> paths = o.paths;
    PacketForwarder forwarder(&loop, (*inner)->fd(), (*outer)->fd(),
                              std::move(paths));
    Fd sig{signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC)};
    SignalWatcher watcher(&loop, sig.fd, child);
    net::FdWatchController sig_watch;
    if (sig.fd < 0 || !forwarder.Start() ||
        !sig_watch.Watch(&loop, sig.fd, true, false, &watcher)) {
      kill(child, SIGKILL);
      std::fprintf(stderr, "netem shell: cannot watch the devices\n");
      return 1;
    }
    // A SIGCHLD may have come before the signalfd existed.
    if (ReapChildren(child, &child_status)) {
      // Nothing to forward: the command is already gone.
    } else {
      loop.Run();
      child_status = watcher.status();
    }
    stats = forwarder.StatsJson();
  }

  // Whatever the command left behind in its namespace goes too.
  if (SignalNamespace(inner_stat.st_ino, SIGTERM) > 0) {
    for (int i = 0; i < 30; ++i) {
      int ignored;
      ReapChildren(-1, &ignored);
      if (SignalNamespace(inner_stat.st_ino, 0) == 0) break;
      usleep(100'000);
    }
    SignalNamespace(inner_stat.st_ino, SIGKILL);
    usleep(50'000);
    int ignored;
    ReapChildren(-1, &ignored);
  }

  if (!o.stats_file.empty()) {
    if (o.stats_file == "-") {
      std::fprintf(stderr, "%s\n", stats.c_str());
    } else {
      std::ofstream out(o.stats_file);
      out << stats << "\n";
      if (!out) Note(o, absl::StrCat("cannot write ", o.stats_file));
    }
  }
  if (WIFEXITED(child_status)) return WEXITSTATUS(child_status);
  if (WIFSIGNALED(child_status)) return 128 + WTERMSIG(child_status);
  return 1;
}

}  // namespace netem
