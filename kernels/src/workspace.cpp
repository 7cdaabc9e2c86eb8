// Why a per-thread buffer kept between calls: page faults on a fresh megabyte cost as much as a
// small product. Why huge pages: the kernels stream packed blocks of hundreds of KiB through L2,
// and 4 KiB pages add a TLB miss every 4 KiB of that stream (3-5 % on 1024^3, docs/gemm.md).
#include "workspace.hpp"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tensorjit::kernels::detail {

class Workspace {
 public:
  ~Workspace() { release(); }

  void* reserve(std::size_t bytes) {
    if (bytes > capacity_) {
      release();
      const bool huge = bytes >= huge_page_bytes / 2;
      if (huge) bytes = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
      const std::size_t alignment = huge ? huge_page_bytes : 64;
      data_ = ::operator new(bytes, std::align_val_t{alignment});
      alignment_ = alignment;
      capacity_ = bytes;
#if defined(MADV_HUGEPAGE)
      if (huge) madvise(data_, bytes, MADV_HUGEPAGE);  // a hint: failure only costs speed
#endif
    }
    return data_;
  }

 private:
  static constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

  void release() {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{alignment_});
    data_ = nullptr;
    capacity_ = 0;
  }

  void* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t alignment_ = 64;
};

namespace {
thread_local std::unique_ptr<Workspace> cached_workspace;
}  // namespace

WorkspaceLease::WorkspaceLease(std::size_t bytes) : workspace_(std::move(cached_workspace)) {
  if (!workspace_) workspace_ = std::make_unique<Workspace>();
  data_ = workspace_->reserve(bytes);
}

WorkspaceLease::~WorkspaceLease() {
  if (!cached_workspace) cached_workspace = std::move(workspace_);
}

}  // namespace tensorjit::kernels::detail
