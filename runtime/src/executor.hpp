// The executor: materialises tensors. It builds one graph of everything asked for (so shared
// values are computed once), replaces nodes an earlier eval already materialised by inputs over
// their buffers, runs the pipeline, and points each tensor at its result.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <tensorjit/ir/graph.hpp>
#include <tensorjit/tensor.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit::detail {

// A span, not a vector: Tensor::eval passes itself without an allocation.
void evaluate(std::span<const Tensor> tensors);

// A buffer an eval may write one of its outputs into instead of a new one (Tensor::assign and
// tj::optim; docs/contracts.md, contract 1, "assign").
struct Donation {
  std::size_t output = 0;  // the position of the tensor in `tensors`
  // In place: the handle whose own buffer the output may overwrite, when that handle is held by
  // nothing else (the caller checks: no other Tensor shares the impl). Null: no such handle.
  std::shared_ptr<TensorImpl> target;
  // Else: a buffer to write the output into that the caller holds and nothing else does (its
  // use_count is 1 when the eval starts). Null: none.
  std::shared_ptr<ir::Buffer> spare;
};
enum class Donated : std::uint8_t { none, in_place, spare };
// evaluate(tensors), writing the outputs named by `donations` into the buffers given where that
// keeps value semantics (executor.cpp, "Donations"). For each donation, which buffer was used.
// When the target's buffer was written in place, the target handle points at a new input node
// over it (the buffer's version moved on); the evaluated tensor points at the value either way.
std::vector<Donated> evaluate(std::span<const Tensor> tensors, const std::vector<Donation>& donations);

// The graph an eval of these nodes would run: realized nodes replaced by inputs (used by eval and
// by the dumps).
ir::Graph graph_for(const std::vector<ir::NodePtr>& outputs);

// Plans and runs a graph whose inputs are all bound: one value per output.
std::vector<ir::Value> run_graph(const ir::Graph& graph);

}  // namespace tensorjit::detail
