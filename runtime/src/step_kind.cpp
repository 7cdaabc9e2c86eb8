#include "runtime/src/step_kind.hpp"

#include <array>

#include "runtime/src/concat_step.hpp"
#include "runtime/src/fill_step.hpp"
#include "runtime/src/loop_step.hpp"
#include "runtime/src/product_step.hpp"
#include "runtime/src/reduce_step.hpp"
#include "runtime/src/row_kernel_step.hpp"
#include "runtime/src/scan_step.hpp"
#include "runtime/src/scatter_step.hpp"
#include "runtime/src/single_step.hpp"
#include "runtime/src/sort_step.hpp"

namespace tensorjit::detail {
namespace {

// A kind's typed prepare function, as the table's PrepareStep.
template <auto prepare>
std::shared_ptr<const PreparedStep> prepare_as_step(const ir::Step& step, const ValueTable& values,
                                                    const StepDump& dump) {
  return prepare(step, values, dump);
}

// A loop step of a plan runs its whole domain (row steps prepare their parts themselves).
std::shared_ptr<const PreparedLoop> prepare_loop(const ir::Step& step, const ValueTable& values,
                                                 const StepDump& dump) {
  return prepare_loop_step(step, values, dump, LoopLaunch::whole_domain);
}

using Kind = ir::Step::Kind;
constexpr std::array<StepKind, ir::kStepKindCount> kStepKinds = {{
    // kind          dump suffix   prepare
    {Kind::loop,     "",           prepare_as_step<prepare_loop>},
    {Kind::single,   "",           prepare_single_step},
    {Kind::reduce,   "",           prepare_as_step<prepare_reduce_step>},
    {Kind::product,  "-epilogue",  prepare_as_step<prepare_product_step>},
    {Kind::row,      "",           prepare_as_step<prepare_row_kernel_step>},
    {Kind::fill,     "",           prepare_fill_step},
    {Kind::scan,     "",           prepare_as_step<prepare_scan_step>},
    {Kind::sort,     "",           prepare_sort_step},
    {Kind::scatter,  "",           prepare_scatter_step},
    {Kind::concat,   "",           prepare_concat_step},
}};

constexpr bool rows_follow_the_enum() {
  for (std::size_t k = 0; k < kStepKinds.size(); ++k)
    if (static_cast<std::size_t>(kStepKinds[k].kind) != k) return false;
  return true;
}
static_assert(rows_follow_the_enum(), "kStepKinds has one row per ir::Step::Kind, in the enum's order");

}  // namespace

const StepKind& step_kind(ir::Step::Kind kind) { return kStepKinds.at(static_cast<std::size_t>(kind)); }

}  // namespace tensorjit::detail
