#include <tensorjit/ir/buffer.hpp>
#include <tensorjit/ir/check.hpp>

#include <cstdlib>
#include <cstring>

namespace tensorjit::ir {

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes) {
  // aligned_alloc needs a multiple of the alignment, and a non-null result even for zero bytes.
  std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  TJ_CHECK(rounded >= bytes) << "allocation of " << bytes << " bytes is too large";
  void* data = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  TJ_CHECK(data != nullptr) << "out of memory allocating " << bytes << " bytes for a tensor";
  std::memset(data, 0, rounded == 0 ? kAlignment : rounded);
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, {}));
}

std::shared_ptr<Buffer> Buffer::wrap(void* data, std::size_t bytes, std::function<void()> release) {
  if (!release) release = [] {};
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, std::move(release)));
}

Buffer::~Buffer() {
  if (release_) {
    release_();
  } else {
    std::free(data_);
  }
}

}  // namespace tensorjit::ir
