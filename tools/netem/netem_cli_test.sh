#!/bin/bash
# Checks the netem binary's command-line contract: exit code 2 on bad flags,
# 0 for --help, the listener lines and "ready" on stdout, and exit 0 on
# SIGTERM.
set -u
NETEM="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/netem/netem"
TMP="${TEST_TMPDIR:-/tmp}"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$NETEM" --bogus >/dev/null 2>"$TMP/err"; rc=$?
[[ $rc == 2 ]] || fail "--bogus exited $rc, want 2"
grep -q "unknown flag" "$TMP/err" || fail "no error message: $(cat "$TMP/err")"

"$NETEM" --tcp 127.0.0.1:0=127.0.0.1:9 --rtt-ms ten >/dev/null 2>&1; rc=$?
[[ $rc == 2 ]] || fail "bad --rtt-ms exited $rc, want 2"

"$NETEM" --help >"$TMP/help"; rc=$?
[[ $rc == 0 ]] || fail "--help exited $rc"
grep -q -- "--rate-kbps" "$TMP/help" || fail "help lacks --rate-kbps"

"$NETEM" --tcp 127.0.0.1:0=127.0.0.1:9 --udp 127.0.0.1:0=127.0.0.1:53 \
  --rtt-ms 1 >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do
  grep -q '^ready$' "$TMP/out" && break
  sleep 0.05
done
grep -q '^ready$' "$TMP/out" || { kill $pid; fail "no ready line"; }
grep -Eq '^listening tcp 127\.0\.0\.1:[1-9][0-9]* -> 127\.0\.0\.1:9$' \
  "$TMP/out" || fail "bad tcp line: $(cat "$TMP/out")"
grep -Eq '^listening udp 127\.0\.0\.1:[1-9][0-9]* -> 127\.0\.0\.1:53$' \
  "$TMP/out" || fail "bad udp line: $(cat "$TMP/out")"
kill -TERM $pid
wait $pid; rc=$?
[[ $rc == 0 ]] || fail "SIGTERM exit code $rc"
echo PASS
