#include "codegen/src/jit/disk_cache_journal.hpp"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tensorjit/codegen/log.hpp>

#include "codegen/src/jit/warn_once.hpp"

namespace tensorjit::codegen {
namespace {

namespace fs = std::filesystem;

fs::path journal_folder(const fs::path& cache_folder) { return cache_folder / "journals"; }

// kill(pid, 0) fails with ESRCH only when no such process exists; EPERM means it runs as
// another user. A pid reused since its process died reads as alive, and that journal waits for
// the new process to end: a missed quarantine, never a wrong one.
bool process_runs(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// A journal names cache files by their file name alone; anything else in it (a path, another
// extension) is not ours to delete.
bool is_cache_file_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && fs::path(name).extension() == ".tjk";
}

// This process's open journals, one per cache folder, removed by the destructor at normal exit.
// A child made by fork() inherits the table; it opens journals of its own and never removes its
// parent's.
class Journals {
 public:
  static Journals& instance() {
    static Journals journals;
    return journals;
  }

  void record(const fs::path& cache_file) {
    const fs::path folder = cache_file.parent_path();
    std::lock_guard lock(mutex_);
    Journal& journal = open_[folder];
    if (journal.owner != ::getpid()) journal = open_journal(folder);
    const std::string line = cache_file.filename().string() + '\n';
    // One write of a short line with O_APPEND: whole, or not at all.
    if (journal.fd < 0 ||
        ::write(journal.fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      warn_once("journal " + journal_folder(folder).string(),
                fmt::format("cannot write the kernel cache journal in {}; a cached kernel that "
                            "crashes this process will not be set aside for the next one",
                            journal_folder(folder).string()));
    }
  }

  ~Journals() {
    for (auto& [folder, journal] : open_) {
      if (journal.fd >= 0) ::close(journal.fd);
      if (journal.owner == ::getpid()) ::unlink(journal.path.c_str());
    }
  }

 private:
  struct Journal {
    int fd = -1;
    fs::path path;
    pid_t owner = 0;
  };

  static Journal open_journal(const fs::path& cache_folder) {
    Journal journal;
    journal.owner = ::getpid();
    std::error_code error;
    fs::create_directories(journal_folder(cache_folder), error);
    journal.path = journal_folder(cache_folder) / fmt::format("{}.journal", journal.owner);
    journal.fd = ::open(journal.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    return journal;
  }

  std::mutex mutex_;
  std::map<fs::path, Journal> open_;
};

}  // namespace

std::size_t quarantine_abandoned_kernels(const fs::path& folder) {
  std::size_t deleted = 0;
  try {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(journal_folder(folder), error)) {
      const fs::path journal = entry.path();
      if (journal.extension() != ".journal") continue;
      const std::string stem = journal.stem().string();
      pid_t pid = 0;
      const auto parsed = std::from_chars(stem.data(), stem.data() + stem.size(), pid);
      if (parsed.ec != std::errc() || parsed.ptr != stem.data() + stem.size() || pid <= 0) continue;
      if (pid == ::getpid() || process_runs(pid)) continue;
      std::ifstream in(journal);
      std::vector<std::string> removed;
      for (std::string name; std::getline(in, name);) {
        if (is_cache_file_name(name) && fs::remove(folder / name, error)) removed.push_back(name);
      }
      fs::remove(journal, error);
      deleted += removed.size();
      if (!removed.empty()) {
        logger().warn(
            "process {} ended without exiting normally while it ran {} kernel(s) from the cache "
            "folder {}; removed them ({}) so that they are compiled again",
            pid, removed.size(), folder.string(), fmt::join(removed, ", "));
      }
    }
  } catch (const std::exception& exception) {
    logger().warn("cannot check the kernel cache journals in {}: {}",
                  journal_folder(folder).string(), exception.what());
  }
  return deleted;
}

void record_disk_load(const fs::path& cache_file) {
  try {
    Journals::instance().record(cache_file);
  } catch (const std::exception& exception) {
    warn_once("journal " + cache_file.parent_path().string(),
              fmt::format("cannot write the kernel cache journal: {}", exception.what()));
  }
}

}  // namespace tensorjit::codegen
