#!/usr/bin/env bash
# Instructions and heap allocations per eval of W11's a*b + c over 8 f32 (the expression built
# each time), as the difference of two valgrind runs of build/bench/latency/eval_instructions
# (200 and 1200 evals) divided by 1000: start-up, the first eval's compile and the process's exit
# cancel out. Counts, not times, so a loaded machine gives the same figure.
#
#   bash bench/latency/eval_instructions.sh [build folder, default build]
set -euo pipefail
build=${1:-build}
program=$build/bench/latency/eval_instructions
[ -x "$program" ] || { echo "eval_instructions.sh: $program is missing; build it: ninja -C $build eval_instructions" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "eval_instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TENSORJIT_CACHE_DIR=$scratch/cache
count() {  # count <evals>: prints instructions and allocations of one run
  valgrind --tool=callgrind --callgrind-out-file="$scratch/cg" "$program" "$1" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  valgrind --tool=memcheck --leak-check=no "$program" "$1" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}
# The first run fills the disk cache, tier-ups included, so that neither counted run compiles
# (valgrind shows the program another CPU than the host's, so the host's cache would not serve).
count 1200 >/dev/null
read -r -d '' small_instructions small_allocations < <(count 200) || true
read -r -d '' large_instructions large_allocations < <(count 1200) || true
echo "per eval: $(( (large_instructions - small_instructions) / 1000 )) instructions," \
     "$(( (large_allocations - small_allocations) / 1000 )) heap allocations"
