// Loop kernels of the tile form (loop_kernel.hpp, LoopForm::tile): the rank-2 loop nest a product
// epilogue runs on each tile of C. Every access class, outputs through their own row strides (the
// padding between rows untouched), an output written in place over its input, tiles whose rows
// are shorter or longer than the unrolled and single vectors, empty tiles, every width; the bits
// are the interpreter's.
#include <doctest/doctest.h>

#include <random>
#include <tensorjit/error.hpp>
#include <vector>

#include "codegen_test_support.hpp"
#include "loop_kernel_testing.hpp"

namespace codegen = tensorjit::codegen;
namespace ir = tensorjit::ir;
using codegen::testing::contiguous_bytes;
using codegen::testing::read_text;
using codegen::testing::ScratchDirectory;
using tensorjit::DType;

namespace {

// A rows x columns view into a buffer of random floats with the given strides and offset.
ir::NodePtr random_input(const ir::Shape& shape, const ir::Strides& strides, std::int64_t offset,
                         std::int64_t elements, std::uint32_t seed) {
  auto buffer = ir::Buffer::allocate(static_cast<std::size_t>(elements) * sizeof(float));
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  auto* data = static_cast<float*>(buffer->data());
  for (std::int64_t i = 0; i < elements; ++i) data[i] = uniform(generator);
  return ir::make_input(std::move(buffer), DType::f32, ir::Layout{shape, strides, offset});
}

struct Tile {
  std::int64_t rows, columns;
};

// relu(c + bias) * row_scale - transposed, and the same cast to f64: a tile of C (row stride
// `ldc`), a bias along columns, a scale along rows and a transposed residual.
// With `fetched`, C and the bias are marked fetched by the caller (LoopKernelSpec::fetched_by_caller):
// the kernel then does not prefetch them, and nothing else may change.
void check_tile(codegen::Jit& jit, Tile tile, bool in_place, bool fetched) {
  const std::int64_t rows = tile.rows, columns = tile.columns, ldc = columns + 3;
  const ir::Shape shape{rows, columns};
  auto c = random_input(shape, {ldc, 1}, 0, std::max<std::int64_t>(1, rows * ldc), 1);
  auto bias = random_input(shape, {0, 1}, 0, std::max<std::int64_t>(1, columns), 2);
  auto row_scale = random_input(shape, {1, 0}, 0, std::max<std::int64_t>(1, rows), 3);
  auto transposed = random_input(shape, {1, rows}, 0, std::max<std::int64_t>(1, rows * columns), 4);
  auto result = ir::make_binary(
      ir::Op::sub,
      ir::make_binary(ir::Op::mul, ir::make_unary(ir::Op::relu, ir::make_binary(ir::Op::add, c, bias)), row_scale),
      transposed);
  codegen::LoopKernelSpec spec;
  spec.form = codegen::LoopForm::tile;
  spec.expression.outputs = {result, ir::make_cast(result, DType::f64)};
  spec.inputs = {c, bias, row_scale, transposed};
  spec.access = {codegen::InnerAccess::contiguous, codegen::InnerAccess::contiguous,
                 codegen::InnerAccess::broadcast, codegen::InnerAccess::strided};
  if (fetched) spec.fetched_by_caller = {true, true, false, false};
  const auto expected = ir::interpret(spec.expression);

  // Output 0 over C itself or in a padded buffer of its own; output 1 with row stride columns + 1.
  // Padding and the space past the tile hold a marker the kernel must leave alone.
  const float marker = -7.25f;
  const auto& c_attr = c->attr<ir::InputAttr>();
  std::vector<float> separate(static_cast<std::size_t>(rows * ldc), marker);
  float* first = in_place ? static_cast<float*>(c_attr.buffer->data()) : separate.data();
  const std::int64_t wide_stride = columns + 1;
  std::vector<double> second(static_cast<std::size_t>(rows * wide_stride), marker);
  if (in_place)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = columns; j < ldc; ++j) first[r * ldc + j] = marker;

  std::vector<const void*> inputs;
  std::vector<std::int64_t> input_strides(spec.inputs.size() * codegen::kMaxLoopRank, 0);
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    const auto& attr = spec.inputs[k]->attr<ir::InputAttr>();
    inputs.push_back(static_cast<const float*>(attr.buffer->data()) + attr.layout.offset);
    input_strides[k * codegen::kMaxLoopRank] = attr.layout.strides[0];
    input_strides[k * codegen::kMaxLoopRank + 1] = attr.layout.strides[1];
  }
  std::vector<std::int64_t> output_strides(2 * codegen::kMaxLoopRank, 0);
  output_strides[0] = ldc;
  output_strides[1] = 1;
  output_strides[codegen::kMaxLoopRank] = wide_stride;
  output_strides[codegen::kMaxLoopRank + 1] = 1;
  std::vector<void*> outputs{first, second.data()};
  codegen::testing::run_tile_kernel(*codegen::compile_loop_kernel(jit, spec), rows, columns, inputs, input_strides,
                                    outputs, output_strides);

  const auto expected_first = contiguous_bytes(expected[0]);
  const auto expected_second = contiguous_bytes(expected[1]);
  for (std::int64_t r = 0; r < rows; ++r) {
    CHECK(std::memcmp(first + r * ldc, expected_first.data() + r * columns * 4, static_cast<std::size_t>(columns) * 4) == 0);
    CHECK(std::memcmp(second.data() + r * wide_stride, expected_second.data() + r * columns * 8,
                      static_cast<std::size_t>(columns) * 8) == 0);
    for (std::int64_t j = columns; j < ldc; ++j) CHECK(first[r * ldc + j] == marker);
    CHECK(second[static_cast<std::size_t>(r * wide_stride + columns)] == marker);
  }
}

}  // namespace

TEST_CASE("loop kernels of the tile form: strided outputs, in place, every row length and width") {
  for (int bits : {128, 256, 512}) {
    codegen::Jit jit(codegen::testing::options_with_width(bits));
    for (Tile tile : {Tile{1, 1}, Tile{3, 5}, Tile{14, 32}, Tile{6, 16}, Tile{4, 7}, Tile{2, 67}, Tile{5, 129},
                      Tile{9, 64}}) {
      for (bool in_place : {false, true})
        for (bool fetched : {false, true}) {
          INFO(bits << " bits, " << tile.rows << " x " << tile.columns << (in_place ? ", in place" : "")
                    << (fetched ? ", inputs fetched by the caller" : ""));
          check_tile(jit, tile, in_place, fetched);
        }
    }
  }
}

TEST_CASE("loop kernels of the tile form: an empty tile writes nothing; the form and fetched inputs are in the key") {
  codegen::Jit jit;
  auto x = random_input({2, 3}, {3, 1}, 0, 6, 5);
  codegen::LoopKernelSpec spec;
  spec.expression.outputs = {ir::make_unary(ir::Op::relu, x)};
  spec.inputs = {x};
  spec.access = {codegen::InnerAccess::contiguous};
  const std::string flat_key = codegen::loop_kernel_key(spec);
  spec.form = codegen::LoopForm::tile;
  const std::string tile_key = codegen::loop_kernel_key(spec);
  CHECK(tile_key != flat_key);
  spec.fetched_by_caller = {true};
  CHECK(codegen::loop_kernel_key(spec) != tile_key);
  spec.fetched_by_caller = {false};
  CHECK(codegen::loop_kernel_key(spec) == tile_key);
  spec.fetched_by_caller = {false, true};
  CHECK_THROWS_AS(codegen::loop_kernel_key(spec), tensorjit::InternalError);
  spec.fetched_by_caller.clear();

  float output = 1.5f;
  void* outputs[] = {&output};
  const void* inputs[] = {x->attr<ir::InputAttr>().buffer->data()};
  std::int64_t strides[codegen::kMaxLoopRank] = {3, 1};
  std::int64_t output_strides[codegen::kMaxLoopRank] = {3, 1};
  auto function = codegen::compile_loop_kernel(jit, spec)->as<codegen::LoopFunction>();
  for (auto [rows, columns] : {std::pair<std::int64_t, std::int64_t>{0, 3}, {2, 0}, {0, 0}}) {
    codegen::LoopArgs args{};
    args.rank = 2;
    args.shape[0] = rows;
    args.shape[1] = columns;
    args.inputs = inputs;
    args.input_strides = strides;
    args.outputs = outputs;
    args.output_strides = output_strides;
    function(&args, 0, 0);
    CHECK(output == 1.5f);
  }
}

// A tile kernel prefetches the rows of each contiguous input itself (a prefetch loop per input
// in each row), except those its caller fetches: here the tile and a residual, leaving the third
// input's loop alone.
TEST_CASE("loop kernels of the tile form: no prefetch of the inputs the caller fetches") {
  ScratchDirectory directory("tile-prefetch");
  codegen::Jit jit;
  auto tile = random_input({4, 64}, {64, 1}, 0, 256, 6);
  auto residual = random_input({4, 64}, {64, 1}, 0, 256, 7);
  auto other = random_input({4, 64}, {64, 1}, 0, 256, 8);
  codegen::LoopKernelSpec spec;
  spec.form = codegen::LoopForm::tile;
  spec.expression.outputs = {ir::make_binary(ir::Op::add, ir::make_binary(ir::Op::add, tile, residual), other)};
  spec.inputs = {tile, residual, other};
  spec.access.assign(3, codegen::InnerAccess::contiguous);
  auto prefetch_loops = [&](const std::string& name) {
    const codegen::DumpRequest dump{directory.path() / name, "kernel"};
    codegen::compile_loop_kernel(jit, spec, &dump);
    const std::string text = read_text(dump.folder / "kernel.ll");
    std::size_t count = 0;
    for (std::size_t at = text.find("call void @llvm.prefetch"); at != std::string::npos;
         at = text.find("call void @llvm.prefetch", at + 1))
      ++count;
    return count;
  };
  CHECK(prefetch_loops("all") == 3);
  spec.fetched_by_caller = {true, true, false};
  CHECK(prefetch_loops("fetched") == 1);
}
