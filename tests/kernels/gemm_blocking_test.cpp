// The blocking rules (kernels/src/blocking.hpp) on four CPU kinds' caches, the cache detection
// (kernels/src/cache_sizes.cpp) on a fake sysfs tree and on this machine, that products with the
// blocks of different CPUs give the same bits, and the unpacked path's row blocks that spare L1's
// sets (kernels/src/kernel_family.hpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../kernels/src/blocking.hpp"
#include "../../kernels/src/cache_sizes.hpp"
#include "../../kernels/src/kernel_family.hpp"
#include "tensorjit/kernels/gemm.hpp"

namespace {

namespace tk = tensorjit::kernels;
namespace td = tensorjit::kernels::detail;

constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;

// The four cache descriptions: an AMD EPYC znver3 (32 KiB L1d, 512 KiB L2, 32 MiB L3 over 2
// cores), a Zen 4 core (32 KiB, 1 MiB, 32 MiB per 8-core CCD), a Zen 5 core (48 KiB, 1 MiB, 32 MiB
// per 8-core CCD) and a Sapphire Rapids core (48 KiB, 2 MiB, 1.875 MiB of L3 per core).
constexpr tk::CacheSizes znver3{32 * KiB, 512 * KiB, 16 * MiB, "znver3"};
constexpr tk::CacheSizes zen4{32 * KiB, 1 * MiB, 4 * MiB, "zen4"};
constexpr tk::CacheSizes zen5{48 * KiB, 1 * MiB, 4 * MiB, "zen5"};
constexpr tk::CacheSizes sapphire_rapids{48 * KiB, 2 * MiB, 1920 * KiB, "sapphire rapids"};

struct Expected {
  const tk::CacheSizes* caches;
  const td::BlockingRow* row;
  const char* kernel;
  std::int64_t mc, kc, nc;
};

const td::BlockingRow& row_of(const td::BlockingRow (&table)[6], int bits, int bytes) {
  for (const td::BlockingRow& row : table)
    if (row.vector_bits == bits && row.element_bytes == bytes) return row;
  FAIL("no row");
  return table[0];
}

TEST_CASE("the blocking rules give each CPU kind its blocks") {
  const td::BlockingRow& avx2_f32 = row_of(td::avx2_blocking, 256, 4);
  const td::BlockingRow& avx2_f64 = row_of(td::avx2_blocking, 256, 8);
  const td::BlockingRow& avx512_f32 = row_of(td::avx512_blocking, 512, 4);
  const td::BlockingRow& avx512_f64 = row_of(td::avx512_blocking, 512, 8);
  const td::BlockingRow& avx512_256_f32 = row_of(td::avx512_blocking, 256, 4);
  const Expected expected[] = {
      // znver3 runs the AVX2 unit's 256-bit kernels (native width, no AVX-512).
      {&znver3, &avx2_f32, "avx2 256-bit 6x16 f32", 168, 384, 5456},
      {&znver3, &avx2_f64, "avx2 256-bit 6x8 f64", 84, 384, 2728},
      // Zen 4, Zen 5 and Sapphire Rapids run the 512-bit kernels, whose B micro-panel streams
      // from L2 (Zen 4's L1d is too small for it, as Zen 5's is).
      {&zen4, &avx512_f32, "avx512 512-bit 14x32 f32", 28, 2048, 1024},
      {&zen4, &avx512_f64, "avx512 512-bit 14x16 f64", 28, 2048, 512},
      {&zen5, &avx512_f32, "avx512 512-bit 14x32 f32", 28, 2048, 1024},
      {&zen5, &avx512_f64, "avx512 512-bit 14x16 f64", 28, 2048, 512},
      {&sapphire_rapids, &avx512_f32, "avx512 512-bit 14x32 f32", 28, 2048, 1024},
      {&sapphire_rapids, &avx512_f64, "avx512 512-bit 14x16 f64", 28, 2048, 512},
      // VECTOR_BITS=256 on them: the L1 rule with a 32 or 48 KiB L1d.
      {&zen4, &avx512_256_f32, "avx512 256-bit 6x16 f32", 336, 384, 1360},
      {&zen5, &avx512_256_f32, "avx512 256-bit 6x16 f32", 222, 576, 1024},
      {&sapphire_rapids, &avx512_256_f32, "avx512 256-bit 6x16 f32", 450, 576, 1024},
  };
  for (const Expected& e : expected) {
    const td::Blocking blocking = td::blocking_for(*e.row, *e.caches);
    MESSAGE(std::string(e.caches->source) << ", " << std::string(e.kernel) << ": MC " << blocking.mc << ", KC " << blocking.kc << ", NC "
                              << blocking.nc);
    CAPTURE(e.caches->source);
    CAPTURE(e.kernel);
    CHECK(blocking.mr == e.row->mr);
    CHECK(blocking.nr == e.row->nr);
    CHECK(blocking.mc == e.mc);
    CHECK(blocking.kc == e.kc);
    CHECK(blocking.nc == e.nc);
  }
}

TEST_CASE("every rule's block is a whole number of micro-tiles and fits the cache it is meant for") {
  const tk::CacheSizes descriptions[] = {znver3, zen4, zen5, sapphire_rapids, td::fallback_cache_sizes,
                                         tk::CacheSizes{16 * KiB, 128 * KiB, 0, "tiny"},
                                         tk::CacheSizes{0, 0, 0, "empty"}};
  for (const tk::CacheSizes& caches : descriptions)
    for (const auto* table : {&td::portable_blocking, &td::avx2_blocking, &td::avx512_blocking})
      for (const td::BlockingRow& row : *table) {
        const td::Blocking b = td::blocking_for(row, caches);
        CAPTURE(caches.source);
        CAPTURE(row.vector_bits);
        CAPTURE(row.element_bytes);
        CHECK(b.mc >= row.mr);
        CHECK(b.mc % row.mr == 0);
        CHECK(b.nc >= row.nr);
        CHECK(b.nc % row.nr == 0);
        CHECK(b.kc >= 8);
        CHECK(b.kc <= td::kc_limit);
        CHECK(b.kc * b.nc * row.element_bytes <= td::b_block_limit);
        const std::int64_t l2 = caches.l2_bytes > 0 ? caches.l2_bytes : td::fallback_cache_sizes.l2_bytes;
        if (row.home == td::PanelHome::l1) {
          const std::int64_t l1 = caches.l1d_bytes > 0 ? caches.l1d_bytes : td::fallback_cache_sizes.l1d_bytes;
          CHECK(b.kc * row.nr * row.element_bytes <= l1 * 3 / 4);
          CHECK(b.mc * b.kc * row.element_bytes <= l2 / 2);
        } else {
          CHECK((b.mc + row.nr) * b.kc * row.element_bytes <= l2 * 3 / 4);
        }
      }
}

TEST_CASE("the unpacked path's row blocks keep at most 8 rows of A in one L1 set") {
  struct Case {
    int mr;
    std::int64_t row_stride_bytes;
    int lines_in_one_set, block_rows;
  };
  const Case cases[] = {
      {14, 4096, 14, 7},       // k = 1024 f32 or 512 f64: every row in set 0, two blocks of 7
      {14, -4096, 14, 7},      // a reversed A alike
      {14, 8192, 14, 7},       // any multiple of 4 KiB
      {14, 2048, 7, 14},       // k = 512 f32: two sets, 7 lines each
      {14, 4104, 8, 14},       // k = 1026 f32: 8 rows a set, as many as the ways
      {14, 1536, 2, 14},       // k = 384 f32: spread over the sets
      {14, 4, 1, 14},          // a transposed A: the 14 rows in one line
      {14, 0, 1, 14},          // a broadcast row
      {6, 4096, 6, 6},         // a 256-bit kernel's 6 rows fit the ways
      {28, 4096, 28, 7},       // four parts when two leave 14 in one set
  };
  for (const Case& c : cases) {
    CAPTURE(c.mr);
    CAPTURE(c.row_stride_bytes);
    CHECK(td::rows_in_one_l1_set(c.mr, c.row_stride_bytes) == c.lines_in_one_set);
    CHECK(td::unpacked_block_rows(c.mr, c.row_stride_bytes) == c.block_rows);
  }
}

TEST_CASE("cache sizes and CPU lists are parsed as sysfs writes them") {
  CHECK(td::parse_cache_size("32K\n") == 32 * KiB);
  CHECK(td::parse_cache_size("32768K") == 32 * MiB);
  CHECK(td::parse_cache_size("2M") == 2 * MiB);
  CHECK(td::parse_cache_size("512") == 512);
  CHECK(td::parse_cache_size("") == 0);
  CHECK(td::parse_cache_size("K") == 0);
  CHECK(td::count_cpu_list("0\n") == 1);
  CHECK(td::count_cpu_list("0-1\n") == 2);
  CHECK(td::count_cpu_list("0,56") == 2);
  CHECK(td::count_cpu_list("0-55,112-167\n") == 112);
  CHECK(td::count_cpu_list("x") == 0);
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text << "\n";
}

TEST_CASE("a sysfs cache tree with SMT gives each core its share of L3") {
  // A Sapphire Rapids socket as Linux shows it: 56 cores, 2 threads each; L1d and L2 shared by a
  // core's two threads, the 105 MiB L3 by all 112.
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("tensorjit_cache_tree_" + std::to_string(std::random_device{}()));
  const struct {
    const char *level, *type, *size, *shared;
  } caches[] = {{"1", "Data", "48K", "0,56"},
                {"1", "Instruction", "32K", "0,56"},
                {"2", "Unified", "2048K", "0,56"},
                {"3", "Unified", "107520K", "0-111"}};
  for (int i = 0; i < 4; ++i) {
    const std::filesystem::path folder = root / ("index" + std::to_string(i));
    std::filesystem::create_directories(folder);
    write_file(folder / "level", caches[i].level);
    write_file(folder / "type", caches[i].type);
    write_file(folder / "size", caches[i].size);
    write_file(folder / "shared_cpu_list", caches[i].shared);
  }
  const tk::CacheSizes sizes = td::cache_sizes_from_sysfs(root.string());
  std::filesystem::remove_all(root);
  CHECK(sizes.l1d_bytes == 48 * KiB);
  CHECK(sizes.l2_bytes == 2 * MiB);
  CHECK(sizes.l3_bytes_per_core == 107520 * KiB / 56);
  CHECK(std::strcmp(sizes.source, "sysfs") == 0);

  const tk::CacheSizes absent = td::cache_sizes_from_sysfs((root / "absent").string());
  CHECK(absent.l1d_bytes == 0);
  CHECK(absent.l2_bytes == 0);
}

TEST_CASE("this machine's caches are detected, and CPUID agrees with sysfs") {
  const tk::CacheSizes host = tk::host_cache_sizes();
  MESSAGE("this machine (" << std::string(host.source) << "): L1d " << host.l1d_bytes / KiB << " KiB, L2 " << host.l2_bytes / KiB
                           << " KiB, L3 per core " << host.l3_bytes_per_core / KiB << " KiB");
  CHECK(host.l1d_bytes >= 8 * KiB);
  CHECK(host.l2_bytes >= host.l1d_bytes);
  const tk::CacheSizes sysfs = td::cache_sizes_from_sysfs("/sys/devices/system/cpu/cpu0/cache");
  const tk::CacheSizes cpuid = td::cache_sizes_from_cpuid();
  if (sysfs.l1d_bytes > 0 && cpuid.l1d_bytes > 0) {
    CHECK(sysfs.l1d_bytes == cpuid.l1d_bytes);
    CHECK(sysfs.l2_bytes == cpuid.l2_bytes);
  }
  for (bool is_float : {true, false}) {
    const tk::KernelInfo info = is_float ? tk::describe_float_kernel() : tk::describe_double_kernel();
    MESSAGE(std::string(info.instruction_set) << " " << info.vector_bits << "-bit " << info.mr << "x" << info.nr
                                 << (is_float ? " f32" : " f64") << ": MC " << info.mc << ", KC " << info.kc
                                 << ", NC " << info.nc);
  }
}

// Products computed with the blocks each CPU kind would get (and the fallback's), for this
// machine's native kernels, on the packed path, are bitwise identical: the blocks only move where
// the k loop is cut, and each element stays one FMA chain in increasing k.
TEST_CASE_TEMPLATE("the blocks of different CPUs give the same bits", T, float, double) {
  const std::int64_t m = 301, n = 1100, k = 2100;  // more than one KC and NC block for most
  std::mt19937 random(7);
  std::uniform_real_distribution<T> values(T(-1), T(1));
  std::vector<T> a(m * k), b(k * n);
  for (T& v : a) v = values(random);
  for (T& v : b) v = values(random);
  tk::GemmArgs<T> args;
  args.m = m;
  args.n = n;
  args.k = k;
  args.a = {a.data(), k, 1, 0};
  args.b = {b.data(), n, 1, 0};
  const tk::KernelInfo native = sizeof(T) == 4 ? tk::describe_float_kernel() : tk::describe_double_kernel();
  const td::BlockingRow& row =
      row_of(std::strcmp(native.instruction_set, "avx512") == 0 ? td::avx512_blocking
             : std::strcmp(native.instruction_set, "avx2") == 0 ? td::avx2_blocking
                                                                 : td::portable_blocking,
             native.vector_bits, sizeof(T));
  std::vector<T> first;
  for (const tk::CacheSizes& caches : {znver3, zen4, zen5, sapphire_rapids, td::fallback_cache_sizes}) {
    const td::Blocking blocking = td::blocking_for(row, caches);
    tk::GemmOptions options;
    options.allow_unpacked_path = false;
    options.mc = blocking.mc;
    options.kc = blocking.kc;
    options.nc = blocking.nc;
    std::vector<T> c(m * n, T(7));
    args.c = {c.data(), n, 0};
    tk::gemm(args, options);
    CAPTURE(caches.source);
    if (first.empty()) first = c;
    else CHECK(std::memcmp(first.data(), c.data(), c.size() * sizeof(T)) == 0);
  }
  std::vector<T> reference(m * n);
  args.c = {reference.data(), n, 0};
  tk::reference_gemm(args);
  CHECK(std::memcmp(first.data(), reference.data(), reference.size() * sizeof(T)) == 0);
}

}  // namespace
