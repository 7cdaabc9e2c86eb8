#include "codegen/src/lower/loop_plan.hpp"

#include <bit>
#include <optional>
#include <sstream>
#include <unordered_map>

#include <tensorjit/ir/check.hpp>
#include <tensorjit/ir/scalar_ops.hpp>

namespace tensorjit::codegen {
namespace {

std::string_view access_name(InnerAccess access) {
  switch (access) {
    case InnerAccess::contiguous: return "contiguous";
    case InnerAccess::broadcast: return "broadcast";
    case InnerAccess::strided: return "strided";
  }
  return "?";
}

// The constant's bits in its own dtype: two constants that the kernel cannot tell apart print the
// same, and -0.0 differs from 0.0.
std::string constant_bits(DType dtype, const ir::Scalar& value) {
  std::ostringstream text;
  text << std::hex;
  switch (dtype) {
    case DType::f32: text << std::bit_cast<std::uint32_t>(ir::scalar_value<float>(value)); break;
    case DType::f64: text << std::bit_cast<std::uint64_t>(ir::scalar_value<double>(value)); break;
    case DType::i32:
      text << static_cast<std::uint32_t>(ir::scalar_value<std::int32_t>(value));
      break;
    case DType::i64:
      text << static_cast<std::uint64_t>(ir::scalar_value<std::int64_t>(value));
      break;
    case DType::boolean: text << (ir::scalar_value<bool>(value) ? 1 : 0); break;
    case DType::f16: text << ir::scalar_value<float16_t>(value).bits; break;
    case DType::bf16: text << ir::scalar_value<bfloat16_t>(value).bits; break;
  }
  return text.str();
}

// Sets input_gathered, and checks that a gathered input is read by gathers alone.
void mark_gathered_inputs(LoopPlan& plan) {
  plan.input_gathered.assign(plan.input_dtypes.size(), false);
  std::vector<bool> read_as_value(plan.input_dtypes.size(), false);
  auto input_of = [&](int n) -> std::optional<std::size_t> {
    const LoopPlanNode& node = plan.nodes[static_cast<std::size_t>(n)];
    if (node.op != ir::Op::input) return std::nullopt;
    return static_cast<std::size_t>(node.input_index);
  };
  for (const auto& node : plan.nodes)
    for (std::size_t k = 0; k < node.operands.size(); ++k) {
      auto input = input_of(node.operands[k]);
      if (node.op == ir::Op::gather && k == 0) {
        TJ_INTERNAL_CHECK(input && !plan.input_iotas[*input])
            << "loop kernel: a gather reads a value that is not an input in memory";
        plan.input_gathered[*input] = true;
      } else if (input) {
        read_as_value[*input] = true;
      }
    }
  for (int output : plan.outputs)
    if (auto input = input_of(output)) read_as_value[*input] = true;
  for (std::size_t k = 0; k < plan.input_gathered.size(); ++k) {
    TJ_INTERNAL_CHECK(!(plan.input_gathered[k] && read_as_value[k]))
        << "loop kernel: input " << k << " is both gathered from and read as a value";
    TJ_INTERNAL_CHECK(!(plan.input_gathered[k] && plan.form == LoopForm::tile))
        << "loop kernel: a tile kernel cannot gather (no flat positions to report an index at)";
  }
}

}  // namespace

LoopPlan make_loop_plan(const LoopKernelSpec& spec) {
  TJ_INTERNAL_CHECK(!spec.expression.outputs.empty()) << "loop kernel: no outputs";
  TJ_INTERNAL_CHECK(spec.access.size() == spec.inputs.size())
      << "loop kernel: " << spec.inputs.size() << " inputs but " << spec.access.size()
      << " access classes";

  TJ_INTERNAL_CHECK(spec.fetched_by_caller.empty() ||
                    (spec.form == LoopForm::tile && spec.fetched_by_caller.size() == spec.inputs.size()))
      << "loop kernel: " << spec.fetched_by_caller.size() << " fetched-by-caller flags for "
      << spec.inputs.size() << " inputs of a " << (spec.form == LoopForm::flat ? "flat" : "placed")
      << " kernel (only tile kernels take them, one per input)";

  LoopPlan plan;
  plan.access = spec.access;
  plan.fetched_by_caller = spec.fetched_by_caller;
  plan.fetched_by_caller.resize(spec.inputs.size(), false);
  plan.form = spec.form;
  plan.streaming_stores = spec.streaming_stores;
  TJ_INTERNAL_CHECK(spec.output_access.empty() ||
                    (spec.form == LoopForm::placed && spec.output_access.size() == spec.expression.outputs.size()))
      << "loop kernel: " << spec.output_access.size() << " output access classes for "
      << spec.expression.outputs.size() << " outputs (only placed kernels take them, one per output)";
  for (InnerAccess access : spec.output_access)
    TJ_INTERNAL_CHECK(access != InnerAccess::broadcast) << "loop kernel: an output cannot be broadcast";
  plan.output_access = spec.output_access;
  plan.output_access.resize(spec.expression.outputs.size(), InnerAccess::contiguous);
  std::unordered_map<const ir::Node*, int> input_positions;
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    const auto& input = spec.inputs[k];
    TJ_INTERNAL_CHECK(input && (input->op() == ir::Op::input || input->op() == ir::Op::iota))
        << "loop kernel: argument " << k << " is not an input or iota node";
    input_positions.emplace(input.get(), static_cast<int>(k));
    plan.input_dtypes.push_back(input->dtype());
    std::optional<IotaLeaf> iota;
    if (input->op() == ir::Op::iota) {
      const auto& attr = input->attr<ir::IotaAttr>();
      iota = IotaLeaf{attr.start, attr.step};
    }
    plan.input_iotas.push_back(iota);
  }

  std::unordered_map<const ir::Node*, int> positions;
  for (const auto& node : ir::topological_order(spec.expression)) {
    LoopPlanNode entry;
    // An iota leaf is an input of the plan: only how it is read differs (input_iotas).
    entry.op = node->op() == ir::Op::iota ? ir::Op::input : node->op();
    entry.dtype = node->dtype();
    if (entry.op == ir::Op::input) {
      auto found = input_positions.find(node.get());
      TJ_INTERNAL_CHECK(found != input_positions.end())
          << "loop kernel: a leaf (" << dtype_name(node->dtype()) << ") is not among the "
          << spec.inputs.size() << " kernel inputs";
      entry.input_index = found->second;
    } else if (node->op() == ir::Op::constant) {
      entry.constant = node->attr<ir::ConstantAttr>().value;
    } else {
      TJ_INTERNAL_CHECK(ir::is_elementwise(node->op()) || node->op() == ir::Op::gather)
          << "loop kernel: " << ir::op_name(node->op())
          << " is not elementwise (views are folded before fusion)";
      for (const auto& operand : node->inputs())
        entry.operands.push_back(positions.at(operand.get()));
    }
    positions.emplace(node.get(), static_cast<int>(plan.nodes.size()));
    plan.nodes.push_back(std::move(entry));
  }
  for (const auto& output : spec.expression.outputs)
    plan.outputs.push_back(positions.at(output.get()));
  mark_gathered_inputs(plan);
  return plan;
}

std::string loop_plan_text(const LoopPlan& plan) {
  std::ostringstream text;
  text << "loop";
  for (std::size_t k = 0; k < plan.input_dtypes.size(); ++k) {
    text << " in" << k << ":" << dtype_name(plan.input_dtypes[k]) << ":"
         << access_name(plan.access[k]);
    if (plan.fetched_by_caller[k]) text << ":fetched";
    if (plan.input_gathered[k]) text << ":gathered";
    if (const auto& iota = plan.input_iotas[k]) {
      text << ":iota(" << std::hex << std::bit_cast<std::uint64_t>(iota->start) << ","
           << std::bit_cast<std::uint64_t>(iota->step) << ")" << std::dec;
    }
  }
  text << ";";
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const auto& node = plan.nodes[n];
    text << " %" << n << "=" << ir::op_name(node.op) << ":" << dtype_name(node.dtype);
    if (node.op == ir::Op::input) text << "(in" << node.input_index << ")";
    if (node.op == ir::Op::constant) text << "(" << constant_bits(node.dtype, node.constant) << ")";
    for (int operand : node.operands) text << " %" << operand;
    text << ";";
  }
  text << " out";
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    text << " %" << plan.outputs[j] << (plan.output_access[j] == InnerAccess::strided ? "(strided)" : "");
  if (plan.form == LoopForm::tile) text << " tile";
  if (plan.form == LoopForm::placed) text << " placed";
  if (plan.streaming_stores) text << " streaming";
  return text.str();
}

}  // namespace tensorjit::codegen
