/* legacy_abi: entry points that gcc 12 no longer emits but that binaries
 * built by older gcc versions call (they are part of libgomp.so.1's ABI).
 * The test calls them directly with their libgomp_g.h prototypes, the way
 * older compilers' generated code did, and checks the results:
 *  - GOMP_parallel_loop_{static,dynamic,guided,runtime}_start + the
 *    caller running the body + GOMP_parallel_end (gcc < 4.9 combined
 *    parallel loops), with GOMP_loop_*_next / GOMP_loop_end_nowait inside;
 *  - GOMP_parallel_loop_static (GOMP_4.0: the whole region in one call);
 *  - GOMP_parallel_sections_start + GOMP_sections_next / _end_nowait;
 *  - GOMP_loop_static_start / GOMP_loop_runtime_start and their
 *    unsigned long long forms GOMP_loop_ull_{static,dynamic,runtime}_start
 *    / _next in an orphaned loop, incl. a decreasing ull loop (up=false);
 *  - GOMP_loop_ull_ordered_runtime_start/_next with GOMP_ordered_start/end;
 *  - GOMP_target / GOMP_target_data / GOMP_target_end_data /
 *    GOMP_target_update / GOMP_teams (the OpenMP 4.0 device entries of
 *    gcc 4.9-5): host fallback runs the function on the host addresses;
 *  - omp_target_disassociate_ptr on the host device fails (non-zero).
 * Each loop checks that every iteration ran exactly once.
 */
#include "omp_check.h"

#include <stdbool.h>

typedef unsigned long long ull;
extern void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long, long,
                                            long);
extern void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long, long,
                                             long);
extern void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long, long,
                                            long);
extern void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long, long);
extern void GOMP_parallel_loop_static(void (*)(void *), void *, unsigned, long, long, long, long,
                                      unsigned);
extern void GOMP_parallel_end(void);
extern void GOMP_parallel(void (*)(void *), void *, unsigned, unsigned);
extern bool GOMP_loop_static_start(long, long, long, long, long *, long *);
extern bool GOMP_loop_runtime_start(long, long, long, long *, long *);
extern bool GOMP_loop_static_next(long *, long *);
extern bool GOMP_loop_dynamic_next(long *, long *);
extern bool GOMP_loop_guided_next(long *, long *);
extern bool GOMP_loop_runtime_next(long *, long *);
extern void GOMP_loop_end(void);
extern void GOMP_loop_end_nowait(void);
extern bool GOMP_loop_ull_static_start(bool, ull, ull, ull, ull, ull *, ull *);
extern bool GOMP_loop_ull_dynamic_start(bool, ull, ull, ull, ull, ull *, ull *);
extern bool GOMP_loop_ull_runtime_start(bool, ull, ull, ull, ull *, ull *);
extern bool GOMP_loop_ull_static_next(ull *, ull *);
extern bool GOMP_loop_ull_dynamic_next(ull *, ull *);
extern bool GOMP_loop_ull_runtime_next(ull *, ull *);
extern bool GOMP_loop_ull_ordered_runtime_start(bool, ull, ull, ull, ull *, ull *);
extern bool GOMP_loop_ull_ordered_runtime_next(ull *, ull *);
extern void GOMP_ordered_start(void);
extern void GOMP_ordered_end(void);
extern void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
extern unsigned GOMP_sections_next(void);
extern void GOMP_sections_end_nowait(void);
extern void GOMP_target(int, void (*)(void *), const void *, size_t, void **, size_t *,
                        unsigned char *);
extern void GOMP_target_data(int, const void *, size_t, void **, size_t *, unsigned char *);
extern void GOMP_target_end_data(void);
extern void GOMP_target_update(int, const void *, size_t, void **, size_t *, unsigned char *);
extern void GOMP_teams(unsigned, unsigned);

enum { N = 500 };
static int cnt[N];
static int seq[N], seqpos;

static void reset(void)
{
    memset(cnt, 0, sizeof cnt);
}
static void check_once(const char *what, int n)
{
    for (int i = 0; i < n; i++)
        CHECKF(cnt[i] == 1, "%s: iteration %d ran %d times", what, i, cnt[i]);
}
static void hit(long i)
{
    __atomic_fetch_add(&cnt[i], 1, __ATOMIC_RELAXED);
}

/* the outlined body of an old-style combined parallel loop */
static void body_static(void *arg)
{
    (void)arg;
    long s, e;
    while (GOMP_loop_static_next(&s, &e))
        for (long i = s; i < e; i++)
            hit(i);
    GOMP_loop_end_nowait();
}
static void body_dynamic(void *arg)
{
    (void)arg;
    long s, e;
    while (GOMP_loop_dynamic_next(&s, &e))
        for (long i = s; i < e; i++)
            hit(i);
    GOMP_loop_end_nowait();
}
static void body_guided(void *arg)
{
    (void)arg;
    long s, e;
    while (GOMP_loop_guided_next(&s, &e))
        for (long i = s; i < e; i++)
            hit(i);
    GOMP_loop_end_nowait();
}
static void body_runtime(void *arg)
{
    (void)arg;
    long s, e;
    while (GOMP_loop_runtime_next(&s, &e))
        for (long i = s; i < e; i++)
            hit(i);
    GOMP_loop_end_nowait();
}

/* orphaned loops, called in every thread of a region */
static void orphan_loops(void *arg)
{
    int which = *(int *)arg;
    long s, e;
    ull us, ue;
    switch (which) {
    case 0: /* static, default chunk, step 2 over [0, 2N) */
        if (GOMP_loop_static_start(0, 2 * N, 2, 0, &s, &e))
            do
                for (long i = s; i < e; i += 2)
                    hit(i / 2);
            while (GOMP_loop_static_next(&s, &e));
        GOMP_loop_end();
        break;
    case 1: /* static, chunk 3 */
        if (GOMP_loop_static_start(0, N, 1, 3, &s, &e))
            do
                for (long i = s; i < e; i++)
                    hit(i);
            while (GOMP_loop_static_next(&s, &e));
        GOMP_loop_end();
        break;
    case 2: /* runtime */
        if (GOMP_loop_runtime_start(N - 1, -1, -1, &s, &e))
            do
                for (long i = s; i > e; i--)
                    hit(i);
            while (GOMP_loop_runtime_next(&s, &e));
        GOMP_loop_end();
        break;
    case 3: { /* ull static chunk 4 above 2^63 */
        ull base = (1ULL << 63) + 77;
        if (GOMP_loop_ull_static_start(true, base, base + N, 1, 4, &us, &ue))
            do
                for (ull i = us; i < ue; i++)
                    hit((long)(i - base));
            while (GOMP_loop_ull_static_next(&us, &ue));
        GOMP_loop_end();
        break;
    }
    case 4: { /* ull dynamic counting down: up == false */
        ull top = ~0ULL - 5;
        if (GOMP_loop_ull_dynamic_start(false, top, top - N, -1ULL, 7, &us, &ue))
            do
                for (ull i = us; i > ue; i--)
                    hit((long)(top - i));
            while (GOMP_loop_ull_dynamic_next(&us, &ue));
        GOMP_loop_end();
        break;
    }
    case 5: { /* ull runtime */
        if (GOMP_loop_ull_runtime_start(true, 0, 3 * N, 3, &us, &ue))
            do
                for (ull i = us; i < ue; i += 3)
                    hit((long)(i / 3));
            while (GOMP_loop_ull_runtime_next(&us, &ue));
        GOMP_loop_end();
        break;
    }
    case 6: { /* ull ordered runtime */
        if (GOMP_loop_ull_ordered_runtime_start(true, 10, 10 + N, 1, &us, &ue))
            do
                for (ull i = us; i < ue; i++) {
                    hit((long)(i - 10));
                    GOMP_ordered_start();
                    seq[seqpos++] = (int)(i - 10);
                    GOMP_ordered_end();
                }
            while (GOMP_loop_ull_ordered_runtime_next(&us, &ue));
        GOMP_loop_end();
        break;
    }
    }
}

static int sect_ran[5];
static void body_sections(void *arg)
{
    (void)arg;
    for (unsigned s = GOMP_sections_next(); s; s = GOMP_sections_next())
        __atomic_fetch_add(&sect_ran[s - 1], 1, __ATOMIC_RELAXED);
    GOMP_sections_end_nowait();
}

static void target_fn(void *arg)
{
    void **addrs = arg; /* host fallback: the host addresses */
    GOMP_teams(1, 0);
    int *a = addrs[0], *b = addrs[1];
    for (int i = 0; i < 10; i++)
        b[i] = a[i] * 2;
}

int main(void)
{
    unsigned nt = 3;
    reset();
    GOMP_parallel_loop_static_start(body_static, NULL, nt, 0, N, 1, 0);
    body_static(NULL);
    GOMP_parallel_end();
    check_once("parallel_loop_static_start", N);
    reset();
    GOMP_parallel_loop_dynamic_start(body_dynamic, NULL, nt, 0, N, 1, 5);
    body_dynamic(NULL);
    GOMP_parallel_end();
    check_once("parallel_loop_dynamic_start", N);
    reset();
    GOMP_parallel_loop_guided_start(body_guided, NULL, nt, 0, N, 1, 2);
    body_guided(NULL);
    GOMP_parallel_end();
    check_once("parallel_loop_guided_start", N);
    reset();
    omp_set_schedule(omp_sched_dynamic, 4);
    GOMP_parallel_loop_runtime_start(body_runtime, NULL, nt, 0, N, 1);
    body_runtime(NULL);
    GOMP_parallel_end();
    check_once("parallel_loop_runtime_start", N);
    reset();
    GOMP_parallel_loop_static(body_static, NULL, nt, 0, N, 1, 7, 0);
    check_once("parallel_loop_static", N);
    CHECK_EQ(omp_in_parallel(), 0);

    memset(sect_ran, 0, sizeof sect_ran);
    GOMP_parallel_sections_start(body_sections, NULL, nt, 5);
    body_sections(NULL);
    GOMP_parallel_end();
    for (int s = 0; s < 5; s++)
        CHECK_EQ(sect_ran[s], 1);

    static const char *names[] = {"loop_static_start", "loop_static_start chunk 3",
                                  "loop_runtime_start", "loop_ull_static_start",
                                  "loop_ull_dynamic_start down", "loop_ull_runtime_start",
                                  "loop_ull_ordered_runtime_start"};
    for (int which = 0; which < 7; which++) {
        reset();
        seqpos = 0;
        omp_set_schedule(which == 6 ? omp_sched_dynamic : omp_sched_guided, 3);
        GOMP_parallel(orphan_loops, &which, nt, 0);
        check_once(names[which], N);
        if (which == 6)
            for (int i = 0; i < N; i++)
                CHECKF(seq[i] == i, "ordered ull: position %d holds %d", i, seq[i]);
    }

    int a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = i + 1;
        b[i] = 0;
    }
    void *addrs[2] = {a, b};
    size_t sizes[2] = {sizeof a, sizeof b};
    unsigned char kinds[2] = {1 /* to */, 2 /* from */};
    GOMP_target_data(-1, NULL, 2, addrs, sizes, kinds);
    GOMP_target(-1, target_fn, NULL, 2, addrs, sizes, kinds);
    GOMP_target_update(-1, NULL, 2, addrs, sizes, kinds);
    GOMP_target_end_data();
    for (int i = 0; i < 10; i++)
        CHECK_EQ(b[i], 2 * (i + 1));

    int x = 0;
    CHECK(omp_target_disassociate_ptr(&x, omp_get_initial_device()) != 0);
    return 0;
}
