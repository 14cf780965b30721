#!/usr/bin/env bash
# Installs aioquic (the HTTP/3 peer of tests/http3_test.py, run by tests/peers/aioquic_h3_server.py)
# from PyPI into a Python venv outside the clone, once per machine: the versions pinned in
# requirements.txt beside this script (wheels only), in $NETSTACK_AIOQUIC_CACHE (default
# ~/.cache/netstack-aioquic, ~ being the user's home from the password database, so that Bazel
# tests, whose HOME is their temporary directory, find it too), under a key made of
# requirements.txt. Prints the venv's python on stdout. tools/setup.sh runs it; the test looks
# for that python (without installing) and reports the peer missing when it is not there.
# --check: print the path if installed, else exit 3 without installing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=$(getent passwd "$(id -u)" | cut -d: -f6)
home=${home:-$HOME}
cache=${NETSTACK_AIOQUIC_CACHE:-$home/.cache/netstack-aioquic}
key=$(sha256sum <"$here/requirements.txt" | cut -c1-16)
venv="$cache/$key"
py="$venv/bin/python"
if [[ -x $py ]] && "$py" -c "import aioquic" >/dev/null 2>&1; then
  echo "$py"
  exit 0
fi
if [[ ${1:-} == --check ]]; then
  echo "aioquic: not installed in $venv (tools/aioquic/install.sh installs it)" >&2
  exit 3
fi
# Debian's python3 (tools/setup.sh: python3, python3-venv), not whatever python3 is first on PATH.
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3 || true)
[[ -n $python ]] || { echo "aioquic: no python3" >&2; exit 3; }
echo "aioquic: installing $(grep -m1 '^aioquic==' "$here/requirements.txt") into $venv" >&2
rm -rf "$venv"
mkdir -p "$cache"
# (In place: a venv's scripts name its directory. A failed install leaves nothing behind.)
trap 'rm -rf "$venv"' ERR
"$python" -m venv "$venv" >&2
# --no-deps with every dependency pinned: exactly requirements.txt, nothing resolved anew.
"$venv/bin/pip" install -q --disable-pip-version-check --only-binary=:all: --no-deps \
  -r "$here/requirements.txt" >&2
"$py" -c "import aioquic" >&2
trap - ERR
echo "$py"
