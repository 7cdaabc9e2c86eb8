// take, take_along_axis, index_add, scatter_add and one_hot through the runtime: against the
// interpreter bit for bit over random shapes, every axis and dtype, negative indices, i32 and i64
// indices, views and fused producers and consumers; the gather fused into its consumer's loop; an
// index out of range as an error that names the function, the index and its position and leaves
// every tensor valid; repeated indices added in one fixed order; and NumPy and PyTorch when
// bench/.venv has them. ctest reruns the "*JIT*" cases at every VECTOR_BITS and at 1 and 2 threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
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

// Values whose sums depend on the order they are added in (magnitudes far apart).
tj::Tensor random_values(std::mt19937_64& rng, const tj::Shape& shape, tj::DType dtype) {
  std::vector<double> values(static_cast<std::size_t>(numel(shape)));
  std::uniform_int_distribution<int> pick(-40, 40);
  std::uniform_int_distribution<int> scale(0, 3);
  constexpr double kScales[] = {1, 1e-7, 1e7, 0.1};
  for (auto& value : values) value = pick(rng) * kScales[scale(rng)] + 0.25;
  return tj::tensor<double>(shape, values).astype(dtype);
}

// Values in [-4, 4), within the range of f16 (random_values' scales overflow it).
tj::Tensor small_values(std::mt19937_64& rng, const tj::Shape& shape, tj::DType dtype) {
  std::vector<float> values(static_cast<std::size_t>(numel(shape)));
  std::uniform_real_distribution<float> pick(-4.0f, 4.0f);
  for (auto& value : values) value = pick(rng);
  return tj::tensor<float>(shape, values).astype(dtype);
}

// Indices in [-extent, extent), every one of them valid.
tj::Tensor random_indices(std::mt19937_64& rng, const tj::Shape& shape, std::int64_t extent, tj::DType dtype) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(numel(shape)));
  std::uniform_int_distribution<std::int64_t> pick(-extent, extent - 1);
  for (auto& value : values) value = pick(rng);
  return tj::tensor<std::int64_t>(shape, values).astype(dtype);
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("indexing JIT: take and take_along_axis on every axis of random shapes and dtypes, bit for bit") {
    std::mt19937_64 rng(22);
    const std::vector<tj::Shape> shapes = {{1}, {7}, {3, 5}, {1, 33}, {33, 1}, {2, 3, 37}, {70, 19}, {5, 130}, {3, 2, 5, 4}};
    const std::vector<tj::Shape> index_shapes = {{}, {1}, {5}, {2, 3}, {17}, {4, 1, 3}};
    for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::i64, tj::boolean}) {
      for (const auto& shape : shapes) {
        const tj::Tensor x = random_values(rng, shape, dtype == tj::boolean ? tj::i32 : dtype);
        const tj::Tensor values = dtype == tj::boolean ? x > 0 : x;
        for (std::int64_t axis = 0; axis < values.rank(); ++axis) {
          CAPTURE(dtype);
          CAPTURE(axis);
          CAPTURE(shape);
          const std::int64_t extent = shape[static_cast<std::size_t>(axis)];
          const tj::DType index_dtype = axis % 2 == 0 ? tj::i64 : tj::i32;
          for (const auto& index_shape : index_shapes) {
            const tj::Tensor indices = random_indices(rng, index_shape, extent, index_dtype);
            check({tj::take(values, indices, axis)});
          }
          tj::Shape along = shape;
          along[static_cast<std::size_t>(axis)] = 3;
          const tj::Tensor indices = random_indices(rng, along, extent, index_dtype);
          check({tj::take_along_axis(values, indices, axis)});
        }
      }
    }
  }

  TEST_CASE("indexing JIT: gathers fused with producers, consumers, views and computed indices") {
    std::mt19937_64 rng(7);
    const tj::Tensor table = random_values(rng, {50, 24}, tj::f32);
    const tj::Tensor ids = random_indices(rng, {6, 9}, 50, tj::i64);
    const tj::Tensor bias = random_values(rng, {24}, tj::f32);
    tj::eval({table, ids, bias});
    // The table through views and as a computed value, the indices computed in the kernel.
    check({tj::take(table, ids) * 2.0f + bias});
    check({tj::take(table.transpose(), ids, 1)});
    check({tj::take(tj::exp(table * 0.01f), ids)});
    check({tj::take(table, tj::remainder(ids * 7, tj::scalar<std::int64_t>(50)) - 50)});
    check({tj::take(table.flip(0).slice(0, 0, 50, 2), tj::remainder(ids, tj::scalar<std::int64_t>(25)))});
    check({tj::take(table, ids).permute({2, 0, 1}) + 1.0f, tj::take(table, ids).sum({2})});
    check({tj::take(tj::full({50, 24}, 3.5f), ids), tj::take(tj::arange(0, 50, 1, tj::f32), ids)});
    check({tj::take_along_axis(table, tj::argsort(table, 0), 0)});
    check({tj::take_along_axis(table, random_indices(rng, {1, 24}, 50, tj::i32), 0) + table});
    // The embedding block's shape: a gather per row, broadcast along the row.
    const tj::Tensor positions = tj::arange(0, 9, 1, tj::i64).reshape({1, 9}).expand({6, 9});
    check({tj::take(table, ids) + tj::take(table, positions) + bias});
    const std::string plan = plan_of({tj::take(table, ids) + tj::take(table, positions) + bias});
    INFO(plan);
    CHECK(plan.find("step 0: loop") != std::string::npos);
    CHECK(plan.find("step 1") == std::string::npos);
  }

  TEST_CASE("indexing JIT: the embedding block is one row kernel, bit for bit, at every row length") {
    // layernorm(take(word_emb, ids) + take(pos_emb, positions) + type_row): the gathered rows are
    // read where the row kernel needs them (codegen/row_kernel.hpp, "Gathers"), one index per row.
    std::mt19937_64 rng(12);
    for (std::int64_t hidden : {1, 3, 8, 33, 64, 385}) {
      for (const tj::Shape& tokens : std::vector<tj::Shape>{{1, 1}, {3, 7}, {0, 5}, {2, 33}}) {
        for (tj::DType index_dtype : {tj::i64, tj::i32}) {
          CAPTURE(hidden);
          CAPTURE(tokens);
          CAPTURE(index_dtype);
          const tj::Tensor word = random_values(rng, {50, hidden}, tj::f32);
          const tj::Tensor pos = random_values(rng, {40, hidden}, tj::f32);
          const tj::Tensor type_row = random_values(rng, {hidden}, tj::f32);
          const tj::Tensor gamma = random_values(rng, {hidden}, tj::f32);
          const tj::Tensor beta = random_values(rng, {hidden}, tj::f32);
          const tj::Tensor ids = random_indices(rng, tokens, 50, index_dtype);
          const tj::Tensor positions = random_indices(rng, {1, tokens[1]}, 40, index_dtype).expand(tokens);
          tj::eval({word, pos, type_row, gamma, beta, ids, positions});
          const tj::Tensor x = tj::take(word, ids) + tj::take(pos, positions) + type_row;
          const tj::Tensor y = tj::layernorm(x, gamma, beta, 1e-12);
          const std::string plan = plan_of({y});
          INFO(plan);
          CHECK(plan.find("step 0: row") != std::string::npos);
          CHECK(plan.find("step 1") == std::string::npos);
          // One kernel: the row kernel, not the parts' own kernels (its rows are [batch, tokens],
          // the positions read in place, broadcast over the batch).
          const tj::JitStatistics before = tj::jit_statistics();
          tj::layernorm(tj::take(word, ids) + tj::take(pos, positions) + type_row, gamma, beta, 1e-12).eval();
          const tj::JitStatistics after = tj::jit_statistics();
          CHECK(after.compiles + after.memory_hits + after.disk_hits ==
                before.compiles + before.memory_hits + before.disk_hits + 1);
          check({y});
          // The summed rows kept as well: written by the row kernel too.
          check({y, x});
          // dgamma and dbeta after the gathering prologue: sums over the rows in the same step.
          const tj::Tensor dy = random_values(rng, {tokens[0], tokens[1], hidden}, tj::f32).eval();
          check(tj::grad(y, {gamma, beta}, dy));
          check({y, (x * dy).sum({0, 1})});
          if (tokens[0] * tokens[1] > 0) CHECK(plan_of({y, (x * dy).sum({0, 1})}).find("step 1") == std::string::npos);
          // One gather, its index computed per row in the kernel, and a softmax over the row.
          check({tj::softmax(tj::take(word, tj::remainder(ids * 3, tj::scalar<std::int64_t>(50)).astype(index_dtype)), -1)});
        }
      }
    }
    // A table read through a view (transposed: columns far apart), and a gathered f64 table.
    const tj::Tensor table = random_values(rng, {24, 50}, tj::f32).eval();
    const tj::Tensor ids = random_indices(rng, {9}, 50, tj::i64).eval();
    const tj::Tensor gathered = tj::take(table.transpose(), ids);
    check({gathered - gathered.max({-1}, true)});
    CHECK(plan_of({gathered - gathered.max({-1}, true)}).find("step 1") == std::string::npos);
    const tj::Tensor wide = random_values(rng, {30, 17}, tj::f64).eval();
    check({tj::layernorm(tj::take(wide, tj::remainder(ids, tj::scalar<std::int64_t>(30))) * 2.0, tj::ones({17}, tj::f64), tj::zeros({17}, tj::f64))});
    // An index that varies along the row: gathered one element per lane.
    const tj::Tensor along = random_indices(rng, {30, 41}, 17, tj::i64).eval();
    const tj::Tensor picked = tj::take_along_axis(wide, along, 1);
    check({picked / picked.sum({-1}, true)});
    CHECK(plan_of({picked / picked.sum({-1}, true)}).find("step 1") == std::string::npos);
    // Positions as an arange the kernels compute: the step runs part by part, with the same bits.
    const tj::Tensor word = random_values(rng, {50, 40}, tj::f32).eval();
    const tj::Tensor ids2 = random_indices(rng, {4, 16}, 50, tj::i64).eval();
    const tj::Tensor iota_positions = tj::arange(0, 16, 1, tj::i64).reshape({1, 16}).expand({4, 16});
    check({tj::layernorm(tj::take(word, ids2) + tj::take(word, iota_positions), tj::ones({40}), tj::zeros({40}))});
  }

  TEST_CASE("indexing JIT: an index out of range in a row kernel is an error naming it and its position, tensors stay valid") {
    const tj::Tensor word = tj::arange(0, 50 * 8, 1, tj::f32).reshape({50, 8}).eval();
    const tj::Tensor pos = tj::arange(0, 6 * 8, 1, tj::f32).reshape({6, 8}).eval();
    const tj::Tensor gamma = tj::ones({8}).eval(), beta = tj::zeros({8}).eval();
    auto block = [&](const tj::Tensor& ids, const tj::Tensor& positions) {
      return tj::layernorm(tj::take(word, ids) + tj::take(pos, positions), gamma, beta);
    };
    std::vector<std::int64_t> id_values(4 * 6, 1);
    id_values[1 * 6 + 2] = 50;
    const tj::Tensor ids = tj::tensor<std::int64_t>({4, 6}, id_values).eval();
    const tj::Tensor positions = tj::arange(0, 6, 1, tj::i64).reshape({1, 6}).expand({4, 6}).eval();
    CHECK(plan_of({block(ids, positions)}).find("step 1") == std::string::npos);
    CHECK_THROWS_WITH_AS(block(ids, positions).eval(),
                         doctest::Contains("take: index 50 at position [1, 2] of the indices is outside [-50, 50)"), tj::Error);
    CHECK_THROWS_WITH_AS(block(ids - 52, positions).eval(), doctest::Contains("take: index -51 at position [0, 0]"), tj::Error);
    // The earliest position in row-major order, whichever gather and phase meets it first.
    const tj::Tensor late_positions = tj::tensor<std::int64_t>({4, 6}, {0, 1, 2, 3, 4, 5, 0, -7, 2, 3, 4, 5,
                                                                        0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}).eval();
    CHECK_THROWS_WITH_AS(block(ids, late_positions).eval(),
                         doctest::Contains("index -7 at position [1, 1] of the indices is outside [-6, 6)"), tj::Error);
    // An index that varies along the row, checked per lane.
    std::vector<std::int64_t> along_values(5 * 13, 2);
    along_values[3 * 13 + 11] = 8;
    along_values[4 * 13 + 1] = -9;
    const tj::Tensor along = tj::tensor<std::int64_t>({5, 13}, along_values).eval();
    const tj::Tensor picked = tj::take_along_axis(word.slice(0, 0, 5), along, 1);
    CHECK_THROWS_WITH_AS((picked - picked.max({-1}, true)).eval(),
                         doctest::Contains("take_along_axis: index 8 at position [3, 11]"), tj::Error);
    // Rows split over threads: the first in row-major order still.
    std::vector<std::int64_t> many(3000 * 64, 3);
    many[2100 * 64] = 77;
    many[2900 * 64] = -77;
    const tj::Tensor many_ids = tj::tensor<std::int64_t>({3000, 64}, many).eval();
    CHECK_THROWS_WITH_AS(block(many_ids, tj::zeros({3000, 64}, tj::i64)).eval(), doctest::Contains("index 77 at position [2100, 0]"),
                         tj::Error);
    // Part by part (positions an arange the kernels compute): the same error.
    const tj::Tensor iota_positions = tj::arange(0, 6, 1, tj::i64).reshape({1, 6}).expand({4, 6});
    CHECK_THROWS_WITH_AS(block(ids, iota_positions).eval(), doctest::Contains("take: index 50 at position [1, 2]"), tj::Error);
    // Nothing above changed a value, and the same graphs with valid indices still run.
    CHECK(ids.to_vector<std::int64_t>() == id_values);
    CHECK(word.sum().item<float>() == 79800.0f);
    const tj::Tensor fixed = block(tj::remainder(ids, tj::scalar<std::int64_t>(50)), positions);
    check({fixed});
    CHECK(std::isfinite(fixed.sum().item<float>()));
  }

  TEST_CASE("indexing JIT: index_add and scatter_add add repeated destinations in one fixed order") {
    std::mt19937_64 rng(3);
    for (tj::DType dtype : {tj::f32, tj::f64, tj::i32, tj::i64}) {
      CAPTURE(dtype);
      const tj::Tensor base = random_values(rng, {40, 37}, dtype);
      // Far more rows than destinations: every destination gets many adds.
      const tj::Tensor ids = random_indices(rng, {3000}, 40, tj::i64);
      check({tj::index_add(base, 0, ids, random_values(rng, {3000, 37}, dtype))});
      check({tj::index_add(base, 1, random_indices(rng, {5}, 37, tj::i32), random_values(rng, {40, 5}, dtype))});
      check({tj::index_add(base, 0, ids.slice(0, 0, 7), random_values(rng, {37}, dtype))});
      check({tj::scatter_add(base, 0, random_indices(rng, {90, 37}, 40, tj::i32), random_values(rng, {90, 37}, dtype))});
      check({tj::scatter_add(base, 1, random_indices(rng, {40, 100}, 37, tj::i64), random_values(rng, {40, 100}, dtype))});
      check({tj::scatter_add(base.transpose(), 1, random_indices(rng, {37, 2}, 40, tj::i64),
                             random_values(rng, {37, 2}, dtype) * random_values(rng, {37, 2}, dtype))});
      // A base of one value everywhere is filled, not copied: a zero one by memset, another one
      // by doubling its first element (an element count that is no power of two).
      check({tj::index_add(tj::full({41, 37}, 3.0, dtype), 0, ids.slice(0, 0, 50), random_values(rng, {50, 37}, dtype))});
      check({tj::index_add(tj::full({41, 37}, -0.0, dtype), 1, random_indices(rng, {5}, 37, tj::i32),
                           random_values(rng, {41, 5}, dtype))});
    }
    // The gradient of an embedding: zeros plus rows, big enough to be split over threads.
    const tj::Tensor rows = random_values(rng, {4096, 384}, tj::f32);
    const tj::Tensor ids = random_indices(rng, {4096}, 1000, tj::i64);
    check({tj::index_add(tj::zeros({1000, 384}), 0, ids, rows)});
    check({tj::index_add(tj::zeros({1000, 384}), 0, tj::remainder(ids, tj::scalar<std::int64_t>(3)), rows * 3.0f)});
  }

  // A gather copies 16-bit values (the kernels load and convert them as any leaf); a scatter_add
  // of them is its f32 form, each destination's total rounded once (ir/f32_form.hpp).
  TEST_CASE("indexing JIT: f16 and bf16 tables: take, take_along_axis, the embedding block, index_add and its gradient") {
    std::mt19937_64 rng(16);
    for (tj::DType dtype : {tj::f16, tj::bf16}) {
      CAPTURE(dtype);
      const tj::Tensor table = small_values(rng, {50, 33}, dtype).eval();
      const tj::Tensor ids = random_indices(rng, {3, 7}, 50, tj::i64).eval();
      check({tj::take(table, ids)});
      check({tj::take(table.transpose(), random_indices(rng, {9}, 50, tj::i32), 1)});
      check({tj::take_along_axis(table, random_indices(rng, {4, 33}, 50, tj::i64), 0) * 3.0f});
      // The embedding block over 16-bit tables, one row kernel as in f32.
      const tj::Tensor pos = small_values(rng, {40, 33}, dtype).eval();
      const tj::Tensor positions = tj::arange(0, 7, 1, tj::i64).reshape({1, 7}).expand({3, 7});
      const tj::Tensor x = tj::take(table, ids) + tj::take(pos, positions);
      const tj::Tensor y = tj::layernorm(x, tj::ones({33}, dtype), tj::zeros({33}, dtype), 1e-5);
      check({y, x});
      CHECK(plan_of({y}).find("step 1") == std::string::npos);
      check({tj::index_add(table, 0, random_indices(rng, {300}, 50, tj::i64), small_values(rng, {300, 33}, dtype))});
      check({tj::scatter_add(table, 1, random_indices(rng, {50, 70}, 33, tj::i32), small_values(rng, {50, 70}, dtype))});
      // The gradient of an embedding lookup over a 16-bit table: index_add of the rows' adjoints.
      const tj::Tensor w = table.detach();
      const std::vector<tj::Tensor> dw = tj::grad((tj::take(w, ids) * 2.0f).sum(), {w});
      REQUIRE(dw[0].dtype() == dtype);
      check({dw[0]});
      const std::vector<float> counts = dw[0].astype(tj::f32).sum({1}).to_vector<float>();
      const std::vector<std::int64_t> id_values = ids.to_vector<std::int64_t>();
      for (std::int64_t row = 0; row < 50; ++row) {
        const auto uses = std::count_if(id_values.begin(), id_values.end(), [&](std::int64_t id) { return id == row || id == row - 50; });
        CHECK(counts[static_cast<std::size_t>(row)] == doctest::Approx(2.0 * 33 * static_cast<double>(uses)));
      }
    }
    // Each destination's total rounded once: 2048 + 1 + 1 in f16 is 2050, where adding one value
    // at a time would round 2049 back to 2048 twice.
    const tj::Tensor base = tj::full({1}, 2048.0f).astype(tj::f16);
    const tj::Tensor total = tj::index_add(base, 0, tj::zeros({2}, tj::i64), tj::ones({2}, tj::f16));
    CHECK(total.astype(tj::f32).item<float>() == 2050.0f);
  }

  TEST_CASE("indexing JIT: one_hot, empty indices and size-1 axes") {
    std::mt19937_64 rng(9);
    check({tj::one_hot(random_indices(rng, {4, 6}, 10, tj::i64), 10), tj::one_hot(random_indices(rng, {7}, 3, tj::i32), 3, tj::i32)});
    check({tj::one_hot(tj::scalar<std::int64_t>(-1), 4, tj::boolean)});
    const tj::Tensor table = random_values(rng, {5, 3}, tj::f32);
    check({tj::take(table, tj::zeros({0}, tj::i64)), tj::take(table, tj::zeros({2, 0}, tj::i32), 1)});
    check({tj::take(tj::zeros({0, 3}), tj::zeros({0}, tj::i64))});
    check({tj::index_add(table, 0, tj::zeros({0}, tj::i64), tj::zeros({0, 3}))});
    check({tj::take(table, tj::full({4}, std::int64_t{-5}))});
  }

  TEST_CASE("indexing JIT: an index out of range is an error naming it and its position, tensors stay valid") {
    const tj::Tensor table = tj::arange(0, 12, 1, tj::f32).reshape({4, 3});
    table.eval();
    const tj::Tensor ids = tj::tensor<std::int64_t>({2, 3}, {0, 1, 2, 3, -4, 4});
    ids.eval();
    const tj::Tensor gathered = tj::take(table, ids) + 1.0f;
    CHECK_THROWS_WITH_AS(gathered.eval(),
                         doctest::Contains("take: index 4 at position [1, 2] of the indices is outside [-4, 4)"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take(table, tj::full({2}, std::int64_t{-5}), 0).eval(), doctest::Contains("index -5 at position [0]"),
                         tj::Error);
    CHECK_THROWS_WITH_AS(tj::take(table, tj::full({2}, std::int32_t{3}), 1).eval(), doctest::Contains("axis 1"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take_along_axis(table, tj::full({4, 3}, std::int64_t{9}), 0).eval(),
                         doctest::Contains("take_along_axis: index 9 at position [0, 0]"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::index_add(table, 0, tj::tensor<std::int64_t>({3}, {0, 7, 8}), tj::ones({3, 3})).eval(),
                         doctest::Contains("index_add: index 7 at position [1]"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::scatter_add(table, 1, tj::full({4, 1}, std::int64_t{-4}), tj::ones({4, 1})).eval(),
                         doctest::Contains("scatter_add: index -4 at position [0, 0]"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::one_hot(tj::tensor<std::int64_t>({2}, {1, 3}), 3).eval(),
                         doctest::Contains("one_hot: index 3 at position [1]"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take(tj::zeros({0, 2}), tj::zeros({1}, tj::i64)).eval(), doctest::Contains("outside [0, 0)"),
                         tj::Error);
    // Nothing above changed a value, and the same graphs with valid indices still run.
    CHECK(table.to_vector<float>() == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    CHECK(ids.to_vector<std::int64_t>() == std::vector<std::int64_t>{0, 1, 2, 3, -4, 4});
    const tj::Tensor fixed = tj::take(table, tj::remainder(ids, tj::scalar<std::int64_t>(4))) + 1.0f;
    CHECK(fixed.sum().item<float>() == (3 + 12 + 21 + 30 + 3 + 3) + 18 * 1);
    // A big gather split over threads reports the first index out of range in row-major order.
    std::vector<std::int64_t> many(100000, 1);
    many[77777] = 9;
    many[99999] = -9;
    CHECK_THROWS_WITH_AS((tj::take(table, tj::tensor<std::int64_t>({100000}, many)) * 2.0f).eval(),
                         doctest::Contains("index 9 at position [77777]"), tj::Error);
  }

  TEST_CASE("indexing: bad dtypes, ranks and shapes are errors that name the function") {
    const tj::Tensor x = tj::zeros({2, 3});
    CHECK_THROWS_WITH_AS(tj::take(x, tj::zeros({2})), doctest::Contains("take: indices must be i32 or i64"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take(x, tj::zeros({2}, tj::i64), 2), doctest::Contains("take"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take(tj::scalar(1.0f), tj::zeros({2}, tj::i64)), doctest::Contains("0-d"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take_along_axis(x, tj::zeros({2}, tj::i64), 0), doctest::Contains("one rank"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::take_along_axis(x, tj::zeros({2, 2}, tj::i64), 0), doctest::Contains("broadcast"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::index_add(x, 0, tj::zeros({2, 1}, tj::i64), tj::ones({2, 3})), doctest::Contains("1-D"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::index_add(x, 0, tj::zeros({2}, tj::i64), tj::ones({2, 3}, tj::f64)), doctest::Contains("dtype"),
                         tj::Error);
    CHECK_THROWS_WITH_AS(tj::index_add(x, 0, tj::zeros({2}, tj::i64), tj::ones({3, 3})), doctest::Contains("broadcast"),
                         tj::Error);
    CHECK_THROWS_WITH_AS(tj::scatter_add(x, 0, tj::zeros({2, 2}, tj::i64), tj::ones({2, 2})), doctest::Contains("scatter_add"),
                         tj::Error);
    CHECK_THROWS_WITH_AS(tj::one_hot(tj::zeros({2}), 3), doctest::Contains("one_hot: indices must be"), tj::Error);
    CHECK_THROWS_WITH_AS(tj::one_hot(tj::zeros({2}, tj::i64), -1), doctest::Contains("one_hot"), tj::Error);
  }

  TEST_CASE("indexing: NumPy's take and take_along_axis, PyTorch's index_add, scatter_add and one_hot give our results") {
    std::mt19937_64 rng(5);
    // Quarters: every sum is exact, so any order of adds gives these bits.
    const tj::Tensor x = tj::remainder(random_values(rng, {37, 29}, tj::f32), tj::scalar(64.0f));
    const tj::Tensor ids = random_indices(rng, {5, 7}, 37, tj::i64);
    const tj::Tensor along = random_indices(rng, {37, 11}, 29, tj::i64);
    const tj::Tensor rows = tj::remainder(random_values(rng, {35, 29}, tj::f32), tj::scalar(64.0f));
    const tj::Tensor spread = tj::remainder(random_values(rng, {37, 11}, tj::f32), tj::scalar(64.0f));
    tensorjit::testing::PeerCheck peers;
    const bool ran = peers.run({{"x", x}, {"ids", ids}, {"along", along}, {"rows", rows}, {"spread", spread}}, R"(
import numpy as np, torch
x, ids, along, rows, spread = (np.load(f'{n}.npy') for n in ('x', 'ids', 'along', 'rows', 'spread'))
np.save('take0.npy', np.take(x, ids, axis=0))
np.save('take1.npy', np.take(x, ids % 29 - 29, axis=1))
np.save('along.npy', np.take_along_axis(x, along, axis=1))
# PyTorch takes no negative indices: ours count from the end, as numpy's.
t = torch.from_numpy
np.save('index_add.npy', t(x).index_add(0, t(ids.reshape(-1) % 37), t(rows)).numpy())
np.save('scatter_add.npy', t(x).scatter_add(1, t(along % 29), t(spread)).numpy())
np.save('one_hot.npy', torch.nn.functional.one_hot(t(ids % 37), 37).numpy())
)");
    if (!ran) return;
    auto same = [&](const std::string& file, const tj::Tensor& ours) { peers.same(file, ours); };
    same("take0.npy", tj::take(x, ids, 0));
    same("take1.npy", tj::take(x, tj::remainder(ids, tj::scalar<std::int64_t>(29)) - 29, 1));
    same("along.npy", tj::take_along_axis(x, along, 1));
    same("index_add.npy", tj::index_add(x, 0, ids.reshape({-1}), rows));
    same("scatter_add.npy", tj::scatter_add(x, 1, along, spread));
    same("one_hot.npy", tj::one_hot(ids, 37, tj::i64));
  }
}
