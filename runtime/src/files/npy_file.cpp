// load_npy and save_npy (docs/files.md).
#include <tensorjit/files.hpp>

#include "runtime/src/files/mapped_file.hpp"
#include "runtime/src/files/npy_array.hpp"
#include "runtime/src/files/npy_header.hpp"
#include "runtime/src/files/output_file.hpp"
#include "runtime/src/files/tensor_bytes.hpp"

namespace tensorjit {

Tensor load_npy(const std::string& path) {
  auto file = files::MappedFile::open(path);
  const files::StoredTensor stored = files::read_npy(file->data(), file->size(), "load_npy: '" + path + "'");
  return files::make_tensor(stored, file);
}

void save_npy(const std::string& path, const Tensor& tensor) {
  const std::string_view descr = files::npy_descr(tensor.dtype(), "save_npy: '" + path + "'");
  const files::TensorBytes bytes = files::tensor_bytes(tensor);
  files::OutputFile out(path);
  out.write(files::npy_preamble(descr, tensor.shape()));
  out.write(bytes.data, bytes.size);
  out.commit();
}

}  // namespace tensorjit
