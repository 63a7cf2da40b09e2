/* weft-omp work-sharing: loops of every schedule (long and unsigned long
 * long), ordered, doacross, sections, single, scope, cancellation.
 *
 * The threads of a team meet the same work-sharing regions in the same
 * order, so each thread counts the ones it has entered (ws_count) and the
 * n-th uses slot n % OMP_WS_RING of the team: the first thread there sets
 * it up, the others wait until it is ready, and the last to leave clears
 * it for region n + OMP_WS_RING. With `nowait`, a thread may run up to
 * OMP_WS_RING regions ahead of the slowest before it waits for a slot.
 *
 * Loops are normalised: iteration k of n is start + k * incr, and a chunk
 * is a range [lo, hi) of k, turned back into bounds for the caller. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_internal.h"

/* GOMP_cancel's `which` (GCC's gomp-constants.h). */
#define CANCEL_PARALLEL 1
#define CANCEL_LOOP 2
#define CANCEL_SECTIONS 4
#define CANCEL_TASKGROUP 8

/* ---------- slots ---------- */

static void ws_clear(struct omp_ws *ws)
{
    free(ws->mem);
    free(ws->counts);
    free(ws->ucounts);
    free((void *)ws->posted);
    ws->mem = NULL;
    ws->counts = NULL;
    ws->ucounts = NULL;
    ws->posted = NULL;
    ws->ncounts = 0;
    ws->ordered = false;
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->ordered_pos, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->copy, NULL, memory_order_relaxed);
    atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
}

void omp_ws_team_init(struct omp_team *t)
{
    for (unsigned i = 0; i < OMP_WS_RING; i++) atomic_store_explicit(&t->ws[i].seq, i, memory_order_relaxed);
    atomic_store_explicit(&t->ws_hi, 0, memory_order_relaxed);
}

/* The n-th work-sharing region of the team's current parallel region is
 * set up: slots past the highest one so used need no reset. */
void omp_ws_note_setup(struct omp_team *t, unsigned long n)
{
    unsigned long hi = atomic_load_explicit(&t->ws_hi, memory_order_relaxed);
    while (hi < n + 1 &&
           !atomic_compare_exchange_weak_explicit(&t->ws_hi, &hi, n + 1, memory_order_relaxed, memory_order_relaxed)) {
    }
}

void omp_ws_team_fini(struct omp_team *t)
{
    for (unsigned i = 0; i < OMP_WS_RING; i++) ws_clear(&t->ws[i]);
}

/* Back to the first region, for the team's next parallel region. Slots
 * are clear already unless the last region was cancelled; only those the
 * last region used (ws_hi) can have moved on. A region with static loops
 * only (they use no slot) resets nothing. */
void omp_ws_team_reset(struct omp_team *t)
{
    unsigned long hi = atomic_load_explicit(&t->ws_hi, memory_order_relaxed);
    if (!hi) return;
    atomic_store_explicit(&t->ws_hi, 0, memory_order_relaxed);
    for (unsigned i = 0; i < OMP_WS_RING && i < hi; i++) {
        struct omp_ws *ws = &t->ws[i];
        if (atomic_load_explicit(&ws->state, memory_order_relaxed) ||
            atomic_load_explicit(&ws->left, memory_order_relaxed)) {
            ws_clear(ws);
            atomic_store_explicit(&ws->state, 0, memory_order_relaxed);
        }
        atomic_store_explicit(&ws->seq, i, memory_order_relaxed);
    }
}

/* Enter the calling thread's next work-sharing region. *first: this
 * thread sets it up and must call ws_ready(). */
static struct omp_ws *ws_enter(struct omp_thread *thr, bool *first)
{
    struct omp_team *t = thr->team;
    unsigned long n = thr->ws_count++;
    struct omp_ws *ws = &t->ws[n % OMP_WS_RING];
    while (atomic_load_explicit(&ws->seq, memory_order_acquire) != n) {
        uint32_t ev = atomic_load_explicit(&t->event, memory_order_acquire);
        if (atomic_load_explicit(&ws->seq, memory_order_acquire) == n) break;
        omp_wait(&t->event, ev);
    }
    thr->ws = ws;
    thr->static_trip = 0;
    thr->chunk_lo = thr->chunk_hi = 0;
    uint32_t zero = 0;
    if (atomic_compare_exchange_strong_explicit(&ws->state, &zero, 1, memory_order_acq_rel, memory_order_acquire)) {
        omp_ws_note_setup(t, n);
        *first = true;
        return ws;
    }
    *first = false;
    while (atomic_load_explicit(&ws->state, memory_order_acquire) != 2) omp_wait(&ws->state, 1);
    return ws;
}

static void ws_ready(struct omp_ws *ws)
{
    atomic_store_explicit(&ws->state, 2, memory_order_release);
    omp_wake(&ws->state);
}

static void ws_leave(struct omp_thread *thr)
{
    struct omp_ws *ws = thr->ws;
    if (!ws) return;
    thr->ws = NULL;
    struct omp_team *t = thr->team;
    unsigned long left = atomic_fetch_add_explicit(&ws->left, 1, memory_order_acq_rel) + 1;
    OMP_ASSERT(left <= t->nthreads); /* each thread leaves a construct once */
    if (left == t->nthreads) {
        unsigned long seq = atomic_load_explicit(&ws->seq, memory_order_relaxed);
        ws_clear(ws);
        atomic_store_explicit(&ws->state, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->seq, seq + OMP_WS_RING, memory_order_release);
        omp_team_event(t);
    }
}

/* ---------- loops ---------- */

static unsigned long ceil_div(unsigned long a, unsigned long b) { return a / b + (a % b != 0); }

/* The schedule a loop runs with: runtime and auto resolved. */
static int sched_kind(int sched, long *chunk)
{
    int kind = sched & ~OMP_SCHED_MONOTONIC;
    if (kind == OMP_SCHED_RUNTIME) {
        struct omp_icv *icv = omp_icv();
        kind = icv->sched & ~OMP_SCHED_MONOTONIC;
        *chunk = icv->sched_chunk;
    }
    if (kind == OMP_SCHED_AUTO || kind < OMP_SCHED_STATIC || kind > OMP_SCHED_AUTO) kind = OMP_SCHED_STATIC;
    if (kind != OMP_SCHED_STATIC && *chunk < 1) *chunk = 1;
    return kind;
}

static void loop_init(struct omp_ws *ws, int kind, long chunk, long start, long end, long incr, bool ordered)
{
    ws->ull = false;
    ws->kind = kind;
    ws->chunk = chunk;
    ws->ordered = ordered;
    ws->start = start;
    ws->end = end;
    ws->incr = incr;
    if (incr > 0)
        ws->n = start < end ? ceil_div((unsigned long)end - (unsigned long)start, (unsigned long)incr) : 0;
    else if (incr < 0)
        ws->n = start > end ? ceil_div((unsigned long)start - (unsigned long)end, 0ul - (unsigned long)incr) : 0;
    else
        ws->n = 0;
}

static void loop_init_ull(struct omp_ws *ws, int kind, long chunk, bool up, unsigned long long start,
                          unsigned long long end, unsigned long long incr, bool ordered)
{
    ws->ull = true;
    ws->kind = kind;
    ws->chunk = chunk;
    ws->ordered = ordered;
    ws->ustart = start;
    ws->uend = end;
    ws->uincr = incr;
    if (incr == 0)
        ws->n = 0;
    else if (up)
        ws->n = start < end ? ceil_div(end - start, incr) : 0;
    else
        ws->n = start > end ? ceil_div(start - end, 0ull - incr) : 0;
}

/* The next chunk [lo, hi) of iterations for `thr`. */
static bool next_range(struct omp_thread *thr, struct omp_ws *ws, unsigned long *lo, unsigned long *hi)
{
    unsigned long n = ws->n, nth = thr->team->nthreads;
    if (atomic_load_explicit(&thr->team->ws_cancelled, memory_order_relaxed)) return false;
    switch (ws->kind) {
    case OMP_SCHED_STATIC:
        if (ws->chunk <= 0) { /* one block per thread, the first n % nth one larger */
            if (thr->static_trip++) return false;
            unsigned long q = n / nth, r = n % nth, i = thr->num;
            unsigned long b = i < r ? i * (q + 1) : r * (q + 1) + (i - r) * q;
            unsigned long e = b + q + (i < r);
            if (b >= e) return false;
            *lo = b;
            *hi = e;
            return true;
        } else { /* chunk k*nth + i for the k-th call of thread i */
            unsigned long c = (unsigned long)ws->chunk, chunks = ceil_div(n, c);
            unsigned long trip = thr->static_trip++;
            if (trip > chunks / nth + 1) return false;
            unsigned long k = trip * nth + thr->num;
            if (k >= chunks) return false;
            *lo = k * c;
            *hi = n - *lo < c ? n : *lo + c;
            return true;
        }
    case OMP_SCHED_DYNAMIC: {
        unsigned long c = (unsigned long)ws->chunk, b;
        if (n < ULONG_MAX / 2 && c < ULONG_MAX / 2 / (nth + 1)) {
            b = atomic_fetch_add_explicit(&ws->next, c, memory_order_relaxed);
            if (b >= n) return false;
        } else { /* near the top of the range: never step past n */
            b = atomic_load_explicit(&ws->next, memory_order_relaxed);
            do {
                if (b >= n) return false;
            } while (!atomic_compare_exchange_weak_explicit(&ws->next, &b, n - b < c ? n : b + c,
                                                             memory_order_relaxed, memory_order_relaxed));
        }
        *lo = b;
        *hi = n - b < c ? n : b + c;
        return true;
    }
    default: { /* guided: a share of what is left, at least the chunk */
        unsigned long c = (unsigned long)ws->chunk, b = atomic_load_explicit(&ws->next, memory_order_relaxed), q;
        do {
            if (b >= n) return false;
            unsigned long rem = n - b;
            q = ceil_div(rem, nth);
            if (q < c) q = c;
            if (q > rem) q = rem;
        } while (!atomic_compare_exchange_weak_explicit(&ws->next, &b, b + q, memory_order_relaxed,
                                                         memory_order_relaxed));
        *lo = b;
        *hi = b + q;
        return true;
    }
    }
}

/* Ordered loops: the chunk holding iteration ordered_pos has the turn.
 * A thread gives the turn on when it takes its next chunk or leaves. */
static void ordered_wait_turn(struct omp_ws *ws, unsigned long pos)
{
    while (atomic_load_explicit(&ws->ordered_pos, memory_order_acquire) != pos) {
        uint32_t ev = atomic_load_explicit(&ws->ordered_event, memory_order_acquire);
        if (atomic_load_explicit(&ws->ordered_pos, memory_order_acquire) == pos) break;
        omp_wait(&ws->ordered_event, ev);
    }
}

static void ordered_release(struct omp_thread *thr, struct omp_ws *ws)
{
    if (thr->chunk_hi == thr->chunk_lo) return;
    ordered_wait_turn(ws, thr->chunk_lo);
    atomic_store_explicit(&ws->ordered_pos, thr->chunk_hi, memory_order_release);
    atomic_fetch_add_explicit(&ws->ordered_event, 1, memory_order_seq_cst);
    omp_wake_rmw(&ws->ordered_event);
    thr->chunk_lo = thr->chunk_hi = 0;
}

static bool fetch(struct omp_thread *thr, struct omp_ws *ws, unsigned long *lo, unsigned long *hi)
{
    if (ws->ordered) ordered_release(thr, ws);
    if (!next_range(thr, ws, lo, hi)) return false;
    if (ws->ordered) {
        thr->chunk_lo = *lo;
        thr->chunk_hi = *hi;
    }
    return true;
}

static bool next_long(long *istart, long *iend)
{
    struct omp_thread *thr = omp_self();
    struct omp_ws *ws = thr->ws;
    unsigned long lo, hi;
    if (!ws || !fetch(thr, ws, &lo, &hi)) return false;
    *istart = (long)((unsigned long)ws->start + lo * (unsigned long)ws->incr);
    *iend = hi == ws->n ? ws->end : (long)((unsigned long)ws->start + hi * (unsigned long)ws->incr);
    return true;
}

static bool next_ull(unsigned long long *istart, unsigned long long *iend)
{
    struct omp_thread *thr = omp_self();
    struct omp_ws *ws = thr->ws;
    unsigned long lo, hi;
    if (!ws || !fetch(thr, ws, &lo, &hi)) return false;
    *istart = ws->ustart + lo * ws->uincr;
    *iend = hi == ws->n ? ws->uend : ws->ustart + hi * ws->uincr;
    return true;
}

/* The team buffer of GOMP_loop_start and GOMP_sections2_start: on entry
 * *mem holds its size; every thread gets the same zeroed memory. */
static void ws_mem(struct omp_ws *ws, bool first, void **mem)
{
    if (!mem) return;
    if (first) {
        size_t size = (size_t)(uintptr_t)*mem;
        ws->mem = calloc(1, size ? size : 1);
        if (!ws->mem) omp_fatal("out of memory in a work-sharing construct");
    }
    *mem = ws->mem;
}

/* What GCC 9+'s combined entries add: the team buffer and the task
 * reductions (taskred.c), set up before the first thread makes ws ready. */
static void ws_extras(struct omp_thread *thr, struct omp_ws *ws, bool first, void **mem, uintptr_t *reductions)
{
    ws_mem(ws, first, mem);
    omp_ws_reductions(thr, ws, first, reductions);
}

static bool start_long(int sched, long chunk, bool ordered, long start, long end, long incr, long *istart,
                       long *iend, void **mem, uintptr_t *reductions)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) {
        int kind = sched_kind(sched, &chunk);
        loop_init(ws, kind, chunk, start, end, incr, ordered);
    }
    ws_extras(thr, ws, first, mem, reductions);
    if (first) ws_ready(ws);
    if (!istart) return true;
    return next_long(istart, iend);
}

static bool start_ull(int sched, long chunk, bool ordered, bool up, unsigned long long start,
                      unsigned long long end, unsigned long long incr, unsigned long long *istart,
                      unsigned long long *iend, void **mem, uintptr_t *reductions)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) {
        int kind = sched_kind(sched, &chunk);
        loop_init_ull(ws, kind, chunk, up, start, end, incr, ordered);
    }
    ws_extras(thr, ws, first, mem, reductions);
    if (first) ws_ready(ws);
    if (!istart) return true;
    return next_ull(istart, iend);
}

static long chunk_of(unsigned long long c) { return c > LONG_MAX ? LONG_MAX : (long)c; }

/* Signed loops, one entry point per schedule. */
#define LOOP_LONG(name, sched, ordered)                                                                     \
    OMP_EXPORT bool GOMP_loop_##name##_start(long start, long end, long incr, long chunk, long *istart,      \
                                             long *iend)                                                     \
    {                                                                                                        \
        return start_long(sched, chunk, ordered, start, end, incr, istart, iend, NULL, NULL);                      \
    }                                                                                                        \
    OMP_EXPORT bool GOMP_loop_##name##_next(long *istart, long *iend) { return next_long(istart, iend); }
#define LOOP_LONG_RT(name, ordered)                                                                          \
    OMP_EXPORT bool GOMP_loop_##name##_start(long start, long end, long incr, long *istart, long *iend)      \
    {                                                                                                        \
        return start_long(OMP_SCHED_RUNTIME, 0, ordered, start, end, incr, istart, iend, NULL, NULL);              \
    }                                                                                                        \
    OMP_EXPORT bool GOMP_loop_##name##_next(long *istart, long *iend) { return next_long(istart, iend); }

LOOP_LONG(static, OMP_SCHED_STATIC, false)
LOOP_LONG(dynamic, OMP_SCHED_DYNAMIC, false)
LOOP_LONG(guided, OMP_SCHED_GUIDED, false)
LOOP_LONG(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC, false)
LOOP_LONG(nonmonotonic_guided, OMP_SCHED_GUIDED, false)
LOOP_LONG_RT(runtime, false)
LOOP_LONG_RT(nonmonotonic_runtime, false)
LOOP_LONG_RT(maybe_nonmonotonic_runtime, false)
LOOP_LONG(ordered_static, OMP_SCHED_STATIC, true)
LOOP_LONG(ordered_dynamic, OMP_SCHED_DYNAMIC, true)
LOOP_LONG(ordered_guided, OMP_SCHED_GUIDED, true)
LOOP_LONG_RT(ordered_runtime, true)

#define LOOP_ULL(name, sched, ordered)                                                                       \
    OMP_EXPORT bool GOMP_loop_ull_##name##_start(bool up, unsigned long long start, unsigned long long end,  \
                                                 unsigned long long incr, unsigned long long chunk,          \
                                                 unsigned long long *istart, unsigned long long *iend)       \
    {                                                                                                        \
        return start_ull(sched, chunk_of(chunk), ordered, up, start, end, incr, istart, iend, NULL, NULL);         \
    }                                                                                                        \
    OMP_EXPORT bool GOMP_loop_ull_##name##_next(unsigned long long *istart, unsigned long long *iend)        \
    {                                                                                                        \
        return next_ull(istart, iend);                                                                       \
    }
#define LOOP_ULL_RT(name, ordered)                                                                           \
    OMP_EXPORT bool GOMP_loop_ull_##name##_start(bool up, unsigned long long start, unsigned long long end,  \
                                                 unsigned long long incr, unsigned long long *istart,        \
                                                 unsigned long long *iend)                                   \
    {                                                                                                        \
        return start_ull(OMP_SCHED_RUNTIME, 0, ordered, up, start, end, incr, istart, iend, NULL, NULL);           \
    }                                                                                                        \
    OMP_EXPORT bool GOMP_loop_ull_##name##_next(unsigned long long *istart, unsigned long long *iend)        \
    {                                                                                                        \
        return next_ull(istart, iend);                                                                       \
    }

LOOP_ULL(static, OMP_SCHED_STATIC, false)
LOOP_ULL(dynamic, OMP_SCHED_DYNAMIC, false)
LOOP_ULL(guided, OMP_SCHED_GUIDED, false)
LOOP_ULL(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC, false)
LOOP_ULL(nonmonotonic_guided, OMP_SCHED_GUIDED, false)
LOOP_ULL_RT(runtime, false)
LOOP_ULL_RT(nonmonotonic_runtime, false)
LOOP_ULL_RT(maybe_nonmonotonic_runtime, false)
LOOP_ULL(ordered_static, OMP_SCHED_STATIC, true)
LOOP_ULL(ordered_dynamic, OMP_SCHED_DYNAMIC, true)
LOOP_ULL(ordered_guided, OMP_SCHED_GUIDED, true)
LOOP_ULL_RT(ordered_runtime, true)

/* GCC 9+'s combined entries: any schedule, a team buffer, task reductions. */
OMP_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend,
                                uintptr_t *reductions, void **mem)
{
    return start_long((int)sched, chunk, false, start, end, incr, istart, iend, mem, reductions);
}

OMP_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk, long *istart,
                                        long *iend, uintptr_t *reductions, void **mem)
{
    return start_long((int)sched, chunk, true, start, end, incr, istart, iend, mem, reductions);
}

OMP_EXPORT bool GOMP_loop_ull_start(bool up, unsigned long long start, unsigned long long end,
                                    unsigned long long incr, long sched, unsigned long long chunk,
                                    unsigned long long *istart, unsigned long long *iend, uintptr_t *reductions,
                                    void **mem)
{
    return start_ull((int)sched, chunk_of(chunk), false, up, start, end, incr, istart, iend, mem, reductions);
}

OMP_EXPORT bool GOMP_loop_ull_ordered_start(bool up, unsigned long long start, unsigned long long end,
                                            unsigned long long incr, long sched, unsigned long long chunk,
                                            unsigned long long *istart, unsigned long long *iend,
                                            uintptr_t *reductions, void **mem)
{
    return start_ull((int)sched, chunk_of(chunk), true, up, start, end, incr, istart, iend, mem, reductions);
}

OMP_EXPORT void GOMP_loop_end_nowait(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_ws *ws = thr->ws;
    if (ws && ws->ordered) ordered_release(thr, ws);
    ws_leave(thr);
}

OMP_EXPORT void GOMP_loop_end(void)
{
    GOMP_loop_end_nowait();
    omp_team_barrier(omp_self(), false);
}

OMP_EXPORT bool GOMP_loop_end_cancel(void)
{
    GOMP_loop_end_nowait();
    return omp_team_barrier(omp_self(), true);
}

/* ---------- ordered ---------- */

OMP_EXPORT void GOMP_ordered_start(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_ws *ws = thr->ws;
    if (!ws || !ws->ordered || thr->chunk_hi == thr->chunk_lo) return;
    ordered_wait_turn(ws, thr->chunk_lo);
}

OMP_EXPORT void GOMP_ordered_end(void) {}

/* ---------- doacross (ordered(n) with depend(sink/source)) ---------- */

/* The loop shares out the outermost dimension; posted[i] says how far
 * iteration i of it has got in the inner ones (flattened, plus one). */
static unsigned long flat_inner(struct omp_ws *ws, const long *v)
{
    unsigned long f = 0;
    for (unsigned d = 1; d < ws->ncounts; d++) f = f * (unsigned long)ws->counts[d] + (unsigned long)v[d];
    return f;
}

static unsigned long flat_inner_ull(struct omp_ws *ws, const unsigned long long *v)
{
    unsigned long f = 0;
    for (unsigned d = 1; d < ws->ncounts; d++) f = f * ws->ucounts[d] + v[d];
    return f;
}

static void doacross_setup(struct omp_ws *ws, unsigned ncounts, const long *counts, const unsigned long long *ucounts)
{
    ws->ncounts = ncounts;
    unsigned long outer = counts ? (counts[0] > 0 ? (unsigned long)counts[0] : 0) : ucounts[0];
    if (counts) {
        ws->counts = malloc(ncounts * sizeof *ws->counts);
        if (!ws->counts) omp_fatal("out of memory in a doacross loop");
        memcpy(ws->counts, counts, ncounts * sizeof *ws->counts);
    } else {
        ws->ucounts = malloc(ncounts * sizeof *ws->ucounts);
        if (!ws->ucounts) omp_fatal("out of memory in a doacross loop");
        memcpy(ws->ucounts, ucounts, ncounts * sizeof *ws->ucounts);
    }
    ws->posted = calloc(outer ? outer : 1, sizeof *ws->posted);
    if (!ws->posted) omp_fatal("out of memory in a doacross loop");
}

static bool doacross_start(unsigned ncounts, long *counts, int sched, long chunk, long *istart, long *iend,
                           void **mem, uintptr_t *reductions)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) {
        int kind = sched_kind(sched, &chunk);
        loop_init(ws, kind, chunk, 0, counts[0], 1, false);
        doacross_setup(ws, ncounts, counts, NULL);
    }
    ws_extras(thr, ws, first, mem, reductions);
    if (first) ws_ready(ws);
    if (!istart) return true;
    return next_long(istart, iend);
}

static bool doacross_start_ull(unsigned ncounts, unsigned long long *counts, int sched, long chunk,
                               unsigned long long *istart, unsigned long long *iend, void **mem, uintptr_t *reductions)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) {
        int kind = sched_kind(sched, &chunk);
        loop_init_ull(ws, kind, chunk, true, 0, counts[0], 1, false);
        doacross_setup(ws, ncounts, NULL, counts);
    }
    ws_extras(thr, ws, first, mem, reductions);
    if (first) ws_ready(ws);
    if (!istart) return true;
    return next_ull(istart, iend);
}

#define DOACROSS(name, sched)                                                                                \
    OMP_EXPORT bool GOMP_loop_doacross_##name##_start(unsigned ncounts, long *counts, long chunk, long *istart, \
                                                      long *iend)                                            \
    {                                                                                                        \
        return doacross_start(ncounts, counts, sched, chunk, istart, iend, NULL, NULL);                            \
    }                                                                                                        \
    OMP_EXPORT bool GOMP_loop_ull_doacross_##name##_start(unsigned ncounts, unsigned long long *counts,      \
                                                          unsigned long long chunk, unsigned long long *istart, \
                                                          unsigned long long *iend)                          \
    {                                                                                                        \
        return doacross_start_ull(ncounts, counts, sched, chunk_of(chunk), istart, iend, NULL, NULL);              \
    }
DOACROSS(static, OMP_SCHED_STATIC)
DOACROSS(dynamic, OMP_SCHED_DYNAMIC)
DOACROSS(guided, OMP_SCHED_GUIDED)

OMP_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)
{
    return doacross_start(ncounts, counts, OMP_SCHED_RUNTIME, 0, istart, iend, NULL, NULL);
}

OMP_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts,
                                                     unsigned long long *istart, unsigned long long *iend)
{
    return doacross_start_ull(ncounts, counts, OMP_SCHED_RUNTIME, 0, istart, iend, NULL, NULL);
}

OMP_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk, long *istart,
                                         long *iend, uintptr_t *reductions, void **mem)
{
    return doacross_start(ncounts, counts, (int)sched, chunk, istart, iend, mem, reductions);
}

OMP_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts, long sched,
                                             unsigned long long chunk, unsigned long long *istart,
                                             unsigned long long *iend, uintptr_t *reductions, void **mem)
{
    return doacross_start_ull(ncounts, counts, (int)sched, chunk_of(chunk), istart, iend, mem, reductions);
}

static void doacross_mark(struct omp_ws *ws, unsigned long outer, unsigned long inner)
{
    atomic_store_explicit(&ws->posted[outer], inner + 1, memory_order_release);
    atomic_fetch_add_explicit(&ws->doacross_event, 1, memory_order_seq_cst);
    omp_wake_rmw(&ws->doacross_event);
}

static void doacross_await(struct omp_ws *ws, unsigned long outer, unsigned long inner)
{
    while (atomic_load_explicit(&ws->posted[outer], memory_order_acquire) <= inner) {
        uint32_t ev = atomic_load_explicit(&ws->doacross_event, memory_order_acquire);
        if (atomic_load_explicit(&ws->posted[outer], memory_order_acquire) > inner) break;
        omp_wait(&ws->doacross_event, ev);
    }
}

OMP_EXPORT void GOMP_doacross_post(long *counts)
{
    struct omp_ws *ws = omp_self()->ws;
    if (!ws || !ws->counts || counts[0] < 0 || counts[0] >= ws->counts[0]) return;
    doacross_mark(ws, (unsigned long)counts[0], flat_inner(ws, counts));
}

OMP_EXPORT void GOMP_doacross_wait(long first, ...)
{
    struct omp_ws *ws = omp_self()->ws;
    if (!ws || !ws->counts) return;
    long v[ws->ncounts];
    v[0] = first;
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < ws->ncounts; d++) v[d] = va_arg(ap, long);
    va_end(ap);
    /* A sink outside the iteration space names no iteration: nothing to wait for. */
    for (unsigned d = 0; d < ws->ncounts; d++)
        if (v[d] < 0 || v[d] >= ws->counts[d]) return;
    doacross_await(ws, (unsigned long)v[0], flat_inner(ws, v));
}

OMP_EXPORT void GOMP_doacross_ull_post(unsigned long long *counts)
{
    struct omp_ws *ws = omp_self()->ws;
    if (!ws || !ws->ucounts || counts[0] >= ws->ucounts[0]) return;
    doacross_mark(ws, counts[0], flat_inner_ull(ws, counts));
}

OMP_EXPORT void GOMP_doacross_ull_wait(unsigned long long first, ...)
{
    struct omp_ws *ws = omp_self()->ws;
    if (!ws || !ws->ucounts) return;
    unsigned long long v[ws->ncounts];
    v[0] = first;
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < ws->ncounts; d++) v[d] = va_arg(ap, unsigned long long);
    va_end(ap);
    for (unsigned d = 0; d < ws->ncounts; d++)
        if (v[d] >= ws->ucounts[d]) return;
    doacross_await(ws, v[0], flat_inner_ull(ws, v));
}

/* ---------- combined parallel loops ---------- */

struct preset {
    int sched;
    long chunk;
    long start, end, incr;
};

static void setup_loop(struct omp_ws *ws, unsigned nthreads, void *arg)
{
    (void)nthreads;
    struct preset *p = arg;
    long chunk = p->chunk;
    int kind = sched_kind(p->sched, &chunk);
    loop_init(ws, kind, chunk, p->start, p->end, p->incr, false);
}

#define PARALLEL_LOOP(name, sched)                                                                           \
    OMP_EXPORT void GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                                              long end, long incr, long chunk, unsigned flags)               \
    {                                                                                                        \
        struct preset p = {sched, chunk, start, end, incr};                                                  \
        omp_parallel_ws(fn, data, num_threads, flags, setup_loop, &p, false);                                \
    }
#define PARALLEL_LOOP_RT(name)                                                                               \
    OMP_EXPORT void GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                                              long end, long incr, unsigned flags)                           \
    {                                                                                                        \
        struct preset p = {OMP_SCHED_RUNTIME, 0, start, end, incr};                                          \
        omp_parallel_ws(fn, data, num_threads, flags, setup_loop, &p, false);                                \
    }
PARALLEL_LOOP(static, OMP_SCHED_STATIC)
PARALLEL_LOOP(dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(nonmonotonic_guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP_RT(runtime)
PARALLEL_LOOP_RT(nonmonotonic_runtime)
PARALLEL_LOOP_RT(maybe_nonmonotonic_runtime)

#define PARALLEL_LOOP_START(name, sched)                                                                     \
    OMP_EXPORT void GOMP_parallel_loop_##name##_start(void (*fn)(void *), void *data, unsigned num_threads,    \
                                                      long start, long end, long incr, long chunk)           \
    {                                                                                                        \
        struct preset p = {sched, chunk, start, end, incr};                                                  \
        omp_parallel_ws(fn, data, num_threads, 0, setup_loop, &p, true);                                     \
    }
PARALLEL_LOOP_START(static, OMP_SCHED_STATIC)
PARALLEL_LOOP_START(dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP_START(guided, OMP_SCHED_GUIDED)

OMP_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads, long start,
                                                 long end, long incr)
{
    struct preset p = {OMP_SCHED_RUNTIME, 0, start, end, incr};
    omp_parallel_ws(fn, data, num_threads, 0, setup_loop, &p, true);
}

/* ---------- sections ---------- */

static unsigned sections_next(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_ws *ws = thr->ws;
    if (!ws || atomic_load_explicit(&thr->team->ws_cancelled, memory_order_relaxed)) return 0;
    unsigned long k = atomic_fetch_add_explicit(&ws->next, 1, memory_order_relaxed);
    return k < ws->n ? (unsigned)k + 1 : 0;
}

static void setup_sections(struct omp_ws *ws, unsigned nthreads, void *arg)
{
    (void)nthreads;
    ws->n = *(unsigned *)arg;
    ws->kind = OMP_SCHED_DYNAMIC;
}

OMP_EXPORT unsigned GOMP_sections_start(unsigned count)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) {
        setup_sections(ws, thr->team->nthreads, &count);
        ws_ready(ws);
    }
    return sections_next();
}

OMP_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) setup_sections(ws, thr->team->nthreads, &count);
    ws_extras(thr, ws, first, mem, reductions);
    if (first) ws_ready(ws);
    return sections_next();
}

OMP_EXPORT unsigned GOMP_sections_next(void) { return sections_next(); }

OMP_EXPORT void GOMP_sections_end_nowait(void) { ws_leave(omp_self()); }

OMP_EXPORT void GOMP_sections_end(void)
{
    struct omp_thread *thr = omp_self();
    ws_leave(thr);
    omp_team_barrier(thr, false);
}

OMP_EXPORT bool GOMP_sections_end_cancel(void)
{
    struct omp_thread *thr = omp_self();
    ws_leave(thr);
    return omp_team_barrier(thr, true);
}

OMP_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                                       unsigned flags)
{
    omp_parallel_ws(fn, data, num_threads, flags, setup_sections, &count, false);
}

OMP_EXPORT void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads, unsigned count)
{
    omp_parallel_ws(fn, data, num_threads, 0, setup_sections, &count, true);
}

/* ---------- single ---------- */

/* The first thread to reach the region executes it. A single without
 * copyprivate takes no slot: the team counts the singles claimed, each
 * thread those it has met, and a thread at its n-th single claims it if
 * the team's count is still n (every earlier one was claimed by whoever
 * got past it first, so the count never runs ahead of a thread's own).
 * One compare-and-swap on one line, where a slot cost three or four
 * shared lines (EPCC single at 2 threads: 1.8x libgomp with the slot). */
OMP_EXPORT bool GOMP_single_start(void)
{
    struct omp_thread *thr = omp_self();
    struct omp_team *t = thr->team;
    if (t->nthreads == 1) return true;
    unsigned long n = thr->single_count++;
    if (atomic_load_explicit(&t->single_count, memory_order_relaxed) != n) return false;
    return atomic_compare_exchange_strong_explicit(&t->single_count, &n, n + 1, memory_order_acq_rel,
                                                   memory_order_relaxed);
}

/* copyprivate: NULL for the thread that executes the region; the others
 * wait for its data (published by GOMP_single_copy_end). */
OMP_EXPORT void *GOMP_single_copy_start(void)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    if (first) {
        ws_ready(ws);
        return NULL;
    }
    void *data;
    while (!(data = atomic_load_explicit(&ws->copy, memory_order_acquire))) {
        uint32_t ev = atomic_load_explicit(&ws->copy_event, memory_order_acquire);
        if ((data = atomic_load_explicit(&ws->copy, memory_order_acquire))) break;
        omp_wait(&ws->copy_event, ev);
    }
    ws_leave(thr);
    return data;
}

OMP_EXPORT void GOMP_single_copy_end(void *data)
{
    struct omp_thread *thr = omp_self();
    struct omp_ws *ws = thr->ws;
    if (!ws) return;
    atomic_store_explicit(&ws->copy, data, memory_order_release);
    atomic_fetch_add_explicit(&ws->copy_event, 1, memory_order_seq_cst);
    omp_wake_rmw(&ws->copy_event);
    ws_leave(thr);
}

/* ---------- scope (OpenMP 5.1) ---------- */

/* gcc 12 calls it only for reduction(task, ...); the scope's end is
 * GOMP_workshare_task_reduction_unregister. */
OMP_EXPORT void GOMP_scope_start(uintptr_t *reductions)
{
    struct omp_thread *thr = omp_self();
    bool first;
    struct omp_ws *ws = ws_enter(thr, &first);
    omp_ws_reductions(thr, ws, first, reductions);
    if (first) ws_ready(ws);
    ws_leave(thr);
}

/* ---------- cancellation ---------- */

OMP_EXPORT bool GOMP_cancellation_point(int which)
{
    if (!omp_g.cancel) return false;
    struct omp_thread *thr = omp_self();
    struct omp_team *t = thr->team;
    if (t && atomic_load_explicit(&t->cancelled, memory_order_acquire)) return which != CANCEL_TASKGROUP;
    if (t && (which & (CANCEL_LOOP | CANCEL_SECTIONS)))
        return atomic_load_explicit(&t->ws_cancelled, memory_order_acquire) != 0;
    if (which & CANCEL_TASKGROUP) return omp_group_cancelled(omp_cancel_group(thr->task));
    return false;
}

OMP_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
    if (!omp_g.cancel) return false;
    if (!do_cancel) return GOMP_cancellation_point(which);
    struct omp_thread *thr = omp_self();
    struct omp_team *t = thr->team;
    if (which == CANCEL_PARALLEL) {
        if (!t || t->level == 0) return false;
        atomic_store_explicit(&t->cancelled, 1, memory_order_release);
        omp_team_event(t);
        return true;
    }
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
        /* Loops with a static schedule have no state here: the flag is
         * the team's, until the barrier that ends the construct. */
        if (!t) return false;
        atomic_store_explicit(&t->ws_cancelled, 1, memory_order_release);
        return true;
    }
    if (which & CANCEL_TASKGROUP) {
        struct omp_taskgroup *g = omp_cancel_group(thr->task);
        if (!g) return false;
        atomic_store_explicit(&g->cancelled, 1, memory_order_release);
        return true;
    }
    return false;
}
