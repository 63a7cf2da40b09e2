// The applications (apps.h) with oneTBB, as its users write them:
// task_group recursion for fib and N-Queens; for the dataflow kernels
// (sparse LU, CG, Cholesky) a graph of the same tasks whose edges come from
// the blocks each task reads and writes (last writer, readers since), run
// through a task_group with a counter of unfinished predecessors per task.
// Threads = the arena's concurrency; its threads pinned as in the patterns.
#define APPS_MAIN
#include "apps.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#ifdef APPS_HAVE_LAPACKE
#include <cblas.h>
#include <lapacke.h>
#endif

#include "../tbb_pin.h"

static pinned_arena g_arena;

static const char *name() { return "tbb"; }

static void init(int threads) { g_arena.start(threads); }

static void fini() { g_arena.stop(); }

// ---- fib, N-Queens: recursion over task_group ----

static long fib_rec(int n, int depth, int cutoff)
{
    if (n < 2) return n;
    if (cutoff && depth >= cutoff) return app_fib_seq(n);
    long x, y;
    tbb::task_group g;
    g.run([&] { x = fib_rec(n - 1, depth + 1, cutoff); });
    g.run([&] { y = fib_rec(n - 2, depth + 1, cutoff); });
    g.wait();
    return x + y;
}

static long fib(int n, int cutoff)
{
    long v = 0;
    g_arena->execute([&] { v = fib_rec(n, 0, cutoff); });
    return v;
}

static long nq_found[APP_SLOTS][8]; // per arena slot, a line each

static void nq_rec(int n, int j, const signed char *a)
{
    if (j == n) {
        nq_found[tbb::this_task_arena::current_thread_index()][0]++;
        return;
    }
    tbb::task_group g;
    for (int i = 0; i < n; i++)
        g.run([=] {
            signed char b[APP_NQ_MAX];
            memcpy(b, a, (size_t)j);
            b[j] = (signed char)i;
            if (app_nq_ok(j + 1, b)) nq_rec(n, j + 1, b);
        });
    g.wait();
}

static long nqueens(int n)
{
    memset(nq_found, 0, sizeof nq_found);
    signed char a[APP_NQ_MAX];
    g_arena->execute([&] { nq_rec(n, 0, a); });
    return app_slots_sum(nq_found);
}

// ---- a dataflow graph over task_group ----

class dataflow {
  public:
    // A task reading the locations `in` and writing `out` (inout counts as out).
    void add(std::function<void()> fn, const std::vector<const void *> &in, const std::vector<const void *> &out)
    {
        nodes_.emplace_back();
        node *n = &nodes_.back();
        n->fn = std::move(fn);
        for (const void *a : in) {
            track &t = last_[a];
            if (t.writer) edge(t.writer, n);
            t.readers.push_back(n);
        }
        for (const void *a : out) {
            track &t = last_[a];
            if (t.writer) edge(t.writer, n);
            for (node *r : t.readers) edge(r, n);
            t.writer = n;
            t.readers.clear();
        }
    }
    void run()
    {
        std::vector<node *> roots; // all found before any runs: a running task may ready another
        for (node &n : nodes_)
            if (n.pending.load(std::memory_order_relaxed) == 0) roots.push_back(&n);
        tbb::task_group g;
        for (node *n : roots) g.run([this, n, &g] { exec(n, g); });
        g.wait();
    }

  private:
    struct node {
        std::function<void()> fn;
        std::atomic<int> pending{0};
        std::vector<node *> succ;
    };
    struct track {
        node *writer = nullptr;
        std::vector<node *> readers;
    };
    static void edge(node *from, node *to)
    {
        if (from == to || (!from->succ.empty() && from->succ.back() == to)) return;
        from->succ.push_back(to);
        to->pending.fetch_add(1, std::memory_order_relaxed);
    }
    void exec(node *n, tbb::task_group &g)
    {
        n->fn();
        for (node *s : n->succ)
            if (s->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) g.run([this, s, &g] { exec(s, g); });
    }
    std::deque<node> nodes_;
    std::unordered_map<const void *, track> last_;
};

static void sparselu(struct app_lu *m)
{
    int nb = m->nb, bs = m->bs;
    double **a = m->blk;
    g_arena->execute([&] {
        dataflow df;
        for (int k = 0; k < nb; k++) {
            double *d = a[k * nb + k];
            df.add([=] { app_lu0(d, bs); }, {}, {d});
            for (int j = k + 1; j < nb; j++)
                if (double *c = a[k * nb + j]) df.add([=] { app_fwd(d, c, bs); }, {d}, {c});
            for (int i = k + 1; i < nb; i++)
                if (double *r = a[i * nb + k]) df.add([=] { app_bdiv(d, r, bs); }, {d}, {r});
            for (int i = k + 1; i < nb; i++) {
                double *r = a[i * nb + k];
                if (!r) continue;
                for (int j = k + 1; j < nb; j++) {
                    double *c = a[k * nb + j];
                    if (!c) continue;
                    if (!a[i * nb + j]) a[i * nb + j] = app_lu_block(bs);
                    double *x = a[i * nb + j];
                    df.add([=] { app_bmod(r, c, x, bs); }, {r, c}, {x});
                }
            }
        }
        df.run();
    });
}

static void cg(struct app_cg *c)
{
    int nb = c->nb, bs = c->bs;
    g_arena->execute([&] {
        dataflow df;
        for (int it = 0; it < c->iters; it++) {
            for (int b = 0; b < nb; b++) {
                int lo = b > 0 ? b - 1 : b, hi = b < nb - 1 ? b + 1 : b;
                df.add([=] { app_cg_spmv(c, b); }, {&c->p[lo * bs], &c->p[b * bs], &c->p[hi * bs]},
                       {&c->ap[b * bs]});
                df.add([=] { app_cg_pap(c, b); }, {&c->p[b * bs], &c->ap[b * bs]}, {&c->pap_part[b]});
            }
            std::vector<const void *> parts;
            for (int b = 0; b < nb; b++) parts.push_back(&c->pap_part[b]);
            df.add([=] { app_cg_alpha(c); }, parts, {&c->alpha});
            for (int b = 0; b < nb; b++)
                df.add([=] { app_cg_update(c, b); }, {&c->alpha, &c->p[b * bs], &c->ap[b * bs]},
                       {&c->x[b * bs], &c->r[b * bs], &c->rr_part[b]});
            parts.clear();
            for (int b = 0; b < nb; b++) parts.push_back(&c->rr_part[b]);
            df.add([=] { app_cg_beta(c); }, parts, {&c->beta});
            for (int b = 0; b < nb; b++)
                df.add([=] { app_cg_dir(c, b); }, {&c->beta, &c->r[b * bs]}, {&c->p[b * bs]});
        }
        df.run();
    });
}

#ifdef APPS_HAVE_LAPACKE
static void cholesky(struct app_chol *ch)
{
    int nt = ch->nt, ts = ch->ts;
    double **t = ch->tile;
    g_arena->execute([&] {
        dataflow df;
        for (int k = 0; k < nt; k++) {
            double *akk = t[k * nt + k];
            df.add([=] { BENCH_CHECK(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', ts, akk, ts) == 0); }, {}, {akk});
            for (int i = k + 1; i < nt; i++) {
                double *aik = t[i * nt + k];
                df.add([=] {
                    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, ts, ts, 1.0, akk,
                                ts, aik, ts);
                }, {akk}, {aik});
            }
            for (int i = k + 1; i < nt; i++) {
                double *aik = t[i * nt + k], *aii = t[i * nt + i];
                df.add([=] { cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, ts, ts, -1.0, aik, ts, 1.0, aii, ts); },
                       {aik}, {aii});
                for (int j = k + 1; j < i; j++) {
                    double *ajk = t[j * nt + k], *aij = t[i * nt + j];
                    df.add([=] {
                        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ts, ts, ts, -1.0, aik, ts, ajk, ts, 1.0,
                                    aij, ts);
                    }, {aik, ajk}, {aij});
                }
            }
        }
        df.run();
    });
}
#endif

static long task_hits[APP_SLOTS][8]; // per arena slot, a line each

static void tasks(int n, int batches)
{
    memset(task_hits, 0, sizeof task_hits);
    g_arena->execute([&] {
        for (int b = 0; b < batches; b++) {
            tbb::task_group g;
            for (int i = 0; i < n; i++) g.run([] { task_hits[tbb::this_task_arena::current_thread_index()][0]++; });
            g.wait();
        }
    });
    BENCH_CHECK(app_slots_sum(task_hits) == (long)n * batches);
}

static struct app_runtime make_rt()
{
    struct app_runtime rt = {};
    rt.name = name;
    rt.init = init;
    rt.fini = fini;
    rt.fib = fib;
    rt.nqueens = nqueens;
    rt.sparselu = sparselu;
    rt.cg = cg;
#ifdef APPS_HAVE_LAPACKE
    rt.cholesky = cholesky;
#endif
    rt.tasks = tasks;
    return rt;
}
const struct app_runtime app_rt = make_rt();
