// A first tensorjit program: broadcasting, views, a reduction, a matmul and a softmax, then the
// text IR of the graph they built. Every op is lazy until a value is read or eval() is called.
#include <iostream>
#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

int main() {
  tj::Tensor a = tj::tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  tj::Tensor b = tj::tensor({10.f, 20.f, 30.f});

  tj::Tensor broadcast = a * b + 1.0f;  // [2, 3] * [3] broadcasts; the float scalar stays f32
  std::cout << "a * b + 1 =\n" << broadcast << "\n\n";

  tj::Tensor flipped = a.transpose().flip(0);  // views: no copy, only index arithmetic
  std::cout << "a.T flipped on axis 0 =\n" << flipped << "\n\n";

  std::cout << "row sums of a = " << a.sum({1}) << "\n";
  std::cout << "mean of a = " << a.mean().item<float>() << "\n\n";

  tj::Tensor w = tj::arange(0, 6, 1).reshape({3, 2});
  std::cout << "a @ w =\n" << tj::matmul(a, w) << "\n\n";

  tj::Tensor probabilities = tj::softmax(a, -1);
  std::cout << "softmax(a, -1) =\n" << probabilities << "\n\n";

  // The graph a later eval would run, in the text IR that tensorjit-dump reads.
  tj::Tensor layer = tj::relu(tj::matmul(a, w) + tj::tensor({0.5f, -100.f}));
  std::cout << "the graph of relu(a @ w + bias):\n" << tj::graph_text({layer}) << "\n";
  std::cout << "relu(a @ w + bias) =\n" << layer << "\n";
  return 0;
}
