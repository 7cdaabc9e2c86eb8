// Helpers for the loop kernel tests: a LoopKernelSpec from a graph whose nodes all have the
// domain's shape, running the JIT'd kernel over the domain (in any split of [0, numel)), and
// comparing its outputs bit for bit with the reference interpreter.
//
// Bits: equal bytes, except that any NaN equals any NaN. On x86 an operation on two NaNs returns
// the first operand's NaN, and which operand comes first in a commutative instruction is each
// compiler's choice (g++ for the interpreter, LLVM for the kernel), so the sign and payload of a
// NaN made from two NaNs are not reproducible across compilers. No op lets a NaN's sign or payload
// reach a non-NaN result (casts give 0, comparisons ignore them), so nothing else is relaxed.
// Measured with an exact comparison: over every op, dtype and special value, only add and mul of
// two NaNs of different signs differ (LLVM commutes the operands); everything else matches byte for
// byte.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tensorjit/codegen/loop_kernel.hpp>
#include <tensorjit/ir/graph.hpp>
#include <tensorjit/ir/interpreter.hpp>

namespace tensorjit::codegen::testing {

namespace ir = tensorjit::ir;

// The access class a layout's inner stride asks for (rank 0 reads one element: broadcast).
inline InnerAccess access_of(const ir::Layout& layout) {
  if (layout.strides.empty() || layout.strides.back() == 0) return InnerAccess::broadcast;
  return layout.strides.back() == 1 ? InnerAccess::contiguous : InnerAccess::strided;
}

// The spec of `graph`: its input leaves in topological order, each classed by its layout.
inline LoopKernelSpec make_spec(const ir::Graph& graph) {
  LoopKernelSpec spec;
  spec.expression = graph;
  for (const auto& node : ir::topological_order(graph)) {
    if (node->op() != ir::Op::input) continue;
    spec.inputs.push_back(node);
    spec.access.push_back(access_of(node->attr<ir::InputAttr>().layout));
  }
  return spec;
}

// Row-major bytes of `value` read through its layout.
inline std::vector<unsigned char> contiguous_bytes(const ir::Value& value) {
  const ir::Shape& shape = value.layout.shape;
  const auto size = static_cast<std::int64_t>(itemsize(value.dtype));
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(count * size));
  const auto* data = static_cast<const unsigned char*>(value.buffer->data());
  for (std::int64_t linear = 0; linear < count; ++linear) {
    std::int64_t offset = value.layout.offset;
    std::int64_t rest = linear;
    for (std::size_t axis = shape.size(); axis-- > 0;) {
      offset += (rest % shape[axis]) * value.layout.strides[axis];
      rest /= shape[axis];
    }
    std::memcpy(bytes.data() + linear * size, data + offset * size, static_cast<std::size_t>(size));
  }
  return bytes;
}

// The index of the first element whose bits differ (any NaN equal to any NaN), or -1.
inline std::int64_t first_difference(DType dtype, const std::vector<unsigned char>& a,
                                     const std::vector<unsigned char>& b) {
  if (a.size() != b.size()) return 0;
  const auto size = itemsize(dtype);
  for (std::size_t i = 0; i < a.size() / size; ++i) {
    const unsigned char* x = a.data() + i * size;
    const unsigned char* y = b.data() + i * size;
    if (std::memcmp(x, y, size) == 0) continue;
    if (dtype == DType::f32) {
      float u, v;
      std::memcpy(&u, x, 4);
      std::memcpy(&v, y, 4);
      if (std::isnan(u) && std::isnan(v)) continue;
    } else if (dtype == DType::f64) {
      double u, v;
      std::memcpy(&u, x, 8);
      std::memcpy(&v, y, 8);
      if (std::isnan(u) && std::isnan(v)) continue;
    } else if (is_storage_float(dtype)) {
      std::uint16_t u, v;
      std::memcpy(&u, x, 2);
      std::memcpy(&v, y, 2);
      auto widen = [&](std::uint16_t bits) {
        return dtype == DType::f16 ? float_from_f16_bits(bits) : float_from_bf16_bits(bits);
      };
      if (std::isnan(widen(u)) && std::isnan(widen(v))) continue;
    }
    return static_cast<std::int64_t>(i);
  }
  return -1;
}

inline std::string element_text(DType dtype, const std::vector<unsigned char>& bytes,
                                std::int64_t i) {
  if (i < 0 || static_cast<std::size_t>(i + 1) * itemsize(dtype) > bytes.size()) return "<none>";
  const unsigned char* p = bytes.data() + i * static_cast<std::int64_t>(itemsize(dtype));
  std::uint64_t bits = 0;
  std::memcpy(&bits, p, itemsize(dtype));
  std::string text;
  switch (dtype) {
    case DType::f32: { float v; std::memcpy(&v, p, 4); text = std::to_string(v); break; }
    case DType::f64: { double v; std::memcpy(&v, p, 8); text = std::to_string(v); break; }
    case DType::i32: { std::int32_t v; std::memcpy(&v, p, 4); text = std::to_string(v); break; }
    case DType::i64: { std::int64_t v; std::memcpy(&v, p, 8); text = std::to_string(v); break; }
    case DType::boolean: text = std::to_string(static_cast<int>(*p)); break;
    case DType::f16: text = std::to_string(float_from_f16_bits(static_cast<std::uint16_t>(bits))); break;
    case DType::bf16: text = std::to_string(float_from_bf16_bits(static_cast<std::uint16_t>(bits))); break;
  }
  char hex[24];
  std::snprintf(hex, sizeof hex, " [0x%llx]", static_cast<unsigned long long>(bits));
  return text + hex;
}

// One call of a tile-form kernel over rows x columns, each operand at its pointer with its
// [row stride, column stride] (kMaxLoopRank entries per operand, as LoopArgs takes them).
inline void run_tile_kernel(const CompiledKernel& kernel, std::int64_t rows, std::int64_t columns,
                            const std::vector<const void*>& inputs, const std::vector<std::int64_t>& input_strides,
                            const std::vector<void*>& outputs, const std::vector<std::int64_t>& output_strides) {
  LoopArgs args{};
  args.rank = 2;
  args.shape[0] = rows;
  args.shape[1] = columns;
  args.inputs = inputs.data();
  args.input_strides = input_strides.data();
  args.outputs = outputs.data();
  args.output_strides = output_strides.data();
  kernel.as<LoopFunction>()(&args, 0, rows * columns);
}

// The kernel's outputs over `domain`, running it on the pieces [cuts[i], cuts[i+1]) (cuts empty:
// one call over the whole range). Inputs are read through their own layouts.
inline std::vector<std::vector<unsigned char>> run_loop_kernel(
    const CompiledKernel& kernel, const LoopKernelSpec& spec, const ir::Shape& domain,
    std::vector<std::int64_t> cuts = {}) {
  LoopArgs args{};
  const ir::Shape shape = domain.empty() ? ir::Shape{1} : domain;
  REQUIRE(shape.size() <= static_cast<std::size_t>(kMaxLoopRank));
  args.rank = static_cast<std::int64_t>(shape.size());
  std::int64_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    args.shape[d] = shape[d];
    count *= shape[d];
  }
  std::vector<const void*> inputs;
  std::vector<std::int64_t> strides(spec.inputs.size() * kMaxLoopRank, 0);
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    const auto& input = spec.inputs[k]->attr<ir::InputAttr>();
    const auto* base = static_cast<const unsigned char*>(input.buffer->data());
    inputs.push_back(base + input.layout.offset * static_cast<std::int64_t>(itemsize(input.dtype)));
    for (std::size_t d = 0; d < input.layout.strides.size(); ++d) {
      strides[k * kMaxLoopRank + d] = input.layout.strides[d];
    }
  }
  // Poisoned outputs: an element the kernel forgets to write shows up. Each starts on a 64-byte
  // boundary, as the runtime's buffers do (streaming kernels require it).
  constexpr std::size_t kAlignment = 64;
  std::vector<std::vector<unsigned char>> storage;
  std::vector<void*> output_pointers;
  for (const auto& node : spec.expression.outputs) {
    storage.emplace_back(static_cast<std::size_t>(count) * itemsize(node->dtype()) + kAlignment, 0xA5);
    const auto address = reinterpret_cast<std::uintptr_t>(storage.back().data());
    output_pointers.push_back(storage.back().data() + (kAlignment - address % kAlignment) % kAlignment);
  }
  args.inputs = inputs.data();
  args.input_strides = strides.data();
  args.outputs = output_pointers.data();
  auto* function = kernel.as<LoopFunction>();
  if (cuts.empty()) cuts = {0, count};
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) function(&args, cuts[i], cuts[i + 1]);
  std::vector<std::vector<unsigned char>> outputs;
  for (std::size_t j = 0; j < storage.size(); ++j) {
    const auto* first = static_cast<const unsigned char*>(output_pointers[j]);
    outputs.emplace_back(first, first + static_cast<std::size_t>(count) * itemsize(spec.expression.outputs[j]->dtype()));
  }
  return outputs;
}

// Compiles `spec` with `jit`, runs it over the domain (split at `cuts`), and checks every output
// against the interpreter. Returns whether all matched.
inline bool matches_interpreter(Jit& jit, const LoopKernelSpec& spec,
                                std::vector<std::int64_t> cuts = {}) {
  const ir::Shape& domain = spec.expression.outputs.at(0)->shape();
  auto kernel = compile_loop_kernel(jit, spec);
  auto actual = run_loop_kernel(*kernel, spec, domain, std::move(cuts));
  auto expected = ir::interpret(spec.expression);
  bool all = true;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    const DType dtype = spec.expression.outputs[j]->dtype();
    const auto reference = contiguous_bytes(expected[j]);
    const std::int64_t at = first_difference(dtype, actual[j], reference);
    if (at >= 0) {
      all = false;
      std::string operands;
      for (const auto& input : spec.inputs) {
        const auto& attr = input->attr<ir::InputAttr>();
        const auto values = contiguous_bytes(ir::Value{attr.buffer, attr.dtype, attr.layout});
        operands += " " + element_text(attr.dtype, values, at);
      }
      INFO("operands:" << operands);
      INFO("output " << j << " (" << dtype_name(dtype) << ") element " << at << ": kernel "
                     << element_text(dtype, actual[j], at) << ", interpreter "
                     << element_text(dtype, reference, at) << "; key " << loop_kernel_key(spec));
      CHECK(at < 0);
    }
  }
  return all;
}

}  // namespace tensorjit::codegen::testing
