/* Pools: intrusive doubly-linked lists of ready units. A private pool is
 * touched by its owning stream only and takes no atomic read-modify-write;
 * an MPMC pool is guarded by a test-and-test-and-set spin lock (short
 * critical sections; yields the CPU when the holder seems preempted). */
#include <sched.h>
#include <stdlib.h>

#include "internal.h"

static inline void pool_lock(struct weft_pool_s *p)
{
    unsigned spins = 0;
    for (;;) {
        if (!atomic_exchange_explicit(&p->lock, 1, memory_order_acquire)) return;
        while (atomic_load_explicit(&p->lock, memory_order_relaxed)) {
            if (++spins < 1024) cpu_relax();
            else { spins = 0; sched_yield(); }
        }
    }
}

static inline void pool_unlock(struct weft_pool_s *p)
{
    atomic_store_explicit(&p->lock, 0, memory_order_release);
}

static inline bool pool_shared(const struct weft_pool_s *p)
{
    return p->access != WEFT_POOL_ACCESS_PRIVATE;
}

static inline void list_push(struct weft_pool_s *p, struct weft_unit_s *u)
{
    if (p->kind == WEFT_POOL_LIFO) {
        u->prev = NULL;
        u->next = p->head;
        if (p->head) p->head->prev = u; else p->tail = u;
        p->head = u;
    } else {
        u->next = NULL;
        u->prev = p->tail;
        if (p->tail) p->tail->next = u; else p->head = u;
        p->tail = u;
    }
    u->in_pool = 1;
    p->size++;
    atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
}

static inline void list_unlink(struct weft_pool_s *p, struct weft_unit_s *u)
{
    if (u->prev) u->prev->next = u->next; else p->head = u->next;
    if (u->next) u->next->prev = u->prev; else p->tail = u->prev;
    u->next = u->prev = NULL;
    u->in_pool = 0;
    p->size--;
    atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
}

/* Caller has access: it owns the private pool, or the pool is MPMC. */
void pool_push_unit(struct weft_pool_s *p, struct weft_unit_s *u)
{
    if (pool_shared(p)) {
        pool_lock(p);
        list_push(p, u);
        pool_unlock(p);
    } else {
        list_push(p, u);
    }
}

struct weft_unit_s *pool_pop_unit(struct weft_pool_s *p)
{
    struct weft_unit_s *u;
    if (pool_shared(p)) {
        /* Skip the lock when the pool looks empty: schedulers poll often. */
        if (!atomic_load_explicit(&p->size_snapshot, memory_order_relaxed)) return NULL;
        pool_lock(p);
        u = p->head;
        if (u) list_unlink(p, u);
        pool_unlock(p);
    } else {
        u = p->head;
        if (u) list_unlink(p, u);
    }
    return u;
}

/* Take `u` out of `p` if it is still there (and, with `unstarted`, has
 * never run). */
static bool pool_take(struct weft_pool_s *p, struct weft_unit_s *u, bool unstarted)
{
    bool found = false;
    if (pool_shared(p)) pool_lock(p);
    if (u->in_pool && u->pool == p && !(unstarted && u->started)) {
        list_unlink(p, u);
        found = true;
    }
    if (pool_shared(p)) pool_unlock(p);
    return found;
}

bool pool_remove_unit(struct weft_pool_s *p, struct weft_unit_s *u)
{
    return pool_take(p, u, false);
}

bool pool_remove_unstarted(struct weft_pool_s *p, struct weft_unit_s *u)
{
    return pool_take(p, u, true);
}

int pool_check(struct weft_pool_s *p)
{
    if (!p || !HANDLE_ALIGNED(p) || atomic_load_explicit(&p->magic, memory_order_relaxed) != MAGIC_POOL)
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

/* A scheduler on `xs` starts to use `p`. A private pool gets one owner. */
int pool_attach(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    if (!pool_shared(p)) {
        if (atomic_load(&p->n_scheds) > 0) return WEFT_ERR_POOL_ACCESS;
        p->owner = xs;
    }
    atomic_fetch_add(&p->n_scheds, 1);
    return WEFT_OK;
}

void pool_detach(struct weft_pool_s *p)
{
    atomic_fetch_sub(&p->n_scheds, 1);
}

/* May the calling stream pop from / inspect `p`? */
static int pool_local_access(struct weft_pool_s *p)
{
    if (pool_shared(p)) return WEFT_OK;
    if (p->owner && p->owner != weft_tls_xs) return WEFT_ERR_POOL_ACCESS;
    return WEFT_OK;
}

int weft_pool_create(weft_pool_kind kind, weft_pool_access access, weft_pool *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if ((kind != WEFT_POOL_FIFO && kind != WEFT_POOL_LIFO) ||
        (access != WEFT_POOL_ACCESS_PRIVATE && access != WEFT_POOL_ACCESS_MPMC))
        return WEFT_ERR_INVALID;
    struct weft_pool_s *p = aligned_alloc(CACHE_LINE, sizeof *p);
    if (!p) return WEFT_ERR_NOMEM;
    *p = (struct weft_pool_s){0};
    p->kind = (uint8_t)kind;
    p->access = (uint8_t)access;
    atomic_store(&p->magic, MAGIC_POOL);
    *out = p;
    return WEFT_OK;
}

int weft_pool_free(weft_pool *pool)
{
    if (!pool) return WEFT_ERR_INVALID;
    struct weft_pool_s *p = *pool;
    int rc = pool_check(p);
    if (rc) return rc;
    if (p->runtime_owned || atomic_load(&p->n_scheds) > 0 || atomic_load(&p->size_snapshot) > 0 ||
        atomic_load(&p->n_blocked) > 0)
        return WEFT_ERR_BUSY;
    atomic_store(&p->magic, MAGIC_DEAD);
    free(p);
    *pool = NULL;
    return WEFT_OK;
}

int weft_pool_size(weft_pool pool, size_t *n)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!n) return WEFT_ERR_INVALID;
    if ((rc = pool_local_access(pool))) return rc;
    *n = atomic_load_explicit(&pool->size_snapshot, memory_order_relaxed);
    return WEFT_OK;
}

int weft_pool_is_empty(weft_pool pool, int *empty)
{
    size_t n;
    if (!empty) return WEFT_ERR_INVALID;
    int rc = weft_pool_size(pool, &n);
    if (rc) return rc;
    *empty = n == 0;
    return WEFT_OK;
}

int weft_pool_push(weft_pool pool, weft_thread unit)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if ((rc = unit_check(unit))) return rc;
    if ((rc = pool_local_access(pool))) return rc;
    /* Only a ready unit that sits in no pool and in no inbox may move:
     * weft_pool_pop() hands out exactly those. */
    if (unit->kind == KIND_MAIN || unit->kind == KIND_SCHED || unit->in_pool ||
        atomic_load(&unit->state) != WEFT_STATE_READY || unit->pool != NULL)
        return WEFT_ERR_STATE;
    unit->pool = pool;
    pool_push_unit(pool, unit);
    return WEFT_OK;
}

int weft_pool_pop(weft_pool pool, weft_thread *unit)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!unit) return WEFT_ERR_INVALID;
    if ((rc = pool_local_access(pool))) return rc;
    struct weft_unit_s *u = pool_pop_unit(pool);
    if (u) u->pool = NULL; /* held by the caller until pushed again */
    *unit = u;
    return WEFT_OK;
}
