#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers with clang's libFuzzer and
# AddressSanitizer/UBSan, outside Bazel (whose toolchain here is gcc).
#   tools/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# Installs clang-14 and libclang-rt-14-dev if missing. Crashes are left in
# /tmp/netstack-fuzz/<target>/ and make the script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=" $p"
done
if [[ -n "${missing:-}" ]]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2
fi

ABSL_LIBS="-L/usr/lib/x86_64-linux-gnu/android -Wl,-rpath,/usr/lib/x86_64-linux-gnu/android -lcrypto $(grep -o '"-l[^"]*"' third_party/abseil/BUILD.bazel | tr -d '"' | tr '\n' ' ')"
CXX="clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I. -isystem /usr/include/android"
out=/tmp/netstack-fuzz
mkdir -p "$out"

# Generated protobuf code for targets whose parsers read protos (Bazel's
# cc_proto_library does this in the build; here protoc writes it to $gen).
# The sources field below may carry compiler flags too (it is word-split).
gen="$out/gen"
mkdir -p "$gen"
protoc --cpp_out="$gen" prefetch/cert_bundle.proto
PROTO_FLAGS="-I$gen -lprotobuf -lz"

# target: fuzzer source, then the sources it needs, then a seed.
targets=(
  "http_response_headers|net/http/http_response_headers_fuzzer.cc net/http/http_response_headers.cc|net/http/testdata/fuzz/headers_seed"
  "http_chunked_decoder|net/http/http_chunked_decoder_fuzzer.cc net/http/http_chunked_decoder.cc|net/http/testdata/fuzz/chunked_seed"
  "parsed_cookie|net/http/parsed_cookie_fuzzer.cc net/http/parsed_cookie.cc|net/http/testdata/fuzz/cookie_seed"
  "url|net/base/url_fuzzer.cc net/base/url.cc net/base/ip_endpoint.cc|net/base/url_fuzz_seed.txt"
  "ocsp_crl|cert/ocsp_fuzzer.cc cert/ocsp.cc cert/crl.cc cert/x509_util.cc|cert/testdata/ocsp_response_seed.der"
  "dns_response|dns/dns_response_fuzzer.cc dns/dns_response.cc net/base/ip_endpoint.cc|dns/testdata/dns_response_seed.bin"
  "cert_bundle_file|prefetch/cert_bundle_file_fuzzer.cc prefetch/cert_bundle.cc $gen/prefetch/cert_bundle.pb.cc net/base/url.cc net/base/ip_endpoint.cc $PROTO_FLAGS|prefetch/testdata/fuzz/file_rsa_zlib.bin"
  "cert_bundle_txt|prefetch/cert_bundle_txt_fuzzer.cc prefetch/cert_bundle.cc $gen/prefetch/cert_bundle.pb.cc net/base/url.cc net/base/ip_endpoint.cc $PROTO_FLAGS|prefetch/testdata/fuzz/txt_rsa.txt"
)
status=0
for t in "${targets[@]}"; do
  IFS="|" read -r name srcs seed <<<"$t"
  dir="$out/$name"
  mkdir -p "$dir/corpus"
  cp "$seed" "$dir/corpus/"
  # shellcheck disable=SC2086
  $CXX $srcs $ABSL_LIBS -o "$dir/fuzzer"
  echo "== $name: fuzzing for ${seconds}s"
  if ! (cd "$PWD" && "$dir/fuzzer" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus" >"$dir/fuzz.log" 2>&1); then
    echo "!! $name crashed; see $dir/fuzz.log and $dir/crash-*" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$dir/fuzz.log" | sed "s/^/   /"
done
exit $status
