/* weft-omp task reductions: taskgroup task_reduction(...), in_reduction
 * on tasks and taskloops, reduction(task, ...) on parallel, loops,
 * sections and scope.
 *
 * gcc lowers them onto one descriptor per construct, an array of words:
 *   [0] number of variables, [1] bytes of one thread's private copies,
 *   [2] their alignment (the runtime replaces it with the copies' base),
 *   [3] allocator (-1: malloc), [4] next descriptor (the runtime sets it
 *   to the registration still visible behind this one), [5] [6] the
 *   runtime's (here: the lookup table, the end of the copies),
 *   then per variable three words: its address, the offset of its copy
 *   within a thread's copies (increasing), and one for the runtime (here:
 *   the descriptor it belongs to).
 * The runtime allocates nthreads zeroed copies; thread k of the team uses
 * copy k. The compiled code initialises a copy on first use, marks it
 * used, and after the construct combines the marked copies itself (for a
 * taskloop or a taskgroup only when [2] is not 0), then unregisters.
 *
 * GOMP_task_reduction_remap maps the address of an original variable, or
 * of any thread's copy of one, to the running thread's copy: by a lookup
 * table from the addresses of every visible registration, else by the
 * range of copies the address falls into. Which registrations are visible
 * to a task: its innermost taskgroup's (inherited from the enclosing one
 * when the group opened), else its team's (parallel reduction(task, ...)). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "omp_internal.h"

enum { D_CNT, D_SIZE, D_BASE, D_ALLOC, D_NEXT, D_TABLE, D_END, D_ENTRIES };
#define ENT(d, j) ((d) + D_ENTRIES + 3 * (j))

/* Open addressing from a variable's address to its entry. */
struct red_table {
    size_t mask;
    size_t count;                   /* entries in it */
    uintptr_t *slot[];
};

static inline size_t red_hash(uintptr_t addr, size_t mask)
{
    return (size_t)(((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* Insert entry e, replacing one of the same address (an inner
 * registration of a variable hides the outer one). */
static void red_put(struct red_table *tb, uintptr_t *e)
{
    size_t i = red_hash(e[0], tb->mask);
    while (tb->slot[i] && tb->slot[i][0] != e[0]) i = (i + 1) & tb->mask;
    tb->count += !tb->slot[i];
    tb->slot[i] = e;
}

static uintptr_t *red_get(const struct red_table *tb, uintptr_t addr)
{
    for (size_t i = red_hash(addr, tb->mask);; i = (i + 1) & tb->mask) {
        uintptr_t *e = tb->slot[i];
        if (!e || e[0] == addr) return e;
    }
}

uintptr_t *omp_task_reductions(const struct omp_task *t)
{
    struct omp_taskgroup *g = omp_task_group(t);
    if (g) return g->reductions;
    return t->team ? t->team->task_reductions : NULL;
}

/* The copies of `data` and of the descriptors chained after it (up to
 * `old`): allocated here, or the team's (base..end) when another thread
 * of a worksharing construct allocated them. */
static void red_register(uintptr_t *data, uintptr_t *old, unsigned nthreads, uintptr_t base, uintptr_t end)
{
    size_t total = 0;
    uintptr_t *d = data;
    for (;;) {
        if (d[D_SIZE] == 0) omp_fatal("task reduction with no data");
        if (base) {
            d[D_BASE] = base;
            d[D_END] = end;
        } else {
            size_t align = d[D_BASE] < sizeof(void *) ? sizeof(void *) : d[D_BASE];
            if (align & (align - 1)) omp_fatal("task reduction alignment is not a power of two");
            size_t size = d[D_SIZE] * nthreads;
            size_t alloc = (size + align - 1) & ~(align - 1);
            void *p = aligned_alloc(align, alloc);
            if (!p) omp_fatal("out of memory allocating task reduction copies");
            memset(p, 0, alloc);
            d[D_BASE] = (uintptr_t)p;
            d[D_END] = (uintptr_t)p + size;
        }
        d[D_TABLE] = 0; /* marks a descriptor after the first of a registration */
        total += d[D_CNT];
        for (size_t j = 0; j < d[D_CNT]; j++) ENT(d, j)[2] = (uintptr_t)d;
        if (!d[D_NEXT]) break;
        d = (uintptr_t *)d[D_NEXT];
    }
    d[D_NEXT] = (uintptr_t)old;
    struct red_table *prev = old ? (struct red_table *)old[D_TABLE] : NULL;
    if (prev) total += prev->count;
    size_t n = 8;
    while (n < 2 * total) n *= 2;
    struct red_table *tb = calloc(1, sizeof *tb + n * sizeof tb->slot[0]);
    if (!tb) omp_fatal("out of memory registering task reductions");
    tb->mask = n - 1;
    if (prev)
        for (size_t i = 0; i <= prev->mask; i++)
            if (prev->slot[i]) red_put(tb, prev->slot[i]);
    for (d = data;; d = (uintptr_t *)d[D_NEXT]) {
        for (size_t j = 0; j < d[D_CNT]; j++) red_put(tb, ENT(d, j));
        if (d[D_NEXT] == (uintptr_t)old) break;
    }
    data[D_TABLE] = (uintptr_t)tb;
}

void omp_reductions_register(uintptr_t *data, uintptr_t *old, unsigned nthreads)
{
    red_register(data, old, nthreads, 0, 0);
}

/* Free a registration: its table, and with `copies` its copies. */
static void red_unregister(uintptr_t *data, bool copies)
{
    if (!data) return;
    free((void *)data[D_TABLE]);
    uintptr_t *d = data;
    do {
        if (copies) free((void *)d[D_BASE]);
        d = (uintptr_t *)d[D_NEXT];
    } while (d && !d[D_TABLE]);
    data[D_TABLE] = 0;
}

OMP_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    struct omp_thread *thr = omp_self();
    struct omp_taskgroup *g = thr->task->taskgroup;
    if (!g) omp_fatal("GOMP_taskgroup_reduction_register outside a taskgroup");
    red_register(data, g->reductions, thr->team ? thr->team->nthreads : 1, 0, 0);
    g->reductions = data;
}

OMP_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t *data) { red_unregister(data, true); }

void omp_ws_reductions(struct omp_thread *thr, struct omp_ws *ws, bool first, uintptr_t *reductions)
{
    if (!reductions) return;
    struct omp_taskgroup *g = omp_taskgroup_begin(thr, true);
    if (first) {
        red_register(reductions, g->reductions, thr->team->nthreads, 0, 0);
        ws->red_base = reductions[D_BASE];
        ws->red_end = reductions[D_END];
    } else {
        red_register(reductions, g->reductions, thr->team->nthreads, ws->red_base, ws->red_end);
    }
    g->reductions = reductions;
}

/* The end of a worksharing construct with reduction(task, ...): its tasks
 * complete, thread 0 (which has combined the copies) frees them, and,
 * unless the construct was cancelled, the team meets at a barrier. */
OMP_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    struct omp_thread *thr = omp_self();
    struct omp_taskgroup *g = thr->task->taskgroup;
    if (!g || !g->workshare) omp_fatal("GOMP_workshare_task_reduction_unregister outside its construct");
    uintptr_t *data = g->reductions;
    omp_taskgroup_finish(thr);
    red_unregister(data, thr->num == 0);
    if (!cancelled) omp_team_barrier(thr, false);
}

/* The entry of the variable whose copy lies at offset `off` of d's copies. */
static uintptr_t *red_by_offset(uintptr_t *d, uintptr_t off)
{
    size_t lo = 0, hi = d[D_CNT];
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        uintptr_t o = ENT(d, m)[1];
        if (o == off) return ENT(d, m);
        if (o < off) lo = m + 1;
        else hi = m;
    }
    return NULL;
}

/* ptrs[0..cnt) hold addresses of original variables or of copies of them:
 * each becomes the running thread's copy; for i < cntorig, ptrs[cnt + i]
 * gets the original's address. */
OMP_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    struct omp_thread *thr = omp_self();
    uintptr_t *data = omp_task_reductions(thr->task);
    if (!data) omp_fatal("in_reduction with no task reduction visible");
    struct red_table *tb = (struct red_table *)data[D_TABLE];
    uintptr_t id = thr->num;
    for (size_t i = 0; i < cnt; i++) {
        uintptr_t p = (uintptr_t)ptrs[i], off;
        uintptr_t *e = red_get(tb, p), *d;
        if (e) {
            d = (uintptr_t *)e[2];
            off = e[1];
        } else {
            for (d = data; d && !(p >= d[D_BASE] && p < d[D_END]); d = (uintptr_t *)d[D_NEXT]) {
            }
            if (!d) omp_fatal("in_reduction of a variable no task reduction names");
            off = (p - d[D_BASE]) % d[D_SIZE];
            if (i < cntorig && !(e = red_by_offset(d, off)))
                omp_fatal("in_reduction of a variable no task reduction names");
        }
        if (id >= (d[D_END] - d[D_BASE]) / d[D_SIZE])
            omp_fatal("in_reduction in a thread outside the reduction's team");
        ptrs[i] = (void *)(d[D_BASE] + id * d[D_SIZE] + off);
        if (i < cntorig) ptrs[cnt + i] = (void *)e[0];
    }
}
