// The interpreter's matmul: hand-computed products, batches, strided and broadcast operands,
// k == 0, and the contract that each output element is one fused multiply-add chain from +0.
#include <cmath>

#include "interpreter_testing.hpp"

using tensorjit::DType;
using tensorjit::Error;
using tensorjit::InternalError;
using namespace tensorjit::ir;
using namespace tensorjit::ir::testing;

using i32 = std::int32_t;

TEST_CASE("interpreter: matmul of integer matrices") {
  // [[1, 2, 3], [4, 5, 6]] @ [[7, 8], [9, 10], [11, 12]]: 1*7 + 2*9 + 3*11 = 58, ...
  auto a = input<i32>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = input<i32>({3, 2}, {7, 8, 9, 10, 11, 12});
  Value product = run({matmul(a, b)}).at(0);
  CHECK(product.layout == Layout::contiguous({2, 2}));
  check_same(read<i32>(product), {58, 64, 139, 154});
  // Integers wrap: INT_MAX * 2 + 1 * 2 == 2^32 == 0.
  check_same(evaluate<i32>(matmul(input<i32>({1, 2}, {kInt32Max, 1}), input<i32>({2, 1}, {2, 2}))),
             {0});
}

TEST_CASE("interpreter: batched matmul") {
  // Batch 0: [[1, 2], [3, 4]] @ [[5, 6], [7, 8]]; batch 1: the identity @ [[-1, 2], [3, -4]].
  auto a = input<double>({2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1});
  auto b = input<double>({2, 2, 2}, {5, 6, 7, 8, -1, 2, 3, -4});
  check_same(evaluate<double>(matmul(a, b)), {19, 22, 43, 50, -1, 2, 3, -4});
}

TEST_CASE("interpreter: matmul reads permuted and broadcast operands through their strides") {
  // a: [2, 3, 2] permuted to [2, 2, 3]; b: one [3, 2] matrix expanded over the batch (stride 0).
  auto a = make_permute(input<i32>({2, 3, 2}, {1, 4, 2, 5, 3, 6, 1, 0, 0, 1, 0, 0}), {0, 2, 1});
  auto b = make_expand(input<i32>({1, 3, 2}, {7, 8, 9, 10, 11, 12}), {2, 3, 2});
  check_same(evaluate<i32>(matmul(a, b)), {58, 64, 139, 154, 7, 8, 9, 10});
}

TEST_CASE("interpreter: matmul with an empty extent") {
  // k == 0: every element is the empty chain, +0.
  auto zeros =
      evaluate<float>(matmul(input<float>(Shape{2, 0}, {}), input<float>(Shape{0, 3}, {})));
  check_same(zeros, std::vector<float>(6, 0.0f));
  Value no_rows =
      run({matmul(input<float>(Shape{0, 3}, {}), input<float>({3, 2}, {1, 2, 3, 4, 5, 6}))}).at(0);
  CHECK(no_rows.layout.shape == Shape{0, 2});
  Value no_batch =
      run({matmul(input<i32>(Shape{0, 2, 2}, {}), input<i32>(Shape{0, 2, 2}, {}))}).at(0);
  CHECK(no_batch.layout.shape == Shape{0, 2, 2});
}

TEST_CASE("interpreter: each matmul element is one fma chain over k from +0") {
  // a = [-(1 + 2^-11), 1 + 2^-12], b = [1, 1 + 2^-12]. The exact second product is
  // 1 + 2^-11 + 2^-24, which f32 cannot hold: a multiply then an add gives 0, the fma chain
  // fma(a1, b1, -(1 + 2^-11)) gives 2^-24 exactly.
  const float big = 1.0f + std::ldexp(1.0f, -11);
  const float near_one = 1.0f + std::ldexp(1.0f, -12);
  auto a = input<float>({1, 2}, {-big, near_one});
  auto b = input<float>({2, 1}, {1.0f, near_one});
  check_same(evaluate<float>(matmul(a, b)), {std::ldexp(1.0f, -24)});
  // The chain starts from +0, so a single -0.0 product gives +0.0.
  check_same(evaluate<float>(matmul(input<float>({1, 1}, {-0.0f}), input<float>({1, 1}, {1.0f}))),
             {0.0f});
  // NaN and inf * 0 propagate.
  check_same(evaluate<double>(matmul(input<double>({2, 2}, {kNaN64, 1, kInf64, 1}),
                                     input<double>({2, 1}, {0, 1}))),
             {kNaN64, kNaN64});
}
