/* The schedulers' side of the hot path: the run-next list of a stream and
 * the inline pick every switch goes through. The scheduler objects, their
 * policies, loops and stacking are in sched.c. */
#ifndef WEFT_CORE_SCHED_PICK_H
#define WEFT_CORE_SCHED_PICK_H

#include "internal.h"
#include "pool_ops.h"

/* The run-next list of a stream (owner only): units that must run on it
 * (bound here, sent back by another stream) and units it chose to run
 * before anything its policy would pick (a joinee taken out of its pool, a
 * joiner whose wait just ended). */
static inline struct weft_unit_s *runnext_pop(struct weft_xstream_s *xs)
{
    struct weft_unit_s *u = xs->runnext_head;
    xs->runnext_head = u->next;
    if (!xs->runnext_head) xs->runnext_tail = NULL;
    u->next = NULL;
    return u;
}

static inline void runnext_push(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    u->next = NULL;
    if (xs->runnext_tail) xs->runnext_tail->next = u;
    else xs->runnext_head = u;
    xs->runnext_tail = u;
}

/* Put `u` before the others. */
static inline void runnext_push_front(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    u->next = xs->runnext_head;
    if (!xs->runnext_head) xs->runnext_tail = u;
    xs->runnext_head = u;
}

/* The next unit for the running scheduler of `xs`: a unit handed back to
 * the scheduler (stash), the run-next list, then the policy's pick:
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
    if (unlikely(xs->runnext_head != NULL)) return runnext_pop(xs);
    struct weft_sched_s *s = xs->sched;
    if (likely(s->fast)) {
        int n = s->npools; /* read once: a pop's byte stores may alias it */
        for (int i = 0; i < n; i++) {
            u = pool_pop_unit(s->pools[i], xs);
            if (u) return u;
        }
        return NULL;
    }
    return sched_pick_slow(xs, s);
}

#endif
