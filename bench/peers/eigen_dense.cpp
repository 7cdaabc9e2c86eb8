// Built with -O3 -march=native, as Eigen's users build it.
#include "dense_layers.hpp"

#include <Eigen/Core>

namespace bench {

DenseLayer eigen_dense(DenseShape shape, bool relu) {
  return [shape, relu](const float* x, const float* w, const float* bias, float* y) {
    using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const Matrix> x_map(x, shape.batch, shape.in), w_map(w, shape.in, shape.out);
    Eigen::Map<const Eigen::RowVectorXf> bias_map(bias, shape.out);
    Eigen::Map<Matrix> y_map(y, shape.batch, shape.out);
    y_map.noalias() = x_map * w_map;
    y_map.rowwise() += bias_map;
    if (relu) y_map = y_map.cwiseMax(0.0f);
  };
}

}  // namespace bench
