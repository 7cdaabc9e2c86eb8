#!/bin/sh
# The measurements of docs/epilogues.md, from a configured build folder given as $1 (default
# build): W8's dense layer on one pinned core, the wide product on all cores, the MLP on all cores.
# OpenBLAS's core and L2 overrides are unset here, as BENCHMARKS.md asks.
set -e
build=${1:-build}
bench=$build/bench/epilogues/epilogue_peers
cores=$(nproc)
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE TENSORJIT_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
  taskset -c 0 "$bench" --section dense --threads 1 --clock cpu --rounds 9
"$bench" --section wide --threads "$cores" --rounds 7
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS="$cores" OMP_NUM_THREADS="$cores" \
  "$bench" --section mlp --threads "$cores" --rounds 9
