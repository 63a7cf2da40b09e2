/* Pool list operations, inline for the hot path (create, dispatch, yield).
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
static inline void pool_push_unit(struct weft_pool_s *p, struct weft_unit_s *u)
{
    if (pool_shared(p)) {
        pool_lock(p);
        list_push(p, u);
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
        u = p->head;
        if (u) list_unlink(p, u);
        pool_unlock(p);
    } else {
        u = p->head;
        if (u) list_unlink(p, u);
    }
    return u;
}

#endif
