/* loop_schedule: the schedule clause of the worksharing loop.
 * For each kind, over several trip counts (0, 1, fewer than the team,
 * not a multiple of the chunk, large), every iteration runs exactly once,
 * and the assignment follows the OpenMP rules that are deterministic:
 *  - static (no chunk): one contiguous block per thread, in thread order,
 *    block sizes differing by at most one; two static loops of the same
 *    trip count map iterations to the same threads (nowait reuse);
 *  - static,c: iteration i runs on thread (i / c) % nthreads;
 *  - dynamic,c and monotonic:dynamic,c: chunks of c consecutive
 *    iterations starting at multiples of c, each on one thread; every
 *    thread sees its iterations in increasing order (monotonic);
 *  - guided,c: every maximal run of one thread's consecutive iterations,
 *    except the run holding the last iteration, has at least c iterations;
 *  - runtime, after omp_set_schedule(static,3 / dynamic,5 / guided,4 /
 *    auto / monotonic:dynamic,2 / nonmonotonic:dynamic,3), behaves as that
 *    kind (static,3 pattern checked exactly);
 *  - auto, nonmonotonic:dynamic, nonmonotonic:guided, the default
 *    schedule: exactly once;
 *  - the loops are also run as combined `parallel for` with constant
 *    bounds (GOMP_parallel_loop_* entry points) and with `nowait`.
 */
#include "omp_check.h"

#define MAXN 3000
#define MAXT 64

static int owner[MAXN], count[MAXN];
static int seq[MAXT][MAXN], seqlen[MAXT];
static int nthr;

enum { K_STATIC, K_STATIC_C, K_DYN_C, K_MONO_DYN_C, K_GUIDED_C, K_RUNTIME, K_AUTO, K_NM_DYN,
       K_NM_GUIDED, K_DEFAULT, K_STATIC_NOWAIT, K_NKINDS };
static const char *kname[] = {"static", "static,c", "dynamic,c", "monotonic:dynamic,c",
                              "guided,c", "runtime", "auto", "nonmonotonic:dynamic",
                              "nonmonotonic:guided", "default", "static nowait"};

static inline void hit(int i)
{
    int t = omp_get_thread_num();
    owner[i] = t;
    __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
    seq[t][seqlen[t]++] = i;
}

static void reset(void)
{
    memset(count, 0, sizeof count);
    memset(seqlen, 0, sizeof seqlen);
    for (int i = 0; i < MAXN; i++)
        owner[i] = -1;
}

static void run_kind(int kind, int n, int c)
{
    reset();
#pragma omp parallel
    {
#pragma omp single
        nthr = omp_get_num_threads();
        switch (kind) {
        case K_STATIC:
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_STATIC_C:
#pragma omp for schedule(static, c)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_DYN_C:
#pragma omp for schedule(dynamic, c)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_MONO_DYN_C:
#pragma omp for schedule(monotonic : dynamic, c)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_GUIDED_C:
#pragma omp for schedule(monotonic : guided, c)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_RUNTIME:
#pragma omp for schedule(runtime)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_AUTO:
#pragma omp for schedule(auto)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_NM_DYN:
#pragma omp for schedule(nonmonotonic : dynamic, c)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_NM_GUIDED:
#pragma omp for schedule(nonmonotonic : guided, c)
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_DEFAULT:
#pragma omp for
            for (int i = 0; i < n; i++)
                hit(i);
            break;
        case K_STATIC_NOWAIT: {
            /* two static loops with the same trip count: the second one
             * may read what the same thread wrote in the first one */
            static int first_owner[MAXN];
#pragma omp for schedule(static) nowait
            for (int i = 0; i < n; i++)
                first_owner[i] = omp_get_thread_num();
#pragma omp for schedule(static) nowait
            for (int i = 0; i < n; i++) {
                if (first_owner[i] != omp_get_thread_num())
                    __atomic_fetch_add(&count[i], 100, __ATOMIC_RELAXED);
                hit(i);
            }
            break;
        }
        }
    }
}

static void check_once(int kind, int n)
{
    for (int i = 0; i < n; i++)
        CHECKF(count[i] == 1, "%s n=%d: iteration %d ran %d times", kname[kind], n, i, count[i]);
    for (int i = n; i < MAXN; i++)
        CHECKF(count[i] == 0, "%s n=%d: iteration %d ran", kname[kind], n, i);
}

static void check_monotonic(int kind)
{
    for (int t = 0; t < nthr; t++)
        for (int k = 1; k < seqlen[t]; k++)
            CHECKF(seq[t][k] > seq[t][k - 1], "%s: thread %d ran %d after %d", kname[kind], t,
                   seq[t][k], seq[t][k - 1]);
}

static void check_static_blocks(int kind, int n)
{
    /* contiguous block per thread, in thread order, sizes within 1 */
    int prev_owner = -1, minsz = n + 1, maxsz = 0;
    int sizes[MAXT] = {0};
    for (int i = 0; i < n; i++) {
        CHECKF(owner[i] >= prev_owner, "%s n=%d: iteration %d on thread %d after thread %d",
               kname[kind], n, i, owner[i], prev_owner);
        prev_owner = owner[i];
        sizes[owner[i]]++;
    }
    int used = 0;
    for (int t = 0; t < nthr; t++) {
        if (sizes[t] == 0)
            continue;
        used++;
        minsz = sizes[t] < minsz ? sizes[t] : minsz;
        maxsz = sizes[t] > maxsz ? sizes[t] : maxsz;
    }
    if (n > 0) {
        CHECKF(used == (n < nthr ? n : nthr), "%s n=%d: %d threads got iterations", kname[kind],
               n, used);
        CHECKF(maxsz - minsz <= 1, "%s n=%d: block sizes %d..%d", kname[kind], n, minsz, maxsz);
    }
}

static void check_round_robin(int kind, int n, int c)
{
    for (int i = 0; i < n; i++)
        CHECKF(owner[i] == (i / c) % nthr, "%s,%d n=%d: iteration %d on thread %d, expected %d",
               kname[kind], c, n, i, owner[i], (i / c) % nthr);
}

static void check_aligned_chunks(int kind, int n, int c)
{
    for (int i = 0; i < n; i++)
        CHECKF(owner[i] == owner[(i / c) * c], "%s,%d n=%d: chunk at %d split (%d on %d)",
               kname[kind], c, n, (i / c) * c, i, owner[i]);
}

static void check_min_runs(int kind, int n, int c)
{
    int start = 0;
    for (int i = 1; i <= n; i++) {
        if (i == n || owner[i] != owner[start]) {
            if (i != n)
                CHECKF(i - start >= c, "%s,%d n=%d: run [%d,%d) on thread %d shorter than c",
                       kname[kind], c, n, start, i, owner[start]);
            start = i;
        }
    }
}

int main(void)
{
    static const int sizes[] = {0, 1, 3, 17, 100, 999, MAXN};
    static const int chunks[] = {1, 3, 64};
    for (unsigned si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int n = sizes[si];
        run_kind(K_STATIC, n, 1);
        check_once(K_STATIC, n);
        check_static_blocks(K_STATIC, n);
        check_monotonic(K_STATIC);

        run_kind(K_STATIC_NOWAIT, n, 1);
        check_once(K_STATIC_NOWAIT, n);
        check_static_blocks(K_STATIC_NOWAIT, n);

        for (unsigned ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
            int c = chunks[ci];
            run_kind(K_STATIC_C, n, c);
            check_once(K_STATIC_C, n);
            check_round_robin(K_STATIC_C, n, c);
            check_monotonic(K_STATIC_C);

            run_kind(K_DYN_C, n, c);
            check_once(K_DYN_C, n);
            check_aligned_chunks(K_DYN_C, n, c);

            run_kind(K_MONO_DYN_C, n, c);
            check_once(K_MONO_DYN_C, n);
            check_aligned_chunks(K_MONO_DYN_C, n, c);
            check_monotonic(K_MONO_DYN_C);

            run_kind(K_GUIDED_C, n, c);
            check_once(K_GUIDED_C, n);
            check_min_runs(K_GUIDED_C, n, c);
            check_monotonic(K_GUIDED_C);

            run_kind(K_NM_DYN, n, c);
            check_once(K_NM_DYN, n);

            run_kind(K_NM_GUIDED, n, c);
            check_once(K_NM_GUIDED, n);
        }
        run_kind(K_AUTO, n, 1);
        check_once(K_AUTO, n);
        run_kind(K_DEFAULT, n, 1);
        check_once(K_DEFAULT, n);

        /* runtime: the run-sched-var set by omp_set_schedule */
        omp_set_schedule(omp_sched_static, 3);
        run_kind(K_RUNTIME, n, 3);
        check_once(K_RUNTIME, n);
        check_round_robin(K_RUNTIME, n, 3);

        omp_set_schedule(omp_sched_static, 0); /* default chunk: blocks */
        run_kind(K_RUNTIME, n, 1);
        check_once(K_RUNTIME, n);
        check_static_blocks(K_RUNTIME, n);

        omp_set_schedule(omp_sched_dynamic, 5);
        run_kind(K_RUNTIME, n, 5);
        check_once(K_RUNTIME, n);
        check_aligned_chunks(K_RUNTIME, n, 5);

        omp_set_schedule(omp_sched_guided, 4);
        run_kind(K_RUNTIME, n, 4);
        check_once(K_RUNTIME, n);
        check_min_runs(K_RUNTIME, n, 4);

        omp_set_schedule(omp_sched_auto, 0);
        run_kind(K_RUNTIME, n, 1);
        check_once(K_RUNTIME, n);

        omp_set_schedule((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2);
        run_kind(K_RUNTIME, n, 2);
        check_once(K_RUNTIME, n);
        check_aligned_chunks(K_RUNTIME, n, 2);
        check_monotonic(K_RUNTIME);

        omp_set_schedule(omp_sched_dynamic, 3); /* nonmonotonic by default */
        run_kind(K_RUNTIME, n, 3);
        check_once(K_RUNTIME, n);
    }

    /* combined parallel for with constant bounds: GOMP_parallel_loop_* */
    {
        reset();
#pragma omp parallel for schedule(dynamic, 4)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(monotonic : dynamic, 4)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(guided, 2)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(monotonic : guided)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
        omp_set_schedule(omp_sched_static, 7);
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(monotonic : runtime)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(nonmonotonic : runtime)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
#pragma omp parallel for schedule(static, 5)
        for (int i = 0; i < 1000; i++)
            __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
        for (int i = 0; i < 1000; i++)
            CHECKF(count[i] == 8, "combined loops: iteration %d ran %d times of 8", i, count[i]);
    }
    return 0;
}
