// concat, stack, split and pad through the runtime: against the interpreter bit for bit over every
// dtype, every axis (negative too), empty parts, strided and broadcast inputs, parts computed by
// fused kernels (written in place: the plan has no step of their own) and parts that are not;
// nested concats (pad of several axes); errors that name the function; and NumPy when bench/.venv
// has it. ctest reruns the "*JIT*" cases at every VECTOR_BITS and at 1 and 2 threads.
#include <doctest/doctest.h>

#include <random>

#include <tensorjit/tensorjit.hpp>

#include "jit_oracle.hpp"
#include "peer_check.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;

namespace {

void check(const std::vector<tj::Tensor>& results) { tensorjit::testing::check_tensors_against_interpreter(results); }

std::string plan_of(const std::vector<tj::Tensor>& results) {
  std::vector<ir::NodePtr> nodes;
  for (const auto& result : results) nodes.push_back(tj::detail::node_of(result, "test"));
  return ir::print_plan(ir::plan_graph(tj::detail::graph_for(nodes)));
}

std::int64_t numel(const tj::Shape& shape) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

// Distinct values (their position shows where each element went), NaN and -0.0 among them.
tj::Tensor random_values(std::mt19937_64& rng, const tj::Shape& shape, tj::DType dtype) {
  std::vector<double> values(static_cast<std::size_t>(numel(shape)));
  std::uniform_int_distribution<int> pick(-1000, 1000);
  for (auto& value : values) value = pick(rng) * 0.25;
  if (values.size() > 2) {
    values[1] = -0.0;
    values[2] = std::numeric_limits<double>::quiet_NaN();
  }
  const tj::Tensor x = tj::tensor<double>(shape, values);
  return dtype == tj::boolean ? x > tj::scalar(0.0) : x.astype(dtype);
}

const tj::DType kDtypes[] = {tj::f32, tj::f64, tj::i32, tj::i64, tj::boolean, tj::f16, tj::bf16};

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("joining JIT: concat on every axis of random shapes and dtypes, bit for bit") {
    std::mt19937_64 rng(22);
    const std::vector<tj::Shape> shapes = {{7}, {3, 5}, {1, 33}, {33, 1}, {2, 3, 37}, {70, 19}, {3, 2, 5, 4}};
    for (tj::DType dtype : kDtypes) {
      for (const auto& shape : shapes) {
        for (std::int64_t axis = -static_cast<std::int64_t>(shape.size()); axis < static_cast<std::int64_t>(shape.size()); ++axis) {
          CAPTURE(dtype);
          CAPTURE(shape);
          CAPTURE(axis);
          const auto a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(shape.size()) : axis);
          std::vector<tj::Tensor> parts;
          for (std::int64_t extent : {shape[a], std::int64_t{1}, std::int64_t{0}, std::int64_t{4}}) {
            tj::Shape part = shape;
            part[a] = extent;
            parts.push_back(random_values(rng, part, dtype));
          }
          check({tj::concat(parts, axis)});
          // Parts a kernel computes (in place), a transposed view, and a part used twice.
          const tj::Tensor x = parts[0];
          check({tj::concat({x, parts[3], x}, axis), tj::concat({tj::where(x == x, x, x), parts[1]}, axis)});
        }
      }
    }
  }

  TEST_CASE("joining JIT: parts computed by elementwise kernels are written in place, with no pass of their own") {
    std::mt19937_64 rng(3);
    const tj::Tensor a = random_values(rng, {64, 48}, tj::f32);
    const tj::Tensor b = random_values(rng, {64, 16}, tj::f32);
    const tj::Tensor c = random_values(rng, {64, 48}, tj::f32);
    for (std::int64_t axis : {0, 1}) {
      CAPTURE(axis);
      const tj::Tensor joined =
          axis == 0 ? tj::concat({a * tj::scalar(2.0f), c + tj::scalar(1.0f)}, 0) : tj::concat({a * tj::scalar(2.0f), tj::abs(b) - b}, 1);
      const std::string plan = plan_of({joined});
      INFO(plan);
      CHECK(plan.find("step 0: concat") != std::string::npos);
      CHECK(plan.find("step 1") == std::string::npos);
      CHECK(plan.find("written in place") != std::string::npos);
      check({joined});
    }
    // stack along the last axis: each part writes every other element (a strided output).
    const tj::Tensor interleaved = tj::stack({a + tj::scalar(1.0f), c * c}, -1);
    INFO(plan_of({interleaved}));
    CHECK(plan_of({interleaved}).find("step 1") == std::string::npos);
    check({interleaved});
    // A part that another step reads too is computed once and copied.
    const tj::Tensor shared = a * tj::scalar(3.0f);
    check({tj::concat({shared, c}, 1), shared.sum()});
  }

  TEST_CASE("joining JIT: concat of reductions, products, iotas, constants and concats") {
    std::mt19937_64 rng(7);
    const tj::Tensor x = random_values(rng, {9, 13}, tj::f32);
    const tj::Tensor w = random_values(rng, {13, 13}, tj::f32);
    check({tj::concat({x.sum({1}, true), tj::matmul(x, w), tj::arange(9, tj::f32).reshape({9, 1}),
                       tj::full({9, 2}, 5.0, tj::f32), tj::concat({x, x}, 1)},
                      1)});
    check({tj::concat({tj::concat({x, x * x}, 0), -x}, 0) * tj::scalar(2.0f)});
  }

  TEST_CASE("joining JIT: stack, split and pad") {
    std::mt19937_64 rng(11);
    for (tj::DType dtype : kDtypes) {
      CAPTURE(dtype);
      const tj::Tensor x = random_values(rng, {5, 6, 7}, dtype);
      const tj::Tensor y = random_values(rng, {5, 6, 7}, dtype);
      for (std::int64_t axis = -4; axis < 4; ++axis) check({tj::stack({x, y, x}, axis)});
      check({tj::stack({tj::scalar(1.5f), tj::scalar(2.5f)}), tj::stack({x.sum(), y.sum()}, -1)});
      for (std::int64_t axis = -3; axis < 3; ++axis) {
        const auto pieces = tj::split(x, {2, 0, x.shape()[static_cast<std::size_t>(axis < 0 ? axis + 3 : axis)] - 2}, axis);
        REQUIRE(pieces.size() == 3);
        check({pieces[0], pieces[1], pieces[2], tj::concat({pieces[2], pieces[0]}, axis)});
      }
      check({tj::pad(x, {{1, 2}, {0, 0}, {3, 1}}, 7), tj::pad(x, {{2, 2}}), tj::pad(x, {{0, 1}, {1, 0}, {0, 0}}, -1.5)});
      check({tj::pad(x.astype(tj::f32) * tj::scalar(2.0f), {{1, 1}, {1, 1}, {1, 1}}, 1) + tj::scalar(1.0f)});
    }
  }

  TEST_CASE("joining: dtypes promote as torch.cat; errors name the function") {
    const tj::Tensor i = tj::tensor<std::int32_t>({2}, {1, 2});
    const tj::Tensor f = tj::tensor<float>({3}, {0.5f, 1.5f, 2.5f});
    CHECK(tj::concat({i, f}).dtype() == tj::f32);
    CHECK(tj::stack({i, i.astype(tj::i64)}).dtype() == tj::i64);
    check({tj::concat({i, f, tj::tensor<bool>({1}, {true})})});
    CHECK_THROWS_WITH_AS(tj::concat({}), doctest::Contains("concat: needs at least one tensor"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::concat({tj::scalar(1.0f), tj::scalar(2.0f)}), doctest::Contains("concat: tensor 0"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::concat({tj::zeros({2, 3}), tj::zeros({3, 2})}, 1), doctest::Contains("concat: tensor 1"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::concat({tj::zeros({2, 3}), tj::zeros({2})}), doctest::Contains("concat: tensor 1"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::concat({tj::zeros({2, 3})}, 2), doctest::Contains("concat: axis 2"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::stack({tj::zeros({2, 3}), tj::zeros({2, 2})}), doctest::Contains("stack: tensor 1"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::stack({tj::zeros({2})}, 2), doctest::Contains("stack: axis 2"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::split(tj::zeros({5}), {2, 2}), doctest::Contains("split: sizes [2, 2] add up to 4"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::split(tj::zeros({5}), {6, -1}), doctest::Contains("split: size -1"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::split(tj::scalar(1.0f), {1}), doctest::Contains("split: f32[] is 0-d"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::pad(tj::zeros({2, 3}), {{1, -1}, {0, 0}}), doctest::Contains("pad: the widths (1, -1)"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::pad(tj::zeros({2, 3}), {{1, 1}, {0, 0}, {0, 0}}), doctest::Contains("pad: 3 (before, after) pairs"), tj::Error);
  }

  TEST_CASE("joining: a result too large names the function the user called, not the op it is built on") {
    // The oracle found these naming `constant` or `concat`: pad and stack build on constants and
    // concats, whose own checks ran first.
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    CHECK_THROWS_WITH_AS(tj::pad(tj::zeros({1}), {{kMax - 1, 1}}), doctest::Contains("pad: the widths (9223372036854775806, 1) of axis 0"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::pad(tj::zeros({2, 3}), {{kMax, 1}, {0, 0}}), doctest::Contains("pad: the widths (9223372036854775807, 1) of axis 0"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::pad(tj::zeros({2, 3}), {{0, 0}, {kMax / 2, 0}}), doctest::Contains("pad: the result f32[2, 4611686018427387906] of f32[2, 3] has more elements"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::pad(tj::zeros({3}, tj::f64), {{std::int64_t{1} << 61, 0}}), doctest::Contains("pad: the result f64[2305843009213693955] of f64[3] is too large to allocate"), tj::Error);
    const tj::Tensor big = tj::zeros({1}, tj::i32).expand({std::int64_t{1} << 60});  // 2^62 bytes: allowed
    CHECK_THROWS_WITH_AS(tj::stack({big, big}), doctest::Contains("stack: the result i32[2, 1152921504606846976] of"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::concat({big, big}), doctest::Contains("concat: the result i32[2305843009213693952] of"), tj::Error);
  }

  TEST_CASE("joining: NumPy's concatenate, stack, split and pad (and torch.cat's promotion) give the same bits") {
    std::mt19937_64 rng(5);
    const tj::Tensor x = random_values(rng, {4, 6, 5}, tj::f32);
    const tj::Tensor y = random_values(rng, {4, 2, 5}, tj::f32);
    const tj::Tensor n = random_values(rng, {4, 6, 5}, tj::i32);
    tensorjit::testing::PeerCheck peers;
    const bool ran = peers.run({{"x", x}, {"y", y}, {"n", n}}, R"(
import numpy as np
x, y, n = (np.load(f'{k}.npy') for k in ('x', 'y', 'n'))
np.save('concat.npy', np.concatenate([x, y, x], axis=1))
np.save('concat_neg.npy', np.concatenate([x * 2, x + 1], axis=-1))
import torch
np.save('promoted.npy', torch.cat([torch.from_numpy(n), torch.from_numpy(x)], 0).numpy())  # numpy would give f64
np.save('stack.npy', np.stack([x, x * x], axis=3))
np.save('split.npy', np.split(x, [1, 4], axis=1)[1])
np.save('pad.npy', np.pad(x, ((1, 0), (2, 3), (0, 1)), constant_values=-2.5))
)");
    if (!ran) return;
    peers.same("concat.npy", tj::concat({x, y, x}, 1));
    peers.same("concat_neg.npy", tj::concat({x * tj::scalar(2.0f), x + tj::scalar(1.0f)}, -1));
    peers.same("promoted.npy", tj::concat({n, x}, 0));
    peers.same("stack.npy", tj::stack({x, x * x}, 3));
    peers.same("split.npy", tj::split(x, {1, 3, 2}, 1)[1]);
    peers.same("pad.npy", tj::pad(x, {{1, 0}, {2, 3}, {0, 1}}, -2.5));
  }
}
