/* Pools: the public calls, ownership, attach/detach. The list operations of
 * the hot path are inline in pool_ops.h. */
#include <sched.h>
#include <stdlib.h>

#include "internal.h"
#include "pool_ops.h"


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

/* May the calling stream pop from / inspect `p`? Its owner first moves in
 * the units other streams sent it (a user-defined scheduler sees them). */
static int pool_local_access(struct weft_pool_s *p)
{
    if (pool_shared(p) || !p->owner) return WEFT_OK;
    struct weft_xstream_s *xs = weft_tls_xs;
    if (p->owner != xs) return WEFT_ERR_POOL_ACCESS;
    if (atomic_load_explicit(&xs->inbox, memory_order_relaxed)) inbox_drain(xs);
    return WEFT_OK;
}

int weft_pool_create(weft_pool_kind kind, weft_pool_access access, weft_pool *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if ((kind != WEFT_POOL_FIFO && kind != WEFT_POOL_LIFO) ||
        (access != WEFT_POOL_ACCESS_PRIVATE && access != WEFT_POOL_ACCESS_MPMC))
        return WEFT_ERR_INVALID;
    struct weft_pool_s *p = obj_alloc(OBJ_POOL, sizeof *p);
    if (!p) return WEFT_ERR_NOMEM;
    *p = (struct weft_pool_s){0};
    p->kind = (uint8_t)kind;
    p->access = (uint8_t)access;
    atomic_store(&p->magic, MAGIC_POOL);
    *out = p;
    return WEFT_OK;
}

int weft_pool_create_user(const weft_pool_ops *ops, void *state, weft_pool_access access, weft_pool *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (!ops || !ops->push || !ops->pop) return WEFT_ERR_INVALID;
    int rc = weft_pool_create(WEFT_POOL_FIFO, access, out);
    if (rc) return rc;
    (*out)->kind = POOL_KIND_USER;
    (*out)->ops = *ops;
    (*out)->ops_state = state;
    return WEFT_OK;
}

int weft_pool_free(weft_pool *pool)
{
    if (!pool) return WEFT_ERR_INVALID;
    struct weft_pool_s *p = *pool;
    int rc = pool_check(p);
    if (rc) return rc;
    if (p->runtime_owned || atomic_load(&p->n_scheds) > 0 || pool_count(p) > 0 ||
        atomic_load(&p->n_blocked) > 0)
        return WEFT_ERR_BUSY;
    atomic_store(&p->magic, MAGIC_DEAD);
    if (p->kind == POOL_KIND_USER && p->ops.free) p->ops.free(p->ops_state);
    obj_retire(OBJ_POOL, p);
    *pool = NULL;
    return WEFT_OK;
}

int weft_pool_size(weft_pool pool, size_t *n)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!n) return WEFT_ERR_INVALID;
    if ((rc = pool_local_access(pool))) return rc;
    *n = pool_count(pool);
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
    if (unit->kind == KIND_SCHED || unit->in_pool ||
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
