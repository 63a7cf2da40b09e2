/* taskloop: GOMP_taskloop and GOMP_taskloop_ull.
 * How the iterations are cut into tasks (grainsize, grainsize strict,
 * num_tasks, num_tasks strict, neither): each task records where it
 * starts through a firstprivate flag of its own, and the sizes must be
 * those OpenMP 5.1 allows and libgomp 12 picks. Loop shapes (steps other
 * than 1, downward, unsigned long long both ways, collapse(2), empty
 * loops); clauses if(0), final, nogroup, priority, untied, lastprivate,
 * shared and firstprivate; reduction and in_reduction; a taskloop inside
 * a task of another taskloop.
 */
#include <limits.h>
#include <stdint.h>

#include "omp_check.h"

enum { MAXN = 1000 };

/* Sizes of the tasks over [0, n): first iteration of each task marked. */
static int task_sizes(const unsigned char *start, int n, int *sizes)
{
    int ntasks = 0;
    for (int i = 0; i < n; i++) {
        if (start[i]) sizes[ntasks++] = 0;
        CHECK(ntasks > 0); /* iteration 0 starts a task */
        sizes[ntasks - 1]++;
    }
    return ntasks;
}

/* kind 0: grainsize(g), 1: grainsize(strict: g), 2: num_tasks(g),
 * 3: num_tasks(strict: g), 4: neither. */
static int cut(int n, int g, int kind, int *sizes)
{
    static unsigned char start[MAXN];
    memset(start, 0, sizeof start);
    int seen = 0;
#pragma omp parallel
#pragma omp single
    {
        int first = 1;
/* The same loop under each clause: its tasks mark their first iteration. */
#define MARKING_LOOP(directive)                                                                             \
    do {                                                                                                    \
        _Pragma(directive) for (int i = 0; i < n; i++)                                                      \
        {                                                                                                   \
            if (first) start[i] = 1;                                                                        \
            first = 0;                                                                                      \
        }                                                                                                   \
    } while (0)
        switch (kind) {
        case 0: MARKING_LOOP("omp taskloop grainsize(g) firstprivate(first)"); break;
        case 1: MARKING_LOOP("omp taskloop grainsize(strict : g) firstprivate(first)"); break;
        case 2: MARKING_LOOP("omp taskloop num_tasks(g) firstprivate(first)"); break;
        case 3: MARKING_LOOP("omp taskloop num_tasks(strict : g) firstprivate(first)"); break;
        default: MARKING_LOOP("omp taskloop firstprivate(first)"); break;
        }
        seen = 1; /* the taskloop's own taskgroup: every task is complete */
    }
    CHECK(seen);
    return task_sizes(start, n, sizes);
}

static void grainsize_arithmetic(void)
{
    static const int ns[] = {1, 2, 7, 10, 63, 64, 65, 100, 999, 1000};
    static const int gs[] = {1, 2, 3, 7, 10, 64, 100, 1000, 5000};
    int sizes[MAXN];
    for (unsigned a = 0; a < sizeof ns / sizeof *ns; a++)
        for (unsigned b = 0; b < sizeof gs / sizeof *gs; b++) {
            int n = ns[a], g = gs[b];
            /* grainsize(g): max(1, n/g) tasks spread evenly: each has at
             * least min(g, n) and fewer than 2g iterations. */
            int t = cut(n, g, 0, sizes), want = n / g ? n / g : 1;
            CHECKF(t == want, "grainsize(%d) over %d: %d tasks", g, n, t);
            for (int k = 0; k < t; k++) {
                CHECK(sizes[k] >= (g < n ? g : n) && sizes[k] < 2 * g);
                CHECK_EQ(sizes[k], n / t + (k < n % t));
            }
            /* strict: g each, the last one the rest */
            t = cut(n, g, 1, sizes);
            CHECKF(t == (n + g - 1) / g, "grainsize(strict: %d) over %d: %d tasks", g, n, t);
            for (int k = 0; k < t; k++) CHECK_EQ(sizes[k], k + 1 < t ? g : n - (t - 1) * g);
            /* num_tasks(g): min(g, n) tasks, the first n % t one more */
            for (int kind = 2; kind <= 3; kind++) {
                t = cut(n, g, kind, sizes);
                CHECKF(t == (g < n ? g : n), "num_tasks(%d) over %d: %d tasks", g, n, t);
                for (int k = 0; k < t; k++) CHECK_EQ(sizes[k], n / t + (k < n % t));
            }
        }
    /* neither clause: as many tasks as threads (libgomp 12's choice) */
    int t = cut(100, 0, 4, sizes), nth = omp_get_max_threads();
    CHECK_EQ(t, nth < 100 ? nth : 100);
}

/* Sum of i over the loop, against the closed form, with a loop shape per case. */
static void shapes(void)
{
    long sum;
    /* step 3 upward, bounds not a multiple of the step */
    sum = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(4) reduction(+ : sum)
    for (long i = -20; i < 1001; i += 3) sum += i;
    long want = 0;
    for (long i = -20; i < 1001; i += 3) want += i;
    CHECK_EQ(sum, want);
    /* downward by 7 */
    sum = 0;
    want = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(5) reduction(+ : sum)
    for (long i = 500; i > -37; i -= 7) sum += i;
    for (long i = 500; i > -37; i -= 7) want += i;
    CHECK_EQ(sum, want);
    /* near the ends of long */
    long cnt = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(10) reduction(+ : cnt)
    for (long i = LONG_MAX - 100; i < LONG_MAX; i++) cnt++;
    CHECK_EQ(cnt, 100);
    cnt = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(3) reduction(+ : cnt)
    for (long i = LONG_MIN + 50; i > LONG_MIN; i -= 5) cnt++;
    CHECK_EQ(cnt, 10);
    /* unsigned long long upward, above LONG_MAX, and downward */
    unsigned long long ucnt = 0, usum = 0, uwant = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(16) reduction(+ : ucnt, usum)
    for (unsigned long long u = ULLONG_MAX - 1000; u < ULLONG_MAX - 10; u += 9) {
        ucnt++;
        usum += u & 0xffff;
    }
    for (unsigned long long u = ULLONG_MAX - 1000; u < ULLONG_MAX - 10; u += 9) uwant += u & 0xffff;
    CHECK_EQ(ucnt, (990 + 8) / 9);
    CHECK(usum == uwant);
    ucnt = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(7) reduction(+ : ucnt)
    for (unsigned long long u = 1000; u > 3; u -= 4) ucnt++;
    CHECK_EQ(ucnt, 250);
    /* empty loops make no task */
    int ran = 0;
#pragma omp parallel
#pragma omp single
    {
        int lo = 5, hi = 5;
#pragma omp taskloop shared(ran)
        for (int i = lo; i < hi; i++) ran = 1;
#pragma omp taskloop shared(ran) reduction(+ : cnt)
        for (unsigned long long u = 10; u < 3; u++) ran = 1;
    }
    CHECK_EQ(ran, 0);
    /* collapse(2): every pair once */
    static int hit[37][23];
    memset(hit, 0, sizeof hit);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop collapse(2) grainsize(13)
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 23; j++) __atomic_fetch_add(&hit[i][j], 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 23; j++) CHECK_EQ(hit[i][j], 1);
}

static void clauses(void)
{
    enum { N = 200 };
    static int who[N], fin[N];
    /* if(0): every task undeferred, run by the encountering thread */
    int me = -1;
#pragma omp parallel
#pragma omp single
    {
        me = omp_get_thread_num();
#pragma omp taskloop if (0) grainsize(3)
        for (int i = 0; i < N; i++) who[i] = omp_get_thread_num();
    }
    for (int i = 0; i < N; i++) CHECK_EQ(who[i], me);
    /* final: the tasks are final */
#pragma omp parallel
#pragma omp single
#pragma omp taskloop final(1) grainsize(10)
    for (int i = 0; i < N; i++) fin[i] = omp_in_final();
    for (int i = 0; i < N; i++) CHECK_EQ(fin[i], 1);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop final(0) grainsize(10)
    for (int i = 0; i < N; i++) fin[i] = omp_in_final();
    for (int i = 0; i < N; i++) CHECK_EQ(fin[i], 0);
    /* nogroup: not waited for by the taskloop; taskwait waits */
    static int done[N];
    memset(done, 0, sizeof done);
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop nogroup grainsize(1) untied priority(3)
        for (int i = 0; i < N; i++) {
            volatile int spin = 0;
            for (int k = 0; k < 2000; k++) spin += k;
            __atomic_store_n(&done[i], 1, __ATOMIC_RELEASE);
        }
#pragma omp taskwait
        for (int i = 0; i < N; i++) CHECK_EQ(__atomic_load_n(&done[i], __ATOMIC_ACQUIRE), 1);
    }
    /* without nogroup, the taskloop waits for its tasks and their children */
    memset(done, 0, sizeof done);
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(7)
        for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(i)
            __atomic_store_n(&done[i], 1, __ATOMIC_RELEASE);
        }
        for (int i = 0; i < N; i++) CHECK_EQ(__atomic_load_n(&done[i], __ATOMIC_ACQUIRE), 1);
    }
    /* lastprivate, firstprivate */
    int last = -1, base = 1000;
    long s = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop lastprivate(last) firstprivate(base) num_tasks(9) reduction(+ : s)
    for (int i = 0; i < N; i++) {
        last = i + base;
        s += base;
    }
    CHECK_EQ(last, N - 1 + 1000);
    CHECK_EQ(s, 1000L * N);
}

static void reductions(void)
{
    /* taskloop reduction at 3 grain sizes, several operators */
    for (int g = 1; g <= 100; g *= 10) {
        long sum = 0, prod = 1, mx = LONG_MIN;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(g) reduction(+ : sum) reduction(* : prod) reduction(max : mx)
        for (int i = 1; i <= 300; i++) {
            sum += i;
            if (i % 50 == 0) prod *= 2;
            if (i * 37 % 301 > mx) mx = i * 37 % 301;
        }
        long want = LONG_MIN;
        for (int i = 1; i <= 300; i++)
            if (i * 37 % 301 > want) want = i * 37 % 301;
        CHECK_EQ(sum, 300 * 301 / 2);
        CHECK_EQ(prod, 64);
        CHECK_EQ(mx, want);
    }
    /* in_reduction: taskloops inside a taskgroup's task_reduction, with a
     * plain task beside them */
    long tot = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskgroup task_reduction(+ : tot)
    {
#pragma omp taskloop in_reduction(+ : tot) grainsize(5)
        for (int i = 0; i < 100; i++) tot += i;
#pragma omp task in_reduction(+ : tot)
        tot += 1000;
#pragma omp taskloop in_reduction(+ : tot) nogroup num_tasks(4)
        for (int i = 0; i < 10; i++) tot += 1;
    }
    CHECK_EQ(tot, 4950 + 1000 + 10);
    /* every thread makes taskloops (a taskloop per implicit task) */
    long all = 0;
#pragma omp parallel reduction(+ : all)
    {
#pragma omp taskloop grainsize(2) reduction(+ : all)
        for (int i = 0; i < 50; i++) all += i;
    }
    CHECK_EQ(all, 1225L * omp_get_max_threads());
}

/* A taskloop in each task of an outer taskloop. */
static void nested(void)
{
    enum { O = 20, I = 30 };
    static int cell[O][I];
    memset(cell, 0, sizeof cell);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(1)
    for (int i = 0; i < O; i++) {
#pragma omp taskloop grainsize(4)
        for (int j = 0; j < I; j++) cell[i][j] += i * I + j;
        for (int j = 0; j < I; j++) CHECK_EQ(cell[i][j], i * I + j); /* its own taskloop waited */
    }
    for (int i = 0; i < O; i++)
        for (int j = 0; j < I; j++) CHECK_EQ(cell[i][j], i * I + j);
}

/* Outside any parallel region: one thread runs every task. Last of all:
 * libgomp 12 makes the initial thread a team of its own for the task
 * reduction, and parallel regions after that hang at 4 threads. */
static void orphaned(void)
{
    long sum = 0;
#pragma omp taskloop grainsize(3) reduction(+ : sum)
    for (int i = 0; i < 100; i++) sum += i;
    CHECK_EQ(sum, 4950);
}

int main(void)
{
    for (int rep = 0; rep < 3; rep++) {
        grainsize_arithmetic();
        shapes();
        clauses();
        reductions();
        nested();
    }
    orphaned();
    puts("taskloop: ok");
    return 0;
}
