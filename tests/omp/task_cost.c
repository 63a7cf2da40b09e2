/* task_cost: one task construct whose bodies change kind as the program
 * goes (thousands of empty ones, then long ones, then ones that make
 * tasks of the same construct), made by one thread and by every thread;
 * taskloops of empty then long bodies; tasks while a lock is held. A
 * runtime may run a task at once or defer it as it likes (weft-omp learns
 * which task functions are cheaper to run than to hand over): every task
 * must run exactly once, on the thread omp_get_thread_num names, with its
 * own arguments, and a function once cheap that starts making tasks must
 * still complete all of them. Checked against counts and sums computed
 * here.
 * RUN-ENV: OMP_NUM_THREADS=1
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=4 OMP_CANCELLATION=true
 */
#include "omp_check.h"

#define MAXT 64
#define EMPTY 20000
#define LONGS 64
#define SPIN 20000

static long per_thread[MAXT][8];
static long sums[LONGS];
static long made;
static omp_lock_t lock;
static long inside;

static long spin_sum(long seed)
{
    long s = 0;
    for (long i = 0; i < SPIN; i++) s += (i ^ seed) & 7;
    return s;
}

static long spin_want(long seed)
{
    long s = 0;
    for (long i = 0; i < SPIN; i++) s += (i ^ seed) & 7;
    return s;
}

/* The one construct: kind 0 counts, kind 1 spins, kind 2 makes two tasks
 * of this same construct one level down (kind 0 at the bottom). */
static void node(int kind, int depth, long i);

static void make(int kind, int depth, long i)
{
#pragma omp task firstprivate(kind, depth, i)
    node(kind, depth, i);
}

static void node(int kind, int depth, long i)
{
    int me = omp_get_thread_num();
    CHECK(me >= 0 && me < omp_get_num_threads());
    if (kind == 0) {
        per_thread[me][0]++;
    } else if (kind == 1) {
        sums[i] = spin_sum(i);
    } else {
        __atomic_fetch_add(&made, 1, __ATOMIC_RELAXED);
        if (depth == 0) {
            per_thread[me][0]++;
            return;
        }
        make(depth == 1 ? 0 : 2, depth - 1, i);
        make(depth == 1 ? 0 : 2, depth - 1, i);
#pragma omp taskwait
    }
}

static long counted(void)
{
    long n = 0;
    for (int t = 0; t < MAXT; t++) {
        n += per_thread[t][0];
        per_thread[t][0] = 0;
    }
    return n;
}

static void one_producer(void)
{
#pragma omp parallel
#pragma omp single
    {
        for (int round = 0; round < 3; round++) {
            for (long i = 0; i < EMPTY; i++) make(0, 0, i);
#pragma omp taskwait
            for (long i = 0; i < LONGS; i++) make(1, 0, i);
#pragma omp taskwait
            for (long i = 0; i < 4; i++) make(2, 8, i);
#pragma omp taskwait
        }
    }
    /* 3 rounds of EMPTY, and 4 trees of 2^8 leaves each (every node at
     * depth 1 makes two leaves of kind 0, which count) */
    CHECK_EQ(counted(), 3L * (EMPTY + 4 * 256));
    for (long i = 0; i < LONGS; i++) CHECK_EQ(sums[i], spin_want(i));
    /* kind 2 nodes: depths 8..1 per tree, 2^8 - 1 of them */
    CHECK_EQ(made, 3L * 4 * 255);
    made = 0;
}

static void every_producer(void)
{
    int nt = 0;
#pragma omp parallel
    {
#pragma omp single
        nt = omp_get_num_threads();
        for (long i = 0; i < EMPTY / 4; i++) make(0, 0, i);
#pragma omp taskwait
        make(2, 6, 0);
    }
    CHECK_EQ(counted(), (long)nt * (EMPTY / 4 + 64));
    CHECK_EQ(made, (long)nt * 63);
    made = 0;
}

static void loops(void)
{
    static long hit[4096];
    memset(hit, 0, sizeof hit);
    long s = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int round = 0; round < 4; round++) {
#pragma omp taskloop grainsize(1)
            for (long i = 0; i < 4096; i++) hit[i]++;
        }
#pragma omp taskloop grainsize(1) reduction(+ : s)
        for (long i = 0; i < LONGS; i++) s += spin_sum(i);
    }
    long want = 0;
    for (long i = 0; i < 4096; i++) CHECK_EQ(hit[i], 4);
    for (long i = 0; i < LONGS; i++) want += spin_want(i);
    CHECK_EQ(s, want);
}

/* A construct of its own that never makes tasks: kind 0 counts, kind 1
 * counts under `lock`. */
static void locked_make(int kind)
{
#pragma omp task firstprivate(kind)
    {
        if (kind == 0) {
            per_thread[omp_get_thread_num()][0]++;
        } else {
            omp_set_lock(&lock);
            inside++;
            omp_unset_lock(&lock);
        }
    }
}

static void under_lock(void)
{
    inside = 0;
#pragma omp parallel
#pragma omp single
    {
        for (long i = 0; i < EMPTY; i++) locked_make(0);
#pragma omp taskwait
        /* Tasks of the same construct (cheap by now) made while the lock
         * is held are queued, as libgomp queues them below its cut-off (64
         * per thread): one run at once here would wait for the lock for
         * ever. */
        omp_set_lock(&lock);
        for (int i = 0; i < 50; i++) locked_make(1);
        omp_unset_lock(&lock);
#pragma omp taskwait
    }
    CHECK_EQ(inside, 50);
    CHECK_EQ(counted(), EMPTY);
}

int main(void)
{
    omp_init_lock(&lock);
    for (int rep = 0; rep < 3; rep++) {
        under_lock();
        one_producer();
        every_producer();
        loops();
    }
    omp_destroy_lock(&lock);
    return 0;
}
