/* threadprivate: each OpenMP thread has its own copy, at its own address.
 * RUN-ENV: OMP_NUM_THREADS=1
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=8
 * RUN-ENV: OMP_NUM_THREADS=4,2 OMP_MAX_ACTIVE_LEVELS=2
 * gcc makes a threadprivate variable a __thread variable, so every OpenMP
 * thread must have its own thread-local storage, also when threads
 * outnumber the CPUs. Checked, at the thread counts above:
 *  - a copy keeps its thread's value across barriers in which every other
 *    thread writes its own;
 *  - the copies of a team are at distinct addresses;
 *  - a copy starts with the variable's initializer in a new thread;
 *  - copyin gives every thread the primary thread's values (a scalar and
 *    an array), copyprivate broadcasts one thread's;
 *  - the copies persist from one region to the next of the same size;
 *  - in nested teams every thread of an inner team has its own copy, apart
 *    from every thread of the outer team.
 */
#include "omp_check.h"

#include <stdint.h>

static int tp;
static long tp_init = 7;
static double tp_arr[64];
#pragma omp threadprivate(tp, tp_init, tp_arr)

#define MAXT 64

static void barriers(void)
{
    int bad = 0;
    for (int it = 0; it < 200; it++) {
#pragma omp parallel reduction(+ : bad)
        {
            int me = omp_get_thread_num();
            tp = me + 1000 * it;
            tp_arr[it % 64] = me;
#pragma omp barrier
            if (tp != me + 1000 * it || tp_arr[it % 64] != me) bad++;
#pragma omp barrier
            tp += 1;
#pragma omp barrier
            if (tp != me + 1000 * it + 1) bad++;
        }
    }
    CHECK_EQ(bad, 0);
}

static void addresses(void)
{
    uintptr_t addr[MAXT] = {0};
    int n = 0;
#pragma omp parallel shared(addr, n)
    {
        int me = omp_get_thread_num();
        if (me < MAXT) addr[me] = (uintptr_t)&tp;
#pragma omp single
        n = omp_get_num_threads();
    }
    CHECK(n <= MAXT);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) CHECKF(addr[i] != addr[j], "threads %d and %d share &tp", i, j);
}

static void initializer(void)
{
    int bad = 0;
    /* The first region of this size: its threads are new (libgomp) or
     * their copies untouched so far (tp_init is written nowhere else). */
#pragma omp parallel reduction(+ : bad)
    {
        if (tp_init != 7) bad++;
#pragma omp barrier
        tp_init = 100 + omp_get_thread_num();
#pragma omp barrier
        if (tp_init != 100 + omp_get_thread_num()) bad++;
    }
    CHECK_EQ(bad, 0);
}

static void copyin_copyprivate(void)
{
    int bad = 0;
    for (int it = 0; it < 50; it++) {
        tp = 4242 + it;
        for (int k = 0; k < 64; k++) tp_arr[k] = k * 0.5 + it;
#pragma omp parallel copyin(tp, tp_arr) reduction(+ : bad)
        {
            if (tp != 4242 + it) bad++;
            for (int k = 0; k < 64; k++)
                if (tp_arr[k] != k * 0.5 + it) bad++;
            /* each thread's copy is its own after the copy */
            tp = -omp_get_thread_num();
#pragma omp barrier
            if (tp != -omp_get_thread_num()) bad++;
#pragma omp single copyprivate(tp)
            tp = 77 + it;
            if (tp != 77 + it) bad++;
        }
    }
    CHECK_EQ(bad, 0);
}

static void persistence(void)
{
    int bad = 0;
    omp_set_dynamic(0);
#pragma omp parallel
    tp = 5000 + omp_get_thread_num();
    for (int it = 0; it < 20; it++) {
#pragma omp parallel reduction(+ : bad)
        {
            if (tp != 5000 + omp_get_thread_num() + it) bad++;
            tp++;
        }
    }
    CHECK_EQ(bad, 0);
}

static void nested(void)
{
    if (omp_get_max_active_levels() < 2) return;
    int bad = 0;
    uintptr_t addr[MAXT][MAXT];
    int outer_n = 0, inner_n[MAXT] = {0};
#pragma omp parallel reduction(+ : bad) shared(addr, outer_n, inner_n)
    {
        int o = omp_get_thread_num();
#pragma omp single
        outer_n = omp_get_num_threads();
#pragma omp parallel reduction(+ : bad)
        {
            int in = omp_get_thread_num();
            tp = 100 * o + in;
            if (o < MAXT && in < MAXT) addr[o][in] = (uintptr_t)&tp;
            if (o < MAXT && in == 0) inner_n[o] = omp_get_num_threads();
#pragma omp barrier
            if (tp != 100 * o + in) bad++;
        }
    }
    CHECK_EQ(bad, 0);
    for (int a = 0; a < outer_n && a < MAXT; a++)
        for (int i = 0; i < inner_n[a] && i < MAXT; i++)
            for (int b = 0; b < outer_n && b < MAXT; b++)
                for (int j = 0; j < inner_n[b] && j < MAXT; j++) {
                    if (a == b && i == j) continue;
                    /* Two inner teams need not overlap in time (a thread
                     * may serve one, then another): only threads of one
                     * team, and an inner thread against an outer thread
                     * (alive all along), must differ. */
                    if (a != b && i != 0 && j != 0) continue;
                    CHECKF(addr[a][i] != addr[b][j], "(%d,%d) and (%d,%d) share &tp", a, i, b, j);
                }
}

int main(void)
{
    initializer();
    barriers();
    addresses();
    copyin_copyprivate();
    persistence();
    nested();
    printf("threadprivate: ok (%d threads)\n", omp_get_max_threads());
    return 0;
}
