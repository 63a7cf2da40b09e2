/* loop_bounds: iteration spaces of worksharing loops.
 * Each loop is first run sequentially to list the values the iteration
 * variable takes; the parallel loop must produce exactly that multiset.
 * Covered: int and long with positive and negative, unit and non-unit
 * steps, <, <=, >, >=, != tests; long loops near LONG_MIN/LONG_MAX and
 * spanning half of the long range (OpenMP requires that the trip count
 * computation, about (ub - lb + step - 1) / step in the type of the loop
 * variable, and the increment past the last iteration do not overflow, so the
 * loops stay clear of that: gcc itself gets 0 iterations for a static loop
 * from -(LONG_MAX/2) to LONG_MAX/2); unsigned long long spaces above 2^63, across
 * 2^63, counting down to 0 and near ULLONG_MAX (the GOMP_loop_ull_*
 * entry points, with up == false for decreasing loops); empty loops and
 * single-iteration loops.  Every loop runs (as `parallel for`, and for two
 * run-sched-var values also as an orphaned `for`) under schedule(runtime) with
 * run-sched-var static, static,1, static,5, dynamic,1, dynamic,7,
 * guided,1, guided,3, auto, monotonic:dynamic,2, and under explicit
 * static, dynamic, guided, nonmonotonic:dynamic, monotonic:guided,
 * monotonic:dynamic, monotonic:runtime and nonmonotonic:runtime clauses
 * (each kind has its own GOMP_loop_[ull_]*_start entry point).
 */
#include <limits.h>

#include "omp_check.h"

typedef unsigned long long ull;
#define MAXV 20000
static ull want[MAXV], got[MAXV];
static int nwant, ngot;

static int cmp(const void *a, const void *b)
{
    ull x = *(const ull *)a, y = *(const ull *)b;
    return x < y ? -1 : x > y;
}

static void compare(const char *what, int line)
{
    qsort(want, nwant, sizeof(ull), cmp);
    qsort(got, ngot, sizeof(ull), cmp);
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    if (ngot != nwant) {
        fprintf(stderr, "FAIL loop_bounds.c:%d: %s (run-sched %#x,%d): %d iterations, expected %d\n",
                line, what, (unsigned)k, c, ngot, nwant);
        exit(1);
    }
    for (int i = 0; i < nwant; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "FAIL loop_bounds.c:%d: %s (run-sched %#x,%d): value %llu, expected %llu\n",
                    line, what, (unsigned)k, c, got[i], want[i]);
            exit(1);
        }
}

#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)

static inline void record(ull v)
{
    int k = __atomic_fetch_add(&ngot, 1, __ATOMIC_RELAXED);
    if (k < MAXV)
        got[k] = v;
}

/* T: type; the loop header pieces; SCHED: a schedule clause without commas.
 * LOOP runs the loop as a combined `parallel for`; LOOP2 also as an
 * orphaned `for` inside a parallel region. */
#define LOOP(T, INIT, TEST, STEP, SCHED)                                      \
    do {                                                                      \
        nwant = ngot = 0;                                                     \
        for (T i = INIT; TEST; STEP)                                          \
            want[nwant++] = (ull)i;                                           \
        PRAGMA(omp parallel for SCHED)                                        \
        for (T i = INIT; TEST; STEP)                                          \
            record((ull)i);                                                   \
        compare(#T " " #INIT "; " #TEST "; " #STEP " " #SCHED, __LINE__);     \
        if (orphan_too) {                                                     \
            ngot = 0;                                                         \
            PRAGMA(omp parallel)                                              \
            {                                                                 \
                PRAGMA(omp for SCHED)                                         \
                for (T i = INIT; TEST; STEP)                                  \
                    record((ull)i);                                           \
            }                                                                 \
            compare(#T " " #INIT "; " #TEST "; " #STEP " " #SCHED " (orphan)", __LINE__); \
        }                                                                     \
    } while (0)

static int orphan_too;
static volatile long vn = 10; /* defeats constant folding */

static void all_loops(int explicit_schedules)
{
    long n = vn;
#define SET(SCHED)                                                                          \
    LOOP(int, 0, i < 1000, i++, SCHED);                                                     \
    LOOP(int, 0, i <= 999, i += 3, SCHED);                                                  \
    LOOP(int, 1000, i > -1000, i -= 7, SCHED);                                              \
    LOOP(int, 50, i >= 0, i--, SCHED);                                                      \
    LOOP(int, -5, i != (int)n * 10, i++, SCHED);                                            \
    LOOP(int, 100, i != -(int)n, i--, SCHED);                                               \
    LOOP(int, 0, i < 0, i++, SCHED);                     /* empty */                        \
    LOOP(int, 5, i < (int)n - 6, i++, SCHED);            /* empty, lb > ub */               \
    LOOP(int, 0, i > 0, i--, SCHED);                     /* empty, down */                  \
    LOOP(int, 7, i < 8, i++, SCHED);                     /* single */                       \
    LOOP(int, 7, i < (int)n + 100, i += 1000, SCHED);    /* single, big step */             \
    LOOP(int, 7, i > 6, i -= 3, SCHED);                  /* single, down */                 \
    LOOP(long, -(LONG_MAX / 4), i < LONG_MAX / 4, i += LONG_MAX / 1000, SCHED);             \
    LOOP(long, LONG_MAX / 4, i > -(LONG_MAX / 4), i -= LONG_MAX / 700, SCHED);              \
    LOOP(long, -3000000000L, i <= 3000000000L, i += 1000000007L, SCHED);                    \
    LOOP(long, LONG_MAX - 1000, i < LONG_MAX - 10, i += 9, SCHED);                          \
    LOOP(long, LONG_MIN + 1000, i > LONG_MIN + 10, i -= 9, SCHED);                          \
    LOOP(ull, 0, i < 1000, i++, SCHED);                                                     \
    LOOP(ull, (1ULL << 63) - 500, i < (1ULL << 63) + 500, i++, SCHED);                      \
    LOOP(ull, ULLONG_MAX - 5000, i < ULLONG_MAX - 10, i += 7, SCHED);                       \
    LOOP(ull, ULLONG_MAX, i > ULLONG_MAX - 1000, i -= 3, SCHED);                            \
    LOOP(ull, 999, i > 0, i--, SCHED);                                                      \
    LOOP(ull, 1000, i >= 1, i -= 2, SCHED);                                                 \
    LOOP(ull, 0, i < ULLONG_MAX - ULLONG_MAX / 1500, i += ULLONG_MAX / 1500, SCHED);        \
    LOOP(ull, 17, i < 17, i++, SCHED);                   /* empty */                        \
    LOOP(ull, 0, i > 0, i--, SCHED);                     /* empty, down */                  \
    LOOP(ull, ULLONG_MAX - 1, i < ULLONG_MAX, i++, SCHED); /* single */                     \
    LOOP(ull, ULLONG_MAX, i > ULLONG_MAX - 1, i--, SCHED); /* single, down */
    if (!explicit_schedules) {
        SET(schedule(runtime))
        return;
    }
    SET(schedule(static))
    SET(schedule(dynamic))
    SET(schedule(guided))
    SET(schedule(nonmonotonic : dynamic))
    SET(schedule(monotonic : guided))
    SET(schedule(monotonic : dynamic))
    SET(schedule(monotonic : runtime))
    SET(schedule(nonmonotonic : runtime))
#undef SET
}

int main(void)
{
    static const struct {
        omp_sched_t k;
        int c;
    } rs[] = {
        {omp_sched_static, 0},  {omp_sched_static, 1},  {omp_sched_static, 5},
        {omp_sched_dynamic, 1}, {omp_sched_dynamic, 7}, {omp_sched_guided, 1},
        {omp_sched_guided, 3},  {omp_sched_auto, 0},
        {(omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2},
    };
    for (unsigned r = 0; r < sizeof rs / sizeof *rs; r++) {
        omp_set_schedule(rs[r].k, rs[r].c);
        orphan_too = r == 0 || r == 4; /* orphaned too for static and dynamic,7 */
        all_loops(0);
    }
    orphan_too = 0;
    all_loops(1);
    return 0;
}
