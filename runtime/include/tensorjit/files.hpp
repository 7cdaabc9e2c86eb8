// Loading and saving tensors in numpy's .npy and .npz and in safetensors (docs/files.md).
//
// Loading maps the file read-only and returns views on the mapping: nothing is copied unless a
// tensor's data is misaligned for its dtype, needs a byte swap (big-endian .npy), is converted
// (u8/i8 to i32) or is deflated (a compressed .npz member). The mapping stays alive while any
// tensor or lazy graph reads it. A malformed file throws tensorjit::Error naming the file, the
// tensor and the problem; nothing a file holds can crash the process. Saving evaluates the tensors
// and writes their values row-major (a view is saved as its values).
#pragma once

#include <map>
#include <string>

#include <tensorjit/tensor.hpp>

namespace tensorjit {

// numpy's .npy: versions 1.0, 2.0 and 3.0 on read; descr <f4 <f8 <i4 <i8 |b1, their big-endian
// forms, and |u1 |i1 (loaded as i32); fortran_order loads as a transposed view.
Tensor load_npy(const std::string& path);
// Version 1.0 (2.0 when the header needs it), C order, data at a multiple of 64 bytes.
void save_npy(const std::string& path, const Tensor& tensor);

// numpy's .npz: a zip of `<name>.npy` members, stored or deflated; keys are the names without
// ".npy". zip64 archives are refused.
std::map<std::string, Tensor> load_npz(const std::string& path);
// Members stored (compressed = false; their data aligned in the file, so load_npz maps them) or
// deflated (numpy's savez_compressed). The archive must stay under 4 GiB (no zip64).
void save_npz(const std::string& path, const std::map<std::string, Tensor>& tensors,
              bool compressed = false);

// safetensors: F32 F64 F16 BF16 I32 I64 BOOL, and I8 U8 loaded as i32. The "__metadata__" entry is not a
// tensor and is not returned.
std::map<std::string, Tensor> load_safetensors(const std::string& path);
// Tensors in sorted name order, data at a multiple of 8 bytes, `metadata` as "__metadata__".
void save_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace tensorjit
