#!/usr/bin/env bash
# Builds h2spec, the HTTP/2 conformance suite (github.com/summerwind/h2spec), from the Go module
# proxy with the versions pinned in go.mod/go.sum beside this script, once per machine: the
# binary is cached outside the clone, in $NETSTACK_H2SPEC_CACHE (default
# ~/.cache/netstack-h2spec, ~ being the user's home from the password database, so that Bazel
# tests, whose HOME is their temporary directory, find it too), under a key made of go.mod and
# go.sum. Prints the binary's path on stdout. tools/setup.sh runs it; tests/h2spec_test.py
# runs it when the binary is missing.
#
# The proxy serves h2spec v2.2.1 (as v2.2.1+incompatible) and v1.5.0 only: v2.3.0 and later
# declare go.mod's module without the /v2 suffix their tags need, so no version of them can be
# resolved (the proxy refuses v2.6.0, v2.6.0+incompatible, pseudo-versions and branch names).
# v2.2.1 has no go.mod of its own; go.mod here pins its dependencies.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=$(getent passwd "$(id -u)" | cut -d: -f6)
home=${home:-$HOME}
cache=${NETSTACK_H2SPEC_CACHE:-$home/.cache/netstack-h2spec}
key=$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)
bin="$cache/$key/h2spec"
if [[ ! -x $bin ]]; then
  go=$(command -v go || true)
  [[ -n $go ]] || { [[ -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go; }
  if [[ -z $go ]]; then
    echo "h2spec: no Go toolchain (go on PATH or /usr/local/go/bin/go) to build it with" >&2
    exit 3
  fi
  mkdir -p "$cache/$key"
  echo "h2spec: building github.com/summerwind/h2spec/cmd/h2spec (tools/h2spec/go.mod) into $bin" >&2
  # The user's Go caches, whatever HOME a caller (a Bazel test) has.
  (cd "$here" && HOME=$home GOFLAGS=-mod=readonly GOTOOLCHAIN=local \
      "$go" build -trimpath -o "$bin.tmp.$$" github.com/summerwind/h2spec/cmd/h2spec) >&2
  mv -f "$bin.tmp.$$" "$bin"
fi
echo "$bin"
