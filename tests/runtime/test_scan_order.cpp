// cumsum, sort, argsort and topk through the runtime: against the interpreter bit for bit over
// random shapes, every axis, duplicates, NaN, infinities and -0.0, empty and size-1 axes,
// transposed and strided views, fused producers and consumers; and against NumPy and PyTorch when
// bench/.venv has them. ctest reruns the "*JIT*" cases at every VECTOR_BITS and at 1 and 2 threads.
#include <doctest/doctest.h>

#include <filesystem>
#include <limits>
#include <random>

#include <tensorjit/tensorjit.hpp>

#include "file_test_support.hpp"
#include "jit_oracle.hpp"
#include "peer_python.hpp"
#include <tensorjit/ir/pipeline.hpp>
#include "runtime/src/executor.hpp"
#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;
using tensorjit::testing::check_against_interpreter;

namespace {

void check(const std::vector<tj::Tensor>& results) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& result : results) nodes.push_back(tj::detail::node_of(result, "test"));
  check_against_interpreter(tj::detail::graph_for(nodes));
}

// Values with many duplicates; floats also NaN, infinities and both zeros.
tj::Tensor random_values(std::mt19937_64& rng, const tj::Shape& shape, tj::DType dtype) {
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  std::vector<double> values(static_cast<std::size_t>(count));
  std::uniform_int_distribution<int> pick(0, 19);
  constexpr double kSpecials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), -0.0, 0.0};
  for (auto& value : values) {
    const int p = pick(rng);
    value = p < 3 && tj::is_floating(dtype) ? kSpecials[pick(rng) % 5] : static_cast<double>(p % 7) - 3 + (p > 13 ? 0.25 : 0);
  }
  auto tensor = tj::tensor<double>(shape, values);
  return dtype == tj::boolean ? tensor > 0 : tensor.astype(dtype);
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("scan and order JIT: every axis of random shapes and views, every dtype, bit for bit") {
    std::mt19937_64 rng(22);
    const std::vector<tj::Shape> shapes = {{1}, {7}, {0}, {3, 5}, {1, 33}, {33, 1}, {4, 0, 3}, {2, 3, 37}, {70, 19},
                                           {5, 130}, {3, 2, 5, 4}};
    for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::i64, tj::boolean}) {
      for (const auto& shape : shapes) {
        const tj::Tensor x = random_values(rng, shape, dtype);
        for (std::int64_t axis = 0; axis < x.rank(); ++axis) {
          CAPTURE(dtype);
          CAPTURE(axis);
          CAPTURE(x.shape());
          const tj::Tensor flipped = x.flip(axis);  // a negative stride along the axis
          const tj::Tensor transposed = x.rank() > 1 ? x.transpose(0, x.rank() - 1) : x;
          for (const tj::Tensor& operand : {x, flipped, transposed}) {
            const std::int64_t extent = operand.shape()[static_cast<std::size_t>(axis)];
            const auto [values, indices] = tj::topk(operand, std::min<std::int64_t>(extent, 3), axis);
            check({tj::cumsum(operand, axis), tj::sort(operand, axis), tj::argsort(operand, axis, true), values,
                   indices});
          }
        }
      }
    }
  }

  TEST_CASE("scan and order JIT: producers and consumers around cumsum, a 0-d tensor, a strided slice") {
    std::mt19937_64 rng(7);
    const tj::Tensor x = random_values(rng, {9, 300}, tj::f32);
    const tj::Tensor y = random_values(rng, {9, 300}, tj::f32);
    check({tj::cumsum(x * x - 2, 1) * y + 1, tj::cumsum(x.slice(1, 1, 300, 3) + 0.5f, 0)});
    check({tj::cumsum((x > 0) & (y < 1), 1), tj::sort(x * y, 0, true)});
    const tj::Tensor scalar = tj::tensor<float>({}, {2.5f});
    CHECK(tj::cumsum(scalar, 0).shape().empty());
    CHECK(tj::cumsum(scalar, -1).item<float>() == 2.5f);
    CHECK(tj::argsort(scalar).item<std::int64_t>() == 0);
    CHECK(tj::topk(scalar, 1).values.item<float>() == 2.5f);
  }

  TEST_CASE("scan and order JIT: cumsum with its producers and consumers is one scan step, lines split over threads") {
    std::mt19937_64 rng(11);
    tj::Tensor x = random_values(rng, {300, 1000}, tj::f32);
    tj::Tensor y = random_values(rng, {300, 1000}, tj::f32);
    tj::eval({x, y});  // inputs, so the plan is the cumsum's alone
    const tj::Tensor fused = tj::cumsum(x * x - 2, 0) * y + 1;
    const std::string plan =
        ir::print_plan(ir::plan_graph(tj::detail::graph_for({tj::detail::node_of(fused, "test")})));
    CHECK(plan.find("step 0: scan") != std::string::npos);
    CHECK(plan.find("step 1") == std::string::npos);
    check({fused, tj::cumsum(x - y, 1), tj::cumsum(x.transpose(), 1), tj::cumsum(x.astype(tj::i32), 0)});
  }

  TEST_CASE("scan and order JIT: a topk's values and indices are one sort step, long rows over threads") {
    std::mt19937_64 rng(13);
    tj::Tensor x = random_values(rng, {6, 20000}, tj::f32);
    x.eval();
    const auto [values, indices] = tj::topk(x, 7);
    const std::string plan = ir::print_plan(ir::plan_graph(
        tj::detail::graph_for({tj::detail::node_of(values, "test"), tj::detail::node_of(indices, "test")})));
    CHECK(plan.find("step 0: sort") != std::string::npos);
    CHECK(plan.find("step 1") == std::string::npos);
    // The selection (topk), the radix sort (whole rows) and short rows, over rows split by threads.
    check({values, indices, tj::sort(x, 1), tj::argsort(x, 1, true), tj::argsort(x.slice(1, 0, 200), 1)});
    check({tj::topk(x.transpose(), 3, 0).indices, tj::sort(x.astype(tj::f64), 0, true)});
    // One row longer than the radix sort's leaf on any L2 (kernels/src/radix_sort.hpp): the row's
    // own sort splits itself over the pool.
    tj::Tensor row = random_values(rng, {300000}, tj::f32);
    row.eval();
    check({tj::sort(row), tj::argsort(row), tj::argsort(row, 0, true), tj::sort(row.astype(tj::f64), 0, true)});
  }

  TEST_CASE("scan and order: bad axes and k are errors that name the function") {
    const tj::Tensor x = tj::zeros({2, 3});
    CHECK_THROWS_WITH_AS(tj::cumsum(x, 2), doctest::Contains("cumsum"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::sort(x, -3), doctest::Contains("sort"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::topk(x, 4), doctest::Contains("topk: k = 4"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::topk(x, -1, 0), doctest::Contains("topk"), tj::Error);
  }

  TEST_CASE("scan and order: NumPy's cumsum, sort and argsort, PyTorch's sort and topk give our results") {
    if (!peer_python::imports("numpy, torch")) {
      MESSAGE("SKIPPED: " << peer_python::path() << " cannot import numpy and torch, so the peer checks did not run");
      return;
    }
    file_test::TempFolder folder;
    std::mt19937_64 rng(5);
    const tj::Tensor x = random_values(rng, {37, 129}, tj::f32);
    const tj::Tensor counts = random_values(rng, {37, 129}, tj::i32);
    const tj::Tensor distinct = tj::remainder(tj::arange(0, 37 * 129, 1).reshape({37, 129}) * 7919, tj::scalar<std::int64_t>(4099)).astype(tj::f32);
    tj::save_npy(folder / "x.npy", x);
    tj::save_npy(folder / "counts.npy", counts);
    tj::save_npy(folder / "distinct.npy", distinct);
    file_test::write_bytes(folder / "peers.py", R"(
import numpy as np, torch
x, counts, distinct = np.load('x.npy'), np.load('counts.npy'), np.load('distinct.npy')
for axis in (0, 1):
    np.save(f'cumsum{axis}.npy', np.cumsum(x, axis=axis))
    np.save(f'cumsum_counts{axis}.npy', np.cumsum(counts, axis=axis))
    np.save(f'sort{axis}.npy', np.sort(x, axis=axis, kind='stable'))
    np.save(f'argsort{axis}.npy', np.argsort(x, axis=axis, kind='stable'))
    t = torch.from_numpy(x)
    values, indices = torch.sort(t, dim=axis, descending=True, stable=True)
    np.save(f'torch_sort{axis}.npy', values.numpy())
    np.save(f'torch_argsort{axis}.npy', indices.numpy())
    values, indices = torch.topk(torch.from_numpy(distinct), 5, dim=axis)
    np.save(f'topk_values{axis}.npy', values.numpy())
    np.save(f'topk_indices{axis}.npy', indices.numpy())
)");
    const int status = peer_python::run(folder.path(), "peers.py");
    INFO("python said:\n" << file_test::read_bytes(folder / "log.txt"));
    REQUIRE(status == 0);
    auto same = [&](const std::string& file, const tj::Tensor& ours) {
      INFO(file);
      const ir::Value expected = tj::detail::value_of(tj::load_npy(folder / file), "test");
      const ir::Value actual = tj::detail::value_of(ours, "test");
      CHECK(expected.dtype == actual.dtype);
      CHECK(tensorjit::testing::bytes_of(expected) == tensorjit::testing::bytes_of(actual));
    };
    for (std::int64_t axis : {0, 1}) {
      const std::string a = std::to_string(axis);
      same("cumsum" + a + ".npy", tj::cumsum(x, axis));
      same("cumsum_counts" + a + ".npy", tj::cumsum(counts, axis));
      same("sort" + a + ".npy", tj::sort(x, axis));
      same("argsort" + a + ".npy", tj::argsort(x, axis));
      same("torch_sort" + a + ".npy", tj::sort(x, axis, true));
      same("torch_argsort" + a + ".npy", tj::argsort(x, axis, true));
      const auto [values, indices] = tj::topk(distinct, 5, axis);
      same("topk_values" + a + ".npy", values);
      same("topk_indices" + a + ".npy", indices);
    }
  }
}
