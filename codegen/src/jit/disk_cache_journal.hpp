// Quarantine of cached kernels that a process was running when it died.
//
// A cache file's checksum proves that the file is whole and was made for this kernel, not that
// its code is sound: a file rewritten with a matching checksum (by a bug, a tool or a person who
// can write the folder) would crash every process that loads it. The cache folder is trusted like
// the program's own files (docs/codegen.md, "Disk cache"); within that trust, one bad file must
// not crash the processes that follow the one it crashed. So each process that loads a kernel from
// the disk cache first lists the file in its journal, <folder>/journals/<pid>.journal, and removes
// the journal when it exits normally. A journal whose process no longer runs (it crashed, was
// killed or left through _exit) names the kernels that may have brought it down: the next process
// that opens the folder deletes those cache files, so they are compiled afresh and rewritten, and
// then the journal. Kernels a process compiled itself are not listed: compiling them again would
// give the same code.
#pragma once

#include <cstddef>
#include <filesystem>

namespace tensorjit::codegen {

// Deletes the cache files named by the journals in `folder` of processes that no longer run, and
// those journals, warning once for each; returns how many cache files were deleted. Never throws.
std::size_t quarantine_abandoned_kernels(const std::filesystem::path& folder);

// Lists `cache_file` in this process's journal of its folder, creating the journal on first use;
// the journal is removed at normal exit. Call it before the file's object is linked. Never
// throws; a journal that cannot be written is warned about once per folder.
void record_disk_load(const std::filesystem::path& cache_file);

}  // namespace tensorjit::codegen
