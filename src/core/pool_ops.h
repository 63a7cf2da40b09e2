/* Pool operations, for the hot path (create, dispatch, yield; the
 * schedulers' inline pick over them is in sched_pick.h). Each access kind takes only the
 * synchronisation its sharing needs (enum pool_impl): a private pool is an
 * intrusive singly-linked list touched by its owner only, no atomic
 * read-modify-write (under its lock while it has no owner); MPMC is that list under a test-and-test-and-set spin
 * lock (short critical sections; it yields the CPU when the holder seems
 * preempted); SPSC/MPSC add a lock-free stack for pushes from other
 * streams, which the owner empties with one exchange; SPMC and DEQUE are a
 * Chase-Lev array deque. */
#ifndef WEFT_CORE_POOL_OPS_H
#define WEFT_CORE_POOL_OPS_H

#include <sched.h>

#include "internal.h"

static inline void pool_lock(struct weft_pool_s *p) { spin_lock(&p->lock); }
static inline void pool_unlock(struct weft_pool_s *p) { spin_unlock(&p->lock); }

/* Pops only by the owner, once the pool has one. */
static inline bool pool_single_consumer(const struct weft_pool_s *p)
{
    return p->impl == IMPL_LIST || p->impl == IMPL_INCOMING;
}

static inline struct weft_xstream_s *pool_owner(const struct weft_pool_s *p)
{
    return __atomic_load_n(&p->owner, __ATOMIC_RELAXED); /* read from any thread; a deque changes it under its lock */
}

/* A push from `xs` (NULL: a plain thread) goes through the owner's inbox:
 * the pool has a single producer, and it is someone else. */
static inline bool pool_forwarded(const struct weft_pool_s *p, const struct weft_xstream_s *xs)
{
    if (p->impl != IMPL_LIST && p->impl != IMPL_DEQUE) return false;
    struct weft_xstream_s *o = pool_owner(p);
    return o && o != xs;
}

/* `xs` is the owner of the built-in private list `p`: it may push and pop
 * with list_push_builtin() and list_pop_builtin(), no lock. Never true for
 * xs == NULL (a plain thread) nor for a pool without an owner, whose list
 * is taken under its lock (pool.c: pool_push_remote, pool_pop_unowned). */
static inline bool pool_list_mine(const struct weft_pool_s *p, const struct weft_xstream_s *xs)
{
    return __atomic_load_n(&p->list_owner, __ATOMIC_RELAXED) == xs;
}

/* The list of `p` is touched by its owner stream, or under its lock. (A
 * debug check: the lock it sees held might be another thread's.) */
static inline bool list_access_ok(const struct weft_pool_s *p)
{
    struct weft_xstream_s *o = pool_owner(p);
    return (o && o == WEFT_TLS(weft_tls_xs)) || atomic_load_explicit(&p->lock, memory_order_relaxed);
}

/* list_push() into a built-in pool. */
static inline void list_push_builtin(struct weft_pool_s *p, struct weft_unit_s *u)
{
    WEFT_ASSERT(list_access_ok(p));
    WEFT_ASSERT(!u->in_pool);
    WEFT_ASSERT(atomic_load_explicit(&u->state, memory_order_relaxed) == WEFT_STATE_READY);
    WEFT_ASSERT(p->kind != POOL_KIND_USER);
    if (p->lifo) {
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

static inline void list_push(struct weft_pool_s *p, struct weft_unit_s *u)
{
    WEFT_ASSERT(list_access_ok(p));
    WEFT_ASSERT(!u->in_pool);
    WEFT_ASSERT(atomic_load_explicit(&u->state, memory_order_relaxed) == WEFT_STATE_READY);
    if (likely(p->kind != POOL_KIND_USER)) {
        list_push_builtin(p, u);
        return;
    }
    p->ops.push(p->ops_state, u);
    u->in_pool = 1;
    p->size++;
}

/* list_pop() from a built-in pool. */
static inline struct weft_unit_s *list_pop_builtin(struct weft_pool_s *p)
{
    WEFT_ASSERT(p->kind != POOL_KIND_USER);
    WEFT_ASSERT(list_access_ok(p));
    struct weft_unit_s *u = p->head;
    if (u) {
        WEFT_ASSERT(u->in_pool);
        p->head = u->next;
        if (!p->head) p->tail = NULL;
        u->in_pool = 0;
        p->size--;
    }
    return u;
}

/* `out`, the head of p, leaves it and `in` (ready, in no pool) goes in as
 * list_push_builtin would put it: one pass, the size unchanged (a ULT
 * yielding to the next one of its own pool). */
static inline void list_swap_head_builtin(struct weft_pool_s *p, struct weft_unit_s *out, struct weft_unit_s *in)
{
    WEFT_ASSERT(p->kind != POOL_KIND_USER);
    WEFT_ASSERT(list_access_ok(p));
    WEFT_ASSERT(p->head == out && out->in_pool && !in->in_pool);
    WEFT_ASSERT(atomic_load_explicit(&in->state, memory_order_relaxed) == WEFT_STATE_READY);
    struct weft_unit_s *rest = out->next;
    if (p->lifo) {
        in->next = rest;
        p->head = in;
        if (!rest) p->tail = in;
    } else {
        in->next = NULL;
        if (rest) {
            p->head = rest;
            p->tail->next = in;
        } else {
            p->head = in;
        }
        p->tail = in;
    }
    out->in_pool = 0;
    in->in_pool = 1;
}

static inline struct weft_unit_s *list_pop(struct weft_pool_s *p)
{
    WEFT_ASSERT(list_access_ok(p));
    struct weft_unit_s *u;
    if (unlikely(p->kind == POOL_KIND_USER)) {
        bool ready = p->ops.is_empty ? p->size && !p->ops.is_empty(p->ops_state) : p->size;
        u = ready ? p->ops.pop(p->ops_state) : NULL; /* with is_empty, pop may hold back too */
        if (u) {
            u->in_pool = 0;
            p->size--;
        }
        return u;
    }
    return list_pop_builtin(p);
}

/* Take `u` out of the middle: a scan of at most `reach` units (the lists
 * are singly linked to keep push and pop to the fewest stores; cancel,
 * yield-to and migration scan the whole list, a join only its front). */
static inline bool list_remove(struct weft_pool_s *p, struct weft_unit_s *u, size_t reach)
{
    WEFT_ASSERT(list_access_ok(p));
    if (unlikely(p->kind == POOL_KIND_USER)) {
        if (!p->ops.remove) return false;
        p->ops.remove(p->ops_state, u); /* it holds u: in_pool said so */
        u->in_pool = 0;
        p->size--;
        return true;
    }
    struct weft_unit_s *prev = NULL;
    for (struct weft_unit_s *c = p->head; c && reach; prev = c, c = c->next, reach--) {
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

static inline void locked_push(struct weft_pool_s *p, struct weft_unit_s *u)
{
    pool_lock(p);
    list_push(p, u);
    atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
    pool_unlock(p);
}

static inline struct weft_unit_s *locked_pop(struct weft_pool_s *p)
{
    /* Skip the lock when the pool looks empty: schedulers poll often. */
    if (!atomic_load_explicit(&p->size_snapshot, memory_order_relaxed)) return NULL;
    pool_lock(p);
    struct weft_unit_s *u = list_pop(p);
    atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
    pool_unlock(p);
    return u;
}

/* ---- SPSC/MPSC: other streams push onto an atomic stack ---- */

/* The owner moves everything pushed meanwhile into its list, oldest first. */
static inline void incoming_drain(struct weft_pool_s *p)
{
    struct weft_unit_s *u = atomic_exchange_explicit(&p->incoming, NULL, memory_order_acquire), *old = NULL;
    size_t n = 0;
    while (u) {
        struct weft_unit_s *next = u->next;
        u->next = old;
        old = u;
        u = next;
        n++;
    }
    while ((u = old)) {
        old = u->next;
        WEFT_ASSERT(u->in_pool);
        u->in_pool = 0; /* from the incoming stack into the list */
        list_push(p, u);
    }
    atomic_fetch_sub_explicit(&p->incoming_n, n, memory_order_relaxed);
}

/* ---- SPMC and DEQUE: a Chase-Lev deque (Le et al., PPoPP 2013; its
 * operations are in pool.c) ---- */

static inline size_t deque_count(struct weft_pool_s *p)
{
    int64_t n = atomic_load_explicit(&p->bottom, memory_order_relaxed) -
                atomic_load_explicit(&p->top, memory_order_relaxed);
    return (n > 0 ? (size_t)n : 0) + atomic_load_explicit(&p->size_snapshot, memory_order_relaxed);
}

WEFT_HIDDEN void pool_push_shared(struct weft_pool_s *p, struct weft_unit_s *u, struct weft_xstream_s *xs);
WEFT_HIDDEN struct weft_unit_s *pool_pop_shared(struct weft_pool_s *p, struct weft_xstream_s *xs);

/* ---- the operations, for every kind ---- */

/* Push a unit of `p` from stream `xs` (NULL: a plain thread). Callers have
 * already sent units of single-producer pools to their owner's inbox
 * (pool_forwarded), or are that owner, or found no owner. The owner's push
 * into its private list is inline; the others (pool.c) would only crowd
 * the hot paths. */
static inline void pool_push_unit(struct weft_pool_s *p, struct weft_unit_s *u, struct weft_xstream_s *xs)
{
    if (likely(pool_list_mine(p, xs))) list_push_builtin(p, u);
    else pool_push_shared(p, u, xs);
}

/* Pop the next unit for stream `xs` (NULL: a plain thread), which may pop
 * from `p`: it is `p`'s owner, or `p` has none (pool_access_from). */
static inline struct weft_unit_s *pool_pop_unit(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    return likely(pool_list_mine(p, xs)) ? list_pop_builtin(p) : pool_pop_shared(p, xs);
}

/* Ready units in `p`: exact for the owner of a private pool, a snapshot
 * otherwise. */
static inline size_t pool_count(struct weft_pool_s *p)
{
    switch (p->impl) {
    case IMPL_LIST:
        return p->size;
    case IMPL_LOCKED:
        return atomic_load_explicit(&p->size_snapshot, memory_order_acquire);
    case IMPL_INCOMING:
        return p->size + atomic_load_explicit(&p->incoming_n, memory_order_acquire);
    default:
        return deque_count(p);
    }
}

/* Is a pop or a take from single-consumer pool `p` by `xs` (NULL: a plain
 * thread) done under the pool's lock? Yes unless `xs` owns it: a pool
 * without an owner may be touched by any thread (pool_access_from). */
static inline bool pool_single_locked(const struct weft_pool_s *p, const struct weft_xstream_s *xs)
{
    return !(xs && pool_owner(p) == xs);
}

/* Take the lock of `p` for `xs`, which does not own it: true while no
 * other stream owns it; false, the lock let go, when one came meanwhile.
 * (A pool that never has an owner, LOCKED, always gives true.) */
static inline bool pool_lock_unowned(struct weft_pool_s *p, const struct weft_xstream_s *xs)
{
    pool_lock(p);
    struct weft_xstream_s *o = pool_owner(p);
    if (!o || o == xs) return true;
    pool_unlock(p);
    return false;
}

/* Take `u` out of `p` if it is still there (and, with `unstarted`, has
 * never run) within the first `reach` units, and, unless `head_ok`, not at
 * the head; the caller, on stream `xs` (NULL: a plain thread), may pop
 * from `p`. The head is the common case (yield-to a waiting peer). A
 * deque cannot give up a unit from its middle. */
static inline bool pool_take_within(struct weft_pool_s *p, struct weft_unit_s *u, bool unstarted,
                                    size_t reach, bool head_ok, struct weft_xstream_s *xs)
{
    if (p->impl == IMPL_DEQUE) return false;
    bool found = false;
    bool locked = pool_single_consumer(p) ? pool_single_locked(p, xs) : true;
    if (locked && !pool_lock_unowned(p, xs)) return false; /* owned since the caller looked */
    if (p->impl == IMPL_INCOMING && atomic_load_explicit(&p->incoming, memory_order_relaxed)) incoming_drain(p);
    if (unit_get_pool(u) == p && u->in_pool && !(unstarted && u->started)) {
        if (p->head == u) found = head_ok && list_pop(p) == u; /* never true for a user pool: no head */
        else found = list_remove(p, u, reach);
    }
    if (locked) {
        if (p->impl == IMPL_LOCKED) atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
        pool_unlock(p);
    }
    return found;
}

static inline bool pool_take(struct weft_pool_s *p, struct weft_unit_s *u, bool unstarted,
                             struct weft_xstream_s *xs)
{
    return pool_take_within(p, u, unstarted, SIZE_MAX, true, xs);
}

/* May `xs` run a unit of `p` now, under its running scheduler? A private
 * pool it owns, or a pool that scheduler lists. */
static inline bool pool_runs_here(const struct weft_xstream_s *xs, const struct weft_pool_s *p)
{
    return pool_single_consumer(p) ? pool_owner(p) == xs : sched_has_pool(xs->sched, p);
}

#endif
