// Loops as a new user writes them: C++ scalars that change each step compile nothing new, and a
// loop that reads only its loss never recomputes the history of its lazy parameters, while the
// named temporaries of one expression still fuse (docs/contracts.md, "A value is computed once").
#include <cmath>
#include <functional>
#include <utility>
#include <memory>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tj = tensorjit;
namespace ir = tensorjit::ir;

namespace {

std::uint64_t compiles() { return tj::jit_statistics().compiles; }

bool realized(const tj::Tensor& t) { return tj::detail::node_of(t, "test")->realized() != nullptr; }

// The nearest realized node on the first-operand chain behind t's node, or null.
ir::NodePtr realized_ancestor(const tj::Tensor& t) {
  for (ir::NodePtr node = tj::detail::node_of(t, "test"); node && !node->inputs().empty(); node = node->input(0))
    if (node->is_realized()) return node;
  return nullptr;
}

}  // namespace

TEST_CASE("a scalar that changes every step is a kernel argument: nothing new is compiled") {
  const tj::Tensor x = tj::arange(0, 1000, 1, tj::f32);
  const tj::Tensor g = tj::full({1000}, 0.25f);
  std::vector<float> first;
  std::uint64_t after_warmup = 0;
  for (int step = 0; step < 20; ++step) {
    const float lr = 0.1f / static_cast<float>(step + 1);        // a decaying learning rate
    const float bc = 1.0f - std::pow(0.9f, static_cast<float>(step + 1));  // a bias correction
    tj::Tensor p = x - (lr / bc) * g;                               // C++ scalars, weakly typed
    tj::Tensor q = x * tj::scalar(lr) + tj::tensor<float>(tj::Shape{}, {bc});
    tj::eval({p, q});
    // Same bits as the scalar arithmetic on the host: an argument is the literal's value.
    CHECK(p.at<float>({7}) == 7.0f - (lr / bc) * 0.25f);
    CHECK(q.at<float>({7}) == 7.0f * lr + bc);
    if (step == 2) after_warmup = compiles();
  }
  CHECK(compiles() == after_warmup);
}

TEST_CASE("a constant that is also an output is filled contiguously, not read as an argument") {
  const tj::Tensor c = tj::full({3}, 2.5f);
  const tj::Tensor y = c * tj::arange(0, 3, 1, tj::f32);
  tj::eval({c, y});
  CHECK(c.strides() == tj::Shape{1});
  CHECK(c.to_vector<float>() == std::vector<float>{2.5f, 2.5f, 2.5f});
  CHECK(y.to_vector<float>() == std::vector<float>{0.0f, 2.5f, 5.0f});
}

TEST_CASE("values a rewrite looks at stay literals: x * 1 and x + 0 still fold") {
  const tj::Tensor x = tj::arange(0, 64, 1, tj::i32);
  const std::uint64_t before = compiles();
  CHECK((x * 1 + 0).to_vector<std::int32_t>() == x.to_vector<std::int32_t>());
  CHECK((x * 3 + 5).at<std::int32_t>({2}) == 11);
  CHECK((x * 4 + 6).at<std::int32_t>({2}) == 14);  // another value: the same kernel
  CHECK(compiles() - before <= 1);
}

TEST_CASE("a loop that reads only its loss keeps its parameters: the history is computed once") {
  tj::Tensor p = tj::full({256}, 1.0f);
  const tj::Tensor target = tj::arange(0, 256, 1, tj::f32) * 0.01f;
  std::vector<tj::Tensor> history;
  for (int step = 0; step < 30; ++step) {
    tj::Tensor diff = p - target;
    const float loss = (diff * diff).mean().item<float>();
    CHECK(std::isfinite(loss));
    history.push_back(p);
    p = p - 0.1f * diff;  // never evaluated by the loop itself
  }
  // Every parameter two steps back was kept by an eval that needed it again; none is left lazy
  // for the next loss to recompute, and the chain behind the last kept one is never walked.
  // (history[0] is the constant it started from.)
  for (std::size_t k = 1; k + 2 < history.size(); ++k) CHECK(realized(history[k]));
  // The values are those of the same loop with every parameter evaluated each step.
  tj::Tensor eager = tj::full({256}, 1.0f);
  for (int step = 0; step < 30; ++step) {
    eager = eager - 0.1f * (eager - target);
    eager.eval();
  }
  CHECK(p.to_vector<float>() == eager.to_vector<float>());
}

TEST_CASE("a loop that reads only its loss frees each step's values once later steps are realized") {
  tj::Tensor p = tj::full({4096}, 1.0f);
  tj::Tensor m = tj::zeros({4096});
  const tj::Tensor target = tj::arange(0, 4096, 1, tj::f32) * 0.001f;
  std::weak_ptr<ir::Buffer> early;
  for (int step = 0; step < 40; ++step) {
    tj::Tensor diff = p - target;
    CHECK(std::isfinite((diff * diff).mean().item<float>()));
    m = 0.9f * m + 0.1f * diff;  // a moment, held only by its handle, as Adam's
    p = p - 0.05f * m;
    if (step == 5) {  // a parameter an eval kept: realized, and reached only through later steps
      const ir::NodePtr kept = realized_ancestor(p);
      REQUIRE(kept != nullptr);
      early = kept->realized()->buffer;
    }
  }
  // The chain of lazy history behind p holds at most the last few steps' values, not forty.
  int realized_in_history = 0;
  for (ir::NodePtr node = tj::detail::node_of(p, "test"); node && !node->inputs().empty(); node = node->input(0))
    realized_in_history += node->is_realized() ? 1 : 0;
  CHECK(realized_in_history <= 3);
  CHECK(early.expired());
  // The values are those of the loop that evaluates everything each step.
  tj::Tensor eager_p = tj::full({4096}, 1.0f), eager_m = tj::zeros({4096});
  for (int step = 0; step < 40; ++step) {
    tj::Tensor diff = eager_p - target;
    eager_m = 0.9f * eager_m + 0.1f * diff;
    eager_p = eager_p - 0.05f * eager_m;
    tj::eval({eager_p, eager_m});
  }
  CHECK(p.to_vector<float>() == eager_p.to_vector<float>());
  CHECK(m.to_vector<float>() == eager_m.to_vector<float>());
}

// W17 in small: the gradient is a matmul computed inside the moment and parameter updates, never
// realized itself, and only the loss is read each step.
TEST_CASE("a loop whose gradients are computed inside its updates keeps its state and frees each step's activations") {
  const tj::Tensor x = tj::arange(0, 32 * 16, 1, tj::f32).reshape({32, 16}) * 0.001f;
  tj::Tensor w = tj::full({16, 8}, 0.01f);
  tj::Tensor m = tj::zeros({16, 8});
  std::weak_ptr<ir::Buffer> early_activation;
  std::vector<float> losses;
  std::vector<ir::NodePtr> moments;
  for (int step = 0; step < 12; ++step) {
    tj::Tensor h = tj::tanh(tj::matmul(x, w));
    tj::Tensor loss = (h * h).mean();
    tj::Tensor gradient = tj::matmul(x.transpose(), (1.0f - h * h) * h);
    losses.push_back(loss.item<float>());
    if (step == 1) {  // the activation the gradient reads: kept by the loss's eval
      const ir::NodePtr activation = tj::detail::node_of(h, "test");
      REQUIRE(activation->is_realized());
      early_activation = activation->realized()->buffer;
    }
    m = 0.9f * m + 0.1f * gradient;
    w = w - 0.05f * m;
    moments.push_back(tj::detail::node_of(m, "test"));
  }
  // Each moment a later loss needed was kept by that eval (the handle held it, a matmul computed
  // it), and none holds its history: the step's activations were freed with its gradient.
  for (std::size_t k = 0; k + 2 < moments.size(); ++k) CHECK(moments[k]->computed());
  CHECK(early_activation.expired());
  // The values are those of the loop that evaluates everything each step.
  tj::Tensor eager_w = tj::full({16, 8}, 0.01f), eager_m = tj::zeros({16, 8});
  for (int step = 0; step < 12; ++step) {
    tj::Tensor h = tj::tanh(tj::matmul(x, eager_w));
    tj::Tensor loss = (h * h).mean();
    tj::Tensor gradient = tj::matmul(x.transpose(), (1.0f - h * h) * h);
    CHECK(loss.item<float>() == losses[static_cast<std::size_t>(step)]);
    eager_m = 0.9f * eager_m + 0.1f * gradient;
    eager_w = eager_w - 0.05f * eager_m;
    tj::eval({eager_w, eager_m});
  }
  CHECK(w.to_vector<float>() == eager_w.to_vector<float>());
  CHECK(m.to_vector<float>() == eager_m.to_vector<float>());
}

TEST_CASE("a held value a separate step computes is kept; named temporaries of row blocks still fuse") {
  const tj::Tensor a = tj::arange(0, 64, 1, tj::f32).reshape({8, 8}) * 0.01f;
  tj::eval({a});
  tj::Tensor product = tj::matmul(a, a);
  tj::Tensor scaled = product * 2.0f;
  tj::Tensor y = tj::relu(scaled) * 0.5f;
  y.eval();
  CHECK(realized(product));  // another eval would run the matmul again
  CHECK(realized(scaled));   // so would one of this
  tj::Tensor column_sum = a.sum({0});  // a bias gradient: a reduction step of its own
  tj::Tensor moment = column_sum * 0.1f;
  (moment + 1.0f).eval();
  CHECK(realized(moment));
  // A softmax written out, every intermediate named: one row kernel, nothing kept.
  tj::Tensor peak = a.max({1}, true);
  tj::Tensor exps = tj::exp(a - peak);
  tj::Tensor total = exps.sum({1}, true);
  tj::Tensor softmax = exps / total;
  softmax.eval();
  CHECK_FALSE(realized(peak));
  CHECK_FALSE(realized(exps));
  CHECK_FALSE(realized(total));
  const std::vector<float> expected = tj::softmax(a, 1).to_vector<float>();
  const std::vector<float> got = softmax.to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-6));
  const tj::Tensor elementwise = a * 3.0f;
  tj::Tensor z = (elementwise + 1.0f) * 2.0f;
  z.eval();
  CHECK_FALSE(realized(elementwise));
}

TEST_CASE("a realized value another handle or a pending node still reads is never freed") {
  const tj::Tensor x = tj::arange(0, 4096, 1, tj::f32);
  tj::Tensor hidden = tj::tanh(x * 0.001f);
  tj::Tensor later = hidden * 3.0f;  // lazy work over hidden
  tj::Tensor y = hidden + 1.0f;
  y.eval();
  tj::Tensor z = hidden - 1.0f;  // a second eval needs hidden: kept
  z.eval();
  const ir::NodePtr kept = tj::detail::node_of(hidden, "test");
  CHECK(kept->is_realized());
  y = tj::Tensor();
  z = tj::Tensor();
  CHECK(kept->is_realized());  // `later` and the handle `hidden` still read it
  hidden = tj::Tensor();
  CHECK(kept->is_realized());  // `later` does
  CHECK(later.at<float>({1000}) == tj::tanh(x * 0.001f).at<float>({1000}) * 3.0f);
  later = tj::Tensor();
  CHECK_FALSE(kept->is_realized());  // nothing can read it now
}

TEST_CASE("named temporaries of one eval still fuse: nothing is kept until a second eval needs it") {
  const tj::Tensor a = tj::arange(0, 4096, 1, tj::f32);
  const tj::Tensor b = tj::full({4096}, 2.0f);
  tj::Tensor product = a * b;
  tj::Tensor shifted = product + 1.0f;
  tj::Tensor y = tj::relu(shifted) * 0.5f;
  y.eval();
  CHECK_FALSE(realized(product));
  CHECK_FALSE(realized(shifted));
  // A second eval that reads `shifted` again keeps it (computed twice, never three times).
  tj::Tensor z = shifted - 3.0f;
  z.eval();
  CHECK(realized(shifted));
  CHECK_FALSE(realized(product));
  CHECK(z.at<float>({10}) == 10.0f * 2.0f + 1.0f - 3.0f);
}

TEST_CASE("a value that lazy work built before the eval reads is kept: the forward pass runs once") {
  const tj::Tensor x = tj::arange(0, 4096, 1, tj::f32) * 0.001f;
  tj::Tensor scaled = x * 2.0f;
  tj::Tensor hidden = tj::tanh(scaled);  // a forward activation
  tj::Tensor loss = (hidden * hidden).sum();
  // Its gradient, built before the loss is read, as a training step builds it.
  tj::Tensor gradient = (1.0f - hidden * hidden) * 2.0f;
  const float value = loss.item<float>();
  CHECK(realized(hidden));  // the gradient will read it: kept by the loss's eval
  CHECK_FALSE(realized(scaled));  // only the loss's own graph and a handle read it: fused
  // The gradient reads the kept value: what it computes is the same as from scratch.
  const tj::Tensor fresh = (1.0f - tj::tanh(x * 2.0f) * tj::tanh(x * 2.0f)) * 2.0f;
  CHECK(gradient.to_vector<float>() == fresh.to_vector<float>());
  CHECK(value == (tj::tanh(x * 2.0f) * tj::tanh(x * 2.0f)).sum().item<float>());
}

// Assignment to a temporary (`t.slice(0, 0, 1) = x`) would change nothing: it does not compile.
static_assert(!std::is_assignable_v<tj::Tensor&&, const tj::Tensor&>);
static_assert(!std::is_assignable_v<tj::Tensor&&, tj::Tensor&&>);
static_assert(std::is_assignable_v<tj::Tensor&, const tj::Tensor&>);

TEST_CASE("assign: the handle takes the new values; copies and lazy graphs built before keep the old") {
  tj::Tensor p = tj::tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const tj::Tensor copy = p;                // a handle copied before
  const tj::Tensor lazy = p * 10.0f;        // a graph built before, not evaluated
  p.assign(tj::tensor({1.0, 2.0, 3.0}));    // broadcast over the rows, cast to f32
  CHECK(p.dtype() == tj::f32);
  CHECK(p.shape() == tj::Shape{2, 3});
  CHECK(p.to_vector<float>() == std::vector<float>{1, 2, 3, 1, 2, 3});
  CHECK(copy.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(lazy.to_vector<float>() == std::vector<float>{10, 20, 30, 40, 50, 60});
  // An update that reads the tensor it assigns to.
  p.assign(p * 2.0f + copy);
  CHECK(p.to_vector<float>() == std::vector<float>{3, 6, 9, 6, 9, 12});
  // A value the plan makes a view of an input (x.T * 1 is x.T) is copied: the result is contiguous.
  const tj::Tensor x = tj::tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  p.assign(x.transpose() * 1.0f);
  CHECK(p.strides() == tj::Shape{3, 1});
  CHECK(p.to_vector<float>() == std::vector<float>{1, 3, 5, 2, 4, 6});
  CHECK_THROWS_WITH_AS(p.assign(tj::zeros({4})), doctest::Contains("assign: cannot broadcast"), tj::Error);
  CHECK_THROWS_WITH_AS(p.assign(tj::zeros({3, 3})), doctest::Contains("assign: cannot broadcast"), tj::Error);
}

namespace {

const void* address(const tj::Tensor& t) { return t.data(); }
std::uint64_t allocations() { return tj::memory_statistics().allocations; }

}  // namespace

TEST_CASE("assign: in place when nothing else holds the buffer, allocating nothing") {
  tj::Tensor p = tj::linspace(0, 1, 1000, tj::f32).copy();
  const tj::Tensor g = tj::linspace(-1, 1, 1000, tj::f32).copy();
  tj::eval({p, g});
  std::vector<float> expected = p.to_vector<float>();
  const std::vector<float> gradient = g.to_vector<float>();
  const void* buffer = address(p);
  std::uint64_t before = 0;
  for (int step = 0; step < 10; ++step) {
    if (step == 2) before = allocations();
    const float lr = 0.1f / static_cast<float>(step + 1);  // a kernel argument
    p.assign(p - lr * g);  // the value reads p element for element: written over it
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = expected[i] - lr * gradient[i];
  }
  // Each step allocates only the one-element buffer of its learning rate, never p's 4000 bytes.
  const tj::MemoryStatistics after = tj::memory_statistics();
  CHECK(after.allocations - before == 8);
  CHECK(address(p) == buffer);
  CHECK(p.to_vector<float>() == expected);
}

TEST_CASE("assign: a handle copied or a lazy graph built before the assign keeps the old values") {
  tj::Tensor p = tj::tensor<float>({4}, {1, 2, 3, 4}).copy();
  p.eval();
  const void* buffer = address(p);
  {
    const tj::Tensor copy = p;  // shares the handle: the assign must not write its buffer
    p.assign(p + 1.0f);
    CHECK(copy.to_vector<float>() == std::vector<float>{1, 2, 3, 4});
    CHECK(address(copy) == buffer);
    CHECK(address(p) != buffer);
  }
  CHECK(p.to_vector<float>() == std::vector<float>{2, 3, 4, 5});
  buffer = address(p);
  {
    const tj::Tensor lazy = p * 10.0f;                  // built before, not evaluated
    const tj::Tensor view = p.slice(0, 1, 3);           // a view built before
    const tj::Tensor evaluated_view = p.slice(0, 0, 2);  // a view evaluated before: over p's buffer
    evaluated_view.eval();
    p.assign(p * 2.0f);
    CHECK(address(p) != buffer);
    CHECK(lazy.to_vector<float>() == std::vector<float>{20, 30, 40, 50});
    CHECK(view.to_vector<float>() == std::vector<float>{3, 4});
    CHECK(evaluated_view.to_vector<float>() == std::vector<float>{2, 3});
  }
  CHECK(p.to_vector<float>() == std::vector<float>{4, 6, 8, 10});
  // A temporary of the assign's own statement that reads p is a handle like any other: the value
  // goes to a new buffer (docs/contracts.md, contract 1, "assign").
  buffer = address(p);
  p.assign(p * 0.5f + 1.0f);
  CHECK(address(p) != buffer);
  CHECK(p.to_vector<float>() == std::vector<float>{3, 4, 5, 6});
  p.assign(p * 2.0f - 2.0f);
  CHECK(p.to_vector<float>() == std::vector<float>{4, 6, 8, 10});
  // A graph built and evaluated before reads its own buffer: the next assign writes in place.
  buffer = address(p);
  const tj::Tensor computed = p + 0.5f;
  computed.eval();
  p.assign(p - 1.0f);
  CHECK(address(p) == buffer);
  CHECK(computed.to_vector<float>() == std::vector<float>{4.5f, 6.5f, 8.5f, 10.5f});
  CHECK(p.to_vector<float>() == std::vector<float>{3, 5, 7, 9});
}

TEST_CASE("assign: a value that reads its target other than element for element is right") {
  // Each case against the same expression over a copy of the old values.
  const std::vector<float> start{1, -2, 3, 4, -5, 6, 7, 8, -9};
  auto fresh = [&] {
    tj::Tensor p = tj::tensor<float>({3, 3}, start).copy();
    p.eval();
    return p;
  };
  using Expression = std::function<tj::Tensor(const tj::Tensor&)>;
  const tj::Tensor q = tj::tensor<float>({3, 3}, {2, 0, 1, 1, 3, 0, 0, 1, 2});
  struct Case {
    const char* name;
    Expression expression;
    bool in_place;  // whether the rule lets the value overwrite p's buffer
  };
  const std::vector<Case> cases{
      {"a transposed view", [](const tj::Tensor& p) { return p.transpose() * 3.0f + p; }, false},
      {"the transpose alone", [](const tj::Tensor& p) { return p.transpose(); }, false},
      {"a reversed view", [](const tj::Tensor& p) { return p.flip(1) - p; }, false},
      // A concat step reads p before the loop step that writes the value, element for element.
      {"a shifted slice", [](const tj::Tensor& p) { return tj::concat({p.slice(0, 1, 3), p.slice(0, 0, 1)}, 0) * 2.0f; }, true},
      // The concat step writes the value itself.
      {"a shifted slice alone", [](const tj::Tensor& p) { return tj::concat({p.slice(0, 1, 3), p.slice(0, 0, 1)}, 0); }, false},
      {"a row softmax", [](const tj::Tensor& p) { return tj::softmax(p, -1); }, false},
      {"a product of it", [](const tj::Tensor& p) { return tj::matmul(p, p); }, false},
      {"a product of it and itself", [&](const tj::Tensor& p) { return tj::matmul(q, p.transpose()) + p; }, false},
      // A row step (the sum and the difference in one kernel) writes the value.
      {"a sum over it", [](const tj::Tensor& p) { return p - p.sum(); }, false},
      {"a column sum", [](const tj::Tensor& p) { return p * p.sum({0}, true); }, true},
      {"an epilogue reading it", [&](const tj::Tensor& p) { return tj::matmul(q, q) * 0.5f + p; }, true},
      {"element for element", [](const tj::Tensor& p) { return tj::exp(p * 0.25f) - p; }, true},
  };
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    tj::Tensor p = fresh();
    const std::vector<float> expected = c.expression(fresh()).to_vector<float>();
    const void* buffer = address(p);
    p.assign(c.expression(p));
    CHECK(p.to_vector<float>() == expected);
    CHECK((address(p) == buffer) == c.in_place);
    // And again, over the buffer the first assign left.
    p.assign(c.expression(p));
    CHECK(p.to_vector<float>() == c.expression(tj::tensor<float>({3, 3}, expected)).to_vector<float>());
  }
  tj::Tensor p = fresh();
  p.assign(p);  // itself: nothing changes
  CHECK(p.to_vector<float>() == start);
}

TEST_CASE("assign: an index out of range leaves the tensor as it was") {
  tj::Tensor p = tj::tensor<float>({4}, {1, 2, 3, 4}).copy();
  p.eval();
  const tj::Tensor bad = tj::tensor<std::int64_t>({4}, {0, 1, 2, 7});
  CHECK_THROWS_AS(p.assign(p + tj::take(p, bad)), tj::Error);
  CHECK(p.to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  const tj::Tensor good = tj::tensor<std::int64_t>({4}, {3, 2, 1, 0});
  p.assign(p + tj::take(p, good));
  CHECK(p.to_vector<float>() == std::vector<float>{5, 5, 5, 5});
}

TEST_CASE("assign: a gradient built over values computed before an in-place assign throws") {
  tj::Tensor p = tj::tensor<float>({2, 2}, {1, 2, 3, 4}).copy();
  p.eval();
  const tj::Tensor q = tj::tensor<float>({2, 2}, {1, 0, 0, 1});
  const tj::Tensor product = tj::matmul(p, q);  // kept by the eval below: it reads p no more
  CHECK(product.sum().item<float>() == 10);
  CHECK(realized(product));
  const void* buffer = address(p);
  p.assign(p * 2.0f);
  CHECK(address(p) == buffer);
  // d(sum(p @ q))/dq reads p as it was: that buffer holds new values now.
  const tj::Tensor dq = tj::grad(product.sum(), {q})[0];
  CHECK_THROWS_WITH_AS(dq.eval(), doctest::Contains("overwritten in place"), tj::Error);
  CHECK(product.to_vector<float>() == std::vector<float>{1, 2, 3, 4});  // a kept value stays
}
