#include "blas_peers.hpp"

#include <dlfcn.h>
#include <omp.h>

namespace gemm_bench {
namespace {

// CBLAS constants (the same values in every CBLAS).
constexpr int cblas_row_major = 101;
constexpr int cblas_no_trans = 111;
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);
using CblasDgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                            double*, int);

void* open_library(Peer& peer, const char* file) {
  peer.handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (peer.handle == nullptr) peer.detail = std::string("absent: ") + dlerror();
  return peer.handle;
}

void* symbol(Peer& peer, const char* name) {
  void* address = dlsym(peer.handle, name);
  if (address == nullptr) {
    peer.present = false;
    peer.detail = std::string("absent: no ") + name;
  }
  return address;
}

void cblas_sgemm_row_major(const void* peer, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                           const float* b, float* c) {
  auto gemm = reinterpret_cast<CblasSgemm>(static_cast<const Peer*>(peer)->functions[0]);
  gemm(cblas_row_major, cblas_no_trans, cblas_no_trans, int(m), int(n), int(k), 1.0f, a, int(k), b, int(n), 0.0f, c,
       int(n));
}

void cblas_dgemm_row_major(const void* peer, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                           const double* b, double* c) {
  auto gemm = reinterpret_cast<CblasDgemm>(static_cast<const Peer*>(peer)->functions[1]);
  gemm(cblas_row_major, cblas_no_trans, cblas_no_trans, int(m), int(n), int(k), 1.0, a, int(k), b, int(n), 0.0, c,
       int(n));
}

}  // namespace

Peer open_openblas() {
  Peer peer;
  peer.name = "OpenBLAS";
  if (open_library(peer, "libopenblas.so.0") == nullptr) return peer;
  peer.present = true;
  peer.functions[0] = symbol(peer, "cblas_sgemm");
  peer.functions[1] = symbol(peer, "cblas_dgemm");
  peer.functions[2] = symbol(peer, "openblas_set_num_threads");
  auto corename = reinterpret_cast<const char* (*)()>(symbol(peer, "openblas_get_corename"));
  if (!peer.present) return peer;
  peer.detail = std::string("core ") + corename();
  peer.sgemm = &cblas_sgemm_row_major;
  peer.dgemm = &cblas_dgemm_row_major;
  peer.set_threads = [](const Peer& self, int threads) {
    reinterpret_cast<void (*)(int)>(self.functions[2])(threads);
  };
  return peer;
}

Peer open_blis() {
  Peer peer;
  peer.name = "BLIS";
  if (open_library(peer, "libblis.so.4") == nullptr) return peer;
  peer.present = true;
  peer.functions[0] = symbol(peer, "cblas_sgemm");
  peer.functions[1] = symbol(peer, "cblas_dgemm");
  peer.functions[2] = symbol(peer, "bli_thread_set_num_threads");
  auto version = reinterpret_cast<const char* (*)()>(symbol(peer, "bli_info_get_version_str"));
  auto arch_id = reinterpret_cast<int (*)()>(symbol(peer, "bli_arch_query_id"));
  auto arch_name = reinterpret_cast<const char* (*)(int)>(symbol(peer, "bli_arch_string"));
  if (!peer.present) return peer;
  peer.detail = std::string(version()) + " config " + arch_name(arch_id());
  peer.sgemm = &cblas_sgemm_row_major;
  peer.dgemm = &cblas_dgemm_row_major;
  peer.set_threads = [](const Peer& self, int threads) {
    reinterpret_cast<void (*)(std::int64_t)>(self.functions[2])(threads);
  };
  return peer;
}

Peer open_numpy_openblas(const std::string& path) {
  Peer peer;
  peer.name = "NumPy OpenBLAS";
  if (open_library(peer, path.c_str()) == nullptr) return peer;
  peer.present = true;
  peer.functions[0] = symbol(peer, "scipy_cblas_sgemm64_");
  peer.functions[1] = symbol(peer, "scipy_cblas_dgemm64_");
  peer.functions[2] = symbol(peer, "scipy_openblas_set_num_threads64_");
  auto corename = reinterpret_cast<const char* (*)()>(symbol(peer, "scipy_openblas_get_corename64_"));
  auto config = reinterpret_cast<const char* (*)()>(symbol(peer, "scipy_openblas_get_config64_"));
  if (!peer.present) return peer;
  peer.detail = std::string(config()) + ", core " + corename();
  using Sgemm64 = void (*)(int, int, int, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                           const float*, std::int64_t, float, float*, std::int64_t);
  using Dgemm64 = void (*)(int, int, int, std::int64_t, std::int64_t, std::int64_t, double, const double*,
                           std::int64_t, const double*, std::int64_t, double, double*, std::int64_t);
  peer.sgemm = [](const void* self, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                  float* c) {
    reinterpret_cast<Sgemm64>(static_cast<const Peer*>(self)->functions[0])(
        cblas_row_major, cblas_no_trans, cblas_no_trans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
  };
  peer.dgemm = [](const void* self, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                  const double* b, double* c) {
    reinterpret_cast<Dgemm64>(static_cast<const Peer*>(self)->functions[1])(
        cblas_row_major, cblas_no_trans, cblas_no_trans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
  };
  peer.set_threads = [](const Peer& self, int threads) {
    reinterpret_cast<void (*)(int)>(self.functions[2])(threads);
  };
  return peer;
}

Peer open_torch_mkl(const std::string& path) {
  Peer peer;
  peer.name = "PyTorch MKL";
  if (open_library(peer, path.c_str()) == nullptr) return peer;
  peer.present = true;
  peer.functions[0] = symbol(peer, "sgemm_");
  peer.functions[1] = symbol(peer, "dgemm_");
  peer.functions[2] = symbol(peer, "MKL_Set_Num_Threads_Local");
  if (!peer.present) return peer;
  peer.detail = "MKL sgemm_/dgemm_ of " + path.substr(path.rfind('/') + 1);
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: the Fortran call with B first.
  using Sgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                         const int*, const float*, const int*, const float*, float*, const int*);
  using Dgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                         const int*, const double*, const int*, const double*, double*, const int*);
  peer.sgemm = [](const void* self, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                  float* c) {
    const int mm = int(m), nn = int(n), kk = int(k);
    const float one = 1, zero = 0;
    reinterpret_cast<Sgemm>(static_cast<const Peer*>(self)->functions[0])("N", "N", &nn, &mm, &kk, &one, b, &nn, a,
                                                                          &kk, &zero, c, &nn);
  };
  peer.dgemm = [](const void* self, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                  const double* b, double* c) {
    const int mm = int(m), nn = int(n), kk = int(k);
    const double one = 1, zero = 0;
    reinterpret_cast<Dgemm>(static_cast<const Peer*>(self)->functions[1])("N", "N", &nn, &mm, &kk, &one, b, &nn, a,
                                                                          &kk, &zero, c, &nn);
  };
  peer.set_threads = [](const Peer& self, int threads) {
    reinterpret_cast<int (*)(int)>(self.functions[2])(threads);
  };
  return peer;
}

Peer open_onednn() {
  Peer peer;
  peer.name = "oneDNN";
  if (open_library(peer, "libdnnl.so.2") == nullptr && open_library(peer, "libdnnl.so.3") == nullptr) return peer;
  peer.present = true;
  peer.functions[0] = symbol(peer, "dnnl_sgemm");
  if (!peer.present) return peer;
  peer.detail = "dnnl_sgemm (f32 only), OpenMP threads";
  peer.sgemm = [](const void* self, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                  float* c) {
    using DnnlSgemm = int (*)(char, char, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                              const float*, std::int64_t, float, float*, std::int64_t);
    reinterpret_cast<DnnlSgemm>(static_cast<const Peer*>(self)->functions[0])('N', 'N', m, n, k, 1.0f, a, k, b, n,
                                                                              0.0f, c, n);
  };
  peer.set_threads = [](const Peer&, int threads) { omp_set_num_threads(threads); };
  return peer;
}

}  // namespace gemm_bench
