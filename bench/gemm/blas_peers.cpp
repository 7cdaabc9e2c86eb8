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
