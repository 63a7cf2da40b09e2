/* oversub_probe: how many OS threads does a deep nest of teams cost?
 * RUN-ENV: OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=4 WEFT_HWLOC_PLUGINS=1
 *
 * THIS IS A PROBE, NOT A CONFORMANCE CHECK.  Nested parallel regions
 * three levels deep with 4 threads per level (64 OpenMP threads at the
 * innermost level, max-active-levels 3) count the process's OS threads
 * (entries of /proc/self/task) from inside the innermost region and
 * print the maximum seen (each innermost thread counts once all 64 have
 * arrived, or when a common 2 s deadline has passed; it yields meanwhile).
 * The results of the nest (every (a,b,c) triple runs once) are checked.
 *  - Under GCC's libgomp every OpenMP thread is an OS thread, so it
 *    reports 64 (the initial thread is one of them): that is expected.
 *  - weft-omp maps OpenMP threads to ULTs on a bounded set of execution
 *    streams, so it should report far fewer.
 * The test fails only if OMP_TEST_MAX_OS_THREADS is set and the count
 * exceeds it (e.g. run.sh LIBDIR with OMP_TEST_MAX_OS_THREADS=8 in the
 * environment for weft-omp; "procs" means omp_get_num_procs(), weft-omp's
 * stream count; "procs+N" allows N more, e.g. weft-omp's watchdog
 * thread, which nested teams start, or ThreadSanitizer's own thread).
 * Unset, it only prints the count.
 * The second run lets hwloc load its plugins on weft-omp (where
 * libhwloc-plugins is installed): one of the libraries they bring (the
 * OpenCL loader) has thread-local variables, which must not make weft-omp
 * give every OpenMP thread an OS thread of its own as it does for a
 * program with thread-local variables (src/omp/streams.c).
 */
#include "omp_check.h"

#include <dirent.h>

static int count_tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int main(void)
{
    omp_set_max_active_levels(3);
    int hits[4][4][4];
    memset(hits, 0, sizeof hits);
    int maxseen = 0, arrived = 0;
    /* one deadline for all: a runtime that runs the 64 threads one after
     * the other waits 2 s in total, not 2 s each */
    double deadline = omp_get_wtime() + 2.0;
#pragma omp parallel num_threads(4) shared(hits, maxseen, arrived, deadline)
    {
        int a = omp_get_thread_num();
#pragma omp parallel num_threads(4) shared(hits, maxseen, arrived, deadline)
        {
            int b = omp_get_thread_num();
#pragma omp parallel num_threads(4) shared(hits, maxseen, arrived, deadline)
            {
                int c = omp_get_thread_num();
                __atomic_fetch_add(&hits[a][b][c], 1, __ATOMIC_RELAXED);
                /* wait (at most 2 s, yielding) until all 64 are in, so
                 * that the count sees every team */
                __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
                while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 64 &&
                       omp_get_wtime() < deadline) {
#pragma omp taskyield
                    usleep(100);
                }
                int n = count_tasks();
                int old = __atomic_load_n(&maxseen, __ATOMIC_RELAXED);
                while (n > old && !__atomic_compare_exchange_n(&maxseen, &old, n, 0,
                                                               __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                    ;
#pragma omp barrier
            }
        }
    }
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++)
                CHECK_EQ(hits[a][b][c], 1);
    const char *lim = getenv("OMP_TEST_MAX_OS_THREADS");
    printf("oversub_probe: %d OS threads seen for 64 OpenMP threads at level 3%s%s\n", maxseen,
           lim ? ", limit " : " (no limit set: probe only)", lim ? lim : "");
    if (lim) {
        /* "procs" or "procs+N": omp_get_num_procs() (plus N threads of
         * the sanitizer's runtime, say) */
        int max = strncmp(lim, "procs", 5) ? atoi(lim) : omp_get_num_procs() + atoi(lim + 5);
        CHECKF(maxseen <= max, "%d OS threads > OMP_TEST_MAX_OS_THREADS=%s (%d)", maxseen, lim, max);
    }
    return 0;
}
