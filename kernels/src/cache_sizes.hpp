// Cache size detection (cache_sizes.cpp), declared for its tests: host_cache_sizes() in gemm.hpp
// is what the driver uses.
#pragma once

#include <cstdint>
#include <string>

#include "tensorjit/kernels/gemm.hpp"

namespace tensorjit::kernels::detail {

// "32K", "32768K", "1M", "512" (bytes); 0 when unreadable.
std::int64_t parse_cache_size(const char* text);
// "0-1", "0,2,4-7": how many CPUs the list names; 0 when unreadable.
int count_cpu_list(const char* text);

// From a sysfs cache folder (/sys/devices/system/cpu/cpu0/cache), from CPUID, or, when neither
// describes an L1d and an L2, fallback_cache_sizes; the first two return sizes of 0 when their
// source is absent.
CacheSizes cache_sizes_from_sysfs(const std::string& folder);
CacheSizes cache_sizes_from_cpuid();
CacheSizes detect_cache_sizes();

}  // namespace tensorjit::kernels::detail
