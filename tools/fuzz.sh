#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers with clang's libFuzzer and
# AddressSanitizer/UBSan, outside Bazel's build (whose toolchain here is gcc).
#   tools/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# ./run test runs it with 10 s per target, so a target that stops building
# (or a quick crash) fails CI.
#
# Every fuzz target in the tree is found by asking Bazel for the
# netstack_fuzzer libraries (NAME_lib, third_party/fuzzing/fuzzer.bzl); each
# is compiled from the sources Bazel says it depends on (protos through
# protoc; sources vendored under third_party/ too, .cc/.cpp/.c, with their
# rules' includes and defines) and linked with the linkopts of the
# cc_library rules in its closure (the Debian libraries the third_party
# wrappers name), so a new target, a new dependency or a new library needs
# no edit here. Every source is compiled once (in parallel), through ccache
# in ~/.cache/netstack-fuzz-ccache (keyed by content, shared by every clone
# on the machine: a warm run recompiles only what changed); every target is
# linked, even when one fails; then every target that built runs, as many at
# a time as there are CPUs.
# One line per target, "fuzz: //pkg:name PASSED|CRASHED|FAILED TO BUILD",
# then a summary; the script exits non-zero if any target failed to build,
# or found a crash (left in $NETSTACK_FUZZ_OUT/<target>/, default
# /tmp/netstack-fuzz), or if no target was found.
# Installs clang-14, libclang-rt-14-dev and ccache if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
start=$SECONDS
for p in clang-14 libclang-rt-14-dev ccache; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=" $p"
done
if [[ -n "${missing:-}" ]]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2
fi

out=${NETSTACK_FUZZ_OUT:-/tmp/netstack-fuzz}
gen="$out/gen"
mkdir -p "$gen"

# ccache: the same object for the same source, flags and headers, whatever
# the clone's path (-fdebug-prefix-map and base_dir take it out of the key).
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/netstack-fuzz-ccache}
export CCACHE_BASEDIR=$PWD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G}
export CCACHE_NOHASHDIR=1
ccache --zero-stats >/dev/null
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fdebug-prefix-map=$PWD=."
CXX="clang++-14 -std=c++17 $FLAGS"
CC="clang-14 -std=c11 $FLAGS"

# path turns a label of a file in this workspace into its path.
path() { local l=${1#//}; echo "${l/://}"; }
query() { bazel query --noshow_progress "$@" 2>/dev/null; }

libs=$(query 'attr(name, "_fuzzer_lib$", kind(cc_library, //...))')
if [[ -z "$libs" ]]; then
  echo "fuzz.sh: no fuzz targets found (bazel query failed?)" >&2
  exit 1
fi

# Pass 1: each target's sources, flags, link options and seeds.
declare -A target_srcs target_label target_ldflags
cflags="-I. -I$gen -isystem /usr/include/android"
add_cflag() { [[ " $cflags " == *" $1 "* ]] || cflags+=" $1"; }
for lib in $libs; do
  name=${lib##*:}
  name=${name%_lib}
  target_label[$name]=${lib%_lib}
  dir="$out/$name"
  rm -rf "$dir/fuzzer"
  mkdir -p "$dir/corpus"
  # The workspace's sources in the target's closure, vendored third_party
  # ones included (the Debian libraries behind the other third_party
  # wrappers are linked, below).
  srcs=""
  while read -r label; do
    f=$(path "$label")
    case "$f" in
      *.cc | *.cpp | *.c) srcs+=" $f" ;;
      *.h | *.hpp | *.hh)
        # A vendored header may be included by its bare name.
        if [[ "$f" == third_party/* ]]; then add_cflag "-I$(dirname "$f")"; fi
        ;;
      *.proto)
        protoc -I. --cpp_out="$gen" "$f"
        srcs+=" $gen/${f%.proto}.pb.cc"
        ;;
    esac
  done < <(query "kind('source file', deps($lib))" | grep '^//' |
    grep -v '^//third_party/fuzzing:')
  target_srcs[$name]=$srcs
  # The closure's rules: third_party ones' includes and defines (they apply
  # to whoever depends on them), every cc_library's linkopts.
  rules=$(query "kind(cc_library, deps($lib))" --output=build)
  while read -r pkg attr values; do
    for v in $values; do
      case "$attr" in
        includes) add_cflag "-I$pkg/$v" ;;
        defines) add_cflag "-D$v" ;;
      esac
    done
  done < <(awk -v root="$PWD/" '
    /^# / { loc = $2 }
    /^  (includes|defines) = \[/ {
      p = loc; sub(/\/BUILD(\.bazel)?:[0-9]+:[0-9]+$/, "", p)
      if (index(p, root) != 1) next
      p = substr(p, length(root) + 1)
      a = $1; v = $0; sub(/^[^[]*\[/, "", v); sub(/\].*$/, "", v)
      gsub(/[",]/, " ", v)
      if (p ~ /^third_party\//) print p, a, v
    }' <<<"$rules")
  target_ldflags[$name]=$({ grep -E '^  linkopts = \[' <<<"$rules" || true; } |
    { grep -o '"[^"]*"' || true; } | tr -d '"' | awk '!seen[$0]++' | tr '\n' ' ')
  # Seeds: the smoke test's data.
  for label in $(query "kind('source file', labels(data, ${lib%_lib}_smoke_test))"); do
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
phase=$SECONDS
echo "== compiling $(wc -l <"$out/sources") sources for ${#target_srcs[@]} targets (ccache)"
export CXX CC cflags obj
xargs -P "$(nproc)" -I{} bash -c 'o="$obj/$(echo {} | tr / _).o"; \
  case {} in *.c) c=$CC ;; *) c=$CXX ;; esac; \
  ccache $c $cflags -c {} -o "$o" >"$o.log" 2>&1 || \
  { rm -f "$o"; echo "!! cannot compile {}; see $o.log" >&2; }' \
  <"$out/sources" || true
ccache --show-stats 2>/dev/null | grep -E "Hits|Misses" | sed 's/^/   ccache: /' || true
echo "   compiled in $((SECONDS - phase)) s"
phase=$SECONDS

# Pass 3: link each target (in parallel); a target whose sources did not all
# compile or that does not link failed to build.
link_one() {
  local name=$1 dir="$out/$1" objs=() missing_obj="" f o
  for f in ${target_srcs[$name]}; do
    o="$obj/$(echo "$f" | tr / _).o"
    if [[ -f "$o" ]]; then objs+=("$o"); else missing_obj+=" $f"; fi
  done
  if [[ -n "$missing_obj" ]]; then
    echo "cannot compile$missing_obj" >"$dir/build.log"
    return 1
  fi
  # shellcheck disable=SC2086
  $CXX "${objs[@]}" -Wl,--as-needed ${target_ldflags[$name]} -lpthread \
    -latomic -lrt -o "$dir/fuzzer" >"$dir/build.log" 2>&1
}
for name in "${!target_srcs[@]}"; do
  (link_one "$name" && touch "$out/$name/built" || rm -f "$out/$name/built") &
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
done
wait
echo "== linked in $((SECONDS - phase)) s"
built=()
build_failed=()
for name in "${!target_srcs[@]}"; do
  if [[ -f "$out/$name/built" ]]; then
    built+=("$name")
  else
    echo "!! $name FAILED TO BUILD; see $out/$name/build.log:" >&2
    grep -E "cannot compile|error|undefined reference" "$out/$name/build.log" |
      head -5 | sed "s/^/   /" >&2
    build_failed+=("$name")
  fi
done

# Pass 4: fuzz, as many targets at a time as there are CPUs.
echo "== fuzzing ${#built[@]} targets for ${seconds}s each"
for name in "${built[@]}"; do
  (
    dir="$out/$name"
    if "$dir/fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$dir/" "$dir/corpus" >"$dir/fuzz.log" 2>&1; then
      rm -f "$dir/crashed"
    else
      touch "$dir/crashed"
    fi
  ) &
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
done
wait

crashed=()
for name in $(printf '%s\n' "${!target_srcs[@]}" | sort); do
  dir="$out/$name"
  label=${target_label[$name]}
  if [[ ! -f "$dir/built" ]]; then
    echo "fuzz: $label FAILED TO BUILD"
  elif [[ -f "$dir/crashed" ]]; then
    echo "fuzz: $label CRASHED (see $dir/fuzz.log and $dir/crash-*)"
    crashed+=("$name")
  else
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/fuzz.log" |
      grep -o '[0-9]*$' || echo "?")
    rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$dir/fuzz.log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz: $label PASSED ($runs runs in ${seconds}s, peak RSS ${rss} MB)"
  fi
done

total=$(wc -w <<<"$libs")
echo "fuzz.sh: $total targets: ${#built[@]} built, ${#build_failed[@]} failed to build," \
  "${#crashed[@]} crashed ($((SECONDS - start)) s)"
if ((${#build_failed[@]})); then
  echo "FAILED TO BUILD: ${build_failed[*]}" >&2
fi
if ((${#crashed[@]})); then
  echo "CRASHED: ${crashed[*]}" >&2
fi
((${#build_failed[@]} == 0 && ${#crashed[@]} == 0))
