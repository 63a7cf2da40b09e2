/* The applications (apps.h) in OpenMP: built by gcc (libgomp; the same
 * binary runs on weft-omp, its libgomp.so.1 first on LD_LIBRARY_PATH) and
 * by clang (LLVM's libomp). Tasks, taskwait and depend as their users
 * write them: one parallel region, one thread making the tasks. */
#define _GNU_SOURCE
#include <omp.h>

#include "../bench_omp.h"
#define APPS_MAIN
#include "apps.h"

#ifdef APPS_HAVE_LAPACKE
#include <cblas.h>
#include <lapacke.h>
#endif

static int threads;

static const char *name(void) { return bench_omp_runtime; }
static const char *extra(void) { return bench_omp_lib_field(); }
static int arg(const char *a) { return bench_omp_arg(a); }
static void init(int t)
{
    threads = t;
    omp_set_num_threads(t);
    omp_set_dynamic(0);
}
static void fini(void) {}

/* ---- fib ---- */

static long fib_task(int n, int depth, int cutoff)
{
    if (n < 2) return n;
    if (cutoff && depth >= cutoff) return app_fib_seq(n);
    long x, y;
#pragma omp task shared(x)
    x = fib_task(n - 1, depth + 1, cutoff);
#pragma omp task shared(y)
    y = fib_task(n - 2, depth + 1, cutoff);
#pragma omp taskwait
    return x + y;
}

static long fib(int n, int cutoff)
{
    long v = 0;
#pragma omp parallel
#pragma omp single
    v = fib_task(n, 0, cutoff);
    return v;
}

/* ---- N-Queens: a task per branch, each with its own copy of the board ---- */

static long nq_found[APP_SLOTS][8]; /* per thread, a line each */

static void nq_task(int n, int j, const signed char *a)
{
    if (j == n) {
        nq_found[omp_get_thread_num()][0]++;
        return;
    }
    for (int i = 0; i < n; i++) {
#pragma omp task untied firstprivate(i)
        {
            signed char b[APP_NQ_MAX];
            memcpy(b, a, (size_t)j);
            b[j] = (signed char)i;
            if (app_nq_ok(j + 1, b)) nq_task(n, j + 1, b);
        }
    }
#pragma omp taskwait
}

static long nqueens(int n)
{
    memset(nq_found, 0, sizeof nq_found);
    signed char a[APP_NQ_MAX];
#pragma omp parallel
#pragma omp single
    nq_task(n, 0, a);
    return app_slots_sum(nq_found);
}

/* ---- sparse LU: a task per block operation, depend on the blocks ---- */

static void sparselu(struct app_lu *m)
{
    int nb = m->nb, bs = m->bs;
    double **a = m->blk;
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < nb; k++) {
        double *d = a[k * nb + k];
#pragma omp task depend(inout : a[k * nb + k]) firstprivate(d)
        app_lu0(d, bs);
        for (int j = k + 1; j < nb; j++) {
            double *c = a[k * nb + j];
            if (!c) continue;
#pragma omp task depend(in : a[k * nb + k]) depend(inout : a[k * nb + j]) firstprivate(d, c)
            app_fwd(d, c, bs);
        }
        for (int i = k + 1; i < nb; i++) {
            double *r = a[i * nb + k];
            if (!r) continue;
#pragma omp task depend(in : a[k * nb + k]) depend(inout : a[i * nb + k]) firstprivate(d, r)
            app_bdiv(d, r, bs);
        }
        for (int i = k + 1; i < nb; i++) {
            double *r = a[i * nb + k];
            if (!r) continue;
            for (int j = k + 1; j < nb; j++) {
                double *c = a[k * nb + j];
                if (!c) continue;
                if (!a[i * nb + j]) a[i * nb + j] = app_lu_block(bs); /* fill-in, made before its first use */
                double *x = a[i * nb + j];
#pragma omp task depend(in : a[i * nb + k], a[k * nb + j]) depend(inout : a[i * nb + j]) firstprivate(r, c, x)
                app_bmod(r, c, x, bs);
            }
        }
    }
}

/* ---- CG: every operation on a block of rows a task ---- */

static void cg(struct app_cg *c)
{
    int nb = c->nb, bs = c->bs;
    double *p = c->p, *ap = c->ap, *r = c->r, *x = c->x, *pap = c->pap_part, *rrp = c->rr_part;
    double *alpha = &c->alpha, *beta = &c->beta;
    (void)p, (void)ap, (void)r, (void)x, (void)pap, (void)rrp, (void)alpha, (void)beta; /* gcc 12: depend is no use */
#pragma omp parallel
#pragma omp single
    for (int it = 0; it < c->iters; it++) {
        for (int b = 0; b < nb; b++) {
            int lo = b > 0 ? b - 1 : b, hi = b < nb - 1 ? b + 1 : b; /* rows of p it reads: its block's neighbours */
#pragma omp task depend(in : p[lo * bs], p[b * bs], p[hi * bs]) depend(out : ap[b * bs])
            app_cg_spmv(c, b);
#pragma omp task depend(in : p[b * bs], ap[b * bs]) depend(out : pap[b])
            app_cg_pap(c, b);
        }
#pragma omp task depend(iterator(j = 0 : nb), in : pap[j]) depend(out : alpha[0])
        app_cg_alpha(c);
        for (int b = 0; b < nb; b++) {
#pragma omp task depend(in : alpha[0], p[b * bs], ap[b * bs]) depend(inout : x[b * bs], r[b * bs]) \
    depend(out : rrp[b])
            app_cg_update(c, b);
        }
#pragma omp task depend(iterator(j = 0 : nb), in : rrp[j]) depend(out : beta[0])
        app_cg_beta(c);
        for (int b = 0; b < nb; b++) {
#pragma omp task depend(in : beta[0], r[b * bs]) depend(inout : p[b * bs])
            app_cg_dir(c, b);
        }
    }
}

/* ---- tiled Cholesky (LAPACKE / CBLAS tile kernels) ---- */

#ifdef APPS_HAVE_LAPACKE
static void cholesky(struct app_chol *ch)
{
    int nt = ch->nt, ts = ch->ts;
    double **t = ch->tile;
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < nt; k++) {
        double *akk = t[k * nt + k];
#pragma omp task depend(inout : t[k * nt + k]) firstprivate(akk)
        BENCH_CHECK(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', ts, akk, ts) == 0);
        for (int i = k + 1; i < nt; i++) {
            double *aik = t[i * nt + k];
#pragma omp task depend(in : t[k * nt + k]) depend(inout : t[i * nt + k]) firstprivate(akk, aik)
            cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, ts, ts, 1.0, akk, ts, aik,
                        ts);
        }
        for (int i = k + 1; i < nt; i++) {
            double *aik = t[i * nt + k], *aii = t[i * nt + i];
#pragma omp task depend(in : t[i * nt + k]) depend(inout : t[i * nt + i]) firstprivate(aik, aii)
            cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, ts, ts, -1.0, aik, ts, 1.0, aii, ts);
            for (int j = k + 1; j < i; j++) {
                double *ajk = t[j * nt + k], *aij = t[i * nt + j];
#pragma omp task depend(in : t[i * nt + k], t[j * nt + k]) depend(inout : t[i * nt + j]) firstprivate(aik, ajk, aij)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ts, ts, ts, -1.0, aik, ts, ajk, ts, 1.0, aij, ts);
            }
        }
    }
}
#endif

/* ---- task create + complete from one producer ---- */

static long task_hits[APP_SLOTS][8];

static void tasks(int n, int batches)
{
    memset(task_hits, 0, sizeof task_hits);
#pragma omp parallel
#pragma omp single
    for (int b = 0; b < batches; b++) {
        for (int i = 0; i < n; i++) {
#pragma omp task
            task_hits[omp_get_thread_num()][0]++;
        }
#pragma omp taskwait
    }
    BENCH_CHECK(app_slots_sum(task_hits) == (long)n * batches);
}

const struct app_runtime app_rt = {
    .name = name,
    .extra = extra,
    .arg = arg,
    .init = init,
    .fini = fini,
    .fib = fib,
    .nqueens = nqueens,
    .sparselu = sparselu,
    .cg = cg,
#ifdef APPS_HAVE_LAPACKE
    .cholesky = cholesky,
#endif
    .tasks = tasks,
};
