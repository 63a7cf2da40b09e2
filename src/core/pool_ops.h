/* Pool list operations and the basic scheduler's pick, inline for the hot
 * path (create, dispatch, yield).
 * Pools are intrusive doubly-linked lists of ready units (doubly linked so
 * that cancel and yield-to can take a unit out of the middle). A private
 * pool is touched by its owning stream only and takes no atomic
 * read-modify-write; an MPMC pool is guarded by a test-and-test-and-set spin
 * lock (short critical sections; it yields the CPU when the holder seems
 * preempted). */
#ifndef WEFT_CORE_POOL_OPS_H
#define WEFT_CORE_POOL_OPS_H

#include <sched.h>

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
    if (unlikely(p->kind == POOL_KIND_USER)) {
        p->ops.push(p->ops_state, u);
    } else if (p->kind == WEFT_POOL_LIFO) {
        u->next = p->head;
        p->head = u;
        if (!p->tail) p->tail = u;
    } else {
        u->next = NULL;
        if (p->tail) p->tail->next = u; else p->head = u;
        p->tail = u;
    }
    u->in_pool = 1;
    p->size++;
}

static inline struct weft_unit_s *list_pop(struct weft_pool_s *p)
{
    struct weft_unit_s *u;
    if (unlikely(p->kind == POOL_KIND_USER)) {
        u = p->size ? p->ops.pop(p->ops_state) : NULL;
        if (u) {
            u->in_pool = 0;
            p->size--;
        }
        return u;
    }
    u = p->head;
    if (u) {
        p->head = u->next;
        if (!p->head) p->tail = NULL;
        u->in_pool = 0;
        p->size--;
    }
    return u;
}

/* Take `u` out of the middle: a scan (the lists are singly linked to keep
 * push and pop to the fewest stores; only cancel and yield-to come here). */
static inline bool list_remove(struct weft_pool_s *p, struct weft_unit_s *u)
{
    if (unlikely(p->kind == POOL_KIND_USER)) {
        if (!p->ops.remove) return false;
        p->ops.remove(p->ops_state, u); /* it holds u: in_pool said so */
        u->in_pool = 0;
        p->size--;
        return true;
    }
    struct weft_unit_s *prev = NULL;
    for (struct weft_unit_s *c = p->head; c; prev = c, c = c->next) {
        if (c != u) continue;
        if (prev) prev->next = u->next; else p->head = u->next;
        if (p->tail == u) p->tail = prev;
        u->next = NULL;
        u->in_pool = 0;
        p->size--;
        return true;
    }
    return false;
}

/* Caller has access: it owns the private pool, or the pool is MPMC. */
static inline void pool_push_unit(struct weft_pool_s *p, struct weft_unit_s *u)
{
    if (pool_shared(p)) {
        pool_lock(p);
        list_push(p, u);
        atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
        pool_unlock(p);
    } else {
        list_push(p, u);
    }
}

static inline struct weft_unit_s *pool_pop_unit(struct weft_pool_s *p)
{
    struct weft_unit_s *u;
    if (pool_shared(p)) {
        /* Skip the lock when the pool looks empty: schedulers poll often. */
        if (!atomic_load_explicit(&p->size_snapshot, memory_order_relaxed)) return NULL;
        pool_lock(p);
        u = list_pop(p);
        atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
        pool_unlock(p);
    } else {
        u = list_pop(p);
    }
    return u;
}

/* Ready units in `p`: exact for the owner of a private pool, a snapshot for
 * an MPMC pool. */
static inline size_t pool_count(struct weft_pool_s *p)
{
    return pool_shared(p) ? atomic_load_explicit(&p->size_snapshot, memory_order_acquire) : p->size;
}

/* Take `u` out of `p` if it is still there (and, with `unstarted`, has
 * never run). The head is the common case (yield-to a waiting peer). */
static inline bool pool_take(struct weft_pool_s *p, struct weft_unit_s *u, bool unstarted)
{
    bool shared = pool_shared(p), found = false;
    if (shared) pool_lock(p);
    if (u->in_pool && u->pool == p && !(unstarted && u->started)) {
        if (p->head == u) found = list_pop(p) == u; /* never true for a user pool: no head */
        else found = list_remove(p, u);
    }
    if (shared) {
        atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
        pool_unlock(p);
    }
    return found;
}

static inline struct weft_unit_s *bound_pop(struct weft_xstream_s *xs)
{
    struct weft_unit_s *u = xs->bound_head;
    xs->bound_head = u->next;
    if (!xs->bound_head) xs->bound_tail = NULL;
    u->next = NULL;
    return u;
}

/* The next unit for the running scheduler of `xs`: a unit handed back to
 * the scheduler (stash), units that must run here, then the policy's pick:
 * an in-order poll inline for the common main schedulers, the rest in
 * sched_pick_slow(). ULTs call this too when they give up the stream, and
 * switch straight to what it returns (the scheduler's own context is then
 * skipped: same policy, one switch less). It returns the scheduler's
 * context, xs->sched_unit, when the scheduler itself must decide. */
static inline struct weft_unit_s *sched_pick(struct weft_xstream_s *xs)
{
    struct weft_unit_s *u = xs->stash;
    if (unlikely(u != NULL)) {
        xs->stash = NULL;
        return u;
    }
    if (unlikely(atomic_load_explicit(&xs->inbox, memory_order_relaxed) != NULL)) inbox_drain(xs);
    if (unlikely(xs->bound_head != NULL)) return bound_pop(xs);
    struct weft_sched_s *s = xs->sched;
    if (likely(s->fast)) {
        for (int i = 0; i < s->npools; i++) {
            u = pool_pop_unit(s->pools[i]);
            if (u) return u;
        }
        return NULL;
    }
    return sched_pick_slow(xs, s);
}

#endif
