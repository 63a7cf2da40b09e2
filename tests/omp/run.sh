#!/usr/bin/env bash
# run.sh -- build and run the weft-omp conformance tests.
#
#   run.sh [LIBDIR]                 build every test, run each under the
#                                   libgomp.so.1 found in LIBDIR (through
#                                   LD_LIBRARY_PATH; default: the system one)
#   run.sh --check-binding LIBDIR   build, then verify that the binaries load
#                                   libgomp.so.1 from LIBDIR (ldd for every
#                                   binary, LD_DEBUG=libs for one run)
#
# Environment:
#   OMP_TEST_BUILD   build directory (default /tmp/omp-tests)
#   OMP_TEST_ONLY    extended regex: run only the tests whose name matches
#   OMP_TEST_TIMEOUT seconds per run (default 60)
#   OMP_TEST_MAX_OS_THREADS  passed on to oversub_probe (see that test)
#   OMP_TEST_CC, OMP_TEST_CXX, OMP_TEST_FC  the compilers (default gcc, g++,
#                    gfortran; "none" for OMP_TEST_CXX or OMP_TEST_FC skips
#                    the C++ or Fortran tests), e.g. a cross compiler's
#   OMP_TEST_LIBDIR  set by run.sh for the tests: LIBDIR, or empty
#   OMP_TEST_RUNNER  a command that runs each test (e.g. qemu-aarch64 -L
#                    /usr/aarch64-linux-gnu for a cross build); the tests
#                    that start a copy of themselves then pass their own
#                    runner on (OMP_TEST_RUNNER is in their environment)
#
# Every *.c / *.cpp / *.f90 file here is a test.  A test is built once with
# gcc / g++ / gfortran -fopenmp -O2 plus the flags of its "BUILD-FLAGS:"
# comment line, and run once per "RUN-ENV:" comment line with those
# NAME=value words added to the environment (values cannot contain
# blanks); a test without RUN-ENV lines runs at OMP_NUM_THREADS=1, 2 and 4.
# Every other OMP_* / GOMP_* / KMP_* variable is removed first (except
# OMP_TEST_*), so the results do not depend on the caller's environment.
# One line per run: PASS / FAIL / TIMEOUT; exit status 1 if any run did not
# pass.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${OMP_TEST_BUILD:-/tmp/omp-tests}
timeout_s=${OMP_TEST_TIMEOUT:-60}
only=${OMP_TEST_ONLY:-}
mode=run
libdir=

case "${1:-}" in
--check-binding)
    mode=binding
    libdir=${2:-}
    if [ -z "$libdir" ]; then
        echo "usage: $0 --check-binding LIBDIR" >&2
        exit 2
    fi
    ;;
-h | --help)
    sed -n '2,25p' "$0"
    exit 0
    ;;
"") ;;
*) libdir=$1 ;;
esac
if [ -n "$libdir" ]; then
    if [ ! -e "$libdir/libgomp.so.1" ]; then
        echo "run.sh: $libdir/libgomp.so.1 does not exist" >&2
        exit 2
    fi
    libdir=$(cd "$libdir" && pwd)
fi

mkdir -p "$build" || exit 2

# ---- the environment of every run --------------------------------------
for v in $(compgen -e); do
    case "$v" in
    OMP_TEST_*) ;;
    OMP_* | GOMP_* | KMP_*) unset "$v" ;;
    esac
done
if [ -n "$libdir" ]; then
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# Where the library under test is (empty: the system's). A few tests check
# what libgomp leaves undefined (e.g. fulfilling the event of a discarded
# task) only on the library under test: weft-omp defines it.
export OMP_TEST_LIBDIR="$libdir"

# ---- the tests -----------------------------------------------------------
tests=()
for src in "$here"/*.c "$here"/*.cpp "$here"/*.f90; do
    [ -e "$src" ] || continue
    [ "${OMP_TEST_FC:-}" = none ] && [[ $src == *.f90 ]] && continue
    [ "${OMP_TEST_CXX:-}" = none ] && [[ $src == *.cpp ]] && continue
    name=$(basename "$src")
    name=${name%.*}
    if [ -n "$only" ] && ! [[ $name =~ $only ]]; then
        continue
    fi
    tests+=("$src")
done
if [ ${#tests[@]} -eq 0 ]; then
    echo "run.sh: no test matches" >&2
    exit 2
fi

directive() { # directive FILE KEY: the text after "KEY:" on each line
    sed -n "s/.*$2:[[:space:]]*//p" "$1" | sed 's/[[:space:]]*\*\/[[:space:]]*$//; s/[[:space:]]*$//'
}

build_one() { # build_one SRC: compile into $build, log in $build/NAME.log
    local src=$1 name out cc flags
    name=$(basename "$src")
    name=${name%.*}
    out=$build/$name
    if [ -x "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$here/omp_check.h" ] &&
        [ "$out" -nt "$here/run.sh" ]; then
        return 0
    fi
    case "$src" in
    *.c) cc="${OMP_TEST_CC:-gcc} -std=gnu11" ;;
    *.cpp) cc="${OMP_TEST_CXX:-g++} -std=gnu++17" ;;
    *.f90) cc="${OMP_TEST_FC:-gfortran} -J $build/mod-$name" && mkdir -p "$build/mod-$name" ;;
    esac
    flags=$(directive "$src" BUILD-FLAGS | tr '\n' ' ')
    # shellcheck disable=SC2086
    if ! (cd "$build" && $cc -fopenmp -O2 -I"$here" $flags ${OMP_TEST_CFLAGS:-} -o "$out.tmp" "$src") >"$build/$name.log" 2>&1; then
        rm -f "$out.tmp"
        return 1
    fi
    mv -f "$out.tmp" "$out"
}

# compile, at most two compilers at a time
declare -A build_failed=()
pids=()
names=()
for src in "${tests[@]}"; do
    name=$(basename "$src")
    name=${name%.*}
    build_one "$src" &
    pids+=($!)
    names+=("$name")
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}" || build_failed[${names[0]}]=1
        pids=("${pids[@]:1}")
        names=("${names[@]:1}")
    fi
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || build_failed[${names[$i]}]=1
done

# ---- --check-binding -----------------------------------------------------
if [ "$mode" = binding ]; then
    bad=0
    for src in "${tests[@]}"; do
        name=$(basename "$src")
        name=${name%.*}
        if [ -n "${build_failed[$name]:-}" ]; then
            echo "FAIL $name (build, see $build/$name.log)"
            bad=1
            continue
        fi
        path=$(ldd "$build/$name" | awk '$1 == "libgomp.so.1" {print $3}')
        real=$(readlink -f "$path" 2>/dev/null)
        if [ -n "$path" ] && [ "$(cd "$(dirname "$path")" && pwd)" = "$libdir" ]; then
            echo "BOUND $name -> $path ($real)"
        else
            echo "WRONG $name -> ${path:-no libgomp.so.1}"
            bad=1
        fi
    done
    # and one real run, as the dynamic loader reports it
    probe=$build/parallel_basic
    if [ -x "$probe" ]; then
        init=$(LD_DEBUG=libs OMP_NUM_THREADS=2 "$probe" 2>&1 >/dev/null |
            sed -n 's/.*calling init: \(.*libgomp\.so\.1\).*/\1/p' | head -1)
        if [ -n "$init" ] && [ "$(cd "$(dirname "$init")" && pwd)" = "$libdir" ]; then
            echo "BOUND (LD_DEBUG=libs run of parallel_basic) -> $init"
        else
            echo "WRONG (LD_DEBUG=libs run of parallel_basic) -> ${init:-libgomp.so.1 not initialised}"
            bad=1
        fi
    fi
    if [ $bad = 0 ]; then
        echo "all binaries load libgomp.so.1 from $libdir"
    fi
    exit $bad
fi

# ---- runs ----------------------------------------------------------------
pass=0
fail=0
tmo=0
runs=0
echo "libgomp.so.1: ${libdir:-system}; build dir: $build"
for src in "${tests[@]}"; do
    name=$(basename "$src")
    name=${name%.*}
    if [ -n "${build_failed[$name]:-}" ]; then
        echo "FAIL $name (build)"
        sed 's/^/    /' "$build/$name.log" | tail -20
        fail=$((fail + 1))
        runs=$((runs + 1))
        continue
    fi
    mapfile -t envs < <(directive "$src" RUN-ENV)
    if [ ${#envs[@]} -eq 0 ]; then
        envs=("OMP_NUM_THREADS=1" "OMP_NUM_THREADS=2" "OMP_NUM_THREADS=4")
    fi
    for e in "${envs[@]}"; do
        read -ra words <<<"$e"
        runs=$((runs + 1))
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        out=$(cd "$build" && timeout -k 5 "$timeout_s" env "${words[@]}" ${OMP_TEST_RUNNER:-} "./$name" 2>&1)
        rc=$?
        secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
        label="$name [${e}]"
        if [ $rc -eq 0 ]; then
            pass=$((pass + 1))
            first=$(printf '%s\n' "$out" | head -1)
            printf 'PASS %s %.2fs%s\n' "$label" "$secs" "${first:+ -- $first}"
        elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            tmo=$((tmo + 1))
            echo "TIMEOUT $label (${timeout_s}s)"
            printf '%s\n' "$out" | tail -10 | sed 's/^/    /'
        else
            fail=$((fail + 1))
            echo "FAIL $label (exit $rc)"
            printf '%s\n' "$out" | tail -10 | sed 's/^/    /'
        fi
    done
done
echo "$runs runs of ${#tests[@]} tests: $pass passed, $fail failed, $tmo timed out"
[ $fail -eq 0 ] && [ $tmo -eq 0 ]
