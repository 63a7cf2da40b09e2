/* The GLT microbenchmarks: one source, built over weft (bench_glt_weft,
 * runtime "weft-glt") and over OS threads (bench_glt_pthreads, with
 * -DGLT_BACKEND_PTHREADS, runtime "glt-pthreads"). Time per unit or per
 * operation, every result checked:
 *   glt_create_join   the main ULT creates units spread over the threads
 *                     and joins them; glt_create and glt_join time the two
 *                     halves of the same runs
 *   glt_yield         one unit per thread yields in a loop
 *   glt_for_loop      a 1,000-element vector scaled, a chunk per thread
 *   glt_tasks_single  one unit creates 1,000 tasks and joins them
 *   glt_tasks_parallel one unit per thread creates and joins its share of
 *                     1,000 tasks
 *   glt_nested_for    20 outer units each running 100 inner ones
 *   glt_queens        8-queens, a ULT per safe placement (2,057 units);
 *                     per unit */
#define _GNU_SOURCE
#include "glt.h"

#include "bench_common.h"

#ifdef GLT_BACKEND_PTHREADS
#define RUNTIME "glt-pthreads"
#define CJ_UNITS 64 /* an OS thread costs microseconds: fewer per run */
#define YIELDS 20000
#else
#define RUNTIME "weft-glt"
#define CJ_UNITS 4096
#define YIELDS 200000
#endif

#define N 1000
static int g_nth, g_runs;
static double g_v[N];
static long g_count;

static void body(void *arg) { __atomic_fetch_add(&g_count, (long)(intptr_t)arg, __ATOMIC_RELAXED); }

static void yielder(void *arg)
{
    (void)arg;
    for (int i = 0; i < YIELDS; i++) glt_yield();
    __atomic_fetch_add(&g_count, 1, __ATOMIC_RELAXED);
}

static void chunk(void *arg)
{
    int t = (int)(intptr_t)arg, lo = N * t / g_nth, hi = N * (t + 1) / g_nth;
    for (int i = lo; i < hi; i++) g_v[i] *= 1.000001;
    __atomic_fetch_add(&g_count, hi - lo, __ATOMIC_RELAXED);
}

static void spawn_tasks(void *arg)
{
    (void)arg;
    GLT_tasklet *t = glt_tasklet_malloc(N);
    for (int i = 0; i < N; i++) glt_tasklet_create(body, (void *)(intptr_t)1, &t[i]);
    for (int i = 0; i < N; i++) glt_tasklet_join(&t[i]);
    for (int i = 0; i < N; i++) glt_tasklet_free(&t[i]);
    free(t);
}

/* Tasks from every thread: thread t's share of N. */
static void spawn_share(void *arg)
{
    int t = (int)(intptr_t)arg, lo = N * t / g_nth, hi = N * (t + 1) / g_nth;
    GLT_tasklet *tk = glt_tasklet_malloc(hi - lo);
    for (int i = 0; i < hi - lo; i++) glt_tasklet_create(body, (void *)(intptr_t)1, &tk[i]);
    for (int i = 0; i < hi - lo; i++) glt_tasklet_join(&tk[i]);
    for (int i = 0; i < hi - lo; i++) glt_tasklet_free(&tk[i]);
    free(tk);
}

/* n-queens with a ULT per safe placement of the next row; g_count counts
 * the units, g_solutions the boards. */
#define QUEENS 8
#define QUEENS_UNITS 2057 /* nodes of the 8-queens search tree, root included */
#define QUEENS_SOLUTIONS 92
static long g_solutions;
struct board {
    int row, col[QUEENS];
};
static void place(void *arg)
{
    const struct board *b = arg;
    __atomic_fetch_add(&g_count, 1, __ATOMIC_RELAXED);
    if (b->row == QUEENS) {
        __atomic_fetch_add(&g_solutions, 1, __ATOMIC_RELAXED);
        return;
    }
    struct board next[QUEENS];
    GLT_ult u[QUEENS];
    int k = 0;
    for (int c = 0; c < QUEENS; c++) {
        int ok = 1;
        for (int r = 0; r < b->row && ok; r++) ok = b->col[r] != c && abs(b->col[r] - c) != b->row - r;
        if (!ok) continue;
        next[k] = *b;
        next[k].col[b->row] = c;
        next[k].row = b->row + 1;
        glt_ult_create(place, &next[k], &u[k]);
        k++;
    }
    for (int i = 0; i < k; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < k; i++) glt_ult_free(&u[i]);
}

#define OUTER 20
#define INNER 100
static void outer(void *arg)
{
    (void)arg;
    GLT_ult u[INNER];
    for (int i = 0; i < INNER; i++) glt_ult_create_to(body, (void *)(intptr_t)1, &u[i], i);
    for (int i = 0; i < INNER; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < INNER; i++) glt_ult_free(&u[i]);
}

/* Run fn(i) on thread i % g_nth for i < n; join and free them. */
static void run_spread(int n, void (*fn)(void *), int arg_is_index)
{
    GLT_ult *u = glt_ult_malloc(n);
    for (int i = 0; i < n; i++)
        glt_ult_create_to(fn, (void *)(intptr_t)(arg_is_index ? i : 1), &u[i], i);
    for (int i = 0; i < n; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < n; i++) glt_ult_free(&u[i]);
    free(u);
}

/* Times `what` g_runs times after a warm-up; per `ops`; checks g_count. */
static void measure(const char *exp, double ops, long want, void (*what)(void))
{
    double v[64];
    for (int r = -1; r < g_runs; r++) {
        g_count = 0;
        double t0 = bench_now_ns();
        what();
        double dt = (bench_now_ns() - t0) / ops;
        BENCH_CHECK(g_count == want);
        if (r >= 0) v[r] = dt;
    }
    bench_report(exp, RUNTIME, g_nth, NULL, v, g_runs);
}

/* Create+join, with the create and join halves timed apart. */
static double g_create_ns, g_join_ns;
static void do_create_join(void)
{
    GLT_ult *u = glt_ult_malloc(CJ_UNITS);
    double t0 = bench_now_ns();
    for (int i = 0; i < CJ_UNITS; i++) glt_ult_create_to(body, (void *)(intptr_t)1, &u[i], i);
    double t1 = bench_now_ns();
    for (int i = 0; i < CJ_UNITS; i++) glt_ult_join(&u[i]);
    for (int i = 0; i < CJ_UNITS; i++) glt_ult_free(&u[i]);
    g_join_ns = bench_now_ns() - t1;
    g_create_ns = t1 - t0;
    free(u);
}

/* glt_create_join, and its halves as glt_create and glt_join. */
static void measure_create_join(void)
{
    double all[64], cr[64], jn[64];
    for (int r = -1; r < g_runs; r++) {
        g_count = 0;
        double t0 = bench_now_ns();
        do_create_join();
        double dt = bench_now_ns() - t0;
        BENCH_CHECK(g_count == CJ_UNITS);
        if (r < 0) continue;
        all[r] = dt / CJ_UNITS;
        cr[r] = g_create_ns / CJ_UNITS;
        jn[r] = g_join_ns / CJ_UNITS;
    }
    bench_report("glt_create_join", RUNTIME, g_nth, NULL, all, g_runs);
    bench_report("glt_create", RUNTIME, g_nth, NULL, cr, g_runs);
    bench_report("glt_join", RUNTIME, g_nth, NULL, jn, g_runs);
}

static void do_tasks_parallel(void) { run_spread(g_nth, spawn_share, 1); }
static void do_queens(void)
{
    static struct board root;
    g_solutions = 0;
    GLT_ult u;
    glt_ult_create(place, &root, &u);
    glt_ult_join(&u);
    glt_ult_free(&u);
    BENCH_CHECK(g_solutions == QUEENS_SOLUTIONS);
}
static void do_yield(void) { run_spread(g_nth, yielder, 0); }
static void do_for_loop(void) { run_spread(g_nth, chunk, 1); }
static void do_tasks_single(void)
{
    GLT_ult u;
    glt_ult_create(spawn_tasks, NULL, &u);
    glt_ult_join(&u);
    glt_ult_free(&u);
}
static void do_nested(void) { run_spread(OUTER, outer, 0); }

int main(int argc, char **argv)
{
    int quick = bench_quick(argc, argv);
    g_runs = quick ? 5 : 15;
    glt_init(argc, argv);
    g_nth = glt_get_num_threads();
    for (int i = 0; i < N; i++) g_v[i] = i;
    measure_create_join();
    measure("glt_yield", (double)YIELDS, g_nth, do_yield); /* per yield of one unit: they run side by side */
    measure("glt_for_loop", 1, N, do_for_loop);
    measure("glt_tasks_single", N, N, do_tasks_single);
    measure("glt_tasks_parallel", N, N, do_tasks_parallel);
    measure("glt_nested_for", OUTER * INNER, OUTER * INNER, do_nested);
    measure("glt_queens", QUEENS_UNITS, QUEENS_UNITS, do_queens);
    glt_finalize();
    return 0;
}
