/* task_depend: the depend clause of tasks and of taskwait.
 * Each part fails if a dependence is ignored: a writer that sleeps before
 * it writes, readers that must see its value, writers that must see every
 * reader done, mutexinoutset members that must never overlap (they sleep
 * inside), undeferred tasks that must wait, and a blocked wavefront whose
 * every block needs its left and upper neighbours first.
 */
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "omp_check.h"

static void nap(void)
{
    struct timespec ts = {0, 300000}; /* 0.3 ms: long enough for another thread to run ahead */
    nanosleep(&ts, NULL);
}

/* A mutexinoutset member: fails if another member of its set is inside,
 * and loses an update if two ran at once. */
static void member(int *x, int *inside)
{
    CHECK_EQ(__atomic_add_fetch(inside, 1, __ATOMIC_SEQ_CST), 1);
    int v = *x;
    nap();
    *x = v + 1;
    __atomic_sub_fetch(inside, 1, __ATOMIC_SEQ_CST);
}

/* out then in: every reader sees the writer's value; inout after the
 * readers sees every one of them done. */
static void chain_rounds(void)
{
    int x = 0, readers_done = 0;
#pragma omp parallel
#pragma omp single
    for (int round = 1; round <= 20; round++) {
#pragma omp task depend(out : x) shared(x, readers_done)
        {
            nap();
            CHECK_EQ(__atomic_load_n(&readers_done, __ATOMIC_RELAXED), (round - 1) * 4);
            x = round;
        }
        for (int r = 0; r < 4; r++) {
#pragma omp task depend(in : x) shared(x, readers_done) firstprivate(round)
            {
                CHECK_EQ(x, round);
                if (r & 1) nap();
                __atomic_fetch_add(&readers_done, 1, __ATOMIC_RELAXED);
            }
        }
    }
    CHECK_EQ(x, 20);
    CHECK_EQ(readers_done, 80);
}

/* inout chain: x = 2x + i in creation order gives one value only. */
static void inout_chain(void)
{
    long x = 1, y = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 200; i++) {
#pragma omp task depend(inout : x) shared(x) firstprivate(i)
        {
            if (i % 50 == 0) nap();
            x = (2 * x + i) % 1000003;
        }
#pragma omp task depend(inout : y) shared(y) firstprivate(i) /* an independent chain beside it */
        y = y * 3 + i;
    }
    long want = 1, wy = 0;
    for (int i = 0; i < 200; i++) {
        want = (2 * want + i) % 1000003;
        wy = wy * 3 + i;
    }
    CHECK_EQ(x, want);
    CHECK_EQ(y, wy);
}

/* mutexinoutset: members run one at a time, in any order, after the
 * writer before them and before the reader after them. */
static void mutex_set(void)
{
    int x = 0, inside = 0, seen = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x)
        {
            nap();
            x = 100;
        }
        for (int i = 0; i < 24; i++) {
#pragma omp task depend(mutexinoutset : x) shared(x, inside)
            member(&x, &inside);
        }
#pragma omp task depend(in : x) shared(x, seen)
        seen = x;
    }
    CHECK_EQ(seen, 124);
    CHECK_EQ(x, 124);
}

/* Two mutexinoutset sets on two addresses, tasks in both: no overlap on
 * either, no deadlock. */
static void mutex_two(void)
{
    int a = 0, b = 0, in_a = 0, in_b = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 30; i++) {
        int which = i % 3; /* 0: a, 1: b, 2: both */
#pragma omp task depend(mutexinoutset : a) shared(a, in_a) if (which == 0)
        member(&a, &in_a);
        if (which == 1) {
#pragma omp task depend(mutexinoutset : b) shared(b, in_b)
            member(&b, &in_b);
        }
        if (which == 2) {
#pragma omp task depend(mutexinoutset : b, a) shared(a, b, in_a, in_b)
            {
                CHECK_EQ(__atomic_add_fetch(&in_a, 1, __ATOMIC_SEQ_CST), 1);
                CHECK_EQ(__atomic_add_fetch(&in_b, 1, __ATOMIC_SEQ_CST), 1);
                int va = a, vb = b;
                nap();
                a = va + 1;
                b = vb + 1;
                __atomic_sub_fetch(&in_b, 1, __ATOMIC_SEQ_CST);
                __atomic_sub_fetch(&in_a, 1, __ATOMIC_SEQ_CST);
            }
        }
    }
    CHECK_EQ(a, 40); /* 10 deferred, 20 undeferred (if(0) for which 1 and 2), 10 naming both */
    CHECK_EQ(b, 20);
}

/* Undeferred (if(0)) tasks and taskwait depend wait for their
 * predecessors; a task naming one address twice does not wait for itself. */
static void undeferred(void)
{
    int x = 0, y = 0, z = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x)
        {
            nap();
            nap();
            x = 1;
        }
#pragma omp task depend(out : y) shared(y)
        {
            nap();
            y = 2;
        }
#pragma omp task if (0) depend(in : x) shared(x)
        CHECK_EQ(x, 1);
#pragma omp taskwait depend(in : y)
        CHECK_EQ(y, 2);
#pragma omp task depend(out : z) depend(in : z) depend(inout : z) shared(z)
        z = 3;
#pragma omp task depend(in : z) shared(z)
        CHECK_EQ(z, 3);
#pragma omp taskwait
        /* A target region (run on the host) with dependences is a task too. */
        int w = 0, got = 0;
#pragma omp task depend(out : w) shared(w)
        {
            nap();
            w = 5;
        }
#pragma omp target nowait depend(in : w) map(tofrom : got) map(to : w)
        got = w;
#pragma omp taskwait
        CHECK_EQ(got, 5);
    }
}

/* depobj and iterators: the same dependences, named another way. */
static void depobj_iterator(void)
{
    int x = 0, v[8] = {0};
    omp_depend_t wr, rd;
#pragma omp depobj(wr) depend(out : x)
#pragma omp depobj(rd) depend(in : x)
#pragma omp parallel
#pragma omp single
    {
        for (int round = 1; round <= 5; round++) {
#pragma omp task depend(depobj : wr) shared(x) firstprivate(round)
            {
                nap();
                x = round;
            }
#pragma omp task depend(depobj : rd) shared(x) firstprivate(round)
            CHECK_EQ(x, round);
        }
#pragma omp task depend(iterator(i = 0 : 8), out : v[i]) shared(v)
        {
            nap();
            for (int i = 0; i < 8; i++) v[i] = i + 10;
        }
        for (int i = 0; i < 8; i++) {
#pragma omp task depend(in : v[i]) shared(v) firstprivate(i)
            CHECK_EQ(v[i], i + 10);
        }
        /* Iterators over nothing: no dependence at all (gcc passes a list of 0). */
        volatile int none = 0;
        int n0 = none, ran = 0;
#pragma omp task depend(iterator(i = 0 : n0), in : v[i]) shared(ran)
        __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
#pragma omp task depend(iterator(i = 0 : n0), mutexinoutset : v[i]) depend(in : v[1]) shared(ran, v)
        {
            CHECK_EQ(v[1], 11);
            __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
        }
#pragma omp taskwait
        CHECK_EQ(ran, 2);
    }
#pragma omp depobj(wr) destroy
#pragma omp depobj(rd) destroy
}

/* A blocked wavefront: block (i, j) needs (i-1, j) and (i, j-1). */
enum { NB = 12 };
static long grid[NB][NB];

static void wavefront(void)
{
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < NB; i++)
        for (int j = 0; j < NB; j++) {
#pragma omp task depend(in : grid[i > 0 ? i - 1 : i][j], grid[i][j > 0 ? j - 1 : j]) depend(out : grid[i][j]) \
    firstprivate(i, j)
            {
                long up = i > 0 ? grid[i - 1][j] : 0, left = j > 0 ? grid[i][j - 1] : 0;
                if (i > 0) CHECK(up > 0);
                if (j > 0) CHECK(left > 0);
                grid[i][j] = (i == 0 && j == 0) ? 1 : (up + left) % 1000000007;
            }
        }
    /* Paths in a grid: binomial coefficients. */
    long want[NB][NB];
    for (int i = 0; i < NB; i++)
        for (int j = 0; j < NB; j++)
            want[i][j] = (i == 0 && j == 0) ? 1 : ((i ? want[i - 1][j] : 0) + (j ? want[i][j - 1] : 0)) % 1000000007;
    for (int i = 0; i < NB; i++)
        for (int j = 0; j < NB; j++) CHECK_EQ(grid[i][j], want[i][j]);
}

/* Every thread's implicit task makes its own chain: dependences bind
 * siblings only, and each chain is ordered. Then a task's own children. */
static void per_parent(void)
{
    long sums[64] = {0};
#pragma omp parallel shared(sums)
    {
        int me = omp_get_thread_num();
        long s = 0;
        for (int i = 0; i < 50; i++) {
#pragma omp task depend(inout : s) shared(s) firstprivate(i)
            s = s * 2 % 1000003 + i;
        }
#pragma omp taskwait
        sums[me] = s;
#pragma omp single
        {
            long inner = 0;
#pragma omp task shared(inner)
            {
                long c = 0;
                for (int i = 0; i < 30; i++) {
#pragma omp task depend(inout : c) shared(c) firstprivate(i)
                    c = c * 3 % 1000003 + i;
                }
#pragma omp taskwait
                inner = c;
            }
#pragma omp taskwait
            long w = 0;
            for (int i = 0; i < 30; i++) w = w * 3 % 1000003 + i;
            CHECK_EQ(inner, w);
        }
    }
    long want = 0;
    for (int i = 0; i < 50; i++) want = want * 2 % 1000003 + i;
    int n = omp_get_max_threads();
    for (int k = 0; k < n && k < 64; k++) CHECK_EQ(sums[k], want);
}

/* Address 0 is an address like any other (depend(out: p[0]) with p NULL),
 * here among the children of an undeferred task. */
static void null_address(void)
{
    int *volatile np = NULL;
    int flag = 0;
#pragma omp parallel
#pragma omp single
#pragma omp task if (0) shared(flag)
    {
        int *p = np;
#pragma omp task depend(out : p[0]) shared(flag)
        {
            nap();
            flag = 1;
        }
#pragma omp task depend(in : p[0]) shared(flag)
        CHECK_EQ(flag, 1);
    }
    CHECK_EQ(flag, 1);
}

/* A target region (run on the host) in a mutexinoutset set never runs
 * beside another member. */
static void target_mutex(void)
{
    int x = 0, inside = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 6; i++) {
#pragma omp task depend(mutexinoutset : x) shared(x, inside)
            member(&x, &inside);
        }
#pragma omp target nowait depend(mutexinoutset : x) map(tofrom : x, inside)
        {
            CHECK_EQ(__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST), 1);
            int v = x;
            nap();
            x = v + 1;
            __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
        }
#pragma omp taskwait
    }
    CHECK_EQ(x, 7);
}

/* Tasks that all read one address and each update one of a few others,
 * no taskwait or barrier in between: memory stays that of the tasks
 * alive, not of every task made (40,000 here, some 16 MiB if kept). */
static void bounded_memory(void)
{
    long cfg = 3, b[64] = {0};
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long before = ru.ru_maxrss;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 40000; i++) {
#pragma omp task depend(in : cfg) depend(inout : b[i % 64]) shared(cfg, b) firstprivate(i)
        b[i % 64] += cfg;
    }
    for (int k = 0; k < 64; k++) CHECK_EQ(b[k], 3L * (40000 / 64 + (k < 40000 % 64)));
    getrusage(RUSAGE_SELF, &ru);
    (void)before;
#if !defined(__SANITIZE_ADDRESS__) /* (ASan keeps freed memory a while) */
    /* With one thread, a runtime may keep every task until the end of the
     * single (libgomp 12 does: 16 MiB): they are alive, not run yet. */
    if (omp_get_max_threads() > 1)
        CHECKF(ru.ru_maxrss - before < 8 * 1024, "max RSS grew by %ld KiB", ru.ru_maxrss - before);
#endif
}

int main(void)
{
    chain_rounds();
    inout_chain();
    mutex_set();
    mutex_two();
    undeferred();
    depobj_iterator();
    wavefront();
    per_parent();
    null_address();
    target_mutex();
    bounded_memory();
    printf("task_depend: ok\n");
    return 0;
}
