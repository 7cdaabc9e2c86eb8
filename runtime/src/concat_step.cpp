// A concat step: the concat's buffer is allocated first, and every operand is written straight into
// its place there, a strided region of the buffer (docs/architecture.md, "Joining"). An operand
// that a part computes (a loop step fuse gave to this step: the operand is read by nothing else)
// is written there by that part's kernel, so `concat({a * 2, b + 1})` reads a and b once and
// writes the result once, with no pass of its own. Any other operand (an input, a value an earlier
// step wrote, a constant, an iota, an operand that appears twice) is copied there by a loop kernel
// of one copy. Concats nested in the step (read only by it) are regions of the same buffer.
#include "runtime/src/concat_step.hpp"

#include <unordered_map>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/loop_step.hpp"

namespace tensorjit::detail {
namespace {

struct PreparedConcat final : PreparedStep {
  std::vector<std::shared_ptr<const PreparedLoop>> parts;  // one per step.parts, in order
  std::vector<ir::Step> copies;                            // a copy step per other operand
  std::vector<std::shared_ptr<const PreparedLoop>> copy_loops;

  void launch(const ir::Step& step, ValueTable& values, const StepDump& dump) const override {
    const ir::NodePtr& root = step.outputs.front();
    auto buffer = ir::Buffer::allocate_uninitialized(static_cast<std::size_t>(root->numel()) * itemsize(root->dtype()));
    values.put(root.get(), ir::Value{std::move(buffer), root->dtype(), ir::Layout::contiguous(root->shape())});
    for (std::size_t p = 0; p < parts.size(); ++p) parts[p]->launch(step.parts[p], values, dump);
    // After the parts: a copy may read a value a part has just placed.
    for (std::size_t c = 0; c < copies.size(); ++c) copy_loops[c]->launch(copies[c], values, dump);
  }
};

// `layout` restricted to [start, start + extent) along `axis`: where an operand of a concat goes.
ir::Layout region(const ir::Layout& layout, int axis, std::int64_t start, const ir::Shape& shape) {
  const auto a = static_cast<std::size_t>(axis);
  return ir::Layout{shape, layout.strides, layout.offset + start * layout.strides[a]};
}

class ConcatPreparer {
 public:
  ConcatPreparer(const ir::Step& step, const ValueTable& values, const StepDump& dump)
      : step_(step), values_(values), dump_(dump) {
    for (const auto& node : step.nodes)
      if (node->op() == ir::Op::concat) nested_[node.get()] = true;
    for (std::size_t p = 0; p < step.parts.size(); ++p)
      for (const auto& out : step.parts[p].outputs) written_by_[out.get()] = p;
  }

  std::shared_ptr<const PreparedConcat> prepare() {
    const ir::NodePtr& root = step_.outputs.front();
    places_.resize(step_.parts.size());
    for (std::size_t p = 0; p < step_.parts.size(); ++p) places_[p].resize(step_.parts[p].outputs.size());
    place(root, ir::Layout::contiguous(root->shape()));
    auto prepared = std::make_shared<PreparedConcat>();
    for (std::size_t p = 0; p < step_.parts.size(); ++p) {
      for (const auto& place : places_[p])
        TJ_INTERNAL_CHECK(place.into) << "concat step: part " << p << " writes a value that is no operand";
      prepared->parts.push_back(prepare_loop_step(step_.parts[p], values_, named(fmt_name("part", p)),
                                                  LoopLaunch::whole_domain, places_[p]));
    }
    // A copy of an operand a part places reads it where the part put it: its layout is known now,
    // its buffer only at launch.
    ValueTable staged = values_;
    for (std::size_t p = 0; p < step_.parts.size(); ++p)
      for (std::size_t j = 0; j < step_.parts[p].outputs.size(); ++j) {
        const ir::NodePtr& out = step_.parts[p].outputs[j];
        staged.put(out.get(), ir::Value{nullptr, out->dtype(), places_[p][j].layout});
      }
    for (auto& [operand, layout] : copies_) {
      ir::NodePtr copy = ir::make_unary(ir::Op::copy, operand);
      ir::Step step{ir::Step::Kind::loop, {copy}, {copy}, {"an operand copied into its concat"}};
      prepared->copy_loops.push_back(prepare_loop_step(step, staged, named(fmt_name("copy", prepared->copies.size())),
                                                       LoopLaunch::whole_domain,
                                                       {OutputPlace{root.get(), layout}}));
      prepared->copies.push_back(std::move(step));
    }
    return prepared;
  }

 private:
  // Each operand of `concat`, written at `layout`, gets its place: in a nested concat's region,
  // in the outputs of the part that computes it, or a copy.
  void place(const ir::NodePtr& concat, const ir::Layout& layout) {
    const int axis = concat->attr<ir::ConcatAttr>().axis;
    std::int64_t start = 0;
    for (const auto& operand : concat->inputs()) {
      ir::Layout at = region(layout, axis, start, operand->shape());
      start += operand->shape()[static_cast<std::size_t>(axis)];
      if (nested_.count(operand.get())) {
        place(operand, at);
        continue;
      }
      if (auto part = written_by_.find(operand.get()); part != written_by_.end()) {
        const auto& outputs = step_.parts[part->second].outputs;
        const auto j = static_cast<std::size_t>(std::find(outputs.begin(), outputs.end(), operand) - outputs.begin());
        OutputPlace& slot = places_[part->second][j];
        if (!slot.into) {
          slot = OutputPlace{step_.outputs.front().get(), std::move(at)};
          continue;
        }
      }
      if (operand->numel() > 0) copies_.emplace_back(operand, std::move(at));
    }
  }

  static std::string fmt_name(const char* what, std::size_t n) { return std::string(what) + std::to_string(n); }
  StepDump named(const std::string& suffix) const {
    if (dump_.folder.empty()) return dump_;
    return StepDump{dump_.folder, dump_.kernel_name + "-" + suffix};
  }

  const ir::Step& step_;
  const ValueTable& values_;
  const StepDump& dump_;
  std::unordered_map<const ir::Node*, bool> nested_;
  std::unordered_map<const ir::Node*, std::size_t> written_by_;
  std::vector<std::vector<OutputPlace>> places_;  // per part, per output
  std::vector<std::pair<ir::NodePtr, ir::Layout>> copies_;
};

}  // namespace

std::shared_ptr<const PreparedStep> prepare_concat_step(const ir::Step& step, const ValueTable& values,
                                                        const StepDump& dump) {
  return ConcatPreparer(step, values, dump).prepare();
}

}  // namespace tensorjit::detail
