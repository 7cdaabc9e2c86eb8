#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <tensorjit/codegen/jit.hpp>

#include "codegen/src/jit/disk_cache.hpp"
#include "codegen_test_support.hpp"

namespace codegen = tensorjit::codegen;
using namespace tensorjit::codegen::testing;

namespace {

// The kernel files of a cache folder (and any temporary left beside them), not its journals.
std::vector<std::filesystem::path> cache_files(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    if (entry.is_regular_file()) files.push_back(entry.path());
  return files;
}

std::vector<std::filesystem::path> journals(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory / "journals", error))
    files.push_back(entry.path());
  return files;
}

// Runs this test binary's test case `name` (a case skipped by default) as a child process with
// TENSORJIT_TEST_CHILD_CACHE_DIR set to `directory`; returns its exit code and writes its output
// to `log`.
int run_child_case(const std::filesystem::path& directory, const std::string& name,
                   const std::filesystem::path& log) {
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string command = "TENSORJIT_TEST_CHILD_CACHE_DIR='" + directory.string() + "' '" +
                              self.string() + "' --no-skip --test-case='" + name + "' > '" +
                              log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Starts `count` children at once, each running test case `name` as run_child_case does, with
// TENSORJIT_TEST_CHILD_INDEX set to its number; waits for all and returns their exit codes.
std::vector<int> run_child_cases_at_once(const std::filesystem::path& directory, const std::string& name,
                                         const std::filesystem::path& logs, int count) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string test_case = "--test-case=" + name;
  std::vector<pid_t> children;
  for (int i = 0; i < count; ++i) {
    ::setenv("TENSORJIT_TEST_CHILD_CACHE_DIR", directory.c_str(), 1);
    ::setenv("TENSORJIT_TEST_CHILD_INDEX", std::to_string(i).c_str(), 1);
    const std::string log = (logs / ("child" + std::to_string(i) + ".log")).string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    char* argv[] = {const_cast<char*>(self.c_str()), const_cast<char*>("--no-skip"),
                    const_cast<char*>(test_case.c_str()), nullptr};
    pid_t pid = 0;
    const int failed = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(failed == 0);
    children.push_back(pid);
  }
  ::unsetenv("TENSORJIT_TEST_CHILD_CACHE_DIR");
  ::unsetenv("TENSORJIT_TEST_CHILD_INDEX");
  std::vector<int> codes;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return codes;
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
  ScratchDirectory logs("disk-cache-process-log");
  fresh_jit_run(directory.path(), "disk/process");
  const auto output = logs.path() / "child.log";
  const int status = run_child_case(directory.path(), "child: a new process over a warm*", output);
  const std::string log = read_text(output);
  INFO(log);
  CHECK(status == 0);
  CHECK(log.find("test cases: 1 | 1 passed") != std::string::npos);  // the child case did run
  CHECK(journals(directory.path()).empty());  // a process that exits normally removes its journal
}

TEST_CASE("a payload that is not an object, under a valid checksum, is rejected and rewritten") {
  ScratchDirectory directory("disk-cache-garbage");
  fresh_jit_run(directory.path(), "disk/garbage");
  const auto path = cache_files(directory.path()).at(0);
  const std::string good = read_text(path);
  // The header's identity size (bytes 12-15, little-endian), then the identity after 32 bytes.
  std::uint32_t identity_size = 0;
  for (int i = 0; i < 4; ++i) identity_size |= std::uint32_t(std::uint8_t(good[12 + i])) << (8 * i);
  const std::string identity = good.substr(32, identity_size);
  for (const std::string& payload : {std::string(600, '\x7f'), "\x7f" "ELF" + std::string(60, '\0'),
                                     good.substr(32 + identity_size, 64)}) {
    REQUIRE(codegen::write_cache_file(path, identity, payload).empty());
    bool correct = false;
    auto stats = fresh_jit_run(directory.path(), "disk/garbage", &correct);
    CHECK(correct);
    CHECK(stats.disk_rejects == 1);
    CHECK(stats.compiles == 1);
    CHECK(read_text(path) == good);
  }
}

// The child half of the test below: loads the kernel from the cache, then leaves as a crash
// would, without running exit handlers.
TEST_CASE("child: a process that dies while it runs a cached kernel" * doctest::skip()) {
  const char* directory = std::getenv("TENSORJIT_TEST_CHILD_CACHE_DIR");
  REQUIRE(directory != nullptr);
  bool correct = false;
  auto stats = fresh_jit_run(directory, "disk/crash", &correct);
  std::_Exit(stats.disk_hits == 1 && correct ? 3 : 4);
}

TEST_CASE("a cached kernel that a process died running is removed and compiled again") {
  ScratchDirectory directory("disk-cache-crash");
  ScratchDirectory logs("disk-cache-crash-log");
  fresh_jit_run(directory.path(), "disk/crash");
  const auto kernel_file = cache_files(directory.path()).at(0);
  const std::string good = read_text(kernel_file);

  const auto output = logs.path() / "child.log";
  const int status = run_child_case(directory.path(), "child: a process that dies*", output);
  INFO(read_text(output));
  REQUIRE(status == 3);  // the child loaded the kernel from disk, ran it, and died
  const auto left = journals(directory.path());
  REQUIRE(left.size() == 1);
  CHECK(read_text(left.front()) == kernel_file.filename().string() + "\n");

  bool correct = false;
  auto stats = fresh_jit_run(directory.path(), "disk/crash", &correct);
  CHECK(correct);
  CHECK(stats.disk_quarantined == 1);
  CHECK(stats.disk_hits == 0);
  CHECK(stats.compiles == 1);
  CHECK(read_text(kernel_file) == good);  // rewritten
  CHECK(journals(directory.path()).empty());

  // The next process loads it from disk again; only this process's own journal remains.
  stats = fresh_jit_run(directory.path(), "disk/crash", &correct);
  CHECK(correct);
  CHECK(stats.disk_quarantined == 0);
  CHECK(stats.disk_hits == 1);
}

// The child half of the test below: compiles or loads a handful of kernels, in an order of its
// own, while other processes do the same over the same folder.
TEST_CASE("child: processes that share a cache folder at once" * doctest::skip()) {
  const char* directory = std::getenv("TENSORJIT_TEST_CHILD_CACHE_DIR");
  const char* index = std::getenv("TENSORJIT_TEST_CHILD_INDEX");
  REQUIRE(directory != nullptr);
  REQUIRE(index != nullptr);
  constexpr int kKeys = 6;
  const int first = std::atoi(index);
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < kKeys; ++k) {
      bool correct = false;
      fresh_jit_run(directory, "disk/shared/" + std::to_string((first + k) % kKeys), &correct);
      CHECK(correct);
    }
}

TEST_CASE("processes that compile, write and load one cache folder at once agree and leave it whole") {
  ScratchDirectory directory("disk-cache-shared");
  ScratchDirectory logs("disk-cache-shared-log");
  const auto codes = run_child_cases_at_once(directory.path(), "child: processes that share*", logs.path(), 3);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    INFO(read_text(logs.path() / ("child" + std::to_string(i) + ".log")));
    CHECK(codes[i] == 0);
  }
  CHECK(cache_files(directory.path()).size() == 6);  // one file a kernel, no temporary left
  CHECK(journals(directory.path()).empty());
  for (int k = 0; k < 6; ++k) {  // every file the race left is whole: the next process loads it
    bool correct = false;
    auto stats = fresh_jit_run(directory.path(), "disk/shared/" + std::to_string(k), &correct);
    CHECK(correct);
    CHECK(stats.disk_hits == 1);
    CHECK(stats.compiles == 0);
  }
}

// The child half of the test below: a process that may write no file larger than 1 KiB, as on a
// full disk (the write fails with EFBIG instead of ENOSPC, through the same path).
TEST_CASE("child: a process whose writes fail as on a full disk" * doctest::skip()) {
  const char* directory = std::getenv("TENSORJIT_TEST_CHILD_CACHE_DIR");
  REQUIRE(directory != nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{1024, 1024};
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  bool correct = false;
  auto stats = fresh_jit_run(directory, "disk/full", &correct);
  CHECK(correct);
  CHECK(stats.compiles == 1);
  CHECK(stats.disk_writes == 0);
}

TEST_CASE("a cache folder that cannot take the file still compiles, and keeps no partial file") {
  ScratchDirectory directory("disk-cache-full");
  ScratchDirectory logs("disk-cache-full-log");
  const auto output = logs.path() / "child.log";
  const int status = run_child_case(directory.path(), "child: a process whose writes fail*", output);
  const std::string log = read_text(output);
  INFO(log);
  CHECK(status == 0);
  CHECK(log.find("test cases: 1 | 1 passed") != std::string::npos);
  CHECK(cache_files(directory.path()).empty());
  bool correct = false;  // the next process, with room, compiles and writes it
  auto stats = fresh_jit_run(directory.path(), "disk/full", &correct);
  CHECK(correct);
  CHECK(stats.disk_writes == 1);
}
