// The oracle's inputs: values drawn from a seed and a distribution, laid out in memory the way an
// `input` statement says (program.hpp).
//
//   layout=contiguous   tj::tensor of the values
//   layout=transposed   from_blob over column-major memory (strides reversed)
//   layout=negative     from_blob whose first axis walks backwards (a negative stride)
//   layout=gapped       from_blob whose strides skip elements (every axis 2 or 3 apart)
//   layout=sliced       a step-2 slice of a larger contiguous tensor
//   layout=broadcast    a size-1 axis expanded (stride 0)
//   values=normal|wide|specials|ties|unit (floats, f16 and bf16 among them; unit is normal(0, 1)),
//          small|full (integers),
//          bits (bool), index (integers uniform in [-bound, bound): valid indices of an axis of
//          `bound` elements), index_out (the same with one element outside, for the error check)
#pragma once

#include "oracle_ops.hpp"

namespace oracle {

tj::Tensor make_input(const Statement& statement);

// Attributes of a new input of this dtype and shape: a layout and a value distribution.
Attrs draw_input_attrs(Rng& rng, tj::DType dtype, const tj::Shape& shape);

}  // namespace oracle
