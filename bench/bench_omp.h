/* What the OpenMP programs (patterns_omp.c, sync_omp.c, epcc_omp.c) share.
 *
 * One gcc binary measures two runtimes: the system's libgomp ("gomp") and
 * weft-omp, this project's libgomp.so.1 (src/omp), which bench/run.py puts
 * first on LD_LIBRARY_PATH. --runtime=NAME sets the runtime name the
 * points carry (default: OMP_RUNTIME, the compiler's), and every point
 * carries "lib", the OpenMP library the process really loaded, which
 * bench/run.py checks against the runtime it meant to measure. Needs
 * _GNU_SOURCE. */
#ifndef WEFT_BENCH_OMP_H
#define WEFT_BENCH_OMP_H

#include <link.h>
#include <stdio.h>
#include <string.h>

#ifndef OMP_RUNTIME
#define OMP_RUNTIME "gomp"
#endif

static const char *bench_omp_runtime = OMP_RUNTIME;

/* Takes --runtime=NAME; 1 if `arg` was it. */
static inline int bench_omp_arg(const char *arg)
{
    if (strncmp(arg, "--runtime=", 10) || !arg[10]) return 0;
    bench_omp_runtime = arg + 10;
    return 1;
}

static int bench_omp_lib_cb(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    const char *n = info->dlpi_name, *base = n ? strrchr(n, '/') : NULL;
    base = base ? base + 1 : n;
    if (base && (!strncmp(base, "libgomp.so", 10) || !strncmp(base, "libomp.so", 9))) {
        *(const char **)out = n;
        return 1;
    }
    return 0;
}

/* The path of the OpenMP library loaded (as the dynamic loader found it). */
static inline const char *bench_omp_lib(void)
{
    const char *lib = "unknown";
    dl_iterate_phdr(bench_omp_lib_cb, &lib);
    return lib;
}

/* `"lib": "<path>"`, the JSON field every point carries. */
static inline const char *bench_omp_lib_field(void)
{
    static char buf[4200];
    if (!buf[0]) snprintf(buf, sizeof buf, "\"lib\": \"%s\"", bench_omp_lib());
    return buf;
}

#endif
