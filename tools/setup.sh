#!/usr/bin/env bash
# Installs every Debian package the project builds, tests and demos with.
# Idempotent: installs only what is missing, and runs apt-get update only then.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap            # Bazel 4.2, used offline in WORKSPACE mode
  g++ python3
  android-libboringssl-dev   # BoringSSL (headers in /usr/include/android)
  libabsl-dev libc-ares-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
  libpsl-dev publicsuffix
  openssl nginx              # real TLS peers and the PKI tool
  knot knot-dnsutils         # Knot DNS (knotd, knotc) and kdig for the world's DNS
  iproute2 util-linux procps # ip, unshare, pkill for private test namespaces
)

missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
