#!/usr/bin/env bash
# The one set-up command: installs the Debian packages tensorjit needs when any is missing (as
# root, on a fresh Debian 12 as on a developer machine), configures and builds, then runs what was
# asked for.
#
#   bash scripts/setup.sh demo    # build and run examples/quickstart
#   bash scripts/setup.sh test    # build (Release with assertions, ASan+UBSan, TSan) and run every test
#   bash scripts/setup.sh build   # only set up and build
#
# Silent and fast when everything is already there. Build folders: build/, build-sanitize/ and
# build-tsan/.
set -euo pipefail

what=${1:-build}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

packages=(g++ cmake ninja-build ccache pkg-config git python3
          llvm-19-dev libzstd-dev zlib1g-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev
          libfmt-dev libspdlog-dev doctest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev libicu-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
configure() {  # configure <folder> [cmake options...]
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  fi
}

configure build
ninja -C build -j "$jobs" --quiet

case "$what" in
  build) ;;
  demo)
    ./build/examples/quickstart
    ;;
  test)
    # The sanitizer tree builds only the suites labelled `sanitize`: the IR and its interpreter,
    # the GEMM, the runtime with its JIT'd kernels, the error paths, and the fuzz targets' replay.
    configure build-sanitize -DTENSORJIT_SANITIZE=ON -DTENSORJIT_BUILD_BENCH=OFF
    ninja -C build-sanitize -j "$jobs" --quiet tests_ir tests_kernels tests_runtime tests_errors tests_fuzz
    # The ThreadSanitizer tree builds the library and only the concurrency sources of two suites,
    # labelled `tsan` (threads evaluating, the JIT compiling and tiering up, processes sharing a
    # disk cache).
    configure build-tsan -DTENSORJIT_TSAN=ON -DTENSORJIT_BUILD_BENCH=OFF
    ninja -C build-tsan -j "$jobs" --quiet tsan_runtime tsan_codegen
    echo "== tests: Release with assertions"
    ctest --test-dir build --output-on-failure -j "$jobs" -LE 'exhaustive|long'
    echo "== tests: AddressSanitizer + UndefinedBehaviorSanitizer"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --test-dir build-sanitize --output-on-failure -j "$jobs" -L sanitize
    echo "== tests: ThreadSanitizer"
    ctest --test-dir build-tsan --output-on-failure -L tsan
    ;;
  *)
    echo "usage: bash scripts/setup.sh [build|demo|test]" >&2
    exit 2
    ;;
esac
