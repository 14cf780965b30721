#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers with clang's libFuzzer and
# AddressSanitizer/UBSan, outside Bazel's build (whose toolchain here is gcc).
#   tools/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#
# Every fuzz target in the tree is found by asking Bazel for the
# netstack_fuzzer libraries (NAME_lib, third_party/fuzzing/fuzzer.bzl); each
# is compiled from the sources Bazel says it depends on (protos through
# protoc), so a new target or a new dependency needs no edit here. Every
# source is compiled once (in parallel), every target linked, even when one
# fails; then every target that built runs.
# The script ends with a summary and exits non-zero if any target failed to
# build, or found a crash (left in /tmp/netstack-fuzz/<target>/), or found
# no target at all.
# Installs clang-14 and libclang-rt-14-dev if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=" $p"
done
if [[ -n "${missing:-}" ]]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2
fi

out=/tmp/netstack-fuzz
gen="$out/gen"
mkdir -p "$gen"

# Everything the targets may link against: BoringSSL (Debian's android
# build), abseil, protobuf, zlib, brotli, c-ares, libpsl. --as-needed drops
# the rest.
LIBS="-Wl,--as-needed -L/usr/lib/x86_64-linux-gnu/android -Wl,-rpath,/usr/lib/x86_64-linux-gnu/android -lssl -lcrypto"
LIBS+=" $(grep -o '"-l[^"]*"' third_party/abseil/BUILD.bazel | tr -d '"' | tr '\n' ' ')"
LIBS+=" -lprotobuf -lz -lbrotlienc -lbrotlidec -lcares -lpsl -lpthread -latomic -lrt"
CXX="clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I. -I$gen -isystem /usr/include/android"

# path turns a label of a file in this workspace into its path.
path() { local l=${1#//}; echo "${l/://}"; }

libs=$(bazel query --noshow_progress 'attr(name, "_fuzzer_lib$", kind(cc_library, //...))' 2>/dev/null)
if [[ -z "$libs" ]]; then
  echo "fuzz.sh: no fuzz targets found (bazel query failed?)" >&2
  exit 1
fi

# Pass 1: each target's sources and seeds.
declare -A target_srcs
for lib in $libs; do
  name=${lib##*:}
  name=${name%_lib}
  dir="$out/$name"
  rm -rf "$dir/fuzzer"
  mkdir -p "$dir/corpus"
  # The workspace's sources in the target's closure: ours, and vendored
  # third_party sources (ada's .cpp), instrumented like ours. Debian-package
  # wrappers in third_party list no sources: those are prebuilt and linked
  # through LIBS.
  srcs=""
  while read -r label; do
    f=$(path "$label")
    case "$f" in
      *.cc | *.cpp) srcs+=" $f" ;;
      *.proto)
        protoc -I. --cpp_out="$gen" "$f"
        srcs+=" $gen/${f%.proto}.pb.cc"
        ;;
    esac
  done < <(bazel query --noshow_progress "kind('source file', deps($lib))" 2>/dev/null |
    grep '^//')
  target_srcs[$name]=$srcs
  # Seeds: the smoke test's data.
  for label in $(bazel query --noshow_progress "kind('source file', labels(data, ${lib%_lib}_smoke_test))" 2>/dev/null); do
    f=$(path "$label")
    if [[ -f "$f" ]]; then cp "$f" "$dir/corpus/"; fi
  done
done

# Pass 2: every source once, in parallel (targets share most of theirs).
obj="$out/obj"
rm -rf "$obj"
mkdir -p "$obj"
# shellcheck disable=SC2086
printf '%s\n' ${target_srcs[*]} | sort -u >"$out/sources"
echo "== compiling $(wc -l <"$out/sources") sources for ${#target_srcs[@]} targets"
export CXX obj
xargs -P "$(nproc)" -I{} bash -c 'o="$obj/$(echo {} | tr / _).o"; \
  $CXX -c {} -o "$o" >"$o.log" 2>&1 || { rm -f "$o"; echo "!! cannot compile {}; see $o.log" >&2; }' \
  <"$out/sources" || true

# Pass 3: link each target; a target whose sources did not all compile or
# that does not link failed to build.
built=()
build_failed=()
for name in "${!target_srcs[@]}"; do
  dir="$out/$name"
  objs=()
  missing_obj=""
  for f in ${target_srcs[$name]}; do
    o="$obj/$(echo "$f" | tr / _).o"
    if [[ -f "$o" ]]; then objs+=("$o"); else missing_obj+=" $f"; fi
  done
  if [[ -n "$missing_obj" ]]; then
    echo "!! $name FAILED TO BUILD: cannot compile$missing_obj" >&2
    build_failed+=("$name")
    continue
  fi
  # shellcheck disable=SC2086
  if $CXX "${objs[@]}" $LIBS -o "$dir/fuzzer" >"$dir/build.log" 2>&1; then
    built+=("$name")
  else
    echo "!! $name FAILED TO LINK; see $dir/build.log:" >&2
    grep -E "error|undefined reference" "$dir/build.log" | head -5 | sed "s/^/   /" >&2
    build_failed+=("$name")
  fi
done

crashed=()
for name in "${built[@]}"; do
  dir="$out/$name"
  echo "== $name: fuzzing for ${seconds}s"
  if ! "$dir/fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$dir/" "$dir/corpus" >"$dir/fuzz.log" 2>&1; then
    echo "!! $name crashed; see $dir/fuzz.log and $dir/crash-*" >&2
    crashed+=("$name")
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$dir/fuzz.log" | sed "s/^/   /" || true
done

total=$(wc -w <<<"$libs")
echo "fuzz.sh: $total targets: ${#built[@]} built, ${#build_failed[@]} failed to build," \
  "${#crashed[@]} crashed"
if ((${#build_failed[@]})); then
  echo "FAILED TO BUILD: ${build_failed[*]}" >&2
fi
if ((${#crashed[@]})); then
  echo "CRASHED: ${crashed[*]}" >&2
fi
((${#build_failed[@]} == 0 && ${#crashed[@]} == 0))
