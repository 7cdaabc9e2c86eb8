// The row kernel's plan (row_plan.hpp): every phase flattened and checked, and its text (the key).
#include "codegen/src/lower/row_plan.hpp"

#include <fmt/format.h>

#include <tensorjit/codegen/reduce_kernel.hpp>
#include <tensorjit/ir/check.hpp>

namespace tensorjit::codegen {
namespace {

bool is_row_level(RowValueKind kind) {
  return kind == RowValueKind::row_input || kind == RowValueKind::row_value;
}

// How a phase's leaf standing for `value` is read along the columns.
InnerAccess access_of(const RowValue& value) {
  switch (value.kind) {
    case RowValueKind::column_input: return value.access;
    case RowValueKind::column_value: return InnerAccess::contiguous;
    default: return InnerAccess::broadcast;
  }
}

std::string_view kind_name(RowValueKind kind) {
  switch (kind) {
    case RowValueKind::column_input: return "column_input";
    case RowValueKind::row_input: return "row_input";
    case RowValueKind::column_value: return "column_value";
    case RowValueKind::row_value: return "row_value";
  }
  return "?";
}

std::string list_text(const std::vector<int>& list) {
  std::string text;
  for (int v : list) text += fmt::format(" v{}", v);
  return text;
}

// With streaming stores: the column values stored to an output and read by no phase after the
// one that writes them.
std::vector<bool> streamed_values(const RowKernelSpec& spec) {
  std::vector<bool> streamed(spec.values.size(), false);
  if (!spec.streaming_stores) return streamed;
  for (std::size_t p = 0; p < spec.phases.size(); ++p)
    for (int v : spec.phases[p].writes) {
      if (spec.values[static_cast<std::size_t>(v)].output < 0) continue;
      bool read_later = false;
      for (std::size_t q = p + 1; q < spec.phases.size(); ++q)
        for (int r : spec.phases[q].reads) read_later = read_later || r == v;
      streamed[static_cast<std::size_t>(v)] = !read_later;
    }
  return streamed;
}

}  // namespace

RowPlan make_row_plan(const RowKernelSpec& spec) {
  RowPlan plan;
  plan.values = spec.values;
  const auto value_count = static_cast<int>(spec.values.size());
  std::vector<bool> ready(spec.values.size(), false);
  for (std::size_t v = 0; v < spec.values.size(); ++v) {
    const RowValueKind kind = spec.values[v].kind;
    ready[v] = kind == RowValueKind::column_input || kind == RowValueKind::row_input;
  }
  auto check_read = [&](int v, bool row_level_only) {
    TJ_INTERNAL_CHECK(v >= 0 && v < value_count && ready[static_cast<std::size_t>(v)])
        << "row kernel: a phase reads value " << v << " before it is computed";
    TJ_INTERNAL_CHECK(!row_level_only || is_row_level(spec.values[static_cast<std::size_t>(v)].kind))
        << "row kernel: a consumer reads value " << v << ", which is not one per row";
  };
  auto note_write = [&](int v, RowValueKind kind) {
    TJ_INTERNAL_CHECK(v >= 0 && v < value_count && spec.values[static_cast<std::size_t>(v)].kind == kind)
        << "row kernel: a phase writes value " << v << " of the wrong kind";
    ready[static_cast<std::size_t>(v)] = true;
  };
  for (const RowPhase& phase : spec.phases) {
    TJ_INTERNAL_CHECK(phase.reads.size() == phase.inputs.size())
        << "row kernel: " << phase.inputs.size() << " inputs but " << phase.reads.size() << " reads";
    RowPlanPhase entry;
    entry.kind = phase.kind;
    entry.op = phase.op;
    entry.reads = phase.reads;
    entry.writes = phase.writes;
    LoopKernelSpec expression{phase.expression, phase.inputs, {}};
    for (int v : phase.reads) {
      check_read(v, false);
      expression.access.push_back(access_of(spec.values[static_cast<std::size_t>(v)]));
    }
    entry.expression = make_loop_plan(expression);
    for (std::size_t k = 0; k < phase.reads.size(); ++k) {
      const RowValue& value = spec.values[static_cast<std::size_t>(phase.reads[k])];
      TJ_INTERNAL_CHECK(value.gathered == entry.expression.input_gathered[k] &&
                        (!value.gathered || value.kind == RowValueKind::column_input))
          << "row kernel: value " << phase.reads[k] << " is gathered from in one place and read as a value in another";
    }
    if (phase.kind == RowPhaseKind::loop) {
      TJ_INTERNAL_CHECK(phase.writes.size() == phase.expression.outputs.size())
          << "row kernel: a loop phase has " << phase.expression.outputs.size() << " outputs but "
          << phase.writes.size() << " writes";
      for (int v : phase.writes) note_write(v, RowValueKind::column_value);
      plan.phases.push_back(std::move(entry));
      continue;
    }
    TJ_INTERNAL_CHECK(is_jit_reduction(phase.op) && !is_arg_reduction(phase.op))
        << "row kernel: " << ir::op_name(phase.op) << " is not lowered in a row kernel";
    TJ_INTERNAL_CHECK(phase.expression.outputs.size() == 1)
        << "row kernel: a producer has " << phase.expression.outputs.size() << " outputs, not 1";
    entry.input_dtype = phase.expression.outputs.front()->dtype();
    entry.accumulator_dtype = reduce_accumulator_dtype(phase.op, entry.input_dtype);
    if (phase.kind == RowPhaseKind::column_reduce) {
      TJ_INTERNAL_CHECK(phase.op == ir::Op::reduce_sum &&
                        (entry.input_dtype == DType::f32 || entry.input_dtype == DType::f64) &&
                        phase.writes.empty() && phase.consumer.outputs.empty())
          << "row kernel: a column_reduce phase is an f32 or f64 sum that writes no value";
      plan.reduces_rows = true;
      plan.phases.push_back(std::move(entry));
      continue;
    }
    TJ_INTERNAL_CHECK(phase.result && phase.result->op() == ir::Op::input &&
                      phase.result->dtype() == entry.accumulator_dtype)
        << "row kernel: the result leaf is not an input of the accumulator dtype";
    TJ_INTERNAL_CHECK(phase.consumer_reads.size() == phase.consumer_inputs.size() &&
                      phase.consumer_writes.size() == phase.consumer.outputs.size())
        << "row kernel: a consumer's reads or writes do not match its leaves or outputs";
    LoopKernelSpec consumer{phase.consumer, {phase.result}, {InnerAccess::broadcast}};
    for (std::size_t i = 0; i < phase.consumer_inputs.size(); ++i) {
      check_read(phase.consumer_reads[i], true);
      consumer.inputs.push_back(phase.consumer_inputs[i]);
      consumer.access.push_back(InnerAccess::broadcast);
    }
    entry.consumer = make_loop_plan(consumer);
    entry.consumer_reads = phase.consumer_reads;
    entry.consumer_writes = phase.consumer_writes;
    for (int v : phase.consumer_writes) note_write(v, RowValueKind::row_value);
    plan.phases.push_back(std::move(entry));
  }
  plan.streaming_stores = spec.streaming_stores;
  plan.streamed = streamed_values(spec);
  return plan;
}

std::string row_plan_text(const RowPlan& plan) {
  std::string text = "row;";
  for (std::size_t v = 0; v < plan.values.size(); ++v) {
    const RowValue& value = plan.values[v];
    text += fmt::format(" v{}={}:{}", v, kind_name(value.kind), dtype_name(value.dtype));
    if (value.kind == RowValueKind::column_input)
      text += value.access == InnerAccess::contiguous  ? ":contiguous"
              : value.access == InnerAccess::broadcast ? ":broadcast"
                                                       : ":strided";
    if (value.same_every_row) text += ":same_every_row";
    if (value.gathered) text += ":gathered";
    text += fmt::format(":in{}:out{}:scratch{};", value.input, value.output, value.scratch);
  }
  for (const RowPlanPhase& phase : plan.phases) {
    if (phase.kind == RowPhaseKind::column_reduce) {
      text += fmt::format(" | column_reduce {}:{} reads{}; producer {}", ir::op_name(phase.op),
                          dtype_name(phase.input_dtype), list_text(phase.reads), loop_plan_text(phase.expression));
    } else if (phase.kind == RowPhaseKind::reduce) {
      text += fmt::format(" | reduce {}:{}->{} reads{}; producer {}; consumer reads{} writes{}; {}",
                          ir::op_name(phase.op), dtype_name(phase.input_dtype),
                          dtype_name(phase.accumulator_dtype), list_text(phase.reads),
                          loop_plan_text(phase.expression), list_text(phase.consumer_reads),
                          list_text(phase.consumer_writes), loop_plan_text(phase.consumer));
    } else {
      text += fmt::format(" | loop reads{} writes{}; {}", list_text(phase.reads),
                          list_text(phase.writes), loop_plan_text(phase.expression));
    }
  }
  if (plan.streaming_stores) {
    text += " | streaming";
    for (std::size_t v = 0; v < plan.streamed.size(); ++v)
      if (plan.streamed[v]) text += fmt::format(" v{}", v);
  }
  return text;
}

}  // namespace tensorjit::codegen
