/* Mutexes that block a ULT, never its stream.
 *
 * `owner` is the lock: 0 when free, else the holder's token (its unit, or
 * its OS thread, see waitq.h). Uncontended lock and unlock are one
 * compare-and-swap each. Contenders count themselves in `n_waiters` and
 * queue under `lock`; an unlock that sees waiters hands the mutex straight
 * to the first one (it never becomes free in between, so no newcomer can
 * overtake a waiter that was woken) and, when that waiter is a ULT that
 * may run on the unlocker's stream, switches to it at once (seed 004
 * section 5.2). */
#include <stddef.h>

#include "sync_internal.h"

int weft_mutex_create(const weft_mutex_attr *attr, weft_mutex *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    /* Freed mutexes are kept (dead) for reuse until weft_finalize(): a
     * stale handle then reads a dead magic word, not freed memory. */
    struct weft_mutex_s *m = obj_alloc(OBJ_MUTEX, sizeof *m);
    if (!m) return WEFT_ERR_NOMEM;
    m->recursive = attr && attr->recursive;
    atomic_store_explicit(&m->owner, 0, memory_order_relaxed);
    atomic_store_explicit(&m->n_waiters, 0, memory_order_relaxed);
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
    if (!busy) atomic_store(&m->magic, MAGIC_MUTEX_DEAD);
    spin_unlock(&m->lock);
    if (busy) return WEFT_ERR_BUSY;
    obj_retire(OBJ_MUTEX, m);
    *mp = NULL;
    return WEFT_OK;
}

/* Wait in the queue for the mutex to be handed to us. */
static int mutex_wait(struct weft_mutex_s *m, uintptr_t me, bool high)
{
    struct weft_unit_s *self;
    int kind = sync_wait_kind(&self);
    if (kind < 0) return -kind;
    spin_lock(&m->lock);
    atomic_fetch_add(&m->n_waiters, 1);
    uintptr_t none = 0;
    if (atomic_compare_exchange_strong(&m->owner, &none, me)) { /* freed meanwhile */
        atomic_fetch_sub(&m->n_waiters, 1);
        spin_unlock(&m->lock);
        return WEFT_OK;
    }
    struct waiter w = {.unit = self, .token = me};
    if (high) waitq_push_front(&m->queue, &w);
    else waitq_push_back(&m->queue, &w);
    if (self) unit_park(self, &m->lock); /* returns once handed the mutex */
    else waiter_sleep(&m->lock, &w);
    return WEFT_OK;
}

int mutex_lock(weft_mutex m, bool high)
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

int weft_mutex_lock(weft_mutex m) { return mutex_lock(m, false); }
int weft_mutex_lock_low(weft_mutex m) { return mutex_lock(m, false); }
int weft_mutex_lock_high(weft_mutex m) { return mutex_lock(m, true); }

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

/* Let go of a mutex the caller (`me`) holds, depth spent. `may_switch`:
 * a waiting ULT that can run here gets the stream at once (a caller that
 * holds a spin lock must not switch). */
void mutex_release(struct weft_mutex_s *m, uintptr_t me, bool may_switch)
{
    if (likely(atomic_load(&m->n_waiters) == 0)) {
        atomic_store(&m->owner, 0);
        /* A contender that counted itself after our look either took the
         * mutex by its own compare-and-swap or is queued: look again. */
        if (likely(atomic_load(&m->n_waiters) == 0)) return;
    }
    spin_lock(&m->lock);
    uintptr_t cur = atomic_load(&m->owner);
    struct waiter *w = NULL;
    if (cur == me || cur == 0) {
        w = waitq_pop(&m->queue);
        if (w) {
            atomic_fetch_sub(&m->n_waiters, 1);
            atomic_store(&m->owner, w->token); /* handed over, never free */
        } else if (cur == me) {
            atomic_store(&m->owner, 0);
        }
    }
    spin_unlock(&m->lock);
    if (w) {
        struct weft_unit_s *u = w->unit; /* w lives on the waiter's stack */
        if (!u || !may_switch || !unit_handoff(u)) waiter_wake(w);
    }
}

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
    mutex_release(m, me, true);
    return WEFT_OK;
}
