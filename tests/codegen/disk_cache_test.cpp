#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <tensorjit/codegen/jit.hpp>

#include "codegen_test_support.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

namespace {

std::vector<std::filesystem::path> cache_files(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    files.push_back(entry.path());
  return files;
}

// Compiles (or loads) the kernel for `key` in a fresh Jit over `directory`; returns its stats.
codegen::JitStats fresh_jit_run(const std::filesystem::path& directory, const std::string& key,
                                bool* correct = nullptr) {
  codegen::Jit jit(options_with_cache(directory));
  auto kernel =
      jit.get_or_compile({key}, "kernel", multiply_add_builder("kernel", jit.target().vector_bits));
  if (correct) *correct = same_bits(run_multiply_add(*kernel, 1001), expected_multiply_add(1001));
  return jit.stats();
}

void overwrite(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("a second Jit over the same cache directory compiles nothing") {
  ScratchDirectory directory("disk-cache");
  bool correct = false;
  auto first = fresh_jit_run(directory.path(), "disk/a", &correct);
  CHECK(correct);
  CHECK(first.compiles == 1);
  CHECK(first.disk_writes == 1);
  REQUIRE(cache_files(directory.path()).size() == 1);

  const auto before = codegen::compile_count();
  auto second = fresh_jit_run(directory.path(), "disk/a", &correct);
  CHECK(correct);
  CHECK(second.compiles == 0);
  CHECK(second.disk_hits == 1);
  CHECK(codegen::compile_count() == before);

  // Another key, or another width, is another file.
  fresh_jit_run(directory.path(), "disk/b");
  CHECK(cache_files(directory.path()).size() == 2);
  codegen::JitOptions narrow = options_with_cache(directory.path());
  narrow.vector_bits = 128;
  codegen::Jit narrow_jit(narrow);
  if (narrow_jit.target().native_vector_bits != 128) {
    auto kernel =
        narrow_jit.get_or_compile({"disk/a"}, "kernel", multiply_add_builder("kernel", 128));
    CHECK(!kernel->loaded_from_disk());
    CHECK(cache_files(directory.path()).size() == 3);
  }
}

TEST_CASE("a corrupt, truncated or foreign cache file is ignored, never loaded, and rewritten") {
  ScratchDirectory directory("disk-cache-bad");
  fresh_jit_run(directory.path(), "disk/bad");
  const auto files = cache_files(directory.path());
  REQUIRE(files.size() == 1);
  const auto path = files.front();
  const std::string good = read_text(path);
  REQUIRE(good.size() > 100);

  std::string flipped = good;
  flipped[flipped.size() - 40] ^= 0x5a;  // inside the object code
  std::string foreign_identity = good;
  foreign_identity[40] ^= 0x01;  // inside the identity text
  std::string bad_version = good;
  bad_version[8] = 7;
  const std::vector<std::pair<const char*, std::string>> damaged = {
      {"payload byte flipped", flipped},
      {"truncated", good.substr(0, good.size() / 2)},
      {"header only", good.substr(0, 20)},
      {"empty", ""},
      {"foreign file", std::string(good.size(), 'x')},
      {"identity of another kernel", foreign_identity},
      {"other format version", bad_version},
  };
  for (const auto& [what, bytes] : damaged) {
    CAPTURE(what);
    overwrite(path, bytes);
    bool correct = false;
    auto stats = fresh_jit_run(directory.path(), "disk/bad", &correct);
    CHECK(correct);
    CHECK(stats.disk_hits == 0);
    CHECK(stats.disk_rejects == 1);
    CHECK(stats.compiles == 1);
    CHECK(stats.disk_writes == 1);
    CHECK(read_text(path) == good);  // rewritten, same bytes: compiles are deterministic
  }
  CHECK(cache_files(directory.path()).size() == 1);  // no temporary left behind
}

TEST_CASE("an unwritable cache directory warns and still compiles") {
  ScratchDirectory directory("disk-cache-unwritable");
  const auto blocker = directory.path() / "file";
  overwrite(blocker, "not a directory");
  bool correct = false;
  auto stats = fresh_jit_run(blocker / "cache", "disk/unwritable", &correct);
  CHECK(correct);
  CHECK(stats.compiles == 1);
  CHECK(stats.disk_writes == 0);
}

// The child half of the test below: skipped unless that test starts this binary with
// TENSORJIT_TEST_CHILD_CACHE_DIR set and --no-skip.
TEST_CASE("child: a new process over a warm cache directory compiles nothing" * doctest::skip()) {
  const char* directory = std::getenv("TENSORJIT_TEST_CHILD_CACHE_DIR");
  REQUIRE(directory != nullptr);
  const auto before = codegen::compile_count();
  bool correct = false;
  auto stats = fresh_jit_run(directory, "disk/process", &correct);
  CHECK(correct);
  CHECK(stats.disk_hits == 1);
  CHECK(codegen::compile_count() == before);
}

TEST_CASE("a second process over the same cache directory compiles nothing") {
  ScratchDirectory directory("disk-cache-process");
  fresh_jit_run(directory.path(), "disk/process");
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  const auto output = directory.path() / "child.log";
  const std::string command = "TENSORJIT_TEST_CHILD_CACHE_DIR='" + directory.path().string() +
                              "' '" + self.string() + "' --no-skip --test-case='child: *' > '" +
                              output.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = read_text(output);
  INFO(log);
  CHECK(status == 0);
  CHECK(log.find("test cases: 1 | 1 passed") != std::string::npos);  // the child case did run
}
