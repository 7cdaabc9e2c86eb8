#include <Eigen/Core>

#include "peers.hpp"

namespace epilogue_bench {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Row = Eigen::Matrix<float, 1, Eigen::Dynamic>;

void eigen_mlp(const float* x, std::int64_t rows, const MlpWeights& weights, float* hidden, float* y) {
  Eigen::Map<const Matrix> xs(x, rows, weights.in);
  Eigen::Map<const Matrix> w1(weights.w1, weights.in, weights.hidden);
  Eigen::Map<const Matrix> w2(weights.w2, weights.hidden, weights.out);
  Eigen::Map<const Row> b1(weights.b1, weights.hidden);
  Eigen::Map<const Row> b2(weights.b2, weights.out);
  Eigen::Map<Matrix> h(hidden, rows, weights.hidden);
  Eigen::Map<Matrix> ys(y, rows, weights.out);
  h.noalias() = xs * w1;
  h = (h.rowwise() + b1).cwiseMax(0.0f);
  ys.noalias() = h * w2;
  ys.rowwise() += b2;
}

void eigen_set_threads(int threads) { Eigen::setNbThreads(threads); }

}  // namespace epilogue_bench
