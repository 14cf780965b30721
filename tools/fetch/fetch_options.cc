#include "tools/fetch/fetch_options.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cert/x509_util.h"
#include "tools/fetch/curl_flags.h"
#include "tools/fetch/world_client.h"

namespace net {

const char kFetchUsage[] =
    R"(usage: fetch [flags] URL...      (a URL without a scheme is http://, as curl)
       fetch --version
       fetch --compare 'FLAGS A' 'FLAGS B' [--runs N] [--compare-out FILE.csv] [flags] URL
A curl-like client for the netstack networking stack. Defaults in [brackets].

Output
  -o, --output FILE       write the body of the next URL to FILE (one -o per URL, as curl)
                          [stdout]
  -O, --remote-name       write each URL without -o to the last segment of its path
  -I, --head              HEAD request; print the response headers
  -s, --silent            no progress meter, no error messages (the exit code stays)
  -S, --show-error        with -s, still print error messages
  -v, --verbose           connection, TLS, prefetch and header details and the trace on
                          stderr
  -w, --write-out FORMAT  print FORMAT after each transfer: curl's %{http_code}
                          %{time_namelookup} %{time_connect} %{time_appconnect}
                          %{time_pretransfer} %{time_starttransfer} %{time_total}
                          %{time_redirect} %{size_download} %{num_connects}
                          %{num_redirects} %{url_effective} %{redirect_url} %{remote_ip}
                          %{ssl_verify_result} %{json}, and this stack's %{snap_start}
                          %{cert_source} %{cert_bundle_source} %{revocation_source}
                          %{obc_source} %{tls_version} %{early_data} %{tcp_fast_open}
                          %{cert_compression}; \n and \t escapes
  -f, --fail              exit 22 on an HTTP status >= 400, writing no body
  -i, --include           write the response head(s) before the body
  -D, --dump-header FILE  write the response head(s) to FILE (- = stdout)
  --no-progress-meter     no progress bar (shown on a terminal's stderr for bodies that
                          take over a second, unless -s)
  --trace-json FILE       one Resource Timing JSON object per request (- = stdout)
  --trace-events FILE     Chrome trace-event JSON (open in Perfetto)
  --har FILE              HAR 1.2 of every request (redirect hops included): timings that
                          add up, serverIPAddress, connection, and this stack's facts as
                          _-prefixed fields (_dnsSource, _certSource, _certBundle,
                          _revocation, _snapStart, _obc, _tls)
  --waterfall FILE.svg    a waterfall picture: one row per request in devtools' colours,
                          prefetch and prevalidation jobs on rows of their own

Request
  -X, --request METHOD    the request method [GET; HEAD with -I; POST with -d]
  -d, --data DATA         send DATA as the body (application/x-www-form-urlencoded);
                          repeated -d are joined with '&'; @FILE reads FILE without
                          CR/LF
  --data-binary DATA      as -d, but @FILE is sent as it is
  -A, --user-agent NAME   the User-Agent header
  -u, --user USER:PASS    HTTP Basic authentication (not sent to another host on a
                          redirect)
  -b, --cookie DATA|FILE  NAME=VALUE[; ...] sent as the Cookie header, or cookies read
                          from a Netscape cookie file (as curl writes them)
  -c, --cookie-jar FILE   write every cookie to FILE at the end (Netscape format)
  --compressed            ask for gzip, deflate and br and decode the body
  --retry N               retry a transient failure (a timeout; HTTP 408, 429, 500, 502,
                          503, 504) up to N times, waiting 1 s doubling to 10 min or
                          the response's Retry-After [0]
  --retry-delay SEC       wait SEC between retries instead
  --retry-max-time SEC    retry only within SEC of the first attempt [no limit]
  --retry-connrefused     retry a refused connection too
  -H 'Name: value'        extra request header (repeatable)
  -L, --location          follow 301/302/303/307/308 (a POST becomes a GET on 301-303;
                          307/308 keep method and body); one trace entry per hop
  --max-redirs N          at most N redirects with -L (exit 47 beyond) [50]
  --max-filesize BYTES    refuse a body larger than BYTES (exit 63): at once when
                          Content-Length says so, else when the body grows past it.
                          Bodies stream to the output as they arrive either way
  --max-time SEC          whole-request deadline, body included [60]
  --priority LEVEL        the requests' priority, Chromium's levels: HIGHEST, MEDIUM,
                          LOW, LOWEST, IDLE, THROTTLED (any case). Over HTTP/2 it sets
                          each stream's weight and dependency and the RFC 9218
                          priority header; the trace's priority and h2.weight say so
                          [HIGHEST, as a navigation]

Connection
  --resolve HOST:PORT:ADDR  connect to ADDR for HOST:PORT (repeatable)
  --connect-to H1:P1:H2:P2  connect to H2:P2 for requests to H1:P1 (repeatable; any part
                          may be empty: any host or port, or unchanged); TLS and Host keep
                          the URL's name
  --connect-timeout SEC   TCP connect timeout [10]
  -m, --max-time SEC      as --max-time
  --http1.1               offer only http/1.1 in ALPN
  --connect-wait always|known
                          whether requests to an origin wait for another request's
                          connection to share its HTTP/2 (or SPDY) session: always
                          (until the server is known to speak HTTP/1.1: one session
                          for a new h2 server, about one handshake of waiting on
                          first contact with an HTTP/1.1 one) or known (Chromium's:
                          only for servers that spoke h2 before; others connect in
                          parallel and extra h2 connections are closed) [always]
  --http3                 https over HTTP/3 (QUIC v1); a QUIC connection that fails
                          (no UDP answer within the connect timeout, at most 3 s; a
                          failed handshake) falls back to TCP, the reason in the
                          trace's quic.fallback
  --h3-alt-svc            HTTP/3 for an origin whose earlier response (in this run)
                          offered h3 in Alt-Svc, to the alternative it names; the same
                          fallback to TCP
  --h3-https-rr           HTTP/3 for an origin whose DNS HTTPS record lists h3, to the
                          record's endpoint (trace: quic.httpsRecord); the same fallback
                          to TCP. Not where the record carries an ECH configuration
                          (QUIC here has no ECH: TCP keeps the name hidden), nor with
                          origin-bound certificates or Snap Start, which QUIC does not
                          carry [off: QUIC is not raced against TCP yet]
  --quic-idle-timeout SEC  close a QUIC connection after SEC without a packet from
                          the server [30]
  -x, --proxy URL         an HTTP proxy (http://[user:pass@]host[:port]) [the
                          environment's http_proxy, HTTPS_PROXY, ALL_PROXY]
  --noproxy LIST          hosts reached directly (as NO_PROXY)
  --repeat N              fetch N times in this process (new connections: shows
                          resumption) [1]
  --repeat-interval SEC   wait SEC between repetitions (e.g. to outlive a DNS TTL) [0]
  --parallel N            N concurrent fetches of each URL per repetition [1]
  -Z, --concurrent        start all URLs of a repetition at once, as a browser loads a
                          page's resources (default: one URL after another). HTTP/1.1
                          requests beyond --max-conns-per-host connections to an
                          origin wait for a free connection and reuse it [off]
  --max-conns-per-host N  HTTP/1.1 connections per origin (scheme, host, port) at most,
                          open or being opened, as Chromium's per-group limit; 0 = no
                          limit. SPDY sessions do not count [6]
  --world FILE            use a tools/world world.json (trust anchors, DNS or resolve
                          entries, connect-to rules, bundle CDNs; URL optional)

DNS and prefetching
  --dns-server ADDR:PORT  resolve with c-ares through this server (repeatable); the
                          system resolver (getaddrinfo) asks for no HTTPS record
                          [the system resolver, or the world's DNS server]
  --no-world-dns          with --world, use its static addresses instead of its DNS server
  --no-edns               plain DNS (512-byte UDP answers, TCP on truncation) [EDNS0]
  --no-https-rr           do not ask for DNS HTTPS records (RFC 9460). Asked by default,
                          in parallel with A/AAAA, for https origins and prefetches
                          (c-ares: with --dns-server or a world; the system resolver
                          cannot ask): the record's port, target, ALPN set and ECH
                          configuration are used; the trace's dns.httpsRecord (a record
                          offering h3 sends the request over HTTP/3 with --h3-https-rr).
                          A late answer is waited for 5-50 ms at most after A/AAAA; not
                          at all for a prefetched name's record for another port
  --https-rr              ask for them (the default)
  --dns-timeout SEC       per-attempt DNS timeout [2]
  --prefetch HOST[:PORT],...
                          resolve these hosts first (then fetch); with --bundle-sources
                          also fetch, verify and prevalidate their certificate bundles
                          (for PORT, else the URL's or the world's https port, else 443)
  --prefetch-links        after fetching a page, prefetch the hosts it links to
  --bundle-sources LIST   certificate-bundle prefetching, sources tried in this order:
                          dns (TXT _certbundle.HOST), well-known (http://HOST/.well-known/
                          cert-bundle), cdn (BASE/HOST.crt from every --bundle-cdn at
                          once), truncated (a handshake stopped before authentication).
                          A bundle that does not verify for its host is dropped (the
                          trace's cert.bundle.rejected says why) and the normal handshake
                          runs; with --snap-start a bundle with an orbit makes the first
                          visit a Snap Start [off]
  --bundle-cdn URL        a CDN base URL for the cdn source (repeatable) [the world's]
  --no-bundle-prevalidation
                          prefetch bundles but verify them on the critical path
  --preconnect            for each prefetched host also open a connection and run the
                          TLS handshake ahead (one per host, six in all), kept warm 10 s:
                          the click then costs one round trip; the trace's
                          socketPreconnected says a request used one. Over QUIC where
                          the request will go over HTTP/3 (--http3, or --h3-https-rr and
                          a prefetched HTTPS record offering h3); a QUIC preconnect that
                          fails sends the origin's requests to TCP

TLS
  --tls-min 1.2|1.3       lowest TLS version [1.2]
  --tls-max 1.2|1.3       highest TLS version [1.3]
  --ciphers LIST          OpenSSL-syntax TLS 1.2 cipher list [BoringSSL's]
  --no-false-start        disable TLS False Start [on]
  --coalesce-handshakes   parallel connections with no cached session wait for the first
                          one's full handshake and resume from its session: fewer server
                          handshakes, never faster (a resumption costs the round trips a
                          full handshake costs, after the wait) [off]
  --no-coalesce           each connection without a cached session does its own full
                          handshake (the default)
  --early-data            TLS 1.3 0-RTT: a GET or HEAD (no body) on a resumed session whose
                          ticket allows it travels with the ClientHello; if the server
                          rejects it, the request is sent again in 1-RTT on a new
                          connection. Never for other methods, nor with --spdy (a
                          session's later streams would go early too). The trace's
                          tls.earlyData says accepted / rejected / not_offered,
                          earlyDataReason why [off]
  --tcp-fast-open         TCP Fast Open (RFC 7413): the TLS ClientHello (with a Snap Start
                          request or 0-RTT data) or a GET/HEAD's request goes in the SYN
                          when the kernel holds the server's cookie or its prefetched
                          bundle says it needs none; a SYN with data unanswered in
                          250 ms is raced by one without. The trace's tcp.fastOpen says
                          off / cookie_requested / accepted / not_accepted / fallback
                          [off]
  --spdy                  offer ALPN spdy/3 before http/1.1: a server that picks it
                          carries every request to its origin on one SPDY/3 session,
                          and another origin that resolves to the same address and that
                          the certificate covers is pooled onto it (its own OBC sent in
                          a CREDENTIAL frame). All URLs (and --parallel copies) start at
                          once. -v and the trace's spdy say which session and stream
                          carried each request and the credential slot [off]
  --ech MODE              Encrypted ClientHello (curl's spelling): true (the origin's
                          configuration from its DNS HTTPS record; GREASE without one),
                          grease (always GREASE, never a configuration), false (none),
                          hard (as true, but exit 101 without a configuration or when
                          the server turns ECH off), ecl:BASE64 (this ECHConfigList for
                          every origin). A rejected configuration is retried once, on a
                          new connection, with the server's retry configurations. The
                          trace's tls.ech, tls.echRetry, tls.sniOnWire [true]
  --no-ech-grease         no GREASE ECH extension without a configuration [GREASE on]
  --cert-compression LIST
                          certificate compression (RFC 8879, TLS 1.3) offered: brotli,
                          zlib, both in preference order (brotli,zlib), or off. The
                          trace's tls.certCompression gives the server's Certificate
                          message size before and after [brotli,zlib]
  --snap-start            TLS Snap Start (TLS 1.2, static RSA, AES-128-GCM, no forward
                          secrecy) with servers whose orbit is known — from a prefetched,
                          verified bundle (--bundle-sources) or learned before (kept in
                          DIR/snap_start with --profile): the request travels inside the
                          ClientHello. Other servers get the normal handshake (TLS 1.3,
                          or 1.2 with False Start) and their orbit is learned afterwards
                          by a truncated handshake, off the critical path. The trace's
                          tls.snapStart says accepted / recovered / rejected [off]
  --snap-start-learn handshake|probe
                          handshake: every https connection uses the TLS 1.2 core and
                          learns the orbit in-band (tls.snapStart "learned"; slower, for
                          testing the core) [probe: as above]
  --snap-start-probe      instead of fetching, run a truncated TLS 1.2 handshake to each
                          URL's server and print its certificate chain length, cipher
                          suite and Snap Start orbit as JSON (unverified)

Certificates
  -k, --insecure          go on whatever the server's certificate says (the trace's
                          cert detail names what was ignored); prefetched bundles are
                          still verified
  --capath DIR            every file in DIR as --cacert
  --cacert FILE           PEM trust anchors (repeatable); replaces the system store, as
                          curl's [the system store: SSL_CERT_FILE, SSL_CERT_DIR, else
                          /etc/ssl/certs]
  --trust-anchor FILE     the same as --cacert
  --system-trust          also trust the system store alongside --trust-anchor
  --revocation off|soft|hard|filter  revocation checking (OCSP, then CRL) of every chain
                          element in parallel; soft proceeds when status is unavailable;
                          off fetches nothing but still refuses a leaf whose stapled OCSP
                          answer says revoked; filter is soft behind a revocation filter
                          that must be there (--revocation-filter, the profile's, or the
                          world's) [soft]
  --revocation-filter FILE  a CRLite revocation filter (tools/revocation_filter): asked
                          before any OCSP or CRL request, under soft and hard too; a
                          certificate it covers needs no request (revoked: exit 60), one
                          it does not (another issuer, or issued after the filter) gets
                          OCSP/CRL. Kept in the profile for later runs (memory only with
                          --private); a filter older than the profile's is refused.
                          The trace's cert.revocation.source says filter
  --revocation-stash FILE  revocations published since the filter (repeatable): each
                          applies to the filter it names; the trace says filter_stash
  --prevalidate HOST,...  fetch these hosts' chains first and verify + check revocation off
                          the critical path; the fetch then reuses the prevalidated result

Profile, cookies, origin-bound certificates and device bound sessions
  --profile DIR           keep this profile's state in DIR (locked while fetch runs): host
                          history (its top hosts are prefetched at startup), revocation
                          cache, certificate bundles, Snap Start orbits, origin-bound
                          certificates and cookies [none: memory only]
  --private               private profile: nothing is read from or written to disk; OBCs,
                          cookies, bundles and orbits live in memory for this run
  --no-cookies            neither send nor store cookies. Otherwise Set-Cookie responses
                          are stored (RFC 6265: host-only unless Domain=, Secure only over
                          https) and sent on later requests of this run and, with
                          --profile, of later runs; -H 'Cookie: ...' replaces the jar's
  --no-dbsc               ignore Device Bound Session Credentials. Otherwise a response's
                          Secure-Session-Registration starts a session (a P-256 key from
                          the key pool, a signed proof, the server's instructions), kept
                          in the profile; a request whose short-lived bound cookie
                          expired waits while the session's refresh proves the key and
                          gets a fresh one (the trace's dbsc object; with --trace-json
                          the registration and refresh POSTs are entries of their own)
  --obc off|ecdsa|rsa1024|rsa2048  present an origin-bound certificate when a server asks
                          for a client certificate [off]
  --obc-scope origin|etld  one OBC per origin, or per eTLD+1 (legacy mode) [origin]
  --obc-warm              wait until the key pool is full before fetching
  --obc-pool N            keys kept ready for the --obc algorithm (0 = none: each new
                          scope waits for its key) [4 for ecdsa, 2 for rsa1024/rsa2048]

Compare mode
  --compare 'A' 'B'       run the fetch with flags A and with flags B alternately, each run
                          a fresh context (no session, DNS or prefetch state carried over
                          unless a flag such as --profile asks), and print per Resource
                          Timing phase the median and min-max of each side and B/A
  --runs N                runs per side [10]
  --compare-out FILE.csv  also write the table as CSV

Exit codes: 0 ok, 1 other, 2 bad usage or config, 3 bad URL,
  6 DNS error (name not resolved), 7 connection error (refused, reset, unreachable),
  8 malformed HTTP response, 16 SPDY error, 18 partial body, 22 HTTP error (--fail),
  23 write error, 28 timeout, 35 TLS or Snap Start error, 47 too many redirects,
  52 empty response, 56 the proxy refused the tunnel (CONNECT),
  58 origin-bound certificate error,
  60 certificate error (also a prefetched bundle's), 63 maximum file size exceeded,
  95 QUIC or HTTP/3 error, 101 ECH not negotiated (rejected after the retry, --ech hard).
  They follow the error's range (net/base/net_error_list.h): connection 7, certificate
  60, HTTP 8, DNS 6, TLS 35, SPDY 16, prefetch 60, Snap Start 35, OBC 58, QUIC 95,
  generic 1.
)";

namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", why));
}

absl::StatusOr<uint16_t> ParseTlsVersion(absl::string_view flag,
                                         absl::string_view v) {
  if (v == "1.2") return uint16_t{0x0303};
  if (v == "1.3") return uint16_t{0x0304};
  return FlagError(flag, absl::StrCat("expected 1.2 or 1.3, got '", v, "'"));
}

}  // namespace

absl::StatusOr<FetchOptions> ParseFetchOptions(
    const std::vector<std::string>& argv) {
  std::vector<std::string> args = argv;
  FetchOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsShortFlagGroup(args[i])) {
      // "-fsSL" where a flag stands: its flags in its place.
      absl::StatusOr<std::vector<std::string>> group =
          ExpandShortFlagGroup(args[i]);
      if (!group.ok()) return group.status();
      args.erase(args.begin() + i);
      args.insert(args.begin() + i, group->begin(), group->end());
    }
    const std::string& flag = args[i];
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 >= args.size()) return FlagError(flag, "needs a value");
      return args[++i];
    };
    auto positive = [&](int* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, out) || *out < 1 || *out > 10000)
        return FlagError(flag, "expected a number from 1 to 10000");
      return absl::OkStatus();
    };
    auto seconds = [&](absl::Duration* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      double s;
      if (!absl::SimpleAtod(*v, &s) || s <= 0)
        return FlagError(flag, "expected seconds > 0");
      *out = absl::Seconds(s);
      return absl::OkStatus();
    };
    absl::Status status;
    if (std::optional<absl::Status> curl = ParseCurlFlag(args, &i, &o)) {
      status = *curl;
    } else if (flag == "-o" || flag == "--output") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.output_files.push_back(*v);
    } else if (flag == "-O" || flag == "--remote-name") {
      o.remote_name = true;
    } else if (flag == "-X" || flag == "--request") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (v->empty() || v->find_first_of(" \t\r\n") != std::string::npos)
        return FlagError(flag, "expected a method token such as PUT");
      o.method = *v;
    } else if (flag == "-d" || flag == "--data" || flag == "--data-binary") {
      auto v = value();
      if (!v.ok()) return v.status();
      std::string part = *v;
      if (!part.empty() && part[0] == '@') {
        // The body is held in memory (and resent on a redirect or retry):
        // bounded, so '-d @/dev/zero' is an error, not a process that grows.
        absl::StatusOr<std::string> file =
            ReadFileToString(part.substr(1), kMaxRequestBodyFileBytes);
        if (!file.ok()) return FlagError(flag, file.status().message());
        part = *file;
        // curl's -d @FILE drops carriage returns and newlines.
        if (flag != "--data-binary")
          part = absl::StrReplaceAll(part, {{"\r", ""}, {"\n", ""}});
      }
      o.data = o.data ? absl::StrCat(*o.data, "&", part) : part;
    } else if (flag == "-L" || flag == "--location") {
      o.follow_redirects = true;
    } else if (flag == "--max-redirs") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &o.max_redirs) || o.max_redirs < 0)
        return FlagError(flag, "expected a number >= 0");
    } else if (flag == "-s" || flag == "--silent") {
      o.silent = true;
    } else if (flag == "-S" || flag == "--show-error") {
      o.show_error = true;
    } else if (flag == "-w" || flag == "--write-out") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.write_out = *v;
    } else if (flag == "--compare") {
      if (i + 2 >= args.size())
        return FlagError(flag, "needs two flag strings: --compare 'A' 'B'");
      o.compare = {args[i + 1], args[i + 2]};
      i += 2;
    } else if (flag == "--runs") {
      status = positive(&o.compare_runs);
    } else if (flag == "--compare-out") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.compare_out = *v;
    } else if (flag == "-I" || flag == "--head") {
      o.head = true;
    } else if (flag == "-v" || flag == "--verbose") {
      o.verbose = true;
    } else if (flag == "-H") {
      auto v = value();
      if (!v.ok()) return v.status();
      size_t colon = v->find(':');
      if (colon == std::string::npos || colon == 0)
        return FlagError(
            flag, absl::StrCat("expected 'Name: value', got '", *v, "'"));
      std::string name = v->substr(0, colon);
      std::string val(absl::StripLeadingAsciiWhitespace(v->substr(colon + 1)));
      if (name.find_first_of(" \t\r\n") != std::string::npos ||
          val.find_first_of("\r\n") != std::string::npos)
        return FlagError(
            flag, "header name or value contains whitespace or a line break");
      o.headers.emplace_back(name, val);
    } else if (flag == "--resolve") {
      auto v = value();
      if (!v.ok()) return v.status();
      auto entry = ResolveOverride::Parse(*v);
      if (!entry.ok()) return entry.status();
      o.resolve.push_back(*entry);
    } else if (flag == "--connect-to") {
      auto v = value();
      if (!v.ok()) return v.status();
      auto rule = ConnectToRule::Parse(*v);
      if (!rule.ok()) return rule.status();
      o.connect_to.push_back(*rule);
    } else if (flag == "--trust-anchor") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.trust_anchors.push_back(*v);
    } else if (flag == "--system-trust") {
      o.system_trust_store = true;
    } else if (flag == "--tls-max" || flag == "--tls-min") {
      auto v = value();
      if (!v.ok()) return v.status();
      auto version = ParseTlsVersion(flag, *v);
      if (!version.ok()) return version.status();
      (flag == "--tls-max" ? o.tls_max : o.tls_min) = *version;
    } else if (flag == "--ciphers") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.ciphers = *v;
    } else if (flag == "--no-false-start") {
      o.false_start = false;
    } else if (flag == "--no-coalesce") {
      o.coalesce_handshakes = false;
    } else if (flag == "--coalesce-handshakes") {
      o.coalesce_handshakes = true;
    } else if (flag == "--early-data") {
      o.early_data = true;
    } else if (flag == "--tcp-fast-open") {
      o.tcp_fast_open = true;
    } else if (flag == "--spdy") {
      o.spdy = true;
    } else if (flag == "--priority") {
      auto v = value();
      if (!v.ok()) return v.status();
      std::optional<RequestPriority> priority = ParseRequestPriority(*v);
      if (!priority)
        return FlagError(flag,
                         "expected HIGHEST, MEDIUM, LOW, LOWEST, IDLE or "
                         "THROTTLED");
      o.priority = *priority;
    } else if (flag == "--connect-wait") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (*v != "always" && *v != "known")
        return FlagError(flag, "expected always or known");
      o.connect_wait = *v;
    } else if (flag == "--cert-compression") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (*v != "off") {
        std::vector<std::string> names = absl::StrSplit(*v, ',');
        for (size_t i = 0; i < names.size(); ++i) {
          if (names[i] != "brotli" && names[i] != "zlib")
            return FlagError(flag, "expected brotli, zlib, brotli,zlib or off");
          for (size_t j = 0; j < i; ++j) {
            if (names[j] == names[i])
              return FlagError(flag, "lists " + names[i] + " twice");
          }
        }
      }
      o.cert_compression = *v;
    } else if (flag == "--repeat") {
      status = positive(&o.repeat);
    } else if (flag == "--repeat-interval") {
      status = seconds(&o.repeat_interval);
    } else if (flag == "--parallel") {
      status = positive(&o.parallel);
    } else if (flag == "-Z" || flag == "--concurrent") {
      o.concurrent = true;
    } else if (flag == "--max-conns-per-host") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &o.max_conns_per_host) ||
          o.max_conns_per_host < 0 || o.max_conns_per_host > 10000)
        return FlagError(flag, "expected a number from 0 to 10000");
    } else if (flag == "--trace-json") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.trace_json_file = *v;
    } else if (flag == "--har") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.har_file = *v;
    } else if (flag == "--waterfall") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.waterfall_file = *v;
    } else if (flag == "--trace-events") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.trace_events_file = *v;
    } else if (flag == "--world") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.world_file = *v;
    } else if (flag == "--dns-server") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (!IPEndPoint::Parse(*v).ok())
        return FlagError(flag, "expected ADDR:PORT");
      o.dns_servers.push_back(*v);
    } else if (flag == "--no-world-dns") {
      o.use_world_dns = false;
    } else if (flag == "--no-edns") {
      o.edns = false;
    } else if (flag == "--no-https-rr" || flag == "--https-rr") {
      o.https_records = flag == "--https-rr";
    } else if (flag == "--no-ech-grease") {
      o.ech_grease = false;
    } else if (flag == "--dns-timeout") {
      status = seconds(&o.dns_timeout);
    } else if (flag == "--prefetch") {
      auto v = value();
      if (!v.ok()) return v.status();
      for (absl::string_view entry :
           absl::StrSplit(*v, ',', absl::SkipEmpty())) {
        std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
        if (parts.size() > 2 || parts[0].empty())
          return FlagError(
              flag, absl::StrCat("bad host '", entry, "' (HOST or HOST:PORT)"));
        o.prefetch_hosts.emplace_back(parts[0]);
        if (parts.size() == 2) {
          int port;
          if (!absl::SimpleAtoi(parts[1], &port) || port < 1 || port > 65535)
            return FlagError(flag, absl::StrCat("bad port in '", entry, "'"));
          o.prefetch_ports[absl::AsciiStrToLower(parts[0])] = port;
        }
      }
    } else if (flag == "--bundle-sources") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.bundle_sources = *v;
    } else if (flag == "--bundle-cdn") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (!absl::StartsWith(*v, "http://"))
        return FlagError(flag,
                         "CDN base URLs are http:// (bundles are "
                         "verified on their own)");
      o.bundle_cdns.push_back(*v);
    } else if (flag == "--snap-start-learn") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (*v != "handshake" && *v != "probe")
        return FlagError(flag, "expected handshake or probe");
      o.snap_start_learn_in_handshake = *v == "handshake";
    } else if (flag == "--preconnect") {
      o.preconnect = true;
    } else if (flag == "--no-bundle-prevalidation") {
      o.bundle_prevalidation = false;
    } else if (flag == "--prefetch-links") {
      o.prefetch_links = true;
    } else if (flag == "--revocation") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (*v != "off" && *v != "soft" && *v != "hard" && *v != "filter")
        return FlagError(flag, "expected off, soft, hard or filter");
      o.revocation = *v;
    } else if (flag == "--revocation-filter") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.revocation_filter = *v;
    } else if (flag == "--revocation-stash") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.revocation_stashes.push_back(*v);
    } else if (flag == "--obc") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (*v != "off" && *v != "ecdsa" && *v != "rsa1024" && *v != "rsa2048")
        return FlagError(flag, "expected off, ecdsa, rsa1024 or rsa2048");
      o.obc = *v;
    } else if (flag == "--obc-scope") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (*v != "origin" && *v != "etld")
        return FlagError(flag, "expected origin or etld");
      o.obc_scope = *v;
    } else if (flag == "--obc-warm") {
      o.obc_warm = true;
    } else if (flag == "--obc-pool") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &o.obc_pool) || o.obc_pool < 0 ||
          o.obc_pool > 64)
        return FlagError(flag, "expected a number from 0 to 64");
    } else if (flag == "--snap-start") {
      o.snap_start = true;
    } else if (flag == "--snap-start-probe") {
      o.snap_start_probe = true;
    } else if (flag == "--no-cookies") {
      o.cookies = false;
    } else if (flag == "--no-dbsc") {
      o.dbsc = false;
    } else if (flag == "--private") {
      o.private_profile = true;
    } else if (flag == "--prevalidate") {
      auto v = value();
      if (!v.ok()) return v.status();
      for (absl::string_view host : absl::StrSplit(*v, ',', absl::SkipEmpty()))
        o.prevalidate_hosts.emplace_back(host);
    } else if (flag == "--profile") {
      auto v = value();
      if (!v.ok()) return v.status();
      o.profile_dir = *v;
    } else if (flag == "--connect-timeout") {
      status = seconds(&o.connect_timeout);
    } else if (flag == "--max-time") {
      status = seconds(&o.max_time);
    } else if (flag == "--h3-alt-svc") {
      o.h3_alt_svc = true;
    } else if (flag == "--h3-https-rr") {
      o.h3_https_rr = true;
    } else if (flag == "--quic-idle-timeout") {
      status = seconds(&o.quic_idle_timeout);
    } else if (flag == "--max-filesize") {
      auto v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &o.max_filesize) || o.max_filesize < 0)
        return FlagError(flag, "needs a byte count >= 0");
    } else if (!flag.empty() && flag[0] == '-') {
      return FlagError(flag, "unknown flag");
    } else {
      o.urls.push_back(WithDefaultScheme(flag));
    }
    if (!status.ok()) return status;
  }
  if (o.tls_min > o.tls_max)
    return FlagError("--tls-min", "is above --tls-max");
  if (!o.world_file.empty()) {
    absl::StatusOr<WorldFile> world = LoadWorldFile(o.world_file);
    if (!world.ok()) return world.status();
    absl::Status running = CheckWorldRunning(*world);
    if (!running.ok()) return running;
    o.trust_anchors.push_back(world->trust_anchors);
    // Explicit --connect-to rules come first, and the first match wins.
    o.connect_to.insert(o.connect_to.end(), world->connect_to.begin(),
                        world->connect_to.end());
    bool world_dns =
        o.use_world_dns && !world->dns_server.empty() && o.dns_servers.empty();
    if (world_dns) {
      // Names go through the world's DNS server; its static entries would
      // bypass it.
      o.dns_servers.push_back(world->dns_server);
    } else {
      for (const std::string& r : world->resolve) {
        auto entry = ResolveOverride::Parse(r);
        if (!entry.ok()) return entry.status();
        // Explicit --resolve entries were added first and win.
        o.resolve.push_back(*entry);
      }
    }
    if (o.urls.empty() && !world->default_url.empty())
      o.urls.push_back(world->default_url);
    if (o.bundle_cdns.empty()) o.bundle_cdns = world->bundle_cdns;
    for (const auto& [host, port] : world->https_ports)
      o.prefetch_ports.emplace(host, port);  // explicit ports win
    if (o.revocation == "filter" && o.revocation_filter.empty())
      o.revocation_filter = world->revocation_filter;
  }
  if (o.urls.empty()) return absl::InvalidArgumentError("no URL given");
  if (o.output_files.size() > o.urls.size())
    return FlagError("-o", "more output files than URLs");
  // No anchors named and no world: the system store, as curl does.
  if (o.trust_anchors.empty()) o.system_trust_store = true;
  return o;
}

}  // namespace net
