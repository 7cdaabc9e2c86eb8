// B operands packed ahead of time (kernels::pack_b) for products whose B is a view of a constant
// buffer: a weight loaded from a file, which every forward pass reads unchanged. The panels are
// made on the first product that reads the view and kept while the buffer lives, so later products
// skip packing B, which for a product of few rows costs as much as its multiply-adds
// (docs/gemm.md, "Packed ahead of time"). Internal to runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/kernels/gemm.hpp>

namespace tensorjit::detail {

// The panels of `view` (k x n, one matrix, inside `buffer`) packed for the kernel `options`
// select, when `buffer` is constant (ir::Buffer::wrap_constant) and the kept panels stay within
// kPackedWeightsLimit; the returned handle keeps them alive during the product. Otherwise a null
// handle, and `packed` is left empty: the product packs B itself, as without this cache. Thread safe.
template <typename T>
std::shared_ptr<const void> packed_weight(const std::shared_ptr<ir::Buffer>& buffer,
                                          const kernels::MatrixView<T>& view, std::int64_t k, std::int64_t n,
                                          const kernels::GemmOptions& options, kernels::PackedB<T>& packed);

// The most bytes of panels kept at once (beyond it, products pack their B on each call).
inline constexpr std::size_t kPackedWeightsLimit = std::size_t{1} << 30;

// Bytes of panels kept now, and their release (tensorjit::empty_cache): later products pack again.
std::size_t packed_weights_bytes();
void release_packed_weights();

}  // namespace tensorjit::detail
