#include <iostream>
#include <tensorjit/tensorjit.hpp>

int main() {
  namespace tj = tensorjit;
  tj::Tensor a = tj::tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::cout << a.sum({0}) << "\n";
}
