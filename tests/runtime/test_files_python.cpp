// Interoperability: numpy (and the safetensors package) read what tensorjit writes, and tensorjit
// reads what they write. Skipped, saying so, when python3 cannot import them.
#include <doctest/doctest.h>

#include <tensorjit/tensorjit.hpp>

#include "file_round_trip.hpp"
#include "file_test_support.hpp"

namespace tj = tensorjit;
using namespace file_test;

namespace {

// Runs `script` with python3 in `folder`; fails the test with its output when it fails.
void run_python(const TempFolder& folder, const std::string& script) {
  write_bytes(folder / "script.py", script);
  const std::string command = "cd '" + folder.path() + "' && python3 script.py > log.txt 2>&1";
  const int status = std::system(command.c_str());
  INFO("python3 said:\n" << read_bytes(folder / "log.txt"));
  REQUIRE(status == 0);
}

std::map<std::string, tj::Tensor> samples() {
  std::map<std::string, tj::Tensor> tensors;
  for (const auto& [name, tensor] : sample_tensors()) tensors.emplace(name, tensor);
  return tensors;
}

// numpy reads each tensorjit file and writes it back as np_<name>; then it writes the forms
// tensorjit must read: Fortran order, big-endian, one-byte integers, a version 2.0 header, and
// savez_compressed.
constexpr const char* kNumpyScript = R"(
import glob
import numpy as np
for f in sorted(glob.glob('tj_*.npy')):
    np.save('np_' + f[3:], np.load(f))
with np.load('tj_all.npz') as z:
    arrays = dict(z)
np.savez('np_all.npz', **arrays)
np.savez_compressed('np_all_compressed.npz', **arrays)
a = np.arange(6, dtype='<f4').reshape(2, 3)
np.save('fortran.npy', np.asfortranarray(a))
np.save('big.npy', a.astype('>i4'))
np.save('u1.npy', np.array([0, 200, 255], dtype=np.uint8))
np.save('i1.npy', np.array([-128, -1, 127], dtype=np.int8))
with open('v2.npy', 'wb') as out:
    np.lib.format.write_array(out, a.astype('<f8'), version=(2, 0))
)";

}  // namespace

TEST_CASE("files: numpy reads tensorjit's npy and npz, tensorjit reads numpy's") {
  if (!python_has("numpy")) {
    MESSAGE("SKIPPED: python3 cannot import numpy, so the numpy interoperability checks did not run");
    return;
  }
  TempFolder folder;
  const auto tensors = samples();
  for (const auto& [name, tensor] : tensors) tj::save_npy(folder / ("tj_" + name + ".npy"), tensor);
  tj::save_npz(folder / "tj_all.npz", tensors);
  run_python(folder, kNumpyScript);

  for (const auto& [name, tensor] : tensors) check_same(tj::load_npy(folder / ("np_" + name + ".npy")), tensor, name);
  for (const std::string archive : {"np_all.npz", "np_all_compressed.npz"}) {
    INFO(archive);
    const auto loaded = tj::load_npz(folder / archive);
    REQUIRE(loaded.size() == tensors.size());
    for (const auto& [name, tensor] : tensors) check_same(loaded.at(name), tensor, name);
  }
  const tj::Tensor a = tj::arange(0, 6, 1, tj::f32).reshape({2, 3});
  tj::Tensor fortran = tj::load_npy(folder / "fortran.npy");
  check_same(fortran, a, "fortran");
  CHECK(fortran.strides() == tj::Shape{1, 2});
  check_same(tj::load_npy(folder / "big.npy"), a.astype(tj::i32), "big");
  check_same(tj::load_npy(folder / "u1.npy"), tj::tensor<std::int32_t>({0, 200, 255}), "u1");
  check_same(tj::load_npy(folder / "i1.npy"), tj::tensor<std::int32_t>({-128, -1, 127}), "i1");
  check_same(tj::load_npy(folder / "v2.npy"), a.astype(tj::f64), "v2");
}

namespace {

// The safetensors package reads tensorjit's file, checks its metadata, and writes it back; then it
// writes one of its own with U8 and I8 tensors.
constexpr const char* kSafetensorsScript = R"(
import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file
with safe_open('tj_all.safetensors', 'np') as f:
    assert f.metadata() == {'format': 'np', 'source': 'tensorjit'}, f.metadata()
save_file(load_file('tj_all.safetensors'), 'st_all.safetensors')
save_file({'u': np.array([0, 200, 255], dtype=np.uint8), 'i': np.array([-128, -1, 127], dtype=np.int8),
           'w': np.arange(6, dtype=np.float32).reshape(2, 3)}, 'st_bytes.safetensors')
)";

}  // namespace

TEST_CASE("files: the safetensors package reads tensorjit's files, tensorjit reads its") {
  if (!python_has("safetensors.numpy")) {
    MESSAGE("SKIPPED: python3 cannot import safetensors.numpy, so the safetensors interoperability checks did not run");
    return;
  }
  TempFolder folder;
  const auto tensors = samples();
  tj::save_safetensors(folder / "tj_all.safetensors", tensors, {{"format", "np"}, {"source", "tensorjit"}});
  run_python(folder, kSafetensorsScript);
  const auto loaded = tj::load_safetensors(folder / "st_all.safetensors");
  REQUIRE(loaded.size() == tensors.size());
  for (const auto& [name, tensor] : tensors) check_same(loaded.at(name), tensor, name);
  const auto bytes = tj::load_safetensors(folder / "st_bytes.safetensors");
  check_same(bytes.at("u"), tj::tensor<std::int32_t>({0, 200, 255}), "u");
  check_same(bytes.at("i"), tj::tensor<std::int32_t>({-128, -1, 127}), "i");
  check_same(bytes.at("w"), tj::arange(0, 6, 1, tj::f32).reshape({2, 3}), "w");
}
