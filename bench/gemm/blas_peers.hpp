// The BLAS-like peers, reached through dlopen so that each library keeps its own symbols.
#pragma once

#include <cstdint>
#include <string>

namespace gemm_bench {

// C = A·B, all row-major and contiguous (lda = k, ldb = n, ldc = n).
template <class T>
using RowMajorGemm = void (*)(const void* peer, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
                              const T* b, T* c);

struct Peer {
  std::string name;
  bool present = false;
  std::string detail;  // the kernel or version it reports, or why it is absent
  RowMajorGemm<float> sgemm = nullptr;
  RowMajorGemm<double> dgemm = nullptr;  // null: the peer has no f64 GEMM
  void (*set_threads)(const Peer& peer, int threads) = nullptr;
  void* handle = nullptr;
  void* functions[4] = {};
};

Peer open_openblas();
Peer open_blis();
Peer open_onednn();
Peer open_eigen();

}  // namespace gemm_bench
