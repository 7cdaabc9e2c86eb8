// W17's other half: the rule that keeps a training loop's state (docs/contracts.md, contract 1)
// must not cost ordinary code its fusion. Each block is written twice, as one expression and with
// every intermediate a named Tensor still alive when the result is evaluated, and timed side by
// side (alternating, the median of the samples of each). Prints one JSON line: for each block the
// two medians in ms and named over expression, which stays near 1 when the named intermediates
// fuse as the expression does.
//
//   named_temporaries [samples, default 31]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {

struct Block {
  const char* name;
  std::function<tj::Tensor()> expression;
  std::function<tj::Tensor()> named;  // the same value through named intermediates, held at eval
};

double time_ms(const std::function<tj::Tensor()>& block) {
  const auto start = std::chrono::steady_clock::now();
  block().eval();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 31;
  if (samples < 1) {
    std::fprintf(stderr, "usage: named_temporaries [samples >= 1]\n");
    return 2;
  }
  const tj::Tensor x = tj::linspace(-2, 2, 512 * 1024).reshape({512, 1024});
  const tj::Tensor w = tj::linspace(-0.1, 0.1, 1024 * 256).reshape({1024, 256});
  const tj::Tensor bias = tj::linspace(-1, 1, 256);
  tj::eval({x, w, bias});  // inputs in buffers, not iotas computed again by every block
  std::vector<Block> blocks = {
      {"elementwise", [&] { return tj::maximum(x * 0.5f + 1.0f, 0.0f) * tj::tanh(x); },
       [&] {
         tj::Tensor scaled = x * 0.5f;
         tj::Tensor shifted = scaled + 1.0f;
         tj::Tensor clipped = tj::maximum(shifted, 0.0f);
         tj::Tensor squashed = tj::tanh(x);
         tj::Tensor y = clipped * squashed;
         y.eval();
         return y;
       }},
      {"layernorm", [&] {
         return (x - x.mean({1}, true)) / tj::sqrt(((x - x.mean({1}, true)) * (x - x.mean({1}, true))).mean({1}, true) + 1e-5f);
       },
       [&] {
         tj::Tensor mean = x.mean({1}, true);
         tj::Tensor centred = x - mean;
         tj::Tensor variance = (centred * centred).mean({1}, true);
         tj::Tensor y = centred / tj::sqrt(variance + 1e-5f);
         y.eval();
         return y;
       }},
      {"softmax", [&] { return tj::exp(x - x.max({1}, true)) / tj::exp(x - x.max({1}, true)).sum({1}, true); },
       [&] {
         tj::Tensor peak = x.max({1}, true);
         tj::Tensor exps = tj::exp(x - peak);
         tj::Tensor total = exps.sum({1}, true);
         tj::Tensor y = exps / total;
         y.eval();
         return y;
       }},
      {"dense_relu", [&] { return tj::relu(tj::matmul(x, w) + bias) * 0.5f; },
       [&] {
         tj::Tensor product = tj::matmul(x, w);
         tj::Tensor pre = product + bias;
         tj::Tensor hidden = tj::relu(pre);
         tj::Tensor y = hidden * 0.5f;
         y.eval();
         return y;
       }},
  };
  std::printf("{\"samples\": %d", samples);
  for (const auto& block : blocks) {
    for (int warm = 0; warm < 3; ++warm) {  // compiles and tiers up both forms
      time_ms(block.expression);
      time_ms(block.named);
    }
    std::vector<double> expression, named;
    for (int s = 0; s < samples; ++s) {
      expression.push_back(time_ms(block.expression));
      named.push_back(time_ms(block.named));
    }
    const double e = median(expression), n = median(named);
    std::printf(", \"%s\": {\"expression_ms\": %.4f, \"named_ms\": %.4f, \"named_over_expression\": %.3f}", block.name,
                e, n, n / e);
  }
  std::printf("}\n");
  return 0;
}
