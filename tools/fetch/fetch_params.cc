#include "tools/fetch/fetch_params.h"

#include <cstdlib>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cert/obc/obc_types.h"
#include "cert/revocation_checker.h"
#include "net/proxy/proxy_config.h"
#include "net/ssl/cert_compression.h"
#include "net/ssl/ech_config.h"
#include "prefetch/bundle_source.h"

namespace net {

absl::StatusOr<NetworkContextParams> MakeNetworkContextParams(
    const FetchOptions& options, const std::vector<Url>& urls) {
  NetworkContextParams params;
  params.trust_anchor_files = options.trust_anchors;
  params.system_trust_store = options.system_trust_store;
  params.dns_servers = options.dns_servers;
  params.edns = options.edns;
  params.dns_attempt_timeout = options.dns_timeout;
  params.resolve_overrides = options.resolve;
  params.session.connect_timeout = options.connect_timeout;
  params.session.request_timeout = options.max_time;
  params.session.max_sockets_per_group =
      static_cast<size_t>(options.max_conns_per_host);
  params.session.ssl_config.version_min = options.tls_min;
  params.session.ssl_config.version_max = options.tls_max;
  params.session.ssl_config.false_start_enabled = options.false_start;
  params.session.ssl_config.coalesce_handshakes = options.coalesce_handshakes;
  params.session.ssl_config.cipher_list = options.ciphers;
  params.session.ssl_config.early_data_enabled = options.early_data;
  params.session.tcp_fast_open = options.tcp_fast_open;
  params.https_records = options.https_records;
  // (--http1.1: no HTTP/3 from the records either.)
  params.h3_from_https_records = options.h3_https_rr && !options.http1_1_only;
  SSLConfig& ssl = params.session.ssl_config;
  ssl.ech_grease = options.ech_grease;
  if (options.ech == "false") {
    ssl.ech_mode = EchMode::kOff;
  } else if (options.ech == "grease") {
    ssl.ech_mode = EchMode::kGrease;
  } else if (options.ech == "hard") {
    ssl.ech_mode = EchMode::kHard;
  } else if (absl::StartsWith(options.ech, "ecl:")) {
    std::string list;
    if (!absl::Base64Unescape(options.ech.substr(4), &list) ||
        !ParseEchConfigList(list).ok()) {
      return absl::InvalidArgumentError(
          "--ech ecl: is not the base64 of an ECHConfigList");
    }
    ssl.ech_config_list = list;
  }
  if (options.spdy && !options.http1_1_only)
    params.session.ssl_config.alpn_protos = {"spdy/3", "http/1.1"};
  if (options.http1_1_only)
    params.session.ssl_config.alpn_protos = {"http/1.1"};
  params.session.connect_wait = options.connect_wait == "known"
                                    ? ConnectWaitPolicy::kKnownMultiplexed
                                    : ConnectWaitPolicy::kAlways;
  params.session.http3 = options.http3;
  params.session.alt_svc_h3 = options.h3_alt_svc;
  params.session.quic.idle_timeout = options.quic_idle_timeout;
  params.ignore_certificate_errors = options.insecure;
  // -x/--proxy, --noproxy and the environment, with curl's precedence.
  absl::StatusOr<ProxyConfig> proxy = ProxyConfig::FromCurlOptions(
      options.proxy, options.no_proxy,
      [](const char* name) -> const char* { return getenv(name); });
  if (!proxy.ok()) return proxy.status();
  params.proxy = *std::move(proxy);
  absl::StatusOr<std::vector<CertCompressionAlgorithm>> cert_compression =
      ParseCertCompressionList(options.cert_compression);
  if (!cert_compression.ok()) return cert_compression.status();
  params.session.ssl_config.cert_compression = *cert_compression;
  std::optional<RevocationPolicy::Mode> mode =
      ParseRevocationMode(options.revocation);
  if (!mode)
    return absl::InvalidArgumentError(
        absl::StrCat("--revocation: unknown mode ", options.revocation));
  params.revocation = *mode;
  params.revocation_filter_file = options.revocation_filter;
  params.revocation_stash_files = options.revocation_stashes;
  params.session.connect_to = ConnectToRules(options.connect_to);
  if (options.obc != "off") {
    std::optional<KeyAlgorithm> algorithm = ParseKeyAlgorithm(options.obc);
    std::optional<ScopeMode> scope = ParseScopeMode(options.obc_scope);
    if (!algorithm)
      return absl::InvalidArgumentError(
          absl::StrCat("--obc: unknown algorithm ", options.obc));
    if (!scope)
      return absl::InvalidArgumentError(
          absl::StrCat("--obc-scope: unknown scope ", options.obc_scope));
    params.obc_algorithm = *algorithm;
    params.obc_scope = *scope;
    params.obc_pool_depth = options.obc_pool;
  }
  if (!options.bundle_sources.empty()) {
    absl::StatusOr<std::vector<BundleSourceType>> sources =
        ParseBundleSourceList(options.bundle_sources);
    if (!sources.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("--bundle-sources: ", sources.status().message()));
    params.bundle_sources = *sources;
  }
  params.bundle_cdns = options.bundle_cdns;
  params.bundle_prevalidate = options.bundle_prevalidation;
  params.prefetch_ports = options.prefetch_ports;
  for (const Url& url : urls) {
    if (url.SchemeIsCryptographic())
      params.prefetch_ports.emplace(url.host(), url.port());
  }
  params.preconnect = options.preconnect;
  params.snap_start = options.snap_start;
  params.snap_start_learn_in_handshake = options.snap_start_learn_in_handshake;
  params.profile_dir = options.profile_dir;
  params.private_profile = options.private_profile;
  params.cookies = options.cookies;
  params.device_bound_sessions = options.dbsc && options.cookies;
  return params;
}

}  // namespace net
