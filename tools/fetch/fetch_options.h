// FetchOptions: the fetch tool's command line, parsed and validated, and the
// world file it can read (--world).

#ifndef TOOLS_FETCH_FETCH_OPTIONS_H_
#define TOOLS_FETCH_FETCH_OPTIONS_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/ip_endpoint.h"
#include "net/base/request_priority.h"
#include "net/socket/connect_to.h"

namespace net {

// The largest file -d/--data/--data-binary @FILE reads: a request body is
// held in memory.
inline constexpr size_t kMaxRequestBodyFileBytes = 256u << 20;

struct FetchOptions {
  std::vector<std::string> urls;
  // -o FILE per URL, in order (a URL without one writes to stdout, or with
  // -O to the last segment of its path).
  std::vector<std::string> output_files;
  bool remote_name = false;  // -O
  bool head = false;         // -I
  // -X METHOD; empty: GET (HEAD with -I, POST with -d).
  std::string method;
  // -d/--data (joined with '&', @FILE read without CR/LF) or --data-binary
  // (@FILE read as is): sent as the request body.
  std::optional<std::string> data;
  // -L/--location, --max-redirs (curl's default 50).
  bool follow_redirects = false;
  int max_redirs = 50;
  bool silent = false;      // -s: no progress meter, no error messages
  bool show_error = false;  // -S: error messages even with -s
  std::string write_out;    // -w FORMAT after each transfer
  // Compare mode: fetch --compare 'FLAGS A' 'FLAGS B' [--runs N] URL.
  std::vector<std::string> compare;  // the two flag strings
  int compare_runs = 10;
  std::string compare_out;          // --compare-out FILE.csv
  bool verbose = false;             // -v
  bool fail_on_http_error = false;  // --fail
  std::vector<std::pair<std::string, std::string>> headers;  // -H
  std::vector<ResolveOverride> resolve;                      // --resolve
  // --trust-anchor replaces the system store, as curl's --cacert does;
  // without it (or a world), the system store is used (SSL_CERT_FILE and
  // SSL_CERT_DIR honoured); --system-trust adds it back.
  std::vector<std::string> trust_anchors;
  bool system_trust_store = false;
  uint16_t tls_min = 0x0303;  // TLS 1.2
  uint16_t tls_max = 0x0304;  // TLS 1.3
  bool false_start = true;
  bool coalesce_handshakes = false;
  // --early-data: TLS 1.3 0-RTT for GET and HEAD on resumed sessions.
  bool early_data = false;
  bool tcp_fast_open = false;
  // --spdy: offer ALPN spdy/3 before http/1.1; requests share SPDY
  // sessions (one per origin, IP-pooled) and several URLs run at once.
  bool spdy = false;
  // --cert-compression: RFC 8879 algorithms offered, "brotli,zlib"-style
  // (validated), or "off".
  std::string cert_compression = "brotli,zlib";
  std::string ciphers;
  int repeat = 1;
  absl::Duration repeat_interval = absl::ZeroDuration();  // --repeat-interval
  int parallel = 1;
  // -Z/--concurrent: all URLs of a repetition start at once (--spdy too).
  bool concurrent = false;
  // --max-conns-per-host: HTTP/1.1 connections per origin (the session's
  // max_sockets_per_group); 0 = no limit.
  int max_conns_per_host = 6;
  std::string trace_json_file;  // "-" = stdout
  std::string trace_events_file;
  std::string har_file;        // --har: HAR 1.2 of every request
  std::string waterfall_file;  // --waterfall: an SVG picture of the run
  std::string world_file;
  // DNS: servers (ADDR:PORT) for the c-ares resolver; empty = the system
  // resolver. A world with a DNS server sets it (--no-world-dns keeps the
  // world's static --resolve entries instead).
  std::vector<std::string> dns_servers;
  bool use_world_dns = true;
  // --no-https-rr: do not ask for DNS HTTPS records (RFC 9460).
  bool https_records = true;
  bool edns = true;
  absl::Duration dns_timeout = absl::Seconds(2);
  std::vector<std::string> prefetch_hosts;  // --prefetch HOST[:PORT]
  // The port each prefetched host's bundle is fetched for: --prefetch
  // HOST:PORT, then the URLs' https ports, then the world's origins.
  std::map<std::string, uint16_t> prefetch_ports;
  // Certificate-bundle prefetching: --bundle-sources (empty = off), its
  // CDNs (--bundle-cdn, else the world's), --no-bundle-prevalidation.
  std::string bundle_sources;
  std::vector<std::string> bundle_cdns;
  bool bundle_prevalidation = true;
  // --preconnect: open and handshake a connection to each prefetched host.
  bool preconnect = false;
  bool prefetch_links = false;      // --prefetch-links
  std::string profile_dir;          // --profile
  bool private_profile = false;     // --private: nothing touches disk
  std::string revocation = "soft";  // --revocation off|soft|hard|filter
  // --revocation-filter FILE, --revocation-stash FILE (repeatable): a CRLite
  // filter and stashes installed in the profile; with --world and
  // --revocation filter the world's filter when none is named.
  std::string revocation_filter;
  std::vector<std::string> revocation_stashes;
  std::vector<std::string> prevalidate_hosts;  // --prevalidate HOST,...
  // --connect-to HOST1:PORT1:HOST2:PORT2, then the world's rules.
  std::vector<ConnectToRule> connect_to;
  // Origin-bound certificates: off, ecdsa, rsa1024, rsa2048; scope mode.
  std::string obc = "off";
  std::string obc_scope = "origin";
  bool obc_warm = false;  // --obc-warm: wait for a full key pool first
  // --obc-pool N: keys kept ready for the --obc algorithm; -1: the default
  // (4 ECDSA, 2 RSA); 0: every new scope waits for its key to be made.
  int obc_pool = -1;
  // Cookies: kept in <profile>/cookies.pb (memory only with --private or
  // without --profile); --no-cookies turns them off.
  bool cookies = true;
  // Device Bound Session Credentials (on unless --no-dbsc; needs cookies):
  // sessions kept in <profile>/device_bound_sessions.pb.
  bool dbsc = true;
  // --snap-start: https through net/snap_start's TLS 1.2 core; the server
  // information learned persists in <profile>/snap_start (memory only with
  // --private or without --profile).
  bool snap_start = false;
  // --snap-start-learn handshake: learn orbits in-band (every https
  // connection through the TLS 1.2 core) instead of by a truncated
  // handshake after the visit.
  bool snap_start_learn_in_handshake = false;
  // --snap-start-probe: a truncated handshake to each URL's server instead
  // of a fetch; prints what it learned as JSON.
  bool snap_start_probe = false;
  absl::Duration connect_timeout = absl::Seconds(10);
  absl::Duration max_time = absl::Seconds(60);
  // --max-filesize: the largest body accepted; -1 = no limit.
  int64_t max_filesize = -1;

  // curl's flags (tools/fetch/curl_flags.cc).
  bool include_headers = false;  // -i: the response head before the body
  bool insecure = false;         // -k: no certificate verification
  std::string user_agent;        // -A ("": the stack's)
  std::string user;              // -u USER:PASSWORD (Basic)
  // -b NAME=VALUE;...: sent as the Cookie header; -b FILE: cookies read
  // from a Netscape cookie file (or a file of Set-Cookie headers).
  std::vector<std::string> cookie_strings;
  std::vector<std::string> cookie_files;
  std::string cookie_jar_file;   // -c FILE: every cookie written at the end
  std::string dump_header_file;  // -D FILE: response heads (- = stdout)
  bool compressed = false;       // --compressed: Accept-Encoding, decoded
  // --retry N (curl's transient errors: a timeout, 408, 429, 500, 502,
  // 503, 504; with --retry-connrefused a refused connection too), waiting
  // --retry-delay (0: one second, doubling up to ten minutes, or the
  // response's Retry-After), within --retry-max-time (0: no limit).
  int retry = 0;
  absl::Duration retry_delay = absl::ZeroDuration();
  absl::Duration retry_max_time = absl::ZeroDuration();
  bool retry_connrefused = false;
  bool http1_1_only = false;  // --http1.1: ALPN offers http/1.1 only
  // --priority: every request's priority (HttpRequestInfo::priority).
  RequestPriority priority = HIGHEST;
  // --connect-wait always|known: HttpNetworkSessionParams::connect_wait.
  std::string connect_wait = "always";
  // --http3: https over HTTP/3 (QUIC), TCP if QUIC fails (curl's --http3);
  // --quic-idle-timeout: QUIC's max_idle_timeout.
  bool http3 = false;
  // --ech (curl's spelling): "true" (the default here, as in Chrome),
  // "false", "grease", "hard", or "ecl:" and the base64 of an ECHConfigList
  // (validated as base64 here, as a list by fetch_params).
  std::string ech = "true";
  // --no-ech-grease: no GREASE ECH extension without a configuration.
  bool ech_grease = true;
  bool h3_alt_svc = false;  // --h3-alt-svc: HTTP/3 where Alt-Svc offers h3
  bool h3_https_rr = false;  // --h3-https-rr: HTTP/3 where a DNS record does
  absl::Duration quic_idle_timeout = absl::Seconds(30);
  bool no_progress_meter = false;  // --no-progress-meter
  // -x/--proxy URL and --noproxy LIST (nullopt: not given; then the
  // environment's http_proxy, HTTPS_PROXY, ALL_PROXY, NO_PROXY, as curl).
  std::optional<std::string> proxy;
  std::optional<std::string> no_proxy;
};

// ParseFetchOptions parses argv (without argv[0]). A world file's trust
// anchors and resolve entries are merged in (explicit flags win). Errors
// say which flag is wrong.
[[nodiscard]] absl::StatusOr<FetchOptions> ParseFetchOptions(
    const std::vector<std::string>& args);

extern const char kFetchUsage[];

}  // namespace net

#endif  // TOOLS_FETCH_FETCH_OPTIONS_H_
