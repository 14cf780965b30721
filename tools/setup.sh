#!/usr/bin/env bash
# Installs every Debian package the project builds, tests and demos with.
# Idempotent: installs only what is missing, and runs apt-get update only then.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap            # Bazel 4.2, used offline in WORKSPACE mode
  g++ python3
  python3-venv               # tools/aioquic/install.sh: aioquic (PyPI) in a venv, an HTTP/3 peer
  android-libboringssl-dev   # BoringSSL (headers in /usr/include/android)
  libabsl-dev libc-ares-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
  libbrotli-dev              # RFC 8879 certificate compression (with zlib)
  libpsl-dev publicsuffix
  openssl nginx              # real TLS peers and the PKI tool
  knot knot-dnsutils         # Knot DNS (knotd, knotc) and kdig for the world's DNS
  iproute2 util-linux procps # ip, unshare, pkill for private test namespaces
  python3-jsonschema         # net/timing:har_schema_test validates HAR 1.2
  chromium                   # net/timing:waterfall_render_test renders the SVG headless;
                             # the demo and vs_chromium measure its first visits
  libnss3-tools              # certutil: the world's root in a throw-away NSS database for chromium
  tshark                     # net/spdy:spdy_node_interop_test dissects a SPDY/3 capture
  nodejs                     # node-spdy, the SPDY/3 peer of net/spdy (module below)
  node-llhttp                # llhttp's C sources: net/http:http_llhttp_comparison_test
  libnghttp2-dev             # nghttp2 1.52: HTTP/2 framing and HPACK under net/http2
  nghttp2-server             # nghttpd, a real h2 peer for net/http2's interop test
  tinyproxy                  # a real HTTP proxy with CONNECT: tools/testserver:proxy_transaction_test
  h2o caddy                  # real h2 peers with their own HTTP/2 stacks: tests:http2_interop_test;
                             # Caddy (quic-go inside) is also an HTTP/3 peer for tests:http3_test,
                             # the world's h3 origin and spdy_loss's h3 server
  # HTTP/3 over QUIC (net/quic, issue 25). ngtcp2 1.11 / nghttp3 1.8 with their stable 1.x API
  # come from bookworm-backports (set up below, pinned to these packages only; bookworm itself
  # has the pre-1.0 0.12 / 0.8: third_party/ngtcp2/README.md says why not those).
  libngtcp2-dev              # ngtcp2 1.11: QUIC under net/quic (its BoringSSL helper is built
                             # from source in third_party/ngtcp2_crypto_boringssl)
  libnghttp3-dev             # nghttp3 1.8: HTTP/3 and QPACK under net/quic
  ngtcp2-server              # gtlsserver: ngtcp2's own HTTP/3 server, a real peer for
                             # net/quic's unit tests and tests/http3_test; the world's bigchain
                             # origin on UDP
  ngtcp2-client              # gtlsclient: world_test fetches the world's h3 origins over QUIC
)

# bookworm-backports, for the packages above that need it and nothing else: every package of
# the suite is pinned at priority 1 (never installed or upgraded by itself), and only ngtcp2's
# and nghttp3's at 990 (their backports version wins over bookworm's). Debian's own mirror and
# keyring, the suite bookworm's sources already name; written once, nothing else is changed.
BACKPORTS_LIST=/etc/apt/sources.list.d/netstack-bookworm-backports.sources
BACKPORTS_PIN=/etc/apt/preferences.d/netstack-bookworm-backports
if [[ ! -f "$BACKPORTS_LIST" || ! -f "$BACKPORTS_PIN" ]]; then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: adding bookworm-backports for ngtcp2 and nghttp3 only ($BACKPORTS_PIN)" >&2
  $SUDO tee "$BACKPORTS_LIST" >/dev/null <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  $SUDO tee "$BACKPORTS_PIN" >/dev/null <<'PIN'
# netstack (tools/setup.sh): from bookworm-backports only ngtcp2 and nghttp3 (QUIC, HTTP/3).
Package: *
Pin: release n=bookworm-backports
Pin-Priority: 1

Package: libngtcp2* libnghttp3* ngtcp2*
Pin: release n=bookworm-backports
Pin-Priority: 990
PIN
fi

missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Installed from bookworm (0.12) before the pin existed: the 1.x API is needed.
if dpkg-query -W -f='${Version}' libngtcp2-dev 2>/dev/null | grep -q '^0\.'; then
  missing+=(libngtcp2-dev libnghttp3-dev ngtcp2-server ngtcp2-client)
fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# node-spdy (npm spdy@4.0.2, ../shared/PEERS.md) for net/spdy:spdy_node_interop_test,
# into npm's global root (the test looks in /usr/lib and /usr/local/lib node_modules, or
# $NETSTACK_NODE_PATH). Debian's nodejs comes without npm; NodeSource's includes it.
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing npm" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >&2
fi
if ! NODE_PATH="$(npm root -g)" node -e "require('spdy')" >/dev/null 2>&1; then
  echo "setup: installing node-spdy (npm spdy@4.0.2)" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO npm install -g --no-fund --no-audit spdy@4.0.2 >&2
fi

# h2spec (the HTTP/2 conformance suite, Go) for tests/h2spec_test.py: built from the Go module
# proxy with the versions pinned in tools/h2spec/go.mod, once per machine, into
# ~/.cache/netstack-h2spec (tools/h2spec/build.sh). A machine without Go or without the proxy
# goes on: the test then fails, naming why.
if ! "$(dirname "$0")/h2spec/build.sh" >/dev/null; then
  echo "setup: h2spec could not be built (tools/h2spec/build.sh); tests/h2spec_test will fail" >&2
fi

# aioquic 1.7.2 (PyPI; Debian has no package), the third HTTP/3 peer of tests/http3_test.py, into
# a venv under ~/.cache/netstack-aioquic with the versions pinned in
# tools/aioquic/requirements.txt (tools/aioquic/install.sh). A machine without PyPI goes on: the test then fails, naming why.
if ! "$(dirname "$0")/aioquic/install.sh" >/dev/null; then
  echo "setup: aioquic could not be installed (tools/aioquic/install.sh);" \
    "tests/http3_test will fail" >&2
fi
