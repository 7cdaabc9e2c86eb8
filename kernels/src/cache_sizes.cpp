// The data cache sizes of the CPU the process runs on, read once: from sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*/, which also says exactly which CPUs share each
// cache), else from CPUID's deterministic cache parameters (leaf 4 on Intel, leaf 0x8000001D on
// AMD and Hygon: the same layout), else a fallback description. The GEMM's blocking rules turn
// them into MC/KC/NC (blocking.hpp, docs/gemm.md).
#include <cstdio>
#include <cstring>
#include <string>

#include "blocking.hpp"
#include "cache_sizes.hpp"
#include "tensorjit/kernels/gemm.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tensorjit::kernels {
namespace detail {
namespace {

// One cache as either source describes it.
struct CacheLevel {
  std::int64_t bytes = 0;
  int sharing_cpus = 0;  // logical CPUs sharing it (>= 1 when known)
};

struct CacheLevels {
  CacheLevel l1d, l2, l3;
};

bool read_line(const std::string& path, char* text, std::size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return false;
  const bool read = std::fgets(text, static_cast<int>(size), file) != nullptr;
  std::fclose(file);
  return read;
}

}  // namespace

std::int64_t parse_cache_size(const char* text) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || value <= 0) return 0;
  switch (*end) {
    case 'K': return value << 10;
    case 'M': return value << 20;
    case 'G': return value << 30;
    default: return value;
  }
}

int count_cpu_list(const char* text) {
  int count = 0;
  const char* cursor = text;
  while (*cursor != '\0' && *cursor != '\n') {
    char* end = nullptr;
    const long first = std::strtol(cursor, &end, 10);
    if (end == cursor) return 0;
    long last = first;
    cursor = end;
    if (*cursor == '-') {
      last = std::strtol(cursor + 1, &end, 10);
      if (end == cursor + 1) return 0;
      cursor = end;
    }
    count += static_cast<int>(last - first + 1);
    if (*cursor == ',') ++cursor;
  }
  return count;
}

namespace {

CacheLevels levels_from_sysfs(const std::string& root) {
  CacheLevels levels;
  for (int index = 0; index < 16; ++index) {
    const std::string folder = root + "/index" + std::to_string(index) + "/";
    char level[16] = {}, type[32] = {}, size[32] = {}, shared[256] = {};
    if (!read_line(folder + "level", level, sizeof level)) break;
    if (!read_line(folder + "type", type, sizeof type) || !read_line(folder + "size", size, sizeof size)) continue;
    if (std::strncmp(type, "Instruction", 11) == 0) continue;
    CacheLevel cache{parse_cache_size(size), 1};
    if (read_line(folder + "shared_cpu_list", shared, sizeof shared)) {
      const int sharing = count_cpu_list(shared);
      if (sharing > 0) cache.sharing_cpus = sharing;
    }
    const int number = std::atoi(level);
    if (number == 1) levels.l1d = cache;
    else if (number == 2) levels.l2 = cache;
    else if (number == 3) levels.l3 = cache;
  }
  return levels;
}

CacheLevels levels_from_cpuid() {
  CacheLevels levels;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return levels;
  const unsigned max_leaf = eax;
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  unsigned leaf = 0;
  if (std::strcmp(vendor, "GenuineIntel") == 0 && max_leaf >= 4) {
    leaf = 4;
  } else if (std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0) {
    // Leaf 0x8000001D exists when CPUID 0x80000001 reports TOPOEXT (ECX bit 22).
    if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) != 0 && (ecx >> 22 & 1) != 0) leaf = 0x8000001D;
  }
  if (leaf == 0) return levels;
  for (unsigned sub = 0; sub < 16; ++sub) {
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    const unsigned type = eax & 31;  // 0 none, 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    if (type == 2) continue;
    const std::int64_t line = (ebx & 0xfff) + 1, partitions = (ebx >> 12 & 0x3ff) + 1, ways = (ebx >> 22 & 0x3ff) + 1,
                       sets = std::int64_t{ecx} + 1;
    // The most logical processors that can share it (Intel rounds it up to a power of two).
    const CacheLevel cache{line * partitions * ways * sets, static_cast<int>((eax >> 14 & 0xfff) + 1)};
    const unsigned number = eax >> 5 & 7;
    if (number == 1) levels.l1d = cache;
    else if (number == 2) levels.l2 = cache;
    else if (number == 3) levels.l3 = cache;
  }
#endif
  return levels;
}

// L3 per core: the L3 divided among the cores that share it, counting a core as the CPUs that
// share its L2 (two with SMT). Without an L3, nothing: the NC rule then keeps its floor.
CacheSizes to_cache_sizes(const CacheLevels& levels, const char* source) {
  CacheSizes sizes;
  sizes.l1d_bytes = levels.l1d.bytes;
  sizes.l2_bytes = levels.l2.bytes;
  if (levels.l3.bytes > 0) {
    const int per_core = levels.l2.sharing_cpus > 0 ? levels.l2.sharing_cpus : 1;
    const int cores = levels.l3.sharing_cpus > per_core ? levels.l3.sharing_cpus / per_core : 1;
    sizes.l3_bytes_per_core = levels.l3.bytes / cores;
  }
  sizes.source = source;
  return sizes;
}

bool usable(const CacheSizes& sizes) { return sizes.l1d_bytes > 0 && sizes.l2_bytes > 0; }

}  // namespace

CacheSizes cache_sizes_from_sysfs(const std::string& folder) {
  return to_cache_sizes(levels_from_sysfs(folder), "sysfs");
}

CacheSizes cache_sizes_from_cpuid() { return to_cache_sizes(levels_from_cpuid(), "cpuid"); }

CacheSizes detect_cache_sizes() {
  const CacheSizes sysfs = cache_sizes_from_sysfs("/sys/devices/system/cpu/cpu0/cache");
  if (usable(sysfs)) return sysfs;
  const CacheSizes cpuid = cache_sizes_from_cpuid();
  if (usable(cpuid)) return cpuid;
  return fallback_cache_sizes;
}

}  // namespace detail

CacheSizes host_cache_sizes() {
  static const CacheSizes sizes = detail::detect_cache_sizes();
  return sizes;
}

}  // namespace tensorjit::kernels
