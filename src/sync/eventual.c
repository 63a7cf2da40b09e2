/* Eventuals (a value that becomes ready once) and futures (ready when all
 * N compartments are set). Waiters park on a queue (waitq.h); the setter
 * that makes the object ready wakes them all. */
#include <stdlib.h>
#include <string.h>

#include "sync_internal.h"
#include "../core/sys.h"

#define MAGIC_EVENTUAL 0x57455654u /* "WEVT" */
#define MAGIC_EVENTUAL_DEAD 0x77657674u
#define MAGIC_FUTURE 0x57465554u /* "WFUT" */
#define MAGIC_FUTURE_DEAD 0x77667574u

struct weft_eventual_s {
    _Atomic uint32_t magic; /* retired: bytes 8..15 link the free list */
    _Atomic uint32_t ready;
    _Atomic uint32_t lock; /* guards `queue`, and `ready` going up */
    size_t nbytes;
    void *value; /* nbytes of storage, NULL when nbytes is 0 */
    struct waitq queue;
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(offsetof(struct weft_eventual_s, magic) == 0, "a retired eventual keeps its magic word");

struct weft_future_s {
    _Atomic uint32_t magic;
    _Atomic uint32_t ready;
    _Atomic uint32_t lock; /* guards everything below */
    unsigned n, nset;
    void (*ready_cb)(void **values);
    void **values;
    struct waitq queue;
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(offsetof(struct weft_future_s, magic) == 0, "a retired future keeps its magic word");

/* Park on `q` (lock held) until the object is ready. */
static int wait_ready(_Atomic uint32_t *lock, struct waitq *q, _Atomic uint32_t *ready, uint64_t deadline)
{
    struct weft_unit_s *self;
    int kind = sync_wait_kind(&self);
    if (kind < 0) return -kind;
    if (deadline != UINT64_MAX && deadline <= clock_ns()) return WEFT_ERR_TIMEDOUT;
    struct sync_wait sw;
    sync_wait_begin(&sw, self, lock, q, deadline);
    spin_lock(lock);
    if (atomic_load_explicit(ready, memory_order_relaxed)) { /* set meanwhile */
        spin_unlock(lock);
        if (self && deadline != UINT64_MAX) timer_disarm(&sw.timer);
        return WEFT_OK;
    }
    waitq_push_back(q, &sw.w);
    return sync_wait_block(&sw);
}

/* Wake every waiter of a queue taken off its object. */
static void wake_all(struct waiter *w)
{
    while (w) {
        struct waiter *next = w->next; /* w is gone once woken */
        waiter_wake(w);
        w = next;
    }
}

/* ---------- eventuals ---------- */

int weft_eventual_create(size_t nbytes, weft_eventual *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    void *value = NULL;
    if (nbytes && !(value = sys_calloc(1, nbytes))) return WEFT_ERR_NOMEM;
    struct weft_eventual_s *e = obj_alloc(sizeof *e);
    if (!e) {
        free(value);
        return WEFT_ERR_NOMEM;
    }
    atomic_store_explicit(&e->ready, 0, memory_order_relaxed);
    atomic_store_explicit(&e->lock, 0, memory_order_relaxed);
    e->nbytes = nbytes;
    e->value = value;
    e->queue = (struct waitq){0};
    atomic_store_explicit(&e->magic, MAGIC_EVENTUAL, memory_order_release);
    *out = e;
    return WEFT_OK;
}

int weft_eventual_free(weft_eventual *ep)
{
    if (!ep) return WEFT_ERR_INVALID;
    struct weft_eventual_s *e = *ep;
    int rc = sync_check(e, MAGIC_EVENTUAL);
    if (rc) return rc;
    spin_lock(&e->lock);
    bool busy = e->queue.head != NULL;
    if ((rc = sync_free_end(e, &e->lock, busy, MAGIC_EVENTUAL, MAGIC_EVENTUAL_DEAD, sizeof *e, e->value))) return rc;
    *ep = NULL;
    return WEFT_OK;
}

static int eventual_wait(struct weft_eventual_s *e, void **value, uint64_t deadline)
{
    int rc = sync_check(e, MAGIC_EVENTUAL);
    if (rc) return rc;
    if (!atomic_load_explicit(&e->ready, memory_order_acquire) &&
        (rc = wait_ready(&e->lock, &e->queue, &e->ready, deadline)))
        return rc;
    if (value) *value = e->value;
    return WEFT_OK;
}

int weft_eventual_wait(weft_eventual e, void **value) { return eventual_wait(e, value, UINT64_MAX); }

int weft_eventual_timedwait(weft_eventual e, void **value, uint64_t deadline_ns)
{
    return eventual_wait(e, value, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns);
}

int weft_eventual_test(weft_eventual e, void **value, int *ready)
{
    int rc = sync_check(e, MAGIC_EVENTUAL);
    if (rc) return rc;
    if (!ready) return WEFT_ERR_INVALID;
    *ready = atomic_load_explicit(&e->ready, memory_order_acquire) != 0;
    if (*ready && value) *value = e->value;
    return WEFT_OK;
}

int weft_eventual_set(weft_eventual e, const void *value, size_t nbytes)
{
    int rc = sync_check(e, MAGIC_EVENTUAL);
    if (rc) return rc;
    if (nbytes > e->nbytes || (nbytes && !value)) return WEFT_ERR_INVALID;
    spin_lock(&e->lock);
    if (atomic_load_explicit(&e->ready, memory_order_relaxed)) {
        spin_unlock(&e->lock);
        return WEFT_ERR_STATE;
    }
    if (nbytes) memcpy(e->value, value, nbytes);
    atomic_store_explicit(&e->ready, 1, memory_order_release);
    struct waiter *w = e->queue.head;
    e->queue = (struct waitq){0};
    spin_unlock(&e->lock);
    wake_all(w);
    return WEFT_OK;
}

int weft_eventual_reset(weft_eventual e)
{
    int rc = sync_check(e, MAGIC_EVENTUAL);
    if (rc) return rc;
    atomic_store_explicit(&e->ready, 0, memory_order_relaxed); /* nobody waits on a ready eventual */
    return WEFT_OK;
}

/* ---------- futures ---------- */

int weft_future_create(int compartments, void (*ready_cb)(void **values), weft_future *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (compartments < 1) return WEFT_ERR_INVALID;
    void **values = sys_calloc((size_t)compartments, sizeof *values);
    if (!values) return WEFT_ERR_NOMEM;
    struct weft_future_s *f = obj_alloc(sizeof *f);
    if (!f) {
        free(values);
        return WEFT_ERR_NOMEM;
    }
    atomic_store_explicit(&f->ready, 0, memory_order_relaxed);
    atomic_store_explicit(&f->lock, 0, memory_order_relaxed);
    f->n = (unsigned)compartments;
    f->nset = 0;
    f->ready_cb = ready_cb;
    f->values = values;
    f->queue = (struct waitq){0};
    atomic_store_explicit(&f->magic, MAGIC_FUTURE, memory_order_release);
    *out = f;
    return WEFT_OK;
}

int weft_future_free(weft_future *fp)
{
    if (!fp) return WEFT_ERR_INVALID;
    struct weft_future_s *f = *fp;
    int rc = sync_check(f, MAGIC_FUTURE);
    if (rc) return rc;
    spin_lock(&f->lock);
    /* Waited on, or the last setter is still in its call (the callback
     * runs on the values, then it takes the lock again). */
    bool busy = f->queue.head != NULL || (f->nset == f->n && !atomic_load_explicit(&f->ready, memory_order_relaxed));
    if ((rc = sync_free_end(f, &f->lock, busy, MAGIC_FUTURE, MAGIC_FUTURE_DEAD, sizeof *f, f->values))) return rc;
    *fp = NULL;
    return WEFT_OK;
}

int weft_future_set(weft_future f, void *value)
{
    int rc = sync_check(f, MAGIC_FUTURE);
    if (rc) return rc;
    spin_lock(&f->lock);
    if (f->nset == f->n) {
        spin_unlock(&f->lock);
        return WEFT_ERR_STATE;
    }
    f->values[f->nset++] = value;
    if (f->nset < f->n) {
        spin_unlock(&f->lock);
        return WEFT_OK;
    }
    /* The last compartment: the callback sees every value before any
     * waiter runs; nobody else touches them now (set refuses, reset is the
     * owner's). */
    spin_unlock(&f->lock);
    if (f->ready_cb) f->ready_cb(f->values);
    spin_lock(&f->lock);
    atomic_store_explicit(&f->ready, 1, memory_order_release);
    struct waiter *w = f->queue.head;
    f->queue = (struct waitq){0};
    spin_unlock(&f->lock);
    wake_all(w);
    return WEFT_OK;
}

static int future_wait(struct weft_future_s *f, uint64_t deadline)
{
    int rc = sync_check(f, MAGIC_FUTURE);
    if (rc) return rc;
    if (atomic_load_explicit(&f->ready, memory_order_acquire)) return WEFT_OK;
    return wait_ready(&f->lock, &f->queue, &f->ready, deadline);
}

int weft_future_wait(weft_future f) { return future_wait(f, UINT64_MAX); }

int weft_future_timedwait(weft_future f, uint64_t deadline_ns)
{
    return future_wait(f, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns);
}

int weft_future_test(weft_future f, int *ready)
{
    int rc = sync_check(f, MAGIC_FUTURE);
    if (rc) return rc;
    if (!ready) return WEFT_ERR_INVALID;
    *ready = atomic_load_explicit(&f->ready, memory_order_acquire) != 0;
    return WEFT_OK;
}

int weft_future_get(weft_future f, int index, void **value)
{
    int rc = sync_check(f, MAGIC_FUTURE);
    if (rc) return rc;
    if (!value || index < 0 || (unsigned)index >= f->n) return WEFT_ERR_INVALID;
    if (!atomic_load_explicit(&f->ready, memory_order_acquire)) return WEFT_ERR_STATE;
    *value = f->values[index];
    return WEFT_OK;
}

int weft_future_reset(weft_future f)
{
    int rc = sync_check(f, MAGIC_FUTURE);
    if (rc) return rc;
    spin_lock(&f->lock);
    /* Set in part, or its callback still running: setters are at work. */
    bool partial = f->nset && !atomic_load_explicit(&f->ready, memory_order_relaxed);
    if (!partial) {
        f->nset = 0;
        atomic_store_explicit(&f->ready, 0, memory_order_relaxed);
    }
    spin_unlock(&f->lock);
    return partial ? WEFT_ERR_BUSY : WEFT_OK;
}
