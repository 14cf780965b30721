// obc_load: an open-loop TLS load generator for the server-side cost of
// origin-bound certificates (tools/experiments/obc_server_cost.py, Dietz et
// al. Figures 9-14).
//
//   obc_load --connect 127.0.0.1:PORT --server-pid PID --obc ecdsa
//            [--rate 300] [--seconds 60] [--warmup 3] [--tls 1.2]
//
// Starts --rate transactions per second on schedule (open loop: a slow
// server does not slow the offered load down), each a new TCP connection, a
// TLS handshake with our own stack (SSLClientSocket over BoringSSL) and
// "GET PATH" with "Connection: close", read to the end. One transaction in
// --full-every makes a full handshake (the client offers no session); the
// others resume the session their simulated client (one of --clients, each
// with its own session cache, taken in turn) got before. With --obc ALG
// every client presents an origin-bound certificate of that algorithm when
// the server asks (in full handshakes; a resumed session carries it): keys
// and self-signed certificates are made before the load starts
// (--distinct-keys of them, shared round-robin by the clients), so the
// client's only per-handshake OBC cost is its signature.
//
// Over the measured window (after --warmup) it reads the server's CPU time
// from /proc/PID/stat, and after it the server's peak RSS (VmHWM) and RSS
// from /proc/PID/status, and prints one JSON object: counts, the server's
// CPU, memory, the latency of each transaction (connect to last byte: p50,
// p90, p99, mean, max; full and resumed apart) and a latency histogram
// (4 buckets per power of two of microseconds).

#include <openssl/evp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/obc_crypto.h"
#include "net/base/event_loop.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/base/tick_clock.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_client_socket.h"
#include "tools/experiments/tls_transaction.h"

namespace net {
namespace {

constexpr char kUsage[] = R"(usage: obc_load --connect ADDR:PORT [flags]
  --connect ADDR:PORT  the server (a testserver with --request-client-cert)
  --host NAME          SNI and verification name (default www.example.test)
  --trust-anchor PEM   root for the server's chain (default cert/testdata/good_root.pem)
  --obc ALG            none (default), ecdsa, rsa1024, rsa2048 or ed25519
  --rate TPS           transactions started per second, on schedule (default 300)
  --seconds S          measured time (default 60)
  --warmup S           unmeasured time before it, same load (default 3)
  --full-every N       one transaction in N is a full handshake (default 5: 20%)
  --clients N          simulated clients, each with its own session cache,
                       taken in turn (default 64)
  --distinct-keys N    OBC key pairs made before the load, shared by the clients
                       round-robin (default 16)
  --max-in-flight N    transactions at once at most; a due start waits beyond it
                       (counted as late) (default 256)
  --tls 1.2|1.3        the one TLS version offered (default 1.2)
  --path PATH          request path (default /size/1024)
  --server-pid PID     read the server's CPU (/proc/PID/stat) over the window
                       and its VmHWM/VmRSS (/proc/PID/status) after it
  --json FILE          write the JSON there too (default: stdout only)
Exit codes: 0 done (failed transactions are counted, not fatal), 1 setup
failure, 2 bad flags.
)";

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "obc_load: " << message << "\n" << kUsage;
  std::exit(2);
}

struct Options {
  std::optional<IPEndPoint> server;
  std::string host = "www.example.test";
  std::string trust_anchor = "cert/testdata/good_root.pem";
  std::optional<KeyAlgorithm> obc;
  double rate = 300;
  double seconds = 60;
  double warmup = 3;
  int full_every = 5;
  int clients = 64;
  int distinct_keys = 16;
  int max_in_flight = 256;
  uint16_t tls = TLS1_2_VERSION;
  std::string path = "/size/1024";
  int server_pid = 0;
  std::string json_file;
};

// User + system CPU seconds of |pid| (all its threads), or -1.
double ProcessCpuSeconds(int pid) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(f)),
                   std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::vector<std::string> fields =
      absl::StrSplit(text.substr(paren + 1), ' ', absl::SkipEmpty());
  int64_t utime, stime;
  // After the command: state is field 0, utime 11, stime 12 (proc(5)).
  if (fields.size() < 13 || !absl::SimpleAtoi(fields[11], &utime) ||
      !absl::SimpleAtoi(fields[12], &stime)) {
    return -1;
  }
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

// A "Name:   N kB" line of /proc/PID/status in kB, or -1.
int64_t ProcessStatusKb(int pid, const std::string& name) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(f, line)) {
    if (!absl::StartsWith(line, name + ":")) continue;
    std::vector<std::string> parts =
        absl::StrSplit(line.substr(name.size() + 1), absl::ByAnyChar(" \t"),
                       absl::SkipEmpty());
    int64_t kb;
    if (!parts.empty() && absl::SimpleAtoi(parts[0], &kb)) return kb;
  }
  return -1;
}

double SelfCpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Presents one fixed certificate and key, synchronously.
class FixedClientCertProvider : public ClientCertProvider {
 public:
  explicit FixedClientCertProvider(const ObcKeyMaterial& material)
      : cert_der_(material.cert_der), algorithm_(material.algorithm) {
    EVP_PKEY_up_ref(material.key.get());
    key_.reset(material.key.get());
  }

  int GetClientCert(const Origin& origin, ClientCert* cert,
                    CompletionOnceCallback callback,
                    std::unique_ptr<Request>* out_request) override {
    cert->cert_der = cert_der_;
    EVP_PKEY_up_ref(key_.get());
    cert->key.reset(key_.get());
    cert->facts.source = ObcSource::kCachedCert;
    cert->facts.algorithm = algorithm_;
    return OK;
  }

 private:
  const std::string cert_der_;
  const KeyAlgorithm algorithm_;
  bssl::UniquePtr<EVP_PKEY> key_;
};

// The latencies of one kind of transaction.
struct Latencies {
  std::vector<double> us;
  // Bucket b holds [2^(b/4), 2^((b+1)/4)) microseconds.
  std::map<int, int64_t> histogram;

  void Add(double micros) {
    us.push_back(micros);
    int b =
        micros < 1 ? 0 : static_cast<int>(std::floor(4 * std::log2(micros)));
    ++histogram[b];
  }
  double Percentile(double p) const {
    if (us.empty()) return 0;
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(std::ceil(p / 100 * v.size()));
    return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
  }
  double Mean() const {
    double sum = 0;
    for (double x : us) sum += x;
    return us.empty() ? 0 : sum / us.size();
  }
  double Max() const {
    return us.empty() ? 0 : *std::max_element(us.begin(), us.end());
  }
};

class Load;

// One transaction of a simulated client: a TlsTransaction, timed from the
// TCP connect to the last byte.
class Transaction {
 public:
  Transaction(Load* load, int client, bool full)
      : load_(load), client_(client), full_(full) {}
  void Start();

 private:
  void Done(const TlsTransaction::Outcome& outcome);

  Load* const load_;
  const int client_;
  const bool full_;
  TimeTicks start_;
  TlsTransaction transaction_;
};

struct Result {
  int64_t started = 0, completed = 0, full = 0, resumed = 0, errors = 0;
  int64_t resumed_wanted_but_full = 0, obc_seen = 0, obc_missing = 0;
  int64_t late = 0;  // started more than 10 ms after their scheduled time
  std::string first_error;
  Latencies all, full_lat, resumed_lat;
};

class Load {
 public:
  Load(const Options& o, CertVerifier* verifier,
       std::vector<std::unique_ptr<FixedClientCertProvider>>* providers)
      : o_(o) {
    for (int i = 0; i < o.clients; ++i) {
      Client c;
      c.context = std::make_unique<SSLClientContext>(verifier);
      c.resume.version_min = c.resume.version_max = o.tls;
      c.resume.coalesce_handshakes = false;
      if (!providers->empty()) {
        c.resume.client_cert_provider =
            (*providers)[i % providers->size()].get();
      }
      c.full = c.resume;
      c.full.session_resumption_enabled = false;
      clients_.push_back(std::move(c));
    }
    request_ = absl::StrCat("GET ", o.path, " HTTP/1.1\r\nHost: ", o.host,
                            "\r\nConnection: close\r\n\r\n");
  }

  // Runs warm-up plus the measured window; returns the window's result.
  Result Run() {
    start_ = TimeTicks::Now();
    measuring_ = o_.warmup <= 0;
    if (measuring_) BeginWindow();
    Tick();
    EventLoop::Current()->Run();
    return window_;
  }

  double window_seconds() const {
    return absl::ToDoubleSeconds(window_end_ - window_start_);
  }
  double server_cpu_s() const { return server_cpu1_ - server_cpu0_; }
  double client_cpu_s() const { return client_cpu1_ - client_cpu0_; }
  int max_in_flight_seen() const { return max_in_flight_seen_; }

  // For transactions.
  const IPEndPoint& server() const { return *o_.server; }
  const std::string& host() const { return o_.host; }
  const std::string& request() const { return request_; }
  SSLClientContext* context(int client) {
    return clients_[client].context.get();
  }
  const SSLConfig& config(int client, bool full) const {
    return full ? clients_[client].full : clients_[client].resume;
  }
  bool expect_obc() const { return o_.obc.has_value(); }

  void OnDone(Transaction* t, bool ok, bool full, bool resumed, bool obc_seen,
              TimeTicks started, const std::string& error) {
    --in_flight_;
    if (measuring_) {
      Result& r = window_;
      if (ok) {
        ++r.completed;
        double us = absl::ToDoubleMicroseconds(TimeTicks::Now() - started);
        r.all.Add(us);
        if (resumed) {
          ++r.resumed;
          r.resumed_lat.Add(us);
        } else {
          ++r.full;
          r.full_lat.Add(us);
          if (!full) ++r.resumed_wanted_but_full;
        }
        (obc_seen ? r.obc_seen : r.obc_missing) += 1;
      } else {
        ++r.errors;
        if (r.first_error.empty()) r.first_error = error;
      }
    }
    // Destroy it from a fresh stack: this may run inside its callbacks.
    EventLoop::Current()->PostTask([this, t] {
      live_.erase(t);
      if (stopping_ && in_flight_ == 0) EventLoop::Current()->Quit();
      StartDue();
    });
  }

 private:
  struct Client {
    std::unique_ptr<SSLClientContext> context;
    SSLConfig resume, full;
  };

  void BeginWindow() {
    measuring_ = true;
    window_ = Result();
    window_start_ = TimeTicks::Now();
    server_cpu0_ = o_.server_pid ? ProcessCpuSeconds(o_.server_pid) : 0;
    client_cpu0_ = SelfCpuSeconds();
  }

  void EndWindow() {
    window_end_ = TimeTicks::Now();
    server_cpu1_ = o_.server_pid ? ProcessCpuSeconds(o_.server_pid) : 0;
    client_cpu1_ = SelfCpuSeconds();
    // Transactions still in flight finish, but no longer count.
    measuring_ = false;
    stopping_ = true;
    if (in_flight_ == 0) EventLoop::Current()->Quit();
    // Give up on stragglers after 10 s.
    EventLoop::Current()->PostDelayedTask(absl::Seconds(10),
                                          [] { EventLoop::Current()->Quit(); });
  }

  // Starts what the schedule says is due, every millisecond.
  void Tick() {
    double elapsed = absl::ToDoubleSeconds(TimeTicks::Now() - start_);
    if (!measuring_ && !stopping_ && elapsed >= o_.warmup) BeginWindow();
    if (measuring_ && elapsed >= o_.warmup + o_.seconds) {
      EndWindow();
      return;
    }
    StartDue();
    EventLoop::Current()->PostDelayedTask(absl::Milliseconds(1),
                                          [this] { Tick(); });
  }

  void StartDue() {
    if (stopping_) return;
    double elapsed = absl::ToDoubleSeconds(TimeTicks::Now() - start_);
    int64_t due = static_cast<int64_t>(elapsed * o_.rate) + 1;
    while (scheduled_ < due && in_flight_ < o_.max_in_flight) {
      double on_time = scheduled_ / o_.rate;
      if (measuring_ && elapsed - on_time > 0.010) ++window_.late;
      int64_t n = scheduled_++;
      bool full = n % o_.full_every == 0;
      int client = static_cast<int>(n % o_.clients);
      auto t = std::make_unique<Transaction>(this, client, full);
      Transaction* raw = t.get();
      live_[raw] = std::move(t);
      ++in_flight_;
      max_in_flight_seen_ = std::max(max_in_flight_seen_, in_flight_);
      if (measuring_) ++window_.started;
      raw->Start();
    }
  }

  const Options& o_;
  std::vector<Client> clients_;
  std::string request_;
  std::map<Transaction*, std::unique_ptr<Transaction>> live_;
  TimeTicks start_, window_start_, window_end_;
  bool measuring_ = false, stopping_ = false;
  int64_t scheduled_ = 0;
  int in_flight_ = 0, max_in_flight_seen_ = 0;
  double server_cpu0_ = 0, server_cpu1_ = 0, client_cpu0_ = 0, client_cpu1_ = 0;
  Result window_;
};

void Transaction::Start() {
  start_ = TimeTicks::Now();
  TlsTransaction::Params params;
  params.server = load_->server();
  params.host = load_->host();
  params.config = &load_->config(client_, full_);
  params.context = load_->context(client_);
  params.request = [load = load_] { return load->request(); };
  params.is_good = [](const std::string& response) {
    return absl::StartsWith(response, "HTTP/1.1 200") &&
           response.find("\r\n\r\n") != std::string::npos;
  };
  transaction_.Start(std::move(params),
                     [this](const TlsTransaction::Outcome& o) { Done(o); });
}

void Transaction::Done(const TlsTransaction::Outcome& outcome) {
  const std::string& response = outcome.response;
  size_t head_end = response.find("\r\n\r\n");
  bool obc_seen =
      head_end != std::string::npos &&
      response.substr(0, head_end).find("\r\nX-OBC-SPKI-SHA256: ") !=
          std::string::npos;
  load_->OnDone(this, outcome.rv == OK, full_, outcome.resumed, obc_seen,
                start_, outcome.error);
}

std::string LatencyJson(const Latencies& l) {
  return absl::StrFormat(
      "{\"n\":%d,\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%."
      "1f,\"max_us\":%.1f}",
      l.us.size(), l.Percentile(50), l.Percentile(90), l.Percentile(99),
      l.Mean(), l.Max());
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

int Main(const Options& o) {
  auto verifier = BasicCertVerifier::Create({o.trust_anchor}, false);
  if (!verifier.ok()) {
    std::cerr << "obc_load: " << verifier.status().message() << "\n";
    return 1;
  }
  // The OBCs, made before the load (on both cores).
  std::vector<std::unique_ptr<FixedClientCertProvider>> providers;
  double keygen_s = 0;
  if (o.obc) {
    TimeTicks t0 = TimeTicks::Now();
    int n = std::max(1, std::min(o.distinct_keys, o.clients));
    std::vector<absl::StatusOr<ObcKeyMaterial>> made(n);
    std::vector<std::thread> threads;
    const int workers = 2;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        for (int i = w; i < n; i += workers)
          made[i] = MakeKeyMaterial(*o.obc, absl::Now());
      });
    }
    for (auto& t : threads) t.join();
    for (auto& m : made) {
      if (!m.ok()) {
        std::cerr << "obc_load: making an OBC: " << m.status().message()
                  << "\n";
        return 1;
      }
      providers.push_back(std::make_unique<FixedClientCertProvider>(*m));
    }
    keygen_s = absl::ToDoubleSeconds(TimeTicks::Now() - t0);
  }

  EventLoop loop;
  Load load(o, verifier->get(), &providers);
  Result r = load.Run();
  const double secs = load.window_seconds();
  int64_t hwm = o.server_pid ? ProcessStatusKb(o.server_pid, "VmHWM") : -1;
  int64_t rss = o.server_pid ? ProcessStatusKb(o.server_pid, "VmRSS") : -1;

  std::string histogram;
  std::map<int, std::pair<int64_t, int64_t>> buckets;
  for (const auto& [b, n] : r.full_lat.histogram) buckets[b].first = n;
  for (const auto& [b, n] : r.resumed_lat.histogram) buckets[b].second = n;
  for (const auto& [b, n] : buckets) {
    absl::StrAppend(
        &histogram, histogram.empty() ? "" : ",",
        absl::StrFormat("[%.1f,%.1f,%d,%d]", std::exp2(b / 4.0),
                        std::exp2((b + 1) / 4.0), n.first, n.second));
  }
  std::string json = absl::StrFormat(
      "{\"obc\":\"%s\",\"tls\":\"%s\",\"rate\":%.1f,\"full_every\":%d,"
      "\"clients\":%d,\"distinct_keys\":%d,\"keygen_s\":%.3f,"
      "\"seconds\":%.3f,\"started\":%d,\"completed\":%d,\"tps\":%.1f,"
      "\"full\":%d,\"resumed\":%d,\"resumed_fraction\":%.4f,"
      "\"resumed_wanted_but_full\":%d,\"errors\":%d,\"first_error\":\"%s\","
      "\"obc_seen\":%d,\"obc_missing\":%d,\"late\":%d,\"max_in_flight\":%d,"
      "\"server_pid\":%d,\"server_cpu_s\":%.3f,\"server_cpu_share\":%.4f,"
      "\"server_cpu_us_per_tx\":%.1f,\"server_vmhwm_kb\":%d,"
      "\"server_vmrss_kb\":%d,\"client_cpu_s\":%.3f,"
      "\"latency\":{\"all\":%s,\"full\":%s,\"resumed\":%s},"
      "\"histogram_columns\":[\"lo_us\",\"hi_us\",\"full\",\"resumed\"],"
      "\"histogram\":[%s]}",
      o.obc ? KeyAlgorithmToString(*o.obc) : "none",
      o.tls == TLS1_3_VERSION ? "1.3" : "1.2", o.rate, o.full_every, o.clients,
      o.obc ? std::max(1, std::min(o.distinct_keys, o.clients)) : 0, keygen_s,
      secs, r.started, r.completed, secs > 0 ? r.completed / secs : 0, r.full,
      r.resumed, r.completed ? double(r.resumed) / r.completed : 0,
      r.resumed_wanted_but_full, r.errors, JsonEscape(r.first_error),
      r.obc_seen, r.obc_missing, r.late, load.max_in_flight_seen(),
      o.server_pid, load.server_cpu_s(),
      secs > 0 ? load.server_cpu_s() / secs : 0,
      r.completed ? 1e6 * load.server_cpu_s() / r.completed : 0, hwm, rss,
      load.client_cpu_s(), LatencyJson(r.all), LatencyJson(r.full_lat),
      LatencyJson(r.resumed_lat), histogram);
  std::cout << json << "\n";
  if (!o.json_file.empty()) {
    std::ofstream out(o.json_file, std::ios::trunc);
    out << json << "\n";
    out.close();
    if (!out) {
      std::cerr << "obc_load: cannot write " << o.json_file << "\n";
      return 1;
    }
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
      if (!absl::SimpleAtod(v, &n) || !(n >= 0))
        net::BadFlag(flag + " needs a non-negative number");
      return n;
    };
    if (flag == "--help" || flag == "-h") {
      std::cout << net::kUsage;
      return 0;
    } else if (flag == "--connect") {
      auto ep = net::IPEndPoint::Parse(value());
      if (!ep.ok()) net::BadFlag(std::string(ep.status().message()));
      o.server = *ep;
    } else if (flag == "--host") {
      o.host = value();
    } else if (flag == "--trust-anchor") {
      o.trust_anchor = value();
    } else if (flag == "--obc") {
      std::string v = value();
      if (v != "none") {
        o.obc = net::ParseKeyAlgorithm(v);
        if (!o.obc) net::BadFlag("--obc: unknown algorithm '" + v + "'");
      }
    } else if (flag == "--rate") {
      o.rate = number();
    } else if (flag == "--seconds") {
      o.seconds = number();
    } else if (flag == "--warmup") {
      o.warmup = number();
    } else if (flag == "--full-every") {
      o.full_every = static_cast<int>(number());
    } else if (flag == "--clients") {
      o.clients = static_cast<int>(number());
    } else if (flag == "--distinct-keys") {
      o.distinct_keys = static_cast<int>(number());
    } else if (flag == "--max-in-flight") {
      o.max_in_flight = static_cast<int>(number());
    } else if (flag == "--tls") {
      std::string v = value();
      if (v == "1.2") {
        o.tls = TLS1_2_VERSION;
      } else if (v == "1.3") {
        o.tls = TLS1_3_VERSION;
      } else {
        net::BadFlag("--tls must be 1.2 or 1.3");
      }
    } else if (flag == "--path") {
      o.path = value();
    } else if (flag == "--server-pid") {
      o.server_pid = static_cast<int>(number());
    } else if (flag == "--json") {
      o.json_file = value();
    } else {
      net::BadFlag("unknown flag '" + flag + "'");
    }
  }
  if (!o.server) net::BadFlag("--connect is required");
  if (!(o.rate > 0) || !(o.seconds > 0) || o.full_every < 1 || o.clients < 1 ||
      o.max_in_flight < 1) {
    net::BadFlag(
        "--rate, --seconds, --full-every, --clients, --max-in-flight must be "
        "positive");
  }
  return net::Main(o);
}
