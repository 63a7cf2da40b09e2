/* ordered: the ordered clause and the ordered construct (threads form).
 * The body appends its iteration number to a shared log inside an
 * `ordered` region while doing unordered work outside it: the log must
 * be exactly the sequential iteration order, for static, static,1,
 * dynamic,3, guided, runtime (dynamic,2 and static,5), auto schedules,
 * unsigned long long loops (GOMP_loop_ull_ordered_*: dynamic counting
 * down, guided, static, runtime), a loop
 * with a negative step, iterations that skip the ordered region (allowed:
 * at most one ordered region per iteration), an `ordered threads` form,
 * and an ordered loop in an orphaned `for` inside a parallel region.
 */
#include "omp_check.h"

#define N 150
static long logv[N + 10];
static int pos;

static void reset(void)
{
    pos = 0;
    memset(logv, 0xff, sizeof logv);
}

static void check_seq(const char *what, int n, long first, long step)
{
    CHECKF(pos == n, "%s: %d ordered regions ran, expected %d", what, pos, n);
    for (int k = 0; k < n; k++)
        CHECKF(logv[k] == first + k * step, "%s: log[%d] = %ld, expected %ld", what, k, logv[k],
               first + k * step);
}

static void work(long i)
{
    volatile int sink = 0; /* local: the delay itself races with nothing */
    /* uneven unordered work so that threads race to the ordered region */
    for (int k = 0; k < (int)((i * 7919) % 37) * 20; k++)
        sink += k;
}

#define PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define PRAGMA(...) PRAGMA_(__VA_ARGS__)
#define ORDERED_LOOP(...)                                                  \
    do {                                                                   \
        reset();                                                           \
        PRAGMA(omp parallel for ordered __VA_ARGS__)                       \
        for (int i = 0; i < n; i++) {                                      \
            work(i);                                                       \
            PRAGMA(omp ordered)                                            \
            logv[pos++] = i;                                               \
            work(i + 1);                                                   \
        }                                                                  \
        check_seq(#__VA_ARGS__, N, 0, 1);                                  \
    } while (0)

int main(void)
{
    volatile int vn = N;
    int n = vn;

    ORDERED_LOOP(schedule(static));
    ORDERED_LOOP(schedule(static, 1));
    ORDERED_LOOP(schedule(dynamic, 3));
    ORDERED_LOOP(schedule(guided));
    ORDERED_LOOP(schedule(auto));
    omp_set_schedule(omp_sched_dynamic, 2);
    ORDERED_LOOP(schedule(runtime));
    omp_set_schedule(omp_sched_static, 5);
    ORDERED_LOOP(schedule(runtime));

    /* unsigned long long, counting down */
    reset();
    {
        unsigned long long top = (1ULL << 63) + 1000;
#pragma omp parallel for ordered schedule(dynamic, 4)
        for (unsigned long long i = top; i > top - N; i--) {
            work((long)(i & 1023));
#pragma omp ordered
            logv[pos++] = (long)(top - i);
        }
        check_seq("ull down dynamic,4", N, 0, 1);
    }
    reset();
    {
        unsigned long long base = ~0ULL - 5 * N;
#pragma omp parallel for ordered schedule(guided, 3)
        for (unsigned long long i = base; i < base + 5 * N; i += 5) {
#pragma omp ordered
            logv[pos++] = (long)((i - base) / 5);
        }
        check_seq("ull guided,3", N, 0, 1);
    }
    reset();
    {
        unsigned long long base = 1ULL << 40;
#pragma omp parallel for ordered schedule(static, 2)
        for (unsigned long long i = base; i < base + N; i++) {
            work((long)(i & 1023));
#pragma omp ordered
            logv[pos++] = (long)(i - base);
        }
        check_seq("ull static,2", N, 0, 1);
    }

    reset();
    {
        unsigned long long base = 3;
        omp_set_schedule(omp_sched_guided, 2);
#pragma omp parallel for ordered schedule(runtime)
        for (unsigned long long i = base; i < base + N; i++) {
            work((long)i);
#pragma omp ordered
            logv[pos++] = (long)(i - base);
        }
        check_seq("ull runtime", N, 0, 1);
    }

    /* negative step */
    reset();
#pragma omp parallel for ordered schedule(dynamic)
    for (int i = 3 * n; i > 0; i -= 3) {
        work(i);
#pragma omp ordered
        logv[pos++] = i;
    }
    check_seq("negative step", N, 3 * N, -3);

    /* only every third iteration enters the ordered region */
    reset();
#pragma omp parallel for ordered schedule(static, 1)
    for (int i = 0; i < n; i++) {
        work(i);
        if (i % 3 == 0) {
#pragma omp ordered threads
            logv[pos++] = i;
        }
    }
    check_seq("sparse ordered threads", (N + 2) / 3, 0, 3);

    /* orphaned ordered loop, twice in one region */
    reset();
#pragma omp parallel
    {
#pragma omp for ordered schedule(dynamic, 5)
        for (int i = 0; i < n / 2; i++) {
            work(i);
#pragma omp ordered
            logv[pos++] = i;
        }
#pragma omp for ordered schedule(guided, 2) nowait
        for (int i = n / 2; i < n; i++) {
            work(i);
#pragma omp ordered
            logv[pos++] = i;
        }
    }
    check_seq("orphaned", N, 0, 1);
    return 0;
}
