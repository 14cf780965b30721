#!/bin/bash
# Checks the certbundle command line: `make` in every format followed by
# `inspect` (text and JSON), the TXT form's line rules (name first, strings of
# at most 255 bytes), pointer records, and that bad input fails with exit 1
# and its message, bad usage with exit 2.
set -u
R="${TEST_SRCDIR}/${TEST_WORKSPACE}"
CB="$R/tools/certbundle/certbundle"
T="$R/cert/testdata"
TMP="${TEST_TMPDIR:-/tmp}"
H=www.example.test
NOW=1780000000  # 2026-05-28: inside the good_* fixtures' validity
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_rc WANT CMD...: runs CMD with stdout in $TMP/out and stderr in $TMP/err.
expect_rc() {
  local want=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?
  [[ $rc == "$want" ]] || fail "'$*' exited $rc, want $want; stderr: $(cat "$TMP/err")"
}
has() { grep -qF -- "$2" "$TMP/$1" || fail "$1 lacks '$2': $(head -c 2000 "$TMP/$1")"; }

# --- make -> inspect, each format, RSA and ECDSA ------------------------------
for chain in good_leaf_chain good_ecdsa_leaf_chain; do
  for fmt in txt well-known cdn; do
    expect_rc 0 "$CB" make --host "$H" --chain "$T/$chain.pem" \
      --orbit 0102030405060708 --created 1767225600 --format "$fmt"
    cp "$TMP/out" "$TMP/bundle.$fmt"
    [[ $chain == good_ecdsa_leaf_chain ]] && has err "warning: --orbit with a non-RSA leaf"
    expect_rc 0 "$CB" inspect --now $NOW "$TMP/bundle.$fmt"
    has out "host:        $H"
    has out "port:        443"
    has out "orbit:       0102030405060708"
    has out "not_after:   2045-01-01T00:00:00Z (2366841600)"
    has out "created:     2026-01-01T00:00:00Z (1767225600)"
    has out "[0] CN=DNS:www.example.test"
    has out "[1] CN=Netstack Test Intermediate (issuer CN=Netstack Test Root"
    has out "check:       ok"
    if [[ $chain == good_leaf_chain ]]; then
      has out "cipher:      0x009c TLS_RSA_WITH_AES_128_GCM_SHA256"
    else
      has out "cipher:      0xc02b TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
    fi
    # The same through stdin with an explicit format, as JSON.
    form=file; [[ $fmt == txt ]] && form=txt
    expect_rc 0 "$CB" inspect --format "$form" --json --now $NOW - \
      <"$TMP/bundle.$fmt"
    python3 - "$TMP/out" "$form" <<'PY' || fail "bad JSON: $(cat "$TMP/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["form"] == sys.argv[2], j
assert j["host"] == "www.example.test" and j["port"] == 443, j
assert j["orbit"] == "0102030405060708" and j["check"] == "ok", j
assert len(j["chain"]) == 2 and j["sizes"]["file_zlib"] < j["sizes"]["file_plain"], j
PY
  done
  # well-known and cdn are the same bytes.
  cmp -s "$TMP/bundle.well-known" "$TMP/bundle.cdn" || fail "well-known != cdn"
done

# --- the TXT form's lines ------------------------------------------------------
expect_rc 0 "$CB" make --host WWW.Example.Test --port 8443 \
  --chain "$T/good_leaf_chain.pem" --format txt --cipher AES128-GCM-SHA256
[[ $(head -1 "$TMP/out") == "_certbundle.www.example.test" ]] ||
  fail "first line: $(head -1 "$TMP/out")"
[[ $(sed -n 2p "$TMP/out") == "v=cb1; b="* ]] || fail "second line not v=cb1; b="
awk 'NR > 1 && length($0) > 255 { exit 1 }' "$TMP/out" || fail "string > 255"
[[ $(wc -l <"$TMP/out") -gt 3 ]] || fail "TXT record not split"
grep -q '"' "$TMP/out" && fail "TXT strings are quoted"
cp "$TMP/out" "$TMP/port.txt"
expect_rc 0 "$CB" inspect "$TMP/port.txt"
has out "port:        8443"
has out "cipher:      0x009c"

# --- pointer -------------------------------------------------------------------
expect_rc 0 "$CB" pointer --host $H --url http://cdn1.example.test/$H.crt
[[ $(cat "$TMP/out") == "_certbundle.$H
v=cb1; url=http://cdn1.example.test/$H.crt" ]] || fail "pointer: $(cat "$TMP/out")"
cp "$TMP/out" "$TMP/pointer.txt"
expect_rc 0 "$CB" inspect "$TMP/pointer.txt"
has out "pointer:     http://cdn1.example.test/$H.crt"
expect_rc 2 "$CB" pointer --host $H --url ftp://cdn1.example.test/x
has err "is not http://"
# https:// too: the prefetcher fetches bundles over plain HTTP (they are verified on their own).
expect_rc 2 "$CB" pointer --host $H --url https://cdn1.example.test/x
has err "is not http://"

# --- bad input: exit 1 and the reason ------------------------------------------
echo '<!DOCTYPE html><html><body>404 Not Found</body></html>' >"$TMP/404.html"
expect_rc 1 "$CB" inspect "$TMP/404.html"
has err "neither a bundle file (no magic) nor a certbundle TXT record"
expect_rc 1 "$CB" inspect --format file "$TMP/404.html"
has err "not a certificate bundle file (bad magic"
head -c 500 "$TMP/bundle.cdn" >"$TMP/truncated.crt"
expect_rc 1 "$CB" inspect "$TMP/truncated.crt"
has err "truncated"
printf '_certbundle.%s\nv=cb2; b=AAAA\n' $H >"$TMP/v2.txt"
expect_rc 1 "$CB" inspect "$TMP/v2.txt"
has err 'unsupported certbundle TXT version "cb2"'
printf 'v=cb1; b=not*base64xx\n' >"$TMP/b64.txt"
expect_rc 1 "$CB" inspect "$TMP/b64.txt"
has err "not valid base64"
# A valid record published under another host's name.
sed "1s/.*/_certbundle.other.example.test/" "$TMP/bundle.txt" >"$TMP/other.txt"
expect_rc 1 "$CB" inspect --now $NOW "$TMP/other.txt"
has err 'bundle is for host "www.example.test", not "other.example.test"'
expect_rc 1 "$CB" inspect --now 2400000000 "$TMP/bundle.cdn"
has err "bundle expired at 2045-01-01"
expect_rc 1 "$CB" inspect "$TMP/missing.crt"
has err "missing.crt: No such file or directory"
echo "not pem" >"$TMP/bad.pem"
expect_rc 1 "$CB" make --host $H --chain "$TMP/bad.pem" --format txt
has err "no PEM certificate found"

# --- usage: exit 2 --------------------------------------------------------------
expect_rc 0 "$CB" --help
has out "exit codes:"
expect_rc 2 "$CB"
expect_rc 2 "$CB" frobnicate
has err "unknown command 'frobnicate'"
expect_rc 2 "$CB" make --chain "$T/good_leaf_chain.pem" --format txt
has err "make needs --host"
expect_rc 2 "$CB" make --host $H --chain "$T/good_leaf_chain.pem" --format pem
has err "unknown --format 'pem'"
expect_rc 2 "$CB" make --host $H --chain "$T/good_leaf_chain.pem" \
  --format txt --orbit 0102
has err "--orbit must be 16 hex digits"
expect_rc 2 "$CB" make --host $H --chain "$T/good_leaf_chain.pem" \
  --format txt --cipher NOT-A-CIPHER
has err "unknown --cipher 'NOT-A-CIPHER'"
expect_rc 2 "$CB" make --host $H --chain "$T/good_leaf_chain.pem" \
  --format txt --port 0
has err "--port must be 1..65535"
expect_rc 2 "$CB" inspect --bogus x
has err "unknown flag --bogus"
expect_rc 2 "$CB" inspect
has err "inspect needs exactly one FILE"
echo PASS
