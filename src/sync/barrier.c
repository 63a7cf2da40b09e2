/* Barriers: one for ULTs (waiters park until the last arrives) and one for
 * execution streams (the OS threads themselves wait: it spins a little,
 * then sleeps on a futex).
 *
 * With more than one stream, a waiter first watches its own queue record
 * for a few microseconds (a ULT yielding to whatever else its stream has
 * to run, so the stream is never held): when the others arrive that soon,
 * as in a balanced parallel loop, the last arrival only marks the records
 * and nobody has to be pushed back into a pool across cores. The watcher
 * reads only its own record, so the barrier may be freed as soon as the
 * round ends. A watcher that gives up marks itself parked under the lock
 * and parks holding it: the last arrival, which marks under the lock,
 * wakes exactly the parked ones, after their contexts are saved. */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>

#include "sync_internal.h"

#define MAGIC_BARRIER 0x57424152u /* "WBAR" */
#define MAGIC_BARRIER_DEAD 0x77626172u
#define MAGIC_XBARRIER 0x57584252u /* "WXBR" */
#define MAGIC_XBARRIER_DEAD 0x77786272u

struct weft_barrier_s {
    _Atomic uint32_t magic; /* retired: bytes 8..15 link the free list */
    _Atomic uint32_t lock;  /* guards the rest */
    unsigned n, arrived;
    struct waitq queue;
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(offsetof(struct weft_barrier_s, magic) == 0, "a retired barrier keeps its magic word");

/* How long a waiter watches for the round to end before it parks. */
#define WATCH_NS 4000

int weft_barrier_create(int n, weft_barrier *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (n < 1) return WEFT_ERR_INVALID;
    struct weft_barrier_s *b = obj_alloc(sizeof *b);
    if (!b) return WEFT_ERR_NOMEM;
    atomic_store_explicit(&b->lock, 0, memory_order_relaxed);
    b->n = (unsigned)n;
    b->arrived = 0;
    b->queue = (struct waitq){0};
    atomic_store_explicit(&b->magic, MAGIC_BARRIER, memory_order_release);
    *out = b;
    return WEFT_OK;
}

int weft_barrier_reinit(weft_barrier b, int n)
{
    int rc = sync_check(b, MAGIC_BARRIER);
    if (rc) return rc;
    if (n < 1) return WEFT_ERR_INVALID;
    spin_lock(&b->lock);
    bool busy = b->arrived != 0;
    if (!busy) b->n = (unsigned)n;
    spin_unlock(&b->lock);
    return busy ? WEFT_ERR_BUSY : WEFT_OK;
}

int weft_barrier_free(weft_barrier *bp)
{
    if (!bp) return WEFT_ERR_INVALID;
    struct weft_barrier_s *b = *bp;
    int rc = sync_check(b, MAGIC_BARRIER);
    if (rc) return rc;
    spin_lock(&b->lock);
    bool busy = b->arrived != 0;
    if ((rc = sync_free_end(b, &b->lock, busy, MAGIC_BARRIER, MAGIC_BARRIER_DEAD, sizeof *b, NULL))) return rc;
    *bp = NULL;
    return WEFT_OK;
}

int weft_barrier_wait(weft_barrier b)
{
    int rc = sync_check(b, MAGIC_BARRIER);
    if (rc) return rc;
    struct weft_unit_s *self;
    int kind = sync_wait_kind(&self);
    spin_lock(&b->lock);
    if (b->arrived + 1 == b->n) { /* the last: release everyone */
        struct waiter *w = b->queue.head, *parked = NULL;
        b->queue = (struct waitq){0};
        b->arrived = 0;
        while (w) {
            struct waiter *next = w->next; /* a watcher is gone once marked */
            if (atomic_exchange_explicit(&w->watch, WATCH_RELEASED, memory_order_acq_rel) == WATCH_PARKED) {
                w->next = parked;
                parked = w;
            }
            w = next;
        }
        spin_unlock(&b->lock);
        while (parked) {
            struct waiter *next = parked->next; /* w is gone once woken */
            waiter_wake(parked);
            parked = next;
        }
        return WEFT_OK;
    }
    if (kind < 0) { /* a tasklet may only be the last */
        spin_unlock(&b->lock);
        return -kind;
    }
    b->arrived++;
    struct sync_wait sw;
    sync_wait_begin(&sw, self, &b->lock, &b->queue, UINT64_MAX); /* no deadline: no timer, fine under the lock */
    waitq_push_back(&b->queue, &sw.w);
    if (atomic_load_explicit(&weft_g.n_streams, memory_order_relaxed) > 1 || !self) {
        /* Another stream or thread may arrive soon: watch our record. */
        atomic_store_explicit(&sw.w.watch, WATCH_WATCHING, memory_order_relaxed);
        spin_unlock(&b->lock);
        uint64_t until = clock_ns() + WATCH_NS;
        for (unsigned i = 1;; i++) {
            if (atomic_load_explicit(&sw.w.watch, memory_order_acquire) == WATCH_RELEASED) return WEFT_OK;
            if (i % 16 == 0 && clock_ns() >= until) break;
            if (self) weft_yield();
            else cpu_relax();
        }
        spin_lock(&b->lock);
        uint32_t watching = WATCH_WATCHING;
        if (!atomic_compare_exchange_strong_explicit(&sw.w.watch, &watching, WATCH_PARKED, memory_order_acq_rel,
                                                     memory_order_acquire)) {
            spin_unlock(&b->lock); /* released meanwhile */
            return WEFT_OK;
        }
    }
    return sync_wait_block(&sw);
}

/* ---------- streams ---------- */

struct weft_xstream_barrier_s {
    _Atomic uint32_t magic;
    unsigned n;
    _Atomic unsigned arrived;
    _Atomic uint32_t generation; /* a futex: bumped by the last arrival */
    _Atomic uint32_t n_waiting;  /* in the futex wait, or about to be */
} __attribute__((aligned(CACHE_LINE)));

int weft_xstream_barrier_create(int n, weft_xstream_barrier *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (n < 1) return WEFT_ERR_INVALID;
    struct weft_xstream_barrier_s *b = obj_alloc(sizeof *b);
    if (!b) return WEFT_ERR_NOMEM;
    b->n = (unsigned)n;
    atomic_store(&b->arrived, 0);
    atomic_store(&b->generation, 0);
    atomic_store(&b->n_waiting, 0);
    atomic_store_explicit(&b->magic, MAGIC_XBARRIER, memory_order_release);
    *out = b;
    return WEFT_OK;
}

int weft_xstream_barrier_free(weft_xstream_barrier *bp)
{
    if (!bp) return WEFT_ERR_INVALID;
    struct weft_xstream_barrier_s *b = *bp;
    int rc = sync_check(b, MAGIC_XBARRIER);
    if (rc) return rc;
    if (atomic_load(&b->arrived)) return WEFT_ERR_BUSY;
    uint32_t live = MAGIC_XBARRIER;
    if (!atomic_compare_exchange_strong(&b->magic, &live, MAGIC_XBARRIER_DEAD)) return WEFT_ERR_HANDLE;
    obj_retire(b, sizeof *b);
    *bp = NULL;
    return WEFT_OK;
}

int weft_xstream_barrier_wait(weft_xstream_barrier b)
{
    int rc = sync_check(b, MAGIC_XBARRIER);
    if (rc) return rc;
    uint32_t gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        /* seq_cst: this bump and the waiters' count are a store-load pair
         * each way; one side sees the other. */
        atomic_fetch_add(&b->generation, 1);
        if (atomic_load(&b->n_waiting))
            futex_wake(&b->generation, INT_MAX);
        return WEFT_OK;
    }
    /* Streams arrive close together in the common case: spin first. */
    for (unsigned i = 0; i < 4096; i++) {
        if (atomic_load_explicit(&b->generation, memory_order_acquire) != gen) return WEFT_OK;
        if (i < 1024) cpu_relax();
        else sched_yield();
    }
    atomic_fetch_add(&b->n_waiting, 1);
    while (atomic_load(&b->generation) == gen)
        futex_wait(&b->generation, gen, NULL);
    atomic_fetch_sub(&b->n_waiting, 1);
    return WEFT_OK;
}
