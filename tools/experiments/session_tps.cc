// session_tps: end-to-end TLS transactions per second on loopback with
// different server-side session resumption — no resumption, session tickets,
// BoringSSL's built-in session-ID cache, and net/session_cache (LRU, PRED) —
// the analog of Stevens & Chen's Figure 2.
//
//   bazel run -c opt //tools/experiments:session_tps -- [--seconds 2.5]
//   [--rounds 3]
//
// One process, two threads for the two cores: the test server (TestServer on
// its own EventLoop) and the client, our own stack (TCPClientSocket +
// SSLClientSocket), keeping --connections transactions in flight. A
// transaction is: TCP connect, TLS 1.2 handshake, GET /size/N with
// "Connection: close" and "X-Next-Connect", read to the end. The client plays
// --clients devices in turn, each with its own SSLClientContext (so its own
// cached session), and announces its next connect as the measured cycle time
// (clients / TPS). Rows run in rounds with a rotating order; the median of
// the rounds is reported. See tools/experiments/README.md.

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cert/basic_cert_verifier.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/base/weak_ptr.h"
#include "net/session_cache/session_cache_config.h"
#include "net/ssl/ssl_client_socket.h"
#include "tools/experiments/tls_transaction.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

constexpr char kUsage[] = R"(usage: session_tps [flags]
  --seconds S        measured time per row and round (default 2.5)
  --warmup S         unmeasured time before each (default 0.5)
  --rounds N         rounds over all rows, order rotating (default 3)
  --connections K    transactions in flight (default 8)
  --clients V        simulated devices, each with its own client session cache
                     (default 64)
  --response-size N  response body bytes (default 1024)
  --rows LIST        comma-separated rows (default: all): none, tickets, builtin,
                     lru, pred, lru-half, pred-half
  --cert-chain PEM   server chain for www.example.test (default cert/testdata)
  --key PEM          its key
  --trust-anchor PEM root for our client (default cert/testdata/good_root.pem)
  --out DIR          also write DIR/session_tps.csv (relative to the workspace under
                     bazel run)
  --check            exit 3 unless every row's resumption rate is as designed
Exit codes: 0 done, 1 failure (server, client, output), 2 bad flags, 3 --check failed.
)";

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "session_tps: " << message << "\n" << kUsage;
  std::exit(2);
}

struct Options {
  double seconds = 2.5;
  double warmup = 0.5;
  int rounds = 3;
  int connections = 8;
  int clients = 64;
  int64_t response_size = 1024;
  std::vector<std::string> rows = {"none", "tickets",  "builtin",  "lru",
                                   "pred", "lru-half", "pred-half"};
  std::string cert_chain = "cert/testdata/good_leaf_chain.pem";
  std::string key = "cert/testdata/good_leaf.key";
  std::string trust_anchor = "cert/testdata/good_root.pem";
  std::string out_dir;
  bool check = false;
};

// What a row configures on the server, and the resumption rate it should give
// with round-robin clients.
struct Row {
  std::string name;
  std::string what;
  SSLServerConfig ssl;
  double expected_resumed_min;
  double expected_resumed_max;
};

Row MakeRow(const std::string& name, const Options& o,
            const SSLServerConfig& base) {
  Row row{name, "", base, 0, 0};
  row.ssl.version_max = TLS1_2_VERSION;
  row.ssl.tickets = false;
  row.ssl.session_cache = false;
  auto external = [&](const char* policy, int capacity) {
    SessionCacheConfig c =
        *ParseSessionCacheSpec(absl::StrCat(policy, ":", capacity));
    row.ssl.external_session_cache = c;
    row.what = absl::StrCat("--session-cache ", policy, ":", capacity);
  };
  if (name == "none") {
    row.what = "--session-cache none --no-tickets";
    row.expected_resumed_max = 0;
  } else if (name == "tickets") {
    row.ssl.tickets = true;
    row.what = "--session-cache none (tickets)";
    row.expected_resumed_min = 0.9;
    row.expected_resumed_max = 1;
  } else if (name == "builtin") {
    row.ssl.session_cache = true;
    row.what = "--session-cache builtin --no-tickets";
    row.expected_resumed_min = 0.9;
    row.expected_resumed_max = 1;
  } else if (name == "lru" || name == "pred") {
    external(name.c_str(), 2 * o.clients);
    row.expected_resumed_min = 0.9;
    row.expected_resumed_max = 1;
  } else if (name == "lru-half") {
    // Round-robin clients and a cache of half of them: LRU always evicts
    // the session that is needed next.
    external("lru", o.clients / 2);
    row.expected_resumed_max = 0.05;
  } else if (name == "pred-half") {
    // PRED keeps the sessions it has (every newcomer announces the farthest
    // next connect), so half the clients keep resuming.
    external("pred", o.clients / 2);
    row.expected_resumed_min = 0.4;
    row.expected_resumed_max = 0.6;
  } else {
    BadFlag("unknown row '" + name + "'");
  }
  return row;
}

// The test server on its own thread and EventLoop.
class ServerThread {
 public:
  explicit ServerThread(const TestServerConfig& config) {
    std::promise<absl::Status> started;
    std::future<absl::Status> result = started.get_future();
    thread_ = std::thread([this, config, &started] {
      EventLoop loop;
      TestServer server(config);
      absl::Status status = server.Start();
      if (status.ok()) {
        address_ = server.bound()[0].second;
        loop_ = &loop;
      }
      started.set_value(status);
      if (!status.ok()) return;
      loop.Run();
      if (auto* cache = server.ssl_context()->external_session_cache())
        stats_ = cache->stats();
    });
    status_ = result.get();
  }
  ~ServerThread() {
    if (loop_) loop_->Quit();
    thread_.join();
  }
  const absl::Status& status() const { return status_; }
  const IPEndPoint& address() const { return address_; }
  // The server thread's CPU clock (for CPU time per transaction).
  clockid_t cpu_clock() {
    clockid_t id;
    pthread_getcpuclockid(thread_.native_handle(), &id);
    return id;
  }
  // The external cache's counters, after the thread stopped.
  SessionCacheStats Stop() {
    if (loop_) loop_->Quit();
    thread_.join();
    loop_ = nullptr;
    thread_ = std::thread([] {});
    return stats_;
  }

 private:
  std::thread thread_;
  absl::Status status_;
  IPEndPoint address_;
  EventLoop* loop_ = nullptr;
  SessionCacheStats stats_;
};

struct Counts {
  int64_t transactions = 0;
  int64_t resumed = 0;
  int64_t errors = 0;
  std::string first_error;
  double server_cpu_s = 0;  // over the measured part
  double client_cpu_s = 0;
};

double CpuSeconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

class Client;

// One transaction at a time, each a TlsTransaction for the next device.
class Slot {
 public:
  explicit Slot(Client* client) : client_(client) {}
  void Start();

 private:
  void Done(const TlsTransaction::Outcome& outcome);

  Client* const client_;
  std::unique_ptr<TlsTransaction> transaction_;
  WeakPtrFactory<Slot> weak_factory_{this};
};

class Client {
 public:
  Client(const Options& o, CertVerifier* verifier, const IPEndPoint& server,
         clockid_t server_cpu)
      : o_(o), server_(server), server_cpu_(server_cpu) {
    for (int i = 0; i < o.clients; ++i) {
      devices_.push_back(std::make_unique<SSLClientContext>(verifier));
    }
    config_.version_max = TLS1_2_VERSION;
    config_.coalesce_handshakes = false;
  }

  // Run keeps --connections transactions going for warmup + seconds and
  // returns what completed in the measured part.
  Counts Run() {
    EventLoop* loop = EventLoop::Current();
    started_ = TimeTicks::Now();
    OneShotTimer warmup, stop;
    double server_cpu0 = 0, client_cpu0 = 0;
    warmup.Start(absl::Seconds(o_.warmup), [&] {
      counts_ = Counts();
      measure_start_ = TimeTicks::Now();
      server_cpu0 = CpuSeconds(server_cpu_);
      client_cpu0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    });
    stop.Start(absl::Seconds(o_.warmup + o_.seconds), [&] {
      stopping_ = true;
      measured_ = counts_;
      measured_.server_cpu_s = CpuSeconds(server_cpu_) - server_cpu0;
      measured_.client_cpu_s =
          CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - client_cpu0;
      measure_end_ = TimeTicks::Now();
      if (active_ == 0) EventLoop::Current()->Quit();
    });
    for (int i = 0; i < o_.connections; ++i)
      slots_.push_back(std::make_unique<Slot>(this));
    for (auto& s : slots_) {
      ++active_;
      s->Start();
    }
    loop->Run();
    slots_.clear();
    return measured_;
  }
  double measured_seconds() const {
    return absl::ToDoubleSeconds(measure_end_ - measure_start_);
  }

  // For slots.
  int NextDevice() { return next_device_++ % o_.clients; }
  SSLClientContext* device(int i) { return devices_[i].get(); }
  const SSLConfig& ssl_config() const { return config_; }
  const IPEndPoint& server() const { return server_; }
  std::string Request() const {
    // The cycle after which this device comes back: all devices in turn at
    // the rate seen so far (a guess of 1 ms per transaction at first).
    double elapsed = absl::ToDoubleSeconds(TimeTicks::Now() - started_);
    double per_transaction = total_ > 100 ? elapsed / total_ : 0.001;
    return absl::StrFormat(
        "GET /size/%d HTTP/1.1\r\nHost: www.example.test\r\nConnection: "
        "close\r\n"
        "X-Next-Connect: %.4f\r\n\r\n",
        o_.response_size, per_transaction * o_.clients);
  }
  // A slot finished a transaction; returns whether it should start another.
  bool OnDone(bool ok, bool resumed, const std::string& error) {
    ++total_;
    if (ok) {
      ++counts_.transactions;
      counts_.resumed += resumed;
    } else {
      ++counts_.errors;
      if (counts_.first_error.empty()) counts_.first_error = error;
    }
    if (!stopping_) return true;
    if (--active_ == 0) EventLoop::Current()->Quit();
    return false;
  }
  int64_t response_size() const { return o_.response_size; }

 private:
  const Options& o_;
  const IPEndPoint server_;
  const clockid_t server_cpu_;
  SSLConfig config_;
  std::vector<std::unique_ptr<SSLClientContext>> devices_;
  std::vector<std::unique_ptr<Slot>> slots_;
  int next_device_ = 0;
  int active_ = 0;
  bool stopping_ = false;
  int64_t total_ = 0;
  TimeTicks started_, measure_start_, measure_end_;
  Counts counts_, measured_;
};

void Slot::Start() {
  TlsTransaction::Params params;
  params.server = client_->server();
  params.host = "www.example.test";
  params.config = &client_->ssl_config();
  params.context = client_->device(client_->NextDevice());
  params.request = [client = client_] { return client->Request(); };
  // It must be a 200 with the whole body.
  params.is_good = [size =
                        client_->response_size()](const std::string& response) {
    size_t head_end = response.find("\r\n\r\n");
    return absl::StartsWith(response, "HTTP/1.1 200") &&
           head_end != std::string::npos &&
           static_cast<int64_t>(response.size() - head_end - 4) == size;
  };
  transaction_ = std::make_unique<TlsTransaction>();
  transaction_->Start(std::move(params),
                      [this](const TlsTransaction::Outcome& o) { Done(o); });
}

void Slot::Done(const TlsTransaction::Outcome& outcome) {
  bool again =
      client_->OnDone(outcome.rv == OK, outcome.resumed, outcome.error);
  // Drop the sockets from a fresh stack: this may run inside their callbacks.
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), again] {
    if (!weak) return;
    weak->transaction_.reset();
    if (again) weak->Start();
  });
}

struct RowResult {
  std::vector<double> tps;
  std::vector<double> resumed;
  std::vector<double> server_us;  // server CPU per transaction
  std::vector<double> client_us;
  SessionCacheStats last_stats;
  int64_t errors = 0;
  std::string first_error;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool MakeDirs(const std::string& dir) {
  std::string partial;
  for (const auto& part : absl::StrSplit(dir, '/')) {
    partial += std::string(part) + "/";
    if (part.empty()) continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

int Main(const Options& o) {
  auto verifier = BasicCertVerifier::Create({o.trust_anchor}, false);
  if (!verifier.ok()) {
    std::cerr << "session_tps: " << verifier.status().message() << "\n";
    return 1;
  }
  SSLServerConfig base;
  base.cert_chain_file = o.cert_chain;
  base.key_file = o.key;
  std::vector<Row> rows;
  for (const std::string& name : o.rows) rows.push_back(MakeRow(name, o, base));
  std::vector<RowResult> results(rows.size());

  std::cout << absl::StrFormat(
      "session_tps: %d rows x %d rounds, %.1f s each (+%.1f s warm-up), %d "
      "connections in "
      "flight, %d clients in turn, TLS 1.2, %d-byte responses, %u cores\n",
      rows.size(), o.rounds, o.seconds, o.warmup, o.connections, o.clients,
      o.response_size, std::thread::hardware_concurrency());
  EventLoop loop;
  for (int round = 0; round < o.rounds; ++round) {
    for (size_t k = 0; k < rows.size(); ++k) {
      size_t i = (k + round) % rows.size();  // rotate the order
      const Row& row = rows[i];
      TestServerConfig config;
      config.https_listen.push_back(IPEndPoint(IPAddress::IPv4Localhost(), 0));
      config.ssl = row.ssl;
      config.response_size = o.response_size;
      config.quiet = true;
      ServerThread server(config);
      if (!server.status().ok()) {
        std::cerr << "session_tps: server: " << server.status().message()
                  << "\n";
        return 1;
      }
      Client client(o, verifier->get(), server.address(), server.cpu_clock());
      Counts c = client.Run();
      SessionCacheStats stats = server.Stop();
      double secs = client.measured_seconds();
      RowResult& r = results[i];
      r.tps.push_back(c.transactions / secs);
      r.resumed.push_back(
          c.transactions ? static_cast<double>(c.resumed) / c.transactions : 0);
      r.server_us.push_back(
          c.transactions ? 1e6 * c.server_cpu_s / c.transactions : 0);
      r.client_us.push_back(
          c.transactions ? 1e6 * c.client_cpu_s / c.transactions : 0);
      r.last_stats = stats;
      r.errors += c.errors;
      if (r.first_error.empty()) r.first_error = c.first_error;
      std::cout << absl::StrFormat(
                       "  round %d  %-10s %8.0f TPS  resumed %5.1f%%  server "
                       "%5.0f us/tx  "
                       "client %5.0f us/tx%s\n",
                       round + 1, row.name, c.transactions / secs,
                       100 * r.resumed.back(), r.server_us.back(),
                       r.client_us.back(),
                       c.errors ? absl::StrCat("  errors ", c.errors) : "")
                << std::flush;
    }
  }

  const size_t none_index =
      std::find(o.rows.begin(), o.rows.end(), "none") - o.rows.begin();
  const double none_tps =
      none_index < rows.size() ? Median(results[none_index].tps) : 0;
  const double none_us =
      none_index < rows.size() ? Median(results[none_index].server_us) : 0;
  std::cout
      << "\nrow        server configuration                  TPS median "
         "[min-max]   vs none"
         "  server us/tx  capacity  vs none  resumed  server cache hits\n";
  std::string csv =
      "row,server,tps_median,tps_min,tps_max,ratio_to_none,server_cpu_us_per_"
      "tx,"
      "server_capacity_tps,capacity_ratio_to_none,client_cpu_us_per_tx,resumed_"
      "fraction,"
      "cache_hit_rate,connections,clients\n";
  bool ok = true;
  std::string failures;
  for (size_t i = 0; i < rows.size(); ++i) {
    const RowResult& r = results[i];
    double tps = Median(r.tps);
    double resumed = Median(r.resumed);
    double lo = *std::min_element(r.tps.begin(), r.tps.end());
    double hi = *std::max_element(r.tps.begin(), r.tps.end());
    const SessionCacheStats& st = r.last_stats;
    std::string hit_rate =
        rows[i].ssl.external_session_cache && st.lookups
            ? absl::StrFormat("%.3f (%d of %d lookups)",
                              double(st.hits) / st.lookups, st.hits, st.lookups)
            : "-";
    // The server's capacity on one dedicated core: 1 / its CPU time per
    // transaction. Unlike wall TPS it does not move with other load.
    double us = Median(r.server_us);
    double capacity = us > 0 ? 1e6 / us : 0;
    std::cout << absl::StrFormat(
        "%-10s %-36s %7.0f [%5.0f-%5.0f] %7.2f  %12.0f  %8.0f  %7.2f  %6.1f%%  "
        "%s\n",
        rows[i].name, rows[i].what, tps, lo, hi, none_tps ? tps / none_tps : 0,
        us, capacity, us > 0 ? none_us / us : 0, 100 * resumed, hit_rate);
    absl::StrAppend(
        &csv, rows[i].name, ",", rows[i].what, ",",
        absl::StrFormat("%.1f,%.1f,%.1f,%.3f,%.1f,%.1f,%.3f,%.1f,%.4f,", tps,
                        lo, hi, none_tps ? tps / none_tps : 0, us, capacity,
                        us > 0 ? none_us / us : 0, Median(r.client_us),
                        resumed),
        rows[i].ssl.external_session_cache && st.lookups
            ? absl::StrFormat("%.4f", double(st.hits) / st.lookups)
            : "",
        ",", o.connections, ",", o.clients, "\n");
    if (r.errors) {
      ok = false;
      absl::StrAppend(&failures, "  ", rows[i].name, ": ", r.errors,
                      " failed transactions, first: ", r.first_error, "\n");
    }
    if (resumed < rows[i].expected_resumed_min - 1e-9 ||
        resumed > rows[i].expected_resumed_max + 1e-9) {
      ok = false;
      absl::StrAppend(&failures, "  ", rows[i].name, ": resumed ", resumed,
                      " outside [", rows[i].expected_resumed_min, ", ",
                      rows[i].expected_resumed_max, "]\n");
    }
  }
  if (!o.out_dir.empty()) {
    std::string dir = o.out_dir;
    if (dir[0] != '/' && std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
      dir = absl::StrCat(std::getenv("BUILD_WORKSPACE_DIRECTORY"), "/", dir);
    }
    std::ofstream out;
    if (MakeDirs(dir)) out.open(dir + "/session_tps.csv", std::ios::trunc);
    out << csv;
    out.close();
    if (!out) {
      std::cerr << "session_tps: cannot write " << dir << "/session_tps.csv\n";
      return 1;
    }
    std::cout << "wrote " << dir << "/session_tps.csv\n";
  }
  if (!ok) std::cout << "PROBLEMS:\n" << failures;
  if (o.check) {
    if (!ok) return 3;
    std::cout
        << "CHECK: no failed transactions; every row resumed as designed\n";
  }
  return 0;
}

}  // namespace
}  // namespace net

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  net::Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) net::BadFlag(flag + " needs a value");
      return argv[++i];
    };
    auto number = [&]() {
      double n;
      std::string v = value();
      if (!absl::SimpleAtod(v, &n) || n < 0)
        net::BadFlag(flag + " needs a non-negative number");
      return n;
    };
    if (flag == "--help" || flag == "-h") {
      std::cout << net::kUsage;
      return 0;
    } else if (flag == "--seconds") {
      o.seconds = number();
    } else if (flag == "--warmup") {
      o.warmup = number();
    } else if (flag == "--rounds") {
      o.rounds = static_cast<int>(number());
    } else if (flag == "--connections") {
      o.connections = static_cast<int>(number());
    } else if (flag == "--clients") {
      o.clients = static_cast<int>(number());
    } else if (flag == "--response-size") {
      o.response_size = static_cast<int64_t>(number());
    } else if (flag == "--rows") {
      o.rows = absl::StrSplit(value(), ',', absl::SkipEmpty());
    } else if (flag == "--cert-chain") {
      o.cert_chain = value();
    } else if (flag == "--key") {
      o.key = value();
    } else if (flag == "--trust-anchor") {
      o.trust_anchor = value();
    } else if (flag == "--out") {
      o.out_dir = value();
    } else if (flag == "--check") {
      o.check = true;
    } else {
      net::BadFlag("unknown flag '" + flag + "'");
    }
  }
  if (o.seconds <= 0 || o.rounds < 1 || o.connections < 1 || o.clients < 2 ||
      o.rows.empty()) {
    net::BadFlag(
        "--seconds, --rounds, --connections, --rows must be positive, "
        "--clients >= 2");
  }
  return net::Main(o);
}
