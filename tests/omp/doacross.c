/* doacross: ordered(n) loops with `ordered depend(sink: ...)` and
 * `ordered depend(source)` (GOMP_loop_doacross_*_start,
 * GOMP_doacross_post/wait and their _ull forms).
 *  - a 2-D wavefront a[i][j] = g(a[i-1][j], a[i][j-1]) under ordered(2)
 *    (outer loop shared, inner sequential) with static, static,1,
 *    dynamic,2, guided and runtime schedules, and under ordered(2)
 *    collapse(2); uneven work makes a missing wait produce wrong values
 *    (the 1-D chains use chunks of 4 to 8: libgomp's doacross waits spin,
 *    so a handoff per iteration is slow on an oversubscribed machine);
 *  - a 1-D recurrence x[i] = h(x[i-3]) with a non-unit step (sink offsets
 *    are multiples of the step) and a sink before the first iteration
 *    (ignored: must not hang);
 *  - a decreasing signed loop (sink i+1);
 *  - unsigned long long doacross loops over values above 2^63 (ordered(1)
 *    guided, dynamic and runtime, ordered(2) static,1);
 * All results are compared with a sequential recomputation.
 */
#include "omp_check.h"

#define NI 16
#define NJ 16
static unsigned a[NI][NJ], ref[NI][NJ];
static void work(int i, int j)
{
    volatile int sinkv = 0; /* local: the delay itself races with nothing */
    for (int k = 0; k < ((i * 31 + j * 17) % 23) * 15; k++)
        sinkv += k;
}

static unsigned g(unsigned up, unsigned left, int i, int j)
{
    return (up * 31u + left * 17u + (unsigned)(i * NJ + j)) % 1000003u;
}

static void reference(void)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            ref[i][j] = g(i ? ref[i - 1][j] : 1u, j ? ref[i][j - 1] : 2u, i, j);
}

static void compare(const char *what)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            CHECKF(a[i][j] == ref[i][j], "%s: a[%d][%d] = %u, expected %u", what, i, j, a[i][j],
                   ref[i][j]);
    memset(a, 0, sizeof a);
}

#define PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define PRAGMA(...) PRAGMA_(__VA_ARGS__)
#define WAVEFRONT(...)                                                              \
    do {                                                                            \
        PRAGMA(omp parallel for ordered(2) __VA_ARGS__)                             \
        for (int i = 0; i < ni; i++)                                                \
            for (int j = 0; j < NJ; j++) {                                          \
                PRAGMA(omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)) \
                work(i, j);                                                         \
                a[i][j] = g(i ? a[i - 1][j] : 1u, j ? a[i][j - 1] : 2u, i, j);      \
                PRAGMA(omp ordered depend(source))                                  \
            }                                                                       \
        compare(#__VA_ARGS__);                                                      \
    } while (0)

int main(void)
{
    volatile int vni = NI;
    int ni = vni;
    reference();

    WAVEFRONT(schedule(static));
    WAVEFRONT(schedule(static, 1));
    WAVEFRONT(schedule(dynamic, 2));
    WAVEFRONT(schedule(guided));
    omp_set_schedule(omp_sched_dynamic, 1);
    WAVEFRONT(schedule(runtime));
    omp_set_schedule(omp_sched_static, 3);
    WAVEFRONT(schedule(runtime));
    WAVEFRONT(collapse(2) schedule(dynamic, 8));

    /* orphaned, inside a parallel region with other work */
#pragma omp parallel
    {
#pragma omp for ordered(2) schedule(static, 2) nowait
        for (int i = 0; i < ni; i++)
            for (int j = 0; j < NJ; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
                work(i, j);
                a[i][j] = g(i ? a[i - 1][j] : 1u, j ? a[i][j - 1] : 2u, i, j);
#pragma omp ordered depend(source)
            }
    }
    compare("orphaned static,2");

    /* 1-D, step 3, sink three iterations back (offset 9 in values) */
    {
        static long x[3 * 30 + 9], xr[3 * 30 + 9];
        for (int v = 0; v < 9; v++)
            x[v] = xr[v] = v + 1;
        for (int v = 9; v < 9 + 3 * 30; v += 3)
            xr[v] = (xr[v - 9] * 7 + v) % 100003;
#pragma omp parallel for ordered(1) schedule(dynamic, 4)
        for (int v = 9; v < 9 + 3 * 30; v += 3) {
#pragma omp ordered depend(sink : v - 9)
            work(v, v);
            x[v] = (x[v - 9] * 7 + v) % 100003;
#pragma omp ordered depend(source)
        }
        for (int v = 9; v < 9 + 3 * 30; v += 3)
            CHECKF(x[v] == xr[v], "1-D step 3: x[%d] = %ld, expected %ld", v, x[v], xr[v]);
    }

    /* a decreasing signed loop: the previous iteration is i + 1 (the sink
     * of the first iteration is guarded, see the ull case below) */
    {
        static int d[42];
#pragma omp parallel for ordered(1) schedule(static, 8)
        for (long i = 40; i > 0; i--) {
            if (i < 40) {
#pragma omp ordered depend(sink : i + 1)
            }
            work((int)i, 1);
            d[i] = d[i + 1] + (int)i;
#pragma omp ordered depend(source)
        }
        for (long i = 40; i > 0; i--)
            CHECK_EQ(d[i], (40 * 41 - (i - 1) * i) / 2);
    }

    /* sinks before the first iteration of an increasing loop are ignored */
    {
        long chain[40];
#pragma omp parallel for ordered(1) schedule(static, 5)
        for (int i = 0; i < 40; i++) {
#pragma omp ordered depend(sink : i - 1) depend(sink : i - 5)
            chain[i] = i ? chain[i - 1] + i : 0;
#pragma omp ordered depend(source)
        }
        for (int i = 0; i < 40; i++)
            CHECK_EQ(chain[i], (long)i * (i + 1) / 2);
    }

    /* unsigned long long iteration space above 2^63 */
    {
        static unsigned long long u[40];
        unsigned long long base = (1ULL << 63) + 12345;
#pragma omp parallel for ordered(1) schedule(guided, 4)
        for (unsigned long long i = base; i < base + 40; i++) {
#pragma omp ordered depend(sink : i - 1)
            work((int)(i & 63), 3);
            u[i - base] = (i == base) ? 1 : (u[i - base - 1] * 3 + (i & 0xff)) % 1000003;
#pragma omp ordered depend(source)
        }
        unsigned long long r = 1;
        CHECK_EQ(u[0], 1);
        for (unsigned long long i = base + 1; i < base + 40; i++) {
            r = (r * 3 + (i & 0xff)) % 1000003;
            CHECKF(u[i - base] == r, "ull doacross: u[%llu] = %llu, expected %llu", i - base,
                   u[i - base], r);
        }
        /* ull doacross with dynamic and runtime schedules */
        for (int round = 0; round < 2; round++) {
            static long z[40];
            omp_set_schedule(omp_sched_dynamic, 5);
            if (round == 0) {
#pragma omp parallel for ordered(1) schedule(dynamic, 5)
                for (unsigned long long i = base; i < base + 40; i++) {
                    if (i > base) {
#pragma omp ordered depend(sink : i - 1)
                    }
                    work((int)(i & 31), 2);
                    z[i - base] = (i == base) ? 5 : (z[i - base - 1] * 7 + 1) % 10007;
#pragma omp ordered depend(source)
                }
            } else {
#pragma omp parallel for ordered(1) schedule(runtime)
                for (unsigned long long i = base; i < base + 40; i++) {
                    if (i > base) {
#pragma omp ordered depend(sink : i - 1)
                    }
                    work((int)(i & 31), 2);
                    z[i - base] = (i == base) ? 5 : (z[i - base - 1] * 7 + 1) % 10007;
#pragma omp ordered depend(source)
                }
            }
            long zr = 5;
            for (int k = 1; k < 40; k++) {
                zr = (zr * 7 + 1) % 10007;
                CHECKF(z[k] == zr, "ull doacross %s: z[%d]", round ? "runtime" : "dynamic", k);
            }
        }

        /* and ull ordered(2) with a static,1 schedule.  (Not counting
         * down: with gcc 12 + libgomp 12 a decreasing unsigned long long
         * doacross loop deadlocks -- the waits never match the posts --
         * and a sink naming an iteration before the first one of a
         * decreasing loop, or j - 1 of an unsigned loop from 0, hangs
         * instead of being ignored; the sinks below are guarded.) */
        static unsigned w[20][20];
#pragma omp parallel for ordered(2) schedule(static, 1)
        for (unsigned long long i = base; i < base + 20; i++)
            for (unsigned long long j = 0; j < 20; j++) {
                if (i > base) {
#pragma omp ordered depend(sink : i - 1, j)
                }
                if (j > 0) {
#pragma omp ordered depend(sink : i, j - 1)
                }
                unsigned ii = (unsigned)(i - base);
                work((int)ii, (int)j);
                w[ii][j] = ((ii ? w[ii - 1][j] : 1u) * 5u + (j ? w[ii][j - 1] : 3u)) % 65521u;
#pragma omp ordered depend(source)
            }
        unsigned wr[20][20];
        for (int ii = 0; ii < 20; ii++)
            for (int j = 0; j < 20; j++)
                wr[ii][j] = ((ii ? wr[ii - 1][j] : 1u) * 5u + (j ? wr[ii][j - 1] : 3u)) % 65521u;
        for (int ii = 0; ii < 20; ii++)
            for (int j = 0; j < 20; j++)
                CHECKF(w[ii][j] == wr[ii][j], "ull ordered(2): w[%d][%d]", ii, j);
    }
    return 0;
}
