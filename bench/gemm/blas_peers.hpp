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
// The OpenBLAS NumPy's wheel bundles (numpy.libs/libscipy_openblas64_*.so: 64-bit integers, its
// symbols prefixed scipy_ and suffixed 64_), from its path; what numpy.matmul calls for 2-D f32/f64.
Peer open_numpy_openblas(const std::string& path);
// The MKL PyTorch's wheel links into torch/lib/libtorch_cpu.so (Fortran sgemm_/dgemm_, 32-bit
// integers), from its path; what torch.matmul calls for 2-D f32/f64 on the CPU.
Peer open_torch_mkl(const std::string& path);
Peer open_blis();
Peer open_onednn();
Peer open_eigen();

}  // namespace gemm_bench
