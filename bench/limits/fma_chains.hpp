// The loop the FMA peak is measured with (bench/README.md, "Limits first"), for bench/limits'
// fma_peak and for gemm_peers, which reads its GEMMs against the peak measured in its own run.
// Independent FMA chains held in registers at the native width, more chains than FMA latency
// times FMA pipes, so the loop is bound by FMA throughput alone. fma_chains.cpp is built for the
// host (-march=native) whatever the flags of the program that links it.
#pragma once

namespace bench {

// The chains' vector width: 512 bits where AVX-512 is present, else 256 with AVX, else 128.
int fma_vector_bits();

// Run the chains on the calling thread; each returns the flops done (two a lane per FMA).
double fma_chains_f32();
double fma_chains_f64();

}  // namespace bench
