#!/usr/bin/env bash
# Every test in every configuration `make test` promises:
#   release   plain build (hwloc, asm switch); memcheck runs of the cheap tests
#   asan      AddressSanitizer + UndefinedBehaviorSanitizer
#   tsan      ThreadSanitizer, the threaded tests
#   ucontext  the portable ucontext switch, FPU control words preserved
#   aarch64   cross-built, run under qemu-aarch64, FPU control words preserved
#   install   cmake --install, then a program built against it with
#             find_package(weft) and another with pkg-config
set -uo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
mkdir -p build
passed=0; failed=0; failures=()

# configure+build a tree, then run ctest with the given arguments
suite() {
  local name=$1; shift
  local cmake_args=() ctest_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ctest_args=("$@")
  local dir=build/test-$name
  echo "== $name"
  if ! cmake -S . -B "$dir" -G Ninja -DWEFT_BUILD_BENCH=OFF "${cmake_args[@]}" >"$dir.log" 2>&1 ||
     ! cmake --build "$dir" -j "$JOBS" >>"$dir.log" 2>&1; then
    cat "$dir.log"; failed=$((failed + 1)); failures+=("$name: build"); return
  fi
  local out
  out=$(cd "$dir" && env ${SUITE_ENV:-} ctest --output-on-failure -j "$JOBS" "${ctest_args[@]}" 2>&1)
  echo "$out" | grep -E "tests passed|Failed|\*\*\*|Error|error" | grep -v "^$" || true
  local line total nfail
  line=$(echo "$out" | grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" | tail -1)
  if [ -z "$line" ]; then
    echo "$out" | tail -20; failed=$((failed + 1)); failures+=("$name: no result"); return
  fi
  nfail=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
  total=$(echo "$line" | sed -E 's/.* failed out of ([0-9]+).*/\1/')
  passed=$((passed + total - nfail)); failed=$((failed + nfail))
  [ "$nfail" -eq 0 ] || { echo "$out" | tail -40; failures+=("$name: $nfail failed"); }
}

suite release -DCMAKE_BUILD_TYPE=Release -DWEFT_MEMCHECK_TESTS=ON
suite asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_SANITIZE=address -DWEFT_ASSERTS=ON
# TSan's vector clocks grow with every fiber: a smaller stress keeps it linear.
SUITE_ENV=WEFT_STRESS_N=20000 suite tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_SANITIZE=thread -DWEFT_ASSERTS=ON -- -L threaded
suite ucontext -DCMAKE_BUILD_TYPE=Release -DWEFT_CONTEXT=ucontext -DWEFT_PRESERVE_FPU=ON
suite aarch64 -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DWEFT_PRESERVE_FPU=ON

# The installed package, used the two ways a user would.
echo "== install"
prefix=$PWD/build/test-prefix
rm -rf "$prefix" build/test-consumer
if cmake --install build/test-release --prefix "$prefix" >build/test-install.log 2>&1 &&
   cmake -S examples/consumer -B build/test-consumer -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >>build/test-install.log 2>&1 &&
   cmake --build build/test-consumer >>build/test-install.log 2>&1 &&
   build/test-consumer/hello_cmake >>build/test-install.log 2>&1 &&
   cc examples/hello.c -o build/test-consumer/hello_pc \
      $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs weft) \
      -Wl,-rpath,"$prefix/lib" >>build/test-install.log 2>&1 &&
   build/test-consumer/hello_pc >>build/test-install.log 2>&1 &&
   { [ ! -e "$prefix/bin/weft-omp" ] || {
       # weft-omp: the launcher, and a program linked through its pkg-config module
       printf '#include <omp.h>\nint main(void){int n=0;\n#pragma omp parallel num_threads(3) reduction(+:n)\nn++;\nreturn n!=3;}\n' \
         >build/test-consumer/omp.c &&
       gcc -fopenmp build/test-consumer/omp.c -o build/test-consumer/omp_sys &&
       "$prefix/bin/weft-omp" build/test-consumer/omp_sys &&
       gcc build/test-consumer/omp.c -o build/test-consumer/omp_pc \
         $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs weft-omp) &&
       build/test-consumer/omp_pc &&
       ldd build/test-consumer/omp_pc | grep "lib/weft/libgomp.so.1" >/dev/null; } } >>build/test-install.log 2>&1; then
  echo "install: find_package(weft) and pkg-config consumers built and ran; weft-omp launcher and pkg-config module work"
  passed=$((passed + 1))
else
  cat build/test-install.log; failed=$((failed + 1)); failures+=("install")
fi

echo
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
