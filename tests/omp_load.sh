#!/usr/bin/env bash
# weft-omp is picked up, without relinking, the four ways README promises:
#   LD_LIBRARY_PATH=<dir> ./a.out, LD_PRELOAD=<dir>/libgomp.so.1 ./a.out,
#   weft-omp ./a.out, and linking against it directly
#   (gcc -fopenmp x.c -L<dir> -Wl,-rpath,<dir>).
# Each run must load weft's libgomp.so.1 (not the system's) and compute the
# right result. Usage: omp_load.sh <dir of libgomp.so.1 and weft-omp> <scratch dir>
set -euo pipefail
dir=$1 work=$2
mkdir -p "$work"
cat >"$work/load.c" <<'C'
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <dlfcn.h>
#include <link.h>
/* Prints the path of the libgomp.so.1 that was loaded, then a checked sum. */
static int where(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size; (void)data;
    if (strstr(info->dlpi_name, "libgomp.so.1")) printf("%s\n", info->dlpi_name);
    return 0;
}
int main(void)
{
    dl_iterate_phdr(where, NULL);
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(3)
    for (int i = 1; i <= 1000; i++) sum += i;
    int nt = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    nt = omp_get_num_threads();
    printf("%ld %d\n", sum, nt);
    return !(sum == 500500 && nt == 3);
}
C
gcc -fopenmp -O2 "$work/load.c" -o "$work/load_sys"
gcc -fopenmp -O2 "$work/load.c" -o "$work/load_direct" -L"$dir" -Wl,-rpath,"$dir"
want=$(cd "$dir" && pwd -P)/libgomp.so.1
fail=0
check() { # name, output
  local name=$1 out=$2 lib
  # First and last line by expansion: `printf | head -1` under pipefail
  # fails at random (head may exit between printf's two writes: SIGPIPE).
  lib=${out%%$'\n'*}
  lib=$(cd "$(dirname "$lib")" 2>/dev/null && pwd -P)/$(basename "$lib") || true
  if [ "$lib" != "$want" ] || [ "${out##*$'\n'}" != "500500 3" ]; then
    echo "FAIL $name: loaded $lib, printed: $(printf '%s' "$out" | tr '\n' ' ')"; fail=1
  else
    echo "ok   $name"
  fi
}
check LD_LIBRARY_PATH "$(LD_LIBRARY_PATH="$dir" "$work/load_sys")"
check LD_PRELOAD "$(LD_PRELOAD="$dir/libgomp.so.1" "$work/load_sys")"
check launcher "$("$dir/weft-omp" "$work/load_sys")"
check direct-link "$("$work/load_direct")"
# The symbol versions a program built against the system libgomp asks for
# are all there.
if ! LD_BIND_NOW=1 LD_LIBRARY_PATH="$dir" "$work/load_sys" >/dev/null; then
  echo "FAIL: eager binding against weft-omp"; fail=1
fi
exit $fail
