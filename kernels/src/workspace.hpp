// Packing workspaces: one aligned buffer per thread, kept between calls.
#pragma once

#include <cstddef>
#include <memory>

namespace tensorjit::kernels::detail {

class Workspace;

// Borrows the calling thread's workspace, grown to at least `bytes`, for the lifetime of the lease.
// The buffer is 64-byte aligned; from 1 MiB on it is 2 MiB aligned and backed by transparent huge
// pages where the OS offers them. A nested lease on the same thread (a gemm() called from an
// epilogue) gets a buffer of its own. Throws std::bad_alloc.
class WorkspaceLease {
 public:
  explicit WorkspaceLease(std::size_t bytes);
  ~WorkspaceLease();
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;

  void* data() const { return data_; }

 private:
  std::unique_ptr<Workspace> workspace_;
  void* data_ = nullptr;
};

}  // namespace tensorjit::kernels::detail
