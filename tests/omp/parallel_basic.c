/* parallel_basic: the parallel construct.
 *  - the default team size is the nthreads-var ICV (omp_get_max_threads(),
 *    set from OMP_NUM_THREADS), every thread number 0..n-1 appears once;
 *  - num_threads(k) gives exactly k threads (dyn-var is false);
 *  - if(0) gives an inactive region: one thread, omp_in_parallel() == 0,
 *    omp_get_level() == 1, omp_get_active_level() == 0;
 *  - omp_set_num_threads changes the next region's size;
 *  - private / firstprivate / shared data-sharing;
 *  - proc_bind(close / spread / master / primary) accepted;
 *  - GOMP_parallel_start/_end (old entries) are exercised by their C
 *    prototypes directly, as binaries of gcc < 4.9 call them.
 */
#include "omp_check.h"

extern void GOMP_parallel_start(void (*)(void *), void *, unsigned);
extern void GOMP_parallel_end(void);

static int seen_old[64];
static void old_body(void *arg)
{
    int *base = (int *)arg;
    __atomic_fetch_add(&seen_old[omp_get_thread_num()], *base, __ATOMIC_RELAXED);
}

static void team_check(int want)
{
    int seen[64] = {0};
    int nthr = -1, inpar = -1, level = -1;
#pragma omp parallel num_threads(want) shared(seen, nthr, inpar, level)
    {
        int t = omp_get_thread_num();
        __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
#pragma omp single
        {
            nthr = omp_get_num_threads();
            inpar = omp_in_parallel();
            level = omp_get_level();
        }
    }
    CHECK_EQ(nthr, want);
    CHECK_EQ(inpar, want > 1);
    CHECK_EQ(level, 1);
    for (int i = 0; i < want; i++)
        CHECK_EQ(seen[i], 1);
    for (int i = want; i < 64; i++)
        CHECK_EQ(seen[i], 0);
}

int main(void)
{
    int maxt = omp_get_max_threads();
    CHECK(maxt >= 1 && maxt <= 64);
    CHECK_EQ(omp_in_parallel(), 0);
    CHECK_EQ(omp_get_num_threads(), 1);
    CHECK_EQ(omp_get_thread_num(), 0);
    CHECK_EQ(omp_get_level(), 0);

    /* default team = nthreads-var */
    {
        int seen[64] = {0}, n = 0;
#pragma omp parallel
        {
            __atomic_fetch_add(&seen[omp_get_thread_num()], 1, __ATOMIC_RELAXED);
#pragma omp master
            n = omp_get_num_threads();
        }
        CHECK_EQ(n, maxt);
        for (int i = 0; i < n; i++)
            CHECK_EQ(seen[i], 1);
    }

    /* num_threads(k) */
    for (int k = 1; k <= 6; k++)
        team_check(k);

    /* if(0): one thread, inactive region, but a region all the same */
    {
        int cnt = 0, n = -1, inpar = -1, lvl = -1, alvl = -1;
        volatile int zero = 0;
#pragma omp parallel if (zero) num_threads(4)
        {
            __atomic_fetch_add(&cnt, 1, __ATOMIC_RELAXED);
            n = omp_get_num_threads();
            inpar = omp_in_parallel();
            lvl = omp_get_level();
            alvl = omp_get_active_level();
        }
        CHECK_EQ(cnt, 1);
        CHECK_EQ(n, 1);
        CHECK_EQ(inpar, 0);
        CHECK_EQ(lvl, 1);
        CHECK_EQ(alvl, 0);
    }

    /* omp_set_num_threads */
    omp_set_num_threads(3);
    CHECK_EQ(omp_get_max_threads(), 3);
    {
        int n = 0;
#pragma omp parallel
#pragma omp single
        n = omp_get_num_threads();
        CHECK_EQ(n, 3);
    }
    omp_set_num_threads(maxt);

    /* data sharing */
    {
        int shared_sum = 0, fp = 42, pv = -7;
#pragma omp parallel num_threads(4) firstprivate(fp) private(pv)
        {
            CHECK_EQ(fp, 42);
            fp += omp_get_thread_num();
            pv = omp_get_thread_num() * 10;
#pragma omp barrier
            CHECK_EQ(fp, 42 + omp_get_thread_num());
            CHECK_EQ(pv, omp_get_thread_num() * 10);
#pragma omp atomic
            shared_sum += fp;
        }
        CHECK_EQ(shared_sum, 4 * 42 + 0 + 1 + 2 + 3);
        CHECK_EQ(fp, 42);
        CHECK_EQ(pv, -7);
    }

    /* proc_bind clauses are accepted and the team is as requested */
    {
        int a = 0, b = 0, c = 0, d = 0;
#pragma omp parallel num_threads(2) proc_bind(close)
#pragma omp atomic
        a++;
#pragma omp parallel num_threads(2) proc_bind(spread)
#pragma omp atomic
        b++;
#pragma omp parallel num_threads(2) proc_bind(master)
#pragma omp atomic
        c++;
#pragma omp parallel num_threads(2) proc_bind(primary)
#pragma omp atomic
        d++;
        CHECK_EQ(a, 2);
        CHECK_EQ(b, 2);
        CHECK_EQ(c, 2);
        CHECK_EQ(d, 2);
    }

    /* the GOMP_1.0 entry points GOMP_parallel_start / GOMP_parallel_end:
     * the caller runs the body itself as thread 0 between them */
    {
        int add = 5;
        memset(seen_old, 0, sizeof seen_old);
        GOMP_parallel_start(old_body, &add, 3);
        old_body(&add);
        GOMP_parallel_end();
        for (int i = 0; i < 3; i++)
            CHECK_EQ(seen_old[i], 5);
        CHECK_EQ(seen_old[3], 0);
        CHECK_EQ(omp_in_parallel(), 0);
    }

    /* many short regions back to back (team reuse) */
    {
        long total = 0;
        for (int r = 0; r < 200; r++) {
#pragma omp parallel num_threads(2 + r % 3) reduction(+ : total)
            total += omp_get_thread_num() + 1;
        }
        long want = 0;
        for (int r = 0; r < 200; r++) {
            int k = 2 + r % 3;
            want += (long)k * (k + 1) / 2;
        }
        CHECK_EQ(total, want);
    }
    return 0;
}
