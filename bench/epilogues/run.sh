#!/bin/sh
# The measurements of docs/epilogues.md, from a configured build folder given as $1 (default
# build): W8's dense layer and the MLP on one pinned core (thread CPU time, stable on a shared
# machine), the wide product and the MLP on all cores (wall time). OpenBLAS's core and L2
# overrides are unset, as every benchmark command does (bench/README.md).
set -e
build=${1:-build}
bench=$build/bench/epilogues/epilogue_peers
cores=$(nproc)
one_core="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE TENSORJIT_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 taskset -c 0"
all_cores="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=$cores OMP_NUM_THREADS=$cores"
$one_core "$bench" --section dense --threads 1 --clock cpu --rounds 15
$all_cores "$bench" --section wide --threads "$cores" --rounds 7
$one_core "$bench" --section mlp --threads 1 --clock cpu --rounds 15
$all_cores "$bench" --section mlp --threads "$cores" --rounds 9
