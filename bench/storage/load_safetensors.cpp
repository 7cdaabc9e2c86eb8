// Loading a safetensors file (docs/files.md): tensorjit::load_safetensors maps the file and returns
// views on the mapping, so a load costs the header's parse and copies nothing; the weights' pages
// are read from the page cache only when something reads them.
//
// Prints one JSON line: the median and min/max seconds of `loads` loads in this process (each maps
// the file anew and drops it), the resident set (VmRSS) before the first load, after it with the
// tensors held, and after every tensor's values were read (a sum of each, evaluated), with the
// file's size. bench/storage/load_safetensors.py runs it beside safetensors.numpy.load_file.
//
//   load_safetensors <model.safetensors> [loads, default 21]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <tensorjit/tensorjit.hpp>

namespace tj = tensorjit;

namespace {

// VmRSS of this process in bytes (/proc/self/status), or -1.
long long resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: load_safetensors <file.safetensors> [loads]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int loads = argc > 2 ? std::atoi(argv[2]) : 21;
  const long long before = resident_bytes();
  std::vector<double> seconds;
  std::map<std::string, tj::Tensor> tensors;
  for (int i = 0; i < loads; ++i) {
    tensors.clear();
    const auto start = std::chrono::steady_clock::now();
    tensors = tj::load_safetensors(path);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const long long loaded = resident_bytes();
  std::vector<tj::Tensor> sums;
  for (const auto& [name, tensor] : tensors) sums.push_back(tensor.astype(tj::f32).sum());
  tj::eval(sums);
  const long long read = resident_bytes();
  std::sort(seconds.begin(), seconds.end());
  std::printf("{\"reader\": \"tensorjit.load_safetensors\", \"tensors\": %zu, \"file_bytes\": %llu, \"loads\": %d, "
              "\"median_s\": %.9f, \"min_s\": %.9f, \"max_s\": %.9f, \"rss_before\": %lld, \"rss_loaded\": %lld, "
              "\"rss_read\": %lld}\n",
              tensors.size(), static_cast<unsigned long long>(std::filesystem::file_size(path)), loads,
              seconds[seconds.size() / 2], seconds.front(), seconds.back(), before, loaded, read);
  return 0;
}
