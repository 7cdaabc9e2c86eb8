// Iota leaves through the JIT: views of an arange computed inside the loop, reduce, scan and tile
// kernels that read them give the interpreter's bits (its ctest reruns at every width and thread
// count hold them there too).
#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include "jit_oracle.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;

TEST_CASE("iota JIT: views of an arange inside loop, reduce, scan and tile kernels") {
  for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::i64}) {
    INFO(tj::dtype_name(dtype));
    const tj::Tensor line = tj::arange(-7.5, 4000.0, 0.75, dtype);
    const std::int64_t n = line.size();
    const tj::Tensor grid = line.slice(0, 0, n / 24 * 24).reshape({n / 24, 24});
    const tj::Tensor x = tj::arange(0, static_cast<double>(n / 24 * 24), 1, dtype).reshape({n / 24, 24});
    std::vector<tj::Tensor> outputs{line * 2,                        // loop
                                    grid.transpose() + 1,            // read transposed: strided, no staging
                                    grid.flip(0).slice(1, 3, 20) * 3,
                                    grid.sum({1}), grid.max({0}),    // reduce
                                    tj::cumsum(grid, 1), tj::cumsum(grid * 2, 0),  // scan
                                    x + grid.transpose().transpose()};
    // A product epilogue reading an iota (its tile kernel); the matmul's own iota operands are written.
    const tj::Tensor square = grid.slice(0, 0, 24);
    if (tj::is_floating(dtype)) outputs.push_back(tj::matmul(x.slice(0, 0, 24), square) + square.transpose());
    tj::ir::Graph graph;
    for (const auto& t : outputs) graph.outputs.push_back(tj::detail::node_of(t, "test"));
    tj::testing::check_against_interpreter(graph);
  }
}
