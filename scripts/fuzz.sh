#!/usr/bin/env bash
# Runs each fuzz target of tests/fuzz under libFuzzer (coverage-guided, with ASan+UBSan) for a
# number of executions, in its own tree build-fuzz/ compiled with Debian's clang 19 (installed
# when missing, as root). The test command replays the same targets' corpora (tests_fuzz); this
# is the long run.
#
#   bash scripts/fuzz.sh                  # 10^4 executions per target
#   bash scripts/fuzz.sh 1000000          # the long run
#   bash scripts/fuzz.sh 1000000 npy npz  # some targets only
#
# New inputs libFuzzer finds go to build-fuzz/corpus/<target>/, not into the repository; a crash
# leaves its input in build-fuzz/crash-<target>-*, which `build-fuzz/tests/fuzz/fuzz_<target> <file>`
# replays.
set -euo pipefail

runs=${1:-10000}
shift || true
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(text_ir npy npz safetensors disk_cache)

missing=()
for p in clang-19 libclang-rt-19-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "fuzz: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
bash scripts/setup.sh build >/dev/null  # the project's own packages

if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTENSORJIT_FUZZ=ON -DTENSORJIT_BUILD_BENCH=OFF >/dev/null
fi
ninja -C build-fuzz -j "$(nproc)" --quiet "${targets[@]/#/fuzz_}"

status=0
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$target"/* "$corpus"/
  log=build-fuzz/fuzz-$target.log
  echo "fuzz: $target, $runs executions"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     build-fuzz/tests/fuzz/fuzz_"$target" -runs="$runs" -max_len=4096 -timeout=10 \
       -artifact_prefix=build-fuzz/crash-"$target"- "$corpus" >"$log" 2>&1; then
    grep -E "^Done [0-9]+ runs" "$log" || tail -1 "$log"
  else
    echo "fuzz: $target FAILED; the input and report: $log" >&2
    tail -30 "$log" >&2
    status=1
  fi
done
exit $status
