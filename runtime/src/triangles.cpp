// eye, tril and triu: comparisons of two iotas (a row index and a column index), which are leaves
// that every loop kernel computes from the element's position, so that no mask is ever written:
// tril(x) is one loop kernel reading x and writing the result.
#include <tensorjit/functions.hpp>

#include <tensorjit/ir/check.hpp>

#include "runtime/src/tensor_impl.hpp"

namespace tensorjit {

namespace {

struct RowsAndColumns {
  Tensor rows;     // i64[rows, 1]: the row index
  Tensor columns;  // i64[1, columns]: the column index
};

RowsAndColumns indices(std::int64_t rows, std::int64_t columns) {
  return {arange(rows, i64).reshape({rows, 1}), arange(columns, i64).reshape({1, columns})};
}

// x where `keep(rows, columns)` holds over the last two axes, else zero of x's dtype.
template <typename Keep>
Tensor triangle(std::string_view name, const Tensor& x, std::int64_t k, Keep keep) {
  detail::check_defined(x, name);
  TJ_CHECK(x.rank() >= 2) << name << ": needs a matrix (or a batch of them), got "
                          << detail::describe(x);
  const Shape& shape = x.shape();
  const auto [rows, columns] = indices(shape[shape.size() - 2], shape.back());
  return where(keep(columns, rows + k), x, zeros({}, x.dtype()));
}

}  // namespace

Tensor eye(std::int64_t n, std::int64_t m, DType dtype) {
  TJ_CHECK(n >= 0) << "eye: the number of rows must be at least 0, got " << n;
  if (m < 0) m = n;
  const auto [rows, columns] = indices(n, m);
  return (rows == columns).astype(dtype);
}

// numpy.tril: the elements on and below the k-th diagonal (j <= i + k).
Tensor tril(const Tensor& x, std::int64_t k) {
  return triangle("tril", x, k, [](const Tensor& j, const Tensor& i_plus_k) { return j <= i_plus_k; });
}

// numpy.triu: the elements on and above the k-th diagonal (j >= i + k).
Tensor triu(const Tensor& x, std::int64_t k) {
  return triangle("triu", x, k, [](const Tensor& j, const Tensor& i_plus_k) { return j >= i_plus_k; });
}

}  // namespace tensorjit
