/* The task-parallel applications of [LWT-PM] §6.3 and of dataflow
 * runtimes' users, one driver for every runtime: the runtime's program
 * (apps_omp.c for gcc / clang OpenMP and weft-omp, apps_tbb.cpp for oneTBB)
 * implements the hooks below in its own idiom, and this header makes the
 * inputs, times the hooks, checks every result and prints the JSON point.
 *
 *   prog --exp=NAME --threads=T [--quick] [--runs=R] [runtime's own options]
 *
 * Experiments (each written from the algorithm's public description):
 *   fib            fib(APP_FIB_N), one task per call, no cut-off
 *   fib_cutoff     fib(APP_FIBC_N), tasks down to depth APP_FIBC_DEPTH, serial below
 *   fib_rss        fib(30) as `fib`, once: the program's peak RSS (VmHWM, KiB)
 *   nqueens        all solutions of APP_NQ_N queens, a task per branch (untied)
 *   sparselu       blocked sparse LU without pivoting (the BOTS pattern of
 *   sparselu_large   empty blocks), a task per block operation with depend
 *                  on the blocks: APP_LU_NB x APP_LU_NB blocks, and twice that
 *   cg             conjugate gradient on the 2-D Poisson matrix, every
 *                  operation on a block of rows a task with depend
 *   cholesky       tiled Cholesky (potrf, trsm, syrk, gemm from LAPACKE and
 *                  CBLAS), a task per tile operation with depend on tiles
 *   tasks_1k       one producer creates 1,000 / 10,000 empty tasks and
 *   tasks_10k        waits for them; per batch
 * A run is one execution of the timed part (inputs made before it), in ms
 * (us for tasks_*); a warm-up run first. Results are checked against a
 * sequential computation, or bit for bit against the first run where the
 * dependences fix the order of every floating-point operation. */
#ifndef WEFT_BENCH_APPS_H
#define WEFT_BENCH_APPS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

#define APP_FIB_N 24
#define APP_FIBC_N 32
#define APP_FIBC_DEPTH 12
#define APP_RSS_N 30
#define APP_NQ_N 10
#define APP_NQ_MAX 16
#define APP_LU_NB 12
#define APP_LU_BS 32
#define APP_CG_G 64    /* grid side: n = G^2 unknowns */
#define APP_CG_NB 16   /* blocks of rows */
#define APP_CG_ITERS 100
#define APP_CH_N 512
#define APP_CH_TS 32


#ifdef __cplusplus
extern "C" {
#endif

/* A blocked sparse matrix: nb x nb pointers to bs x bs blocks (row major
 * within a block), NULL where the block is empty. */
struct app_lu {
    int nb, bs;
    double **blk;
};

/* CG on A x = b: A the 5-point Laplacian of a g x g grid, b all ones, x0 = 0. */
struct app_cg {
    int g, n, nb, bs, iters;
    double *x, *r, *p, *ap;
    double *pap_part, *rr_part; /* per block */
    double rr, alpha, beta;     /* r.r, and the scalars of the iteration */
};

/* Tiled symmetric positive definite matrix: nt x nt tiles of ts x ts,
 * column major within a tile; the lower triangle is factorised. */
struct app_chol {
    int nt, ts;
    double **tile;
};

/* A runtime's hooks: name, an option of its own (1 if taken), start and
 * stop with `threads` threads; NULL where the runtime has none. */
struct app_runtime {
    const char *(*name)(void);
    const char *(*extra)(void); /* more JSON fields, or "" */
    int (*arg)(const char *arg);
    void (*init)(int threads);
    void (*fini)(void);
    long (*fib)(int n, int depth_cutoff); /* cut-off 0: none */
    long (*nqueens)(int n);
    void (*sparselu)(struct app_lu *m);
    void (*cg)(struct app_cg *c);
    void (*cholesky)(struct app_chol *c);
    void (*tasks)(int n, int batches); /* batches of n empty tasks from one producer */
};
extern const struct app_runtime app_rt;

/* Counters per thread (or arena slot), a cache line each, and their sum. */
#define APP_SLOTS 64
static inline long app_slots_sum(long (*slots)[8])
{
    long s = 0;
    for (int t = 0; t < APP_SLOTS; t++) s += slots[t][0];
    return s;
}

/* ---- the sequential kernels every version calls ---- */

static inline long app_fib_seq(int n) { return n < 2 ? n : app_fib_seq(n - 1) + app_fib_seq(n - 2); }

/* Queens a[0..j) placed one per row: is the one in row j-1 safe? */
static inline int app_nq_ok(int j, const signed char *a)
{
    for (int i = 0; i < j - 1; i++) {
        int d = a[i] - a[j - 1];
        if (d == 0 || d == j - 1 - i || -d == j - 1 - i) return 0;
    }
    return 1;
}

/* sparse LU block operations (bs x bs, row major) */
static inline void app_lu0(double *d, int bs)
{
    for (int k = 0; k < bs; k++)
        for (int i = k + 1; i < bs; i++) {
            d[i * bs + k] /= d[k * bs + k];
            double f = d[i * bs + k];
            for (int j = k + 1; j < bs; j++) d[i * bs + j] -= f * d[k * bs + j];
        }
}
/* c = L(d)^-1 c: the blocks right of the diagonal one */
static inline void app_fwd(const double *d, double *c, int bs)
{
    for (int k = 0; k < bs; k++)
        for (int i = k + 1; i < bs; i++) {
            double f = d[i * bs + k];
            for (int j = 0; j < bs; j++) c[i * bs + j] -= f * c[k * bs + j];
        }
}
/* r = r U(d)^-1: the blocks below the diagonal one */
static inline void app_bdiv(const double *d, double *r, int bs)
{
    for (int i = 0; i < bs; i++)
        for (int k = 0; k < bs; k++) {
            r[i * bs + k] /= d[k * bs + k];
            double f = r[i * bs + k];
            for (int j = k + 1; j < bs; j++) r[i * bs + j] -= f * d[k * bs + j];
        }
}
/* x -= r c */
static inline void app_bmod(const double *r, const double *c, double *x, int bs)
{
    for (int i = 0; i < bs; i++)
        for (int k = 0; k < bs; k++) {
            double f = r[i * bs + k];
            for (int j = 0; j < bs; j++) x[i * bs + j] -= f * c[k * bs + j];
        }
}
static inline double *app_lu_block(int bs)
{
    double *b = (double *)calloc((size_t)bs * bs, sizeof(double));
    if (!b) abort();
    return b;
}

/* Row i of the 5-point Laplacian of a g x g grid times v. */
static inline double app_lap(const double *v, int g, int i)
{
    int x = i % g, y = i / g;
    double s = 4 * v[i];
    if (x > 0) s -= v[i - 1];
    if (x < g - 1) s -= v[i + 1];
    if (y > 0) s -= v[i - g];
    if (y < g - 1) s -= v[i + g];
    return s;
}

/* CG block operations on rows [lo, hi) */
static inline void app_cg_spmv(const struct app_cg *c, int blk)
{
    for (int i = blk * c->bs; i < (blk + 1) * c->bs; i++) c->ap[i] = app_lap(c->p, c->g, i);
}
static inline void app_cg_pap(struct app_cg *c, int blk)
{
    double s = 0;
    for (int i = blk * c->bs; i < (blk + 1) * c->bs; i++) s += c->p[i] * c->ap[i];
    c->pap_part[blk] = s;
}
static inline void app_cg_alpha(struct app_cg *c)
{
    double s = 0;
    for (int b = 0; b < c->nb; b++) s += c->pap_part[b];
    c->alpha = c->rr / s;
}
static inline void app_cg_update(struct app_cg *c, int blk)
{
    double s = 0, a = c->alpha;
    for (int i = blk * c->bs; i < (blk + 1) * c->bs; i++) {
        c->x[i] += a * c->p[i];
        c->r[i] -= a * c->ap[i];
        s += c->r[i] * c->r[i];
    }
    c->rr_part[blk] = s;
}
static inline void app_cg_beta(struct app_cg *c)
{
    double s = 0;
    for (int b = 0; b < c->nb; b++) s += c->rr_part[b];
    c->beta = s / c->rr;
    c->rr = s;
}
static inline void app_cg_dir(struct app_cg *c, int blk)
{
    double b = c->beta;
    for (int i = blk * c->bs; i < (blk + 1) * c->bs; i++) c->p[i] = c->r[i] + b * c->p[i];
}

#ifdef __cplusplus
}
#endif

#ifdef APPS_MAIN
/* ---- inputs ---- */

static uint64_t app_rng = 88172645463325252ull;
static double app_rand(void) /* in [0, 1) */
{
    app_rng ^= app_rng << 13;
    app_rng ^= app_rng >> 7;
    app_rng ^= app_rng << 17;
    return (double)(app_rng >> 11) / 9007199254740992.0;
}

/* The BOTS sparsity pattern: which blocks hold numbers. */
static int app_lu_present(int i, int j)
{
    if (i == j || i == j - 1 || i - 1 == j) return 1;
    if (i % 2 == 1 || j % 2 == 1) return 0;
    if (i < j && i % 3) return 0;
    if (i > j && j % 3) return 0;
    return 1;
}

static void app_lu_make(struct app_lu *m, int nb, int bs)
{
    m->nb = nb;
    m->bs = bs;
    m->blk = (double **)calloc((size_t)nb * nb, sizeof(double *));
    app_rng = 88172645463325252ull;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb; j++) {
            if (!app_lu_present(i, j)) continue;
            double *b = app_lu_block(bs);
            for (int k = 0; k < bs * bs; k++) b[k] = app_rand() - 0.5;
            if (i == j)
                for (int k = 0; k < bs; k++) b[k * bs + k] += 2.0 * nb * bs; /* no pivoting needed */
            m->blk[i * nb + j] = b;
        }
}

static void app_lu_free(struct app_lu *m)
{
    for (int k = 0; k < m->nb * m->nb; k++) free(m->blk[k]);
    free(m->blk);
}

/* The same factorisation, one operation after the other. */
static void app_lu_seq(struct app_lu *m)
{
    int nb = m->nb, bs = m->bs;
    double **a = m->blk;
    for (int k = 0; k < nb; k++) {
        app_lu0(a[k * nb + k], bs);
        for (int j = k + 1; j < nb; j++)
            if (a[k * nb + j]) app_fwd(a[k * nb + k], a[k * nb + j], bs);
        for (int i = k + 1; i < nb; i++)
            if (a[i * nb + k]) app_bdiv(a[k * nb + k], a[i * nb + k], bs);
        for (int i = k + 1; i < nb; i++)
            if (a[i * nb + k])
                for (int j = k + 1; j < nb; j++)
                    if (a[k * nb + j]) {
                        if (!a[i * nb + j]) a[i * nb + j] = app_lu_block(bs);
                        app_bmod(a[i * nb + k], a[k * nb + j], a[i * nb + j], bs);
                    }
    }
}

/* Bit-for-bit equal (every block operation is ordered by the dependences). */
static int app_lu_same(const struct app_lu *x, const struct app_lu *y)
{
    for (int k = 0; k < x->nb * x->nb; k++) {
        if (!x->blk[k] != !y->blk[k]) return 0;
        if (x->blk[k] && memcmp(x->blk[k], y->blk[k], sizeof(double) * x->bs * x->bs)) return 0;
    }
    return 1;
}

static void app_cg_make(struct app_cg *c)
{
    c->g = APP_CG_G;
    c->n = c->g * c->g;
    c->nb = APP_CG_NB;
    c->bs = c->n / c->nb;
    c->iters = APP_CG_ITERS;
    size_t n = (size_t)c->n;
    c->x = (double *)calloc(n, sizeof(double));
    c->r = (double *)malloc(n * sizeof(double));
    c->p = (double *)malloc(n * sizeof(double));
    c->ap = (double *)calloc(n, sizeof(double));
    c->pap_part = (double *)calloc((size_t)c->nb, sizeof(double));
    c->rr_part = (double *)calloc((size_t)c->nb, sizeof(double));
    for (size_t i = 0; i < n; i++) c->r[i] = c->p[i] = 1.0;
    c->rr = (double)n;
}

static void app_cg_free(struct app_cg *c)
{
    free(c->x);
    free(c->r);
    free(c->p);
    free(c->ap);
    free(c->pap_part);
    free(c->rr_part);
}

/* max |(b - A x) - r|: the recurrence's residual against the true one */
static double app_cg_residual_gap(const struct app_cg *c)
{
    double worst = 0;
    for (int i = 0; i < c->n; i++) {
        double e = fabs(1.0 - app_lap(c->x, c->g, i) - c->r[i]);
        if (e > worst) worst = e;
    }
    return worst;
}

static void app_cg_seq(struct app_cg *c)
{
    for (int it = 0; it < c->iters; it++) {
        for (int b = 0; b < c->nb; b++) app_cg_spmv(c, b);
        for (int b = 0; b < c->nb; b++) app_cg_pap(c, b);
        app_cg_alpha(c);
        for (int b = 0; b < c->nb; b++) app_cg_update(c, b);
        app_cg_beta(c);
        for (int b = 0; b < c->nb; b++) app_cg_dir(c, b);
    }
}

static void app_chol_make(struct app_chol *c)
{
    int nt = APP_CH_N / APP_CH_TS, ts = APP_CH_TS, n = APP_CH_N;
    c->nt = nt;
    c->ts = ts;
    c->tile = (double **)calloc((size_t)nt * nt, sizeof(double *));
    for (int k = 0; k < nt * nt; k++) c->tile[k] = (double *)malloc(sizeof(double) * ts * ts);
    /* a[i][j] = a[j][i] in (-0.5, 0.5), n on the diagonal: positive definite */
    app_rng = 2463534242ull;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double v = i == j ? (double)n : app_rand() - 0.5;
            c->tile[(i / ts) * nt + j / ts][(j % ts) * ts + i % ts] = v;
            c->tile[(j / ts) * nt + i / ts][(i % ts) * ts + j % ts] = v;
        }
}

static void app_chol_free(struct app_chol *c)
{
    for (int k = 0; k < c->nt * c->nt; k++) free(c->tile[k]);
    free(c->tile);
}

static double app_chol_at(const struct app_chol *c, int i, int j)
{
    return c->tile[(i / c->ts) * c->nt + j / c->ts][(j % c->ts) * c->ts + i % c->ts];
}

/* max |L L^T - A| over the lower triangle, relative to the diagonal's n */
static double app_chol_error(const struct app_chol *l, const struct app_chol *a)
{
    int n = l->nt * l->ts;
    double worst = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0;
            for (int k = 0; k <= j; k++) s += app_chol_at(l, i, k) * app_chol_at(l, j, k);
            double e = fabs(s - app_chol_at(a, i, j));
            if (e > worst) worst = e;
        }
    return worst / n;
}

static int app_chol_same(const struct app_chol *x, const struct app_chol *y)
{
    for (int i = 0; i < x->nt; i++)
        for (int j = 0; j <= i; j++)
            if (memcmp(x->tile[i * x->nt + j], y->tile[i * x->nt + j], sizeof(double) * x->ts * x->ts)) return 0;
    return 1;
}

static long app_nq_count(int n) /* solutions, sequentially */
{
    static const long known[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};
    return known[n];
}

/* The peak resident set of this program image: VmHWM, which exec resets
 * (getrusage's ru_maxrss keeps the parent's peak across fork and exec). */
static double app_peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kib = atof(line + 6);
    if (f) fclose(f);
    BENCH_CHECK(kib > 0);
    return kib;
}

static const void *app_hook(const char *exp)
{
    if (!strncmp(exp, "fib", 3)) return (const void *)app_rt.fib;
    if (!strcmp(exp, "nqueens")) return (const void *)app_rt.nqueens;
    if (!strncmp(exp, "sparselu", 8)) return (const void *)app_rt.sparselu;
    if (!strcmp(exp, "cg")) return (const void *)app_rt.cg;
    if (!strcmp(exp, "cholesky")) return (const void *)app_rt.cholesky;
    if (!strcmp(exp, "tasks_1k") || !strcmp(exp, "tasks_10k")) return (const void *)app_rt.tasks;
    fprintf(stderr, "unknown experiment %s\n", exp);
    exit(2);
}

/* Holds the reference results of the checked-bit-for-bit experiments. */
static struct app_lu app_lu_ref;
static struct app_chol app_chol_ref;
static struct app_cg app_cg_ref;
static int app_have_ref;

/* One run of `exp`: its time in ns, its result checked. */
static double app_run(const char *exp)
{
    double t0, dt;
    if (!strcmp(exp, "fib") || !strcmp(exp, "fib_rss")) {
        int n = !strcmp(exp, "fib") ? APP_FIB_N : APP_RSS_N;
        t0 = bench_now_ns();
        long v = app_rt.fib(n, 0);
        dt = bench_now_ns() - t0;
        BENCH_CHECK(v == app_fib_seq(n));
    } else if (!strcmp(exp, "fib_cutoff")) {
        t0 = bench_now_ns();
        long v = app_rt.fib(APP_FIBC_N, APP_FIBC_DEPTH);
        dt = bench_now_ns() - t0;
        BENCH_CHECK(v == 2178309); /* fib(32) */
    } else if (!strcmp(exp, "nqueens")) {
        t0 = bench_now_ns();
        long v = app_rt.nqueens(APP_NQ_N);
        dt = bench_now_ns() - t0;
        BENCH_CHECK(v == app_nq_count(APP_NQ_N));
    } else if (!strncmp(exp, "sparselu", 8)) {
        int nb = !strcmp(exp, "sparselu") ? APP_LU_NB : 2 * APP_LU_NB;
        struct app_lu m;
        app_lu_make(&m, nb, APP_LU_BS);
        if (!app_have_ref) {
            app_lu_make(&app_lu_ref, nb, APP_LU_BS);
            app_lu_seq(&app_lu_ref);
            app_have_ref = 1;
        }
        t0 = bench_now_ns();
        app_rt.sparselu(&m);
        dt = bench_now_ns() - t0;
        BENCH_CHECK(app_lu_same(&m, &app_lu_ref));
        app_lu_free(&m);
    } else if (!strcmp(exp, "cg")) {
        struct app_cg c;
        app_cg_make(&c);
        if (!app_have_ref) {
            app_cg_make(&app_cg_ref);
            app_cg_seq(&app_cg_ref);
            BENCH_CHECK(app_cg_residual_gap(&app_cg_ref) < 1e-9); /* r is b - A x */
            BENCH_CHECK(app_cg_ref.rr < 1e-6 * c.n);           /* and it converged */
            app_have_ref = 1;
        }
        t0 = bench_now_ns();
        app_rt.cg(&c);
        dt = bench_now_ns() - t0;
        BENCH_CHECK(c.rr == app_cg_ref.rr && !memcmp(c.x, app_cg_ref.x, sizeof(double) * c.n));
        app_cg_free(&c);
    } else if (!strcmp(exp, "cholesky")) {
        struct app_chol c;
        app_chol_make(&c);
        t0 = bench_now_ns();
        app_rt.cholesky(&c);
        dt = bench_now_ns() - t0;
        if (!app_have_ref) { /* the first run is checked against the matrix, the others against it */
            struct app_chol a;
            app_chol_make(&a);
            BENCH_CHECK(app_chol_error(&c, &a) < 1e-12);
            app_chol_free(&a);
            app_chol_ref = c;
            app_have_ref = 1;
        } else {
            BENCH_CHECK(app_chol_same(&c, &app_chol_ref));
            app_chol_free(&c);
        }
    } else {
        int n = !strcmp(exp, "tasks_1k") ? 1000 : 10000, batches = n == 1000 ? 40 : 4;
        t0 = bench_now_ns();
        app_rt.tasks(n, batches);
        dt = (bench_now_ns() - t0) / batches;
    }
    return dt;
}

int main(int argc, char **argv)
{
    const char *exp = NULL;
    int quick = 0, runs = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--exp=", 6)) exp = argv[i] + 6;
        else if (!strncmp(argv[i], "--threads=", 10)) threads = atoi(argv[i] + 10);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strncmp(argv[i], "--runs=", 7)) runs = atoi(argv[i] + 7);
        else if (!app_rt.arg || !app_rt.arg(argv[i])) {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (!exp || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: %s --exp=NAME --threads=1..64 [--quick] [--runs=R]\n", argv[0]);
        return 2;
    }
    const char *extra = app_rt.extra ? app_rt.extra() : "";
    if (!app_hook(exp)) {
        printf("{\"experiment\": \"%s\", \"runtime\": \"%s\", \"threads\": %d, \"absent\": true%s%s}\n", exp,
               app_rt.name(), threads, *extra ? ", " : "", extra);
        return 0;
    }
    if (runs < 1 || runs > 64) runs = quick ? 3 : 9;
    int rss = !strcmp(exp, "fib_rss");
    if (rss) runs = 1; /* the peak of one run */
    app_rt.init(threads);
    double v[64];
    if (!rss) app_run(exp); /* warm-up */
    for (int r = 0; r < runs; r++) v[r] = app_run(exp);
    const char *unit = rss ? "KiB" : !strncmp(exp, "tasks_", 6) ? "us" : "ms";
    if (rss) {
        v[0] = app_peak_rss_kib();
    } else {
        for (int r = 0; r < runs; r++) v[r] *= !strcmp(unit, "us") ? 1e-3 : 1e-6;
    }
    app_rt.fini();
    bench_point(exp, app_rt.name(), threads, unit, extra, v, runs, 1);
    return 0;
}
#endif /* APPS_MAIN */

#endif
