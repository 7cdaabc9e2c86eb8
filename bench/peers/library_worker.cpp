// The library peers of the product workloads (W7 matmul, W8 dense layer and MLP): OpenBLAS, BLIS,
// oneDNN and Eigen, one per process. The GEMM calls are bench/gemm's peer wrappers (dlopen, so
// OpenBLAS and BLIS keep their own cblas symbols); W8 adds the bias pass or the library's own fusion.
//
//   library_worker --peer openblas|blis|onednn|eigen --threads N   (then worker_loop.hpp's protocol)
#include <cstdlib>
#include <memory>
#include <string>

#include "bench_inputs.hpp"
#include "dense_layers.hpp"
#include "worker_loop.hpp"

namespace {

using gemm_bench::Peer;

template <class T>
std::optional<bench::PreparedCase> matmul_case(const Peer& peer, const std::vector<std::int64_t>& d, std::string& why) {
  const auto gemm = sizeof(T) == 4 ? reinterpret_cast<gemm_bench::RowMajorGemm<T>>(peer.sgemm)
                                   : reinterpret_cast<gemm_bench::RowMajorGemm<T>>(peer.dgemm);
  if (gemm == nullptr) {
    why = peer.name + " has no " + (sizeof(T) == 4 ? "f32" : "f64") + " GEMM";
    return std::nullopt;
  }
  const std::int64_t m = d[0], k = d[1], n = d[2];
  auto a = std::make_shared<std::vector<T>>(bench::make_input<T>(1, m * k));
  auto b = std::make_shared<std::vector<T>>(bench::make_input<T>(2, k * n));
  auto c = std::make_shared<std::vector<T>>(std::size_t(m * n));
  const Peer* library = &peer;
  bench::PreparedCase prepared;
  prepared.run = [=] { gemm(library, m, n, k, a->data(), b->data(), c->data()); };
  prepared.write_outputs = [c](std::FILE* file) { std::fwrite(c->data(), sizeof(T), c->size(), file); };
  return prepared;
}

bench::DenseLayer make_layer(const Peer& peer, bench::DenseShape shape, bool relu) {
#if TENSORJIT_BENCH_HAVE_EIGEN
  if (peer.name == "Eigen") return bench::eigen_dense(shape, relu);
#endif
#if TENSORJIT_BENCH_HAVE_ONEDNN
  if (peer.name == "oneDNN") return bench::onednn_dense(shape, relu);
#endif
  return bench::blas_dense(peer, shape, relu);
}

// W8dense: dims batch, in, out. W8mlp: batch, in, hidden, out (relu after the hidden layer only).
std::optional<bench::PreparedCase> dense_case(const Peer& peer, const std::vector<std::int64_t>& d) {
  const bool mlp = d.size() == 4;
  const std::int64_t batch = d[0], in = d[1], hidden = d[2], out = mlp ? d[3] : d[2];
  auto x = std::make_shared<std::vector<float>>(bench::make_input<float>(1, batch * in));
  auto w1 = std::make_shared<std::vector<float>>(bench::make_input<float>(2, in * hidden));
  auto b1 = std::make_shared<std::vector<float>>(bench::make_input<float>(3, hidden));
  auto w2 = std::make_shared<std::vector<float>>(bench::make_input<float>(4, mlp ? hidden * out : 0));
  auto b2 = std::make_shared<std::vector<float>>(bench::make_input<float>(5, mlp ? out : 0));
  auto h = std::make_shared<std::vector<float>>(std::size_t(batch * hidden));
  auto y = std::make_shared<std::vector<float>>(std::size_t(mlp ? batch * out : 0));
  const bench::DenseLayer first = make_layer(peer, {batch, in, hidden}, true);
  const bench::DenseLayer second = mlp ? make_layer(peer, {batch, hidden, out}, false) : bench::DenseLayer{};
  bench::PreparedCase prepared;
  prepared.run = [=] {
    first(x->data(), w1->data(), b1->data(), h->data());
    if (mlp) second(h->data(), w2->data(), b2->data(), y->data());
  };
  prepared.write_outputs = [=](std::FILE* file) {
    const auto& result = mlp ? *y : *h;
    std::fwrite(result.data(), sizeof(float), result.size(), file);
  };
  return prepared;
}

Peer open_peer(const std::string& name) {
  if (name == "openblas") return gemm_bench::open_openblas();
  if (name == "blis") return gemm_bench::open_blis();
  if (name == "onednn") return gemm_bench::open_onednn();
  if (name == "eigen") return gemm_bench::open_eigen();
  Peer unknown;
  unknown.name = name;
  unknown.detail = "absent: unknown peer " + name;
  return unknown;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name = "openblas";
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--peer") name = argv[i + 1];
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
  }
  Peer peer = open_peer(name);
  if (!peer.present) {
    std::fprintf(stderr, "%s\n", peer.detail.c_str());
    return 3;  // the driver reports the peer absent with this message
  }
  if (peer.set_threads != nullptr) peer.set_threads(peer, threads);
  return bench::serve(peer.name + ": " + peer.detail + ", " + std::to_string(threads) + " thread(s)",
                      [&](const bench::CaseRequest& request, std::string& why) -> std::optional<bench::PreparedCase> {
                        if (request.workload == "W7")
                          return request.dtype == "f64" ? matmul_case<double>(peer, request.dims, why)
                                                        : matmul_case<float>(peer, request.dims, why);
                        if (request.workload == "W8dense" || request.workload == "W8mlp") return dense_case(peer, request.dims);
                        why = "a library peer runs the product workloads (W7, W8) only";
                        return std::nullopt;
                      });
}
