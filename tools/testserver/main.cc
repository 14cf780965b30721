// testserver: HTTP and HTTPS origin for tests, demos and experiments.
// See test_server.h for routes and `testserver --help` for flags.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "net/base/event_loop.h"
#include "net/session_cache/session_cache_config.h"
#include "net/snap_start/tls12_messages.h"
#include "net/ssl/cert_compression.h"
#include "tools/testserver/ech_keys.h"
#include "tools/testserver/test_server.h"

namespace {

constexpr char kUsage[] = R"(usage: testserver [flags]
  --listen ADDR:PORT        HTTPS listener (repeatable; port 0 = ephemeral)
  --http-listen ADDR:PORT   plain HTTP listener (repeatable)
  --tcp-fast-open cookie|no-cookie
                            TCP Fast Open on every listener: take SYN data from
                            clients with a cookie this server issued, or from
                            any client (a no-cookie listener issues no
                            cookies; the namespace's net.ipv4.tcp_fastopen
                            needs bit 2); the log says "tfo": true per
                            connection whose SYN data was taken
  --http-tcp-fast-open off|cookie|no-cookie
                            the same for the --http-listen listeners only
  --cert-chain PEM          certificate chain, leaf first (HTTPS)
  --key PEM                 private key (HTTPS)
  --tls-min 1.2|1.3         lowest TLS version (default 1.2)
  --tls-max 1.2|1.3         highest TLS version (default 1.3)
  --ciphers LIST            OpenSSL-syntax TLS 1.2 cipher list
  --alpn LIST               comma-separated ALPN protocols (default http/1.1; "none" disables)
  --no-tickets              no session tickets (TLS 1.2 and 1.3)
  --tickets                 session tickets even with an external --session-cache
  --session-cache SPEC      the session-ID cache (TLS 1.2): builtin (BoringSSL's, the
                            default), none, or an external net/session_cache
                            POLICY:N[,WAYS] with POLICY fifo, lru, rr, pred or opt
                            (e.g. pred:1000, lru:1024,4). An external cache turns
                            tickets off (they would bypass it) unless --tickets.
                            Clients announce their next connect with the request
                            header X-Next-Connect: SECONDS (PRED uses it)
  --session-cache-shards N  lock shards of an external cache (default 1)
  --session-cache-grace SEC PRED's grace period (default 2)
  --no-session-cache        same as --session-cache none
  --tls13-tickets N         tickets sent per TLS 1.3 handshake (default 4)
  --early-data              TLS 1.3 0-RTT: tickets allow early data and resumptions accept
                            it, with a replay defence: a strike register of the tickets
                            that carried early data in the last 125 s (BoringSSL refuses
                            0-RTT from older ClientHellos by ticket age); a ticket offered
                            again gets its 0-RTT rejected (the connection resumes in
                            1-RTT). Log lines: early_data, early_data_reason; requests
                            read as early data have "early_data":true
  --early-data-reject       tickets allow early data but every attempt is rejected (tests
                            clients' 1-RTT retry)
  --cert-compression LIST   compress the Certificate message (RFC 8879, TLS 1.3) with the
                            first of LIST (zlib, brotli, or both in preference order) the
                            client offers; the connection log line gives cert_compression
                            {algorithm, compressed_bytes, uncompressed_bytes}
  --docroot DIR             serve files from DIR
  --serve-file PATH=FILE    answer the request path PATH (exact) with FILE's bytes, before
                            the docroot (repeatable); FILE is read at each request
  --response-size N         generated body size when no docroot (default 1024)
  --delay-ms N              wait N ms before each response
  --request-client-cert     send a CertificateRequest (TLS 1.2 and 1.3) and accept any
                            client certificate, self-signed included, or none: origin-bound
                            certificates. The SPKI SHA-256 (hex) is the X-OBC-SPKI-SHA256
                            response header and obc_spki_sha256 in the log; /obc/login
                            issues a cookie bound to it, /obc/whoami checks it, and any
                            request whose obc_session cookie is bound to another OBC
                            gets 403
  --dbsc-cookie-lifetime SEC
                            Device Bound Session Credentials: the bound cookie's
                            lifetime (Max-Age, enforced by the server too; default
                            10). /dbsc/login asks for a session, /dbsc/register and
                            /dbsc/refresh verify ES256 proofs, /dbsc/protected wants
                            the cookie; log fields dbsc, dbsc_reason, dbsc_session,
                            dbsc_jti (dbsc_server.h)
  --dbsc-challenge-lifetime SEC
                            how long a DBSC challenge may be answered, once (default
                            60); a proof over an older one gets 403 and a new one
  --spdy                    offer ALPN spdy/3 (before the other --alpn protocols) and
                            serve SPDY/3 on connections that choose it: the routes
                            above over streams, CREDENTIAL frames verified (a bad
                            proof is a GOAWAY), /spdy/credentials, /spdy/upload,
                            /spdy/goaway, /spdy/rst/N (spdy_server_session.h)
  --spdy-require-credentials
                            SPDY requests whose origin has no credential (no
                            CREDENTIAL slot, not the TLS handshake's origin) get
                            RST_STREAM INVALID_CREDENTIALS
  --spdy-credential-slots N the client certificate vector size announced in SETTINGS
                            (default 8)
  --http2                   offer ALPN h2 (before the --alpn protocols, after spdy/3) and
                            serve HTTP/2 on connections that choose it (nghttp2): the
                            routes above over streams, plus POST/PUT /h2/upload,
                            /h2/goaway, /h2/rst/N (http2_server_session.h). SETTINGS
                            MAX_CONCURRENT_STREAMS 100, MAX_HEADER_LIST_SIZE 65536 (431
                            beyond), request bodies up to 64 MB (413 beyond). The
                            connection's log line is written when it ends, with
                            "alpn":"h2" and "streams":N. Off by default: clients offer
                            h2 first, so on it every client of this server speaks h2
  --no-http2                HTTP/2 off (the default; the last of --http2/--no-http2 wins)
  --h2-origin-frame ORIGIN[,ORIGIN...]
                            send an ORIGIN frame (RFC 8336) with these origins
                            (https://host[:port]) on stream 0 after SETTINGS (implies
                            --http2)
  --h2-misdirect HOST       answer 421 Misdirected Request to h2 requests whose :authority
                            is HOST, any port (repeatable; implies --http2)
  --h2-goaway-after N       GOAWAY NO_ERROR once a connection has received N streams;
                            later streams are refused (REFUSED_STREAM; implies --http2)
  --h2-max-concurrent-streams N
                            SETTINGS_MAX_CONCURRENT_STREAMS (default 100; implies --http2)
  --snap-start-orbit HEX    TLS Snap Start with this 8-byte orbit (16 hex digits):
                            ClientHellos carrying the extension go to net/snap_start
                            (TLS 1.2, static RSA, AES-128-GCM; needs an RSA key), all
                            others to BoringSSL untouched. /snap-start shows counters
  --snap-start-window-s N   accepted clock skew of a Snap Start random (default 10)
  --snap-start-state FILE   persist the strike register's high-water mark here, so no
                            random is accepted twice across restarts (without it, every
                            attempt recovers for one window after start-up)
  --snap-start-core-only    send every TLS connection to the Snap Start core (interop
                            tests of the TLS 1.2 core with any client)
  --handshake-timeout-s SEC a TLS handshake must finish this long after accept
                            (default 10; fractions allowed)
  --request-timeout-s SEC   a request's head must be complete this long after its
                            first byte (default 10): slowloris clients are dropped
  --idle-timeout-s SEC      close a connection after this long without a byte while
                            waiting for a request, or without progress writing a
                            response (default 60)
  --max-connections N       open connections at most; beyond it new connections are
                            closed at once with a "connection_limit" log line
                            (default: the descriptor limit, raised to its hard limit
                            at start, less 64)
  --ech-key FILE            Encrypted ClientHello (draft-13, X25519): decrypt inner
                            ClientHellos with the key in FILE (created, mode 0600,
                            when it does not exist), and hand its configuration out
                            as the retry configuration to clients whose one is
                            stale. The connection log line says ech_accepted,
                            sni_inner (the hidden name) and sni_outer
  --ech-public-name NAME    the configuration's public name (the outer ClientHello's
                            server_name; the certificate must cover it) for a new
                            key (default public.example.test)
  --ech-config-id N         the configuration's id for a new key (default 1)
  --ech-config-out FILE     write the ECHConfigList, base64 (a DNS HTTPS record's
                            ech=), to FILE
  --ech-config-only         write --ech-config-out and exit (a stale configuration
                            for a key the server does not hold)
  --log FILE                append JSON log lines to FILE
  --quiet                   no log lines on stderr
Prints "listening https|http ADDR:PORT" per listener, then "ready".
Stops on SIGINT or SIGTERM. Exit codes: 0 stopped, 1 start-up failure, 2 bad flags.
)";

int g_signal_pipe[2];

void OnSignal(int) { (void)!write(g_signal_pipe[1], "x", 1); }

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "testserver: " << message << "\n" << kUsage;
  std::exit(2);
}

// ValidOrigin: an ORIGIN frame entry, "http(s)://host[:port]" (RFC 6454's
// ASCII serialization): a scheme, a host of DNS characters (or [v6]), an
// optional port, no path.
bool ValidOrigin(absl::string_view origin) {
  size_t sep = origin.find("://");
  if (sep == absl::string_view::npos) return false;
  absl::string_view scheme = origin.substr(0, sep);
  if (scheme != "https" && scheme != "http") return false;
  absl::string_view rest = origin.substr(sep + 3);
  if (rest.empty()) return false;
  absl::string_view host = rest;
  absl::string_view port;
  if (rest[0] == '[') {
    size_t end = rest.find(']');
    if (end == absl::string_view::npos) return false;
    host = rest.substr(0, end + 1);
    if (end + 1 < rest.size()) {
      if (rest[end + 1] != ':') return false;
      port = rest.substr(end + 2);
    }
  } else if (size_t colon = rest.find(':'); colon != absl::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (port.empty()) return false;
  }
  if (host.empty()) return false;
  if (host[0] != '[') {
    for (char c : host) {
      if (!absl::ascii_isalnum(c) && c != '-' && c != '.') return false;
    }
  }
  int port_number = 0;
  if (!port.empty() && (!absl::SimpleAtoi(port, &port_number) ||
                        port_number < 1 || port_number > 65535))
    return false;
  return true;
}

uint16_t ParseVersion(const std::string& v) {
  if (v == "1.2") return TLS1_2_VERSION;
  if (v == "1.3") return TLS1_3_VERSION;
  BadFlag("TLS version must be 1.2 or 1.3, not '" + v + "'");
}

class SignalWatcher : public net::FdWatcher {
 public:
  explicit SignalWatcher(net::EventLoop* loop) : loop_(loop) {}
  void OnFdReadable(int fd) override { loop_->Quit(); }
  void OnFdWritable(int fd) override {}

 private:
  net::EventLoop* loop_;
};

}  // namespace

int main(int argc, char** argv) {
  net::TestServerConfig config;
  std::string session_cache_spec = "builtin";
  bool tickets_given = false;
  bool http_fast_open_given = false;
  size_t shards = 1;
  double grace_s = 2;
  // ECH (ech_keys.h).
  std::string ech_key_file, ech_config_out;
  bool ech_config_only = false;
  net::EchKeys::Options ech_options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) BadFlag(flag + " needs a value");
      return argv[++i];
    };
    auto endpoint = [&]() {
      std::string v = value();
      auto ep = net::IPEndPoint::Parse(v);
      if (!ep.ok()) BadFlag(std::string(ep.status().message()));
      return *ep;
    };
    auto seconds = [&]() {
      std::string v = value();
      double d;
      if (!absl::SimpleAtod(v, &d) || !(d > 0) || d > 86400)
        BadFlag(flag + " needs a positive number of seconds");
      return absl::Seconds(d);
    };
    auto number = [&]() {
      std::string v = value();
      int64_t n;
      if (!absl::SimpleAtoi(v, &n) || n < 0)
        BadFlag(flag + " needs a non-negative number");
      return n;
    };
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (flag == "--listen") {
      config.https_listen.push_back(endpoint());
    } else if (flag == "--http-listen") {
      config.http_listen.push_back(endpoint());
    } else if (flag == "--tcp-fast-open" || flag == "--http-tcp-fast-open") {
      using FastOpen = net::TestServerConfig::FastOpen;
      std::string v = value();
      FastOpen mode = FastOpen::kOff;
      if (v == "cookie") {
        mode = FastOpen::kCookie;
      } else if (v == "no-cookie") {
        mode = FastOpen::kNoCookie;
      } else if (v != "off" || flag == "--tcp-fast-open") {
        BadFlag(flag + " takes cookie or no-cookie" +
                (flag == "--tcp-fast-open" ? "" : " or off"));
      }
      if (flag == "--tcp-fast-open") {
        config.tcp_fast_open = mode;
        if (!http_fast_open_given) config.http_tcp_fast_open = mode;
      } else {
        http_fast_open_given = true;
        config.http_tcp_fast_open = mode;
      }
    } else if (flag == "--cert-chain") {
      config.ssl.cert_chain_file = value();
    } else if (flag == "--key") {
      config.ssl.key_file = value();
    } else if (flag == "--tls-min") {
      config.ssl.version_min = ParseVersion(value());
    } else if (flag == "--tls-max") {
      config.ssl.version_max = ParseVersion(value());
    } else if (flag == "--ciphers") {
      config.ssl.cipher_list = value();
    } else if (flag == "--alpn") {
      std::string v = value();
      config.ssl.alpn_protos.clear();
      if (v != "none")
        config.ssl.alpn_protos = absl::StrSplit(v, ',', absl::SkipEmpty());
    } else if (flag == "--snap-start-orbit") {
      auto orbit = net::OrbitFromHex(value());
      if (!orbit.ok())
        BadFlag("--snap-start-orbit: " + std::string(orbit.status().message()));
      if (!config.snap_start) config.snap_start.emplace();
      config.snap_start->orbit = *orbit;
    } else if (flag == "--snap-start-window-s") {
      int64_t n = number();
      if (n == 0) BadFlag("--snap-start-window-s must be positive");
      if (!config.snap_start) config.snap_start.emplace();
      config.snap_start->window = absl::Seconds(n);
    } else if (flag == "--snap-start-state") {
      if (!config.snap_start) config.snap_start.emplace();
      config.snap_start->strike_state_file = value();
    } else if (flag == "--snap-start-core-only") {
      config.snap_start_core_only = true;
    } else if (flag == "--no-tickets") {
      config.ssl.tickets = false;
      tickets_given = true;
    } else if (flag == "--tickets") {
      config.ssl.tickets = true;
      tickets_given = true;
    } else if (flag == "--session-cache") {
      session_cache_spec = value();
    } else if (flag == "--session-cache-shards") {
      shards = number();
      if (shards == 0) BadFlag("--session-cache-shards must be at least 1");
    } else if (flag == "--session-cache-grace") {
      std::string v = value();
      if (!absl::SimpleAtod(v, &grace_s) || grace_s < 0) {
        BadFlag("--session-cache-grace needs a non-negative number of seconds");
      }
    } else if (flag == "--no-session-cache") {
      session_cache_spec = "none";
    } else if (flag == "--tls13-tickets") {
      config.ssl.tls13_tickets = number();
    } else if (flag == "--early-data") {
      config.ssl.early_data = net::SSLServerConfig::EarlyData::kOn;
    } else if (flag == "--early-data-reject") {
      config.ssl.early_data = net::SSLServerConfig::EarlyData::kReject;
    } else if (flag == "--cert-compression") {
      auto algorithms = net::ParseCertCompressionList(value());
      if (!algorithms.ok())
        BadFlag("--cert-compression: " +
                std::string(algorithms.status().message()));
      config.ssl.cert_compression = *algorithms;
    } else if (flag == "--docroot") {
      config.docroot = value();
    } else if (flag == "--serve-file") {
      const std::string spec = value();
      const size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0 || spec[0] != '/' ||
          eq + 1 == spec.size())
        BadFlag("--serve-file wants /PATH=FILE");
      config.files[spec.substr(0, eq)] = spec.substr(eq + 1);
    } else if (flag == "--response-size") {
      config.response_size = number();
    } else if (flag == "--delay-ms") {
      config.delay = absl::Milliseconds(number());
    } else if (flag == "--handshake-timeout-s") {
      config.handshake_timeout = seconds();
    } else if (flag == "--request-timeout-s") {
      config.request_timeout = seconds();
    } else if (flag == "--idle-timeout-s") {
      config.idle_timeout = seconds();
    } else if (flag == "--max-connections") {
      int64_t n = number();
      if (n < 1 || n > (int64_t{1} << 20))
        BadFlag("--max-connections must be between 1 and 1048576");
      config.max_connections = static_cast<int>(n);
    } else if (flag == "--log") {
      config.log_file = value();
    } else if (flag == "--quiet") {
      config.quiet = true;
    } else if (flag == "--request-client-cert") {
      config.request_client_cert = true;
    } else if (flag == "--dbsc-cookie-lifetime") {
      config.dbsc.cookie_lifetime = seconds();
      if (config.dbsc.cookie_lifetime < absl::Seconds(1))
        BadFlag("--dbsc-cookie-lifetime must be at least 1 second");
    } else if (flag == "--dbsc-challenge-lifetime") {
      config.dbsc.challenge_lifetime = seconds();
    } else if (flag == "--http2") {
      if (!config.http2) config.http2.emplace();
    } else if (flag == "--no-http2") {
      config.http2.reset();
    } else if (flag == "--h2-origin-frame") {
      if (!config.http2) config.http2.emplace();
      for (absl::string_view origin :
           absl::StrSplit(value(), ',', absl::SkipEmpty())) {
        if (!ValidOrigin(origin))
          BadFlag("--h2-origin-frame: '" + std::string(origin) +
                  "' is not an origin (https://host[:port])");
        config.http2->origin_frame.emplace_back(origin);
      }
      if (config.http2->origin_frame.empty())
        BadFlag("--h2-origin-frame needs at least one origin");
    } else if (flag == "--h2-misdirect") {
      std::string host = value();
      if (host.empty() || host.find_first_of(":/ ") != std::string::npos)
        BadFlag("--h2-misdirect takes a host name, without port or scheme");
      if (!config.http2) config.http2.emplace();
      config.http2->misdirect_hosts.push_back(host);
    } else if (flag == "--h2-goaway-after") {
      int64_t n = number();
      if (n < 1 || n > (int64_t{1} << 30))
        BadFlag("--h2-goaway-after must be between 1 and 2^30");
      if (!config.http2) config.http2.emplace();
      config.http2->goaway_after = static_cast<uint32_t>(n);
    } else if (flag == "--h2-max-concurrent-streams") {
      int64_t n = number();
      if (n < 1 || n > 0x7fffffff)
        BadFlag("--h2-max-concurrent-streams must be between 1 and 2^31-1");
      if (!config.http2) config.http2.emplace();
      config.http2->max_concurrent_streams = static_cast<uint32_t>(n);
    } else if (flag == "--spdy") {
      if (!config.spdy) config.spdy.emplace();
    } else if (flag == "--spdy-require-credentials") {
      if (!config.spdy) config.spdy.emplace();
      config.spdy->require_credentials = true;
    } else if (flag == "--spdy-credential-slots") {
      int64_t n = number();
      if (n > 255) BadFlag("--spdy-credential-slots must be at most 255");
      if (!config.spdy) config.spdy.emplace();
      config.spdy->credential_slots = static_cast<uint32_t>(n);
    } else if (flag == "--ech-key") {
      ech_key_file = value();
    } else if (flag == "--ech-public-name") {
      ech_options.public_name = value();
    } else if (flag == "--ech-config-id") {
      int64_t n = number();
      if (n > 255) BadFlag("--ech-config-id must be at most 255");
      ech_options.config_id = static_cast<uint8_t>(n);
    } else if (flag == "--ech-config-out") {
      ech_config_out = value();
    } else if (flag == "--ech-config-only") {
      ech_config_only = true;
    } else {
      BadFlag("unknown flag '" + flag + "'");
    }
  }
  if (ech_key_file.empty() && (ech_config_only || !ech_config_out.empty()))
    BadFlag("--ech-config-out and --ech-config-only need --ech-key");
  if (!ech_key_file.empty()) {
    auto keys = net::EchKeys::LoadOrCreate(ech_key_file, ech_options);
    absl::Status written = keys.ok() && !ech_config_out.empty()
                               ? (*keys)->WriteConfigList(ech_config_out)
                               : keys.status();
    if (!written.ok()) {
      std::cerr << "testserver: " << written.message() << "\n";
      return 1;
    }
    if (ech_config_only) return 0;
    config.ech = *keys;
  }
  if (config.snap_start_core_only && !config.snap_start)
    config.snap_start.emplace();  // the core without an orbit: plain TLS 1.2
  if (config.https_listen.empty() && config.http_listen.empty())
    BadFlag("give at least one --listen or --http-listen");
  if (!config.https_listen.empty() &&
      (config.ssl.cert_chain_file.empty() || config.ssl.key_file.empty()))
    BadFlag("--listen (HTTPS) needs --cert-chain and --key");
  if (config.ssl.version_min > config.ssl.version_max)
    BadFlag("--tls-min is above --tls-max");
  if (session_cache_spec == "builtin") {
    config.ssl.session_cache = true;
  } else if (session_cache_spec == "none") {
    config.ssl.session_cache = false;
  } else {
    auto cache = net::ParseSessionCacheSpec(session_cache_spec);
    if (!cache.ok()) BadFlag(std::string(cache.status().message()));
    cache->shards = shards;
    cache->grace = absl::Seconds(grace_s);
    config.ssl.external_session_cache = *cache;
    if (!tickets_given) config.ssl.tickets = false;
  }

  signal(SIGPIPE, SIG_IGN);
  // Every connection is a descriptor: take all the system allows (the
  // connection limit is derived from it, see test_server.h).
  net::RaiseDescriptorLimit();
  net::EventLoop loop;
  net::TestServer server(config);
  absl::Status status = server.Start();
  if (!status.ok()) {
    std::cerr << "testserver: " << status.message() << "\n";
    return 1;
  }
  for (const auto& [scheme, address] : server.bound()) {
    std::cout << "listening " << scheme << " " << address.ToString() << "\n";
  }
  std::cout << "ready" << std::endl;

  if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 1;
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  SignalWatcher watcher(&loop);
  net::FdWatchController controller;
  controller.Watch(&loop, g_signal_pipe[0], true, false, &watcher);
  loop.Run();
  return 0;
}
