// Eigen as a peer: Map row-major buffers and evaluate noalias() products.
#include "blas_peers.hpp"

#if TENSORJIT_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif

namespace gemm_bench {

#if TENSORJIT_BENCH_HAVE_EIGEN
namespace {

template <class T>
void eigen_gemm(const void*, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, T* c) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Matrix> a_map(a, m, k), b_map(b, k, n);
  Eigen::Map<Matrix> c_map(c, m, n);
  c_map.noalias() = a_map * b_map;
}

}  // namespace

Peer open_eigen() {
  Peer peer;
  peer.name = "Eigen";
  peer.present = true;
  peer.detail = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                std::to_string(EIGEN_MINOR_VERSION) + ", -O3 -march=native, OpenMP threads";
  peer.sgemm = &eigen_gemm<float>;
  peer.dgemm = &eigen_gemm<double>;
  peer.set_threads = [](const Peer&, int threads) { Eigen::setNbThreads(threads); };
  return peer;
}
#else
Peer open_eigen() {
  Peer peer;
  peer.name = "Eigen";
  peer.detail = "absent: Eigen3 not found at configure time";
  return peer;
}
#endif

}  // namespace gemm_bench
