/* Mutexes that block a ULT, never its stream.
 *
 * `owner` is the lock: 0 when free, else the holder's token (its unit, or
 * its OS thread, see waitq.h). Uncontended lock and unlock are one
 * compare-and-swap and one store. Contenders spin briefly, then count
 * themselves in `n_waiters` and queue under `lock`.
 *
 * An unlock that sees waiters either hands the mutex to the first one
 * (`owner` goes straight to it, never free in between) or frees it and
 * wakes that waiter to compete for it again:
 * - hand-off when the waiter is a ULT that may run on the unlocker's
 *   stream: the unlocker switches to it at once ([Argobots §5.2]), a
 *   switch of a few nanoseconds;
 * - hand-off when the first waiter has waited longer than STARVE_NS and
 *   lost a competition (the mutex is `starving` until it is served): no
 *   waiter waits for ever;
 * - otherwise wake it to compete. Handing the mutex to a unit that must
 *   first be scheduled on another stream would keep it idle for that long
 *   on every unlock (a convoy); freeing it lets whoever runs take it. Only
 *   one waiter is out competing at a time (`woken`), and it goes back to
 *   the front of the queue if it loses. */
#include <stddef.h>

#include "sync_internal.h"

#define STARVE_NS (1000 * 1000ull)
#define SPIN_ROUNDS 4
#define SPIN_PAUSES 16

int weft_mutex_create(const weft_mutex_attr *attr, weft_mutex *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    /* Freed mutexes are kept (dead) for reuse until weft_finalize(): a
     * stale handle then reads a dead magic word, not freed memory. */
    struct weft_mutex_s *m = obj_alloc(sizeof *m);
    if (!m) return WEFT_ERR_NOMEM;
    m->recursive = attr && attr->recursive;
    m->fair = attr && attr->fair;
    atomic_store_explicit(&m->owner, 0, memory_order_relaxed);
    atomic_store_explicit(&m->n_waiters, 0, memory_order_relaxed);
    atomic_store_explicit(&m->woken, 0, memory_order_relaxed);
    atomic_store_explicit(&m->starving, 0, memory_order_relaxed);
    m->depth = 0;
    atomic_store_explicit(&m->lock, 0, memory_order_relaxed);
    m->queue = (struct waitq){0};
    atomic_store_explicit(&m->magic, MAGIC_MUTEX, memory_order_release);
    *out = m;
    return WEFT_OK;
}

int weft_mutex_free(weft_mutex *mp)
{
    if (!mp) return WEFT_ERR_INVALID;
    struct weft_mutex_s *m = *mp;
    int rc = mutex_check(m);
    if (rc) return rc;
    spin_lock(&m->lock);
    bool busy = atomic_load(&m->owner) || atomic_load(&m->n_waiters);
    if ((rc = sync_free_end(m, &m->lock, busy, MAGIC_MUTEX, MAGIC_MUTEX_DEAD, sizeof *m, NULL))) return rc;
    *mp = NULL;
    return WEFT_OK;
}

/* Wait for the mutex: queue, park, and either find it handed over or
 * compete again when woken. */
static int mutex_wait(struct weft_mutex_s *m, uintptr_t me, bool high)
{
    struct weft_unit_s *self;
    int kind = sync_wait_kind(&self);
    if (kind < 0) return -kind;
    /* The holder may be running on another core and about to let go. */
    if (atomic_load_explicit(&weft_g.n_streams, memory_order_relaxed) > 1 || !self) {
        for (int r = 0; r < SPIN_ROUNDS; r++) {
            for (int i = 0; i < SPIN_PAUSES; i++) cpu_relax();
            uintptr_t none = 0;
            if (atomic_load_explicit(&m->owner, memory_order_relaxed) == 0 &&
                atomic_compare_exchange_strong_explicit(&m->owner, &none, me, memory_order_acquire,
                                                        memory_order_relaxed))
                return WEFT_OK;
        }
    }
    struct waiter w = {.unit = self, .token = me};
    bool front = high;
    uint64_t since = 0;
    spin_lock(&m->lock);
    atomic_fetch_add(&m->n_waiters, 1);
    for (;;) {
        uintptr_t none = 0;
        if (atomic_compare_exchange_strong(&m->owner, &none, me)) {
            atomic_fetch_sub(&m->n_waiters, 1);
            spin_unlock(&m->lock);
            return WEFT_OK;
        }
        if (!since) since = clock_ns();
        w.handed = 0;
        atomic_store_explicit(&w.futex, 0, memory_order_relaxed);
        if (front) waitq_push_front(&m->queue, &w);
        else waitq_push_back(&m->queue, &w);
        if (self) unit_park(self, &m->lock);
        else waiter_sleep(&m->lock, &w);
        if (w.handed) { /* ours; the unlocker counted us out */
            /* The starving waiter is served: compete again. A long queue
             * would otherwise stay in hand-off mode, one cross-stream wake
             * per unlock, for as long as it is long. */
            atomic_store_explicit(&m->starving, 0, memory_order_relaxed);
            return WEFT_OK;
        }
        /* Woken to compete: back at the front if we lose; if we have
         * waited too long, the next unlock hands it to us. */
        atomic_store(&m->woken, 0);
        if (clock_ns() - since >= STARVE_NS) atomic_store(&m->starving, 1);
        front = true;
        spin_lock(&m->lock);
    }
}

/* Inlined into each entry point: a call here split by the compiler cost
 * the uncontended lock half again its instructions. */
static inline __attribute__((always_inline)) int lock_inline(weft_mutex m, bool high)
{
    int rc = mutex_check(m);
    if (rc) return rc;
    uintptr_t me = sync_self_token(), none = 0;
    if (likely(atomic_compare_exchange_strong_explicit(&m->owner, &none, me, memory_order_acquire,
                                                       memory_order_relaxed)))
        return WEFT_OK;
    if (none == me) {
        if (!m->recursive) return WEFT_ERR_BUSY; /* would deadlock on itself */
        m->depth++;
        return WEFT_OK;
    }
    return mutex_wait(m, me, high);
}

int mutex_lock(weft_mutex m, bool high) { return lock_inline(m, high); }
int weft_mutex_lock(weft_mutex m) { return lock_inline(m, false); }
int weft_mutex_lock_low(weft_mutex m) { return lock_inline(m, false); }
int weft_mutex_lock_high(weft_mutex m) { return lock_inline(m, true); }

int weft_mutex_trylock(weft_mutex m)
{
    int rc = mutex_check(m);
    if (rc) return rc;
    uintptr_t me = sync_self_token(), none = 0;
    if (atomic_compare_exchange_strong_explicit(&m->owner, &none, me, memory_order_acquire, memory_order_relaxed))
        return WEFT_OK;
    if (none == me && m->recursive) {
        m->depth++;
        return WEFT_OK;
    }
    return WEFT_ERR_BUSY;
}

/* The release with waiters counted: `released` says whether the caller
 * already freed `owner` (anyone may own it since). */
static void release_queued(struct weft_mutex_s *m, uintptr_t me, bool may_switch, bool released)
{
    spin_lock(&m->lock);
    struct waiter *w = m->queue.head;
    if (!w) {
        if (!released) atomic_store(&m->owner, 0);
        spin_unlock(&m->lock);
        return;
    }
    bool here = w->unit && may_switch && unit_can_handoff(w->unit);
    if (here || m->fair || atomic_load_explicit(&m->starving, memory_order_relaxed)) {
        /* Hand it over. Once released, only if it is still free. */
        uintptr_t expect = released ? 0 : me;
        if (!atomic_compare_exchange_strong(&m->owner, &expect, w->token)) {
            spin_unlock(&m->lock); /* taken meanwhile: its unlock will see the queue */
            return;
        }
        waitq_pop(&m->queue);
        atomic_fetch_sub(&m->n_waiters, 1);
        w->handed = 1;
        if (!m->queue.head) atomic_store_explicit(&m->starving, 0, memory_order_relaxed);
        spin_unlock(&m->lock);
        struct weft_unit_s *u = w->unit; /* w lives on the waiter's stack */
        if (!here || !unit_handoff(u)) waiter_wake(w);
        return;
    }
    if (!released) atomic_store(&m->owner, 0);
    if (atomic_load(&m->woken)) { /* one competitor out at a time */
        spin_unlock(&m->lock);
        return;
    }
    atomic_store(&m->woken, 1);
    waitq_pop(&m->queue);
    spin_unlock(&m->lock);
    waiter_wake(w);
}

/* Let go of a mutex the caller (`me`) holds, depth spent. `may_switch`:
 * a waiting ULT that can run here gets the stream at once (a caller that
 * holds a spin lock must not switch). Inline in weft_mutex_unlock: the
 * uncontended unlock is a store and two loads, not a call. */
static inline void release(struct weft_mutex_s *m, uintptr_t me, bool may_switch)
{
    if (likely(atomic_load(&m->n_waiters) == 0)) {
        atomic_store(&m->owner, 0);
        /* A contender that counted itself after our look either takes the
         * mutex by its own compare-and-swap or queues: look again. */
        if (likely(atomic_load(&m->n_waiters) == 0)) return;
        release_queued(m, me, may_switch, true);
        return;
    }
    release_queued(m, me, may_switch, false);
}

void mutex_release(struct weft_mutex_s *m, uintptr_t me, bool may_switch) { release(m, me, may_switch); }

int weft_mutex_unlock(weft_mutex m)
{
    int rc = mutex_check(m);
    if (rc) return rc;
    uintptr_t me = sync_self_token();
    if (atomic_load_explicit(&m->owner, memory_order_relaxed) != me) return WEFT_ERR_NOT_OWNER;
    if (m->depth) {
        m->depth--;
        return WEFT_OK;
    }
    release(m, me, true);
    return WEFT_OK;
}
