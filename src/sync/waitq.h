/* What every blocking primitive of the sync layer is built from: a spin
 * lock that guards the primitive's state and its queue of waiters, and the
 * two ways to wait on that queue. A ULT parks (src/core/unit.c, unit_park):
 * it switches away and the next context on its stream releases the lock, so
 * no waker can see it before its registers are saved; its stream runs other
 * work meanwhile. A plain OS thread (or the main ULT of a runtime with
 * nothing else to run) waits on a futex word in its waiter record. */
#ifndef WEFT_SYNC_WAITQ_H
#define WEFT_SYNC_WAITQ_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "../core/futex.h"
#include "../core/internal.h"

/* One waiter, on the waiting unit's stack or thread's stack. */
struct waiter {
    struct waiter *next;
    struct weft_unit_s *unit; /* NULL: a plain thread, woken through `futex` */
    _Atomic uint32_t futex;   /* plain thread: 0 waiting, 1 woken */
    uintptr_t token;          /* who waits (the mutex's owner word) */
    int handed;               /* mutex: woken as its owner, not to compete */
    _Atomic uint32_t watch;   /* barrier: WATCH_* (0: parked, as for the rest) */
};

/* A barrier waiter first watches its own record (src/sync/barrier.c). */
enum { WATCH_PARKED = 0, WATCH_WATCHING = 1, WATCH_RELEASED = 2 };

struct waitq {
    struct waiter *head, *tail;
};

static inline void waitq_push_back(struct waitq *q, struct waiter *w)
{
    w->next = NULL;
    if (q->tail) q->tail->next = w;
    else q->head = w;
    q->tail = w;
}

static inline void waitq_push_front(struct waitq *q, struct waiter *w)
{
    w->next = q->head;
    q->head = w;
    if (!q->tail) q->tail = w;
}

/* Take `w` off `q` if it is there (a timed-out waiter); O(queue). */
static inline bool waitq_remove(struct waitq *q, struct waiter *w)
{
    struct waiter *prev = NULL;
    for (struct waiter *x = q->head; x; prev = x, x = x->next) {
        if (x != w) continue;
        if (prev) prev->next = w->next;
        else q->head = w->next;
        if (q->tail == w) q->tail = prev;
        return true;
    }
    return false;
}

static inline struct waiter *waitq_pop(struct waitq *q)
{
    struct waiter *w = q->head;
    if (w) {
        q->head = w->next;
        if (!q->head) q->tail = NULL;
    }
    return w;
}

/* Who is calling, as the owner word of a lock records it: a number never
 * given to anyone else, so that a lock left held by a unit that ended (or
 * a thread that exited) cannot be released by whatever later reuses its
 * descriptor or its thread-local storage. A ULT or tasklet is its unit id
 * (unique for the life of the process; the main ULT's, 0 in every
 * runtime, stands for a number drawn anew by each weft_init), doubled and
 * made even and nonzero; a plain OS thread (or a scheduler's own context) gets an odd
 * number of its own on first use. */
WEFT_HIDDEN uintptr_t sync_thread_token_slow(void);
extern __thread uintptr_t sync_thread_token WEFT_HIDDEN __attribute__((tls_model("initial-exec"))); /* 0 until first used */
WEFT_TLS_ACCESSOR(sync_thread_token);
static inline uintptr_t sync_self_token(void)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    if (xs && xs->cur != xs->sched_unit) {
        uint64_t id = xs->cur->id;
        if (unlikely(!id)) id = weft_g.main_owner_id; /* the main ULT */
        return (uintptr_t)(id << 1) + 2;
    }
    uintptr_t t = WEFT_TLS(sync_thread_token);
    return likely(t) ? t : sync_thread_token_slow();
}

/* May the caller block, and how? 0: park as a ULT (*self set), 1: wait as
 * a plain thread, or an error: a tasklet or a scheduler's context. */
static inline int sync_wait_kind(struct weft_unit_s **self)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    *self = NULL;
    if (!xs) return 1;
    struct weft_unit_s *u = xs->cur;
    if (u->kind == KIND_TASKLET) return -WEFT_ERR_TASKLET_BLOCKS;
    if (u == xs->sched_unit) return -WEFT_ERR_SCHED_BLOCKS;
    *self = u;
    return 0;
}

/* Wait (lock `l` held, `w` queued) until a waker sets w->futex; `l` is
 * released first. For a plain thread. */
static inline void waiter_sleep(_Atomic uint32_t *l, struct waiter *w)
{
    spin_unlock(l);
    while (!atomic_load_explicit(&w->futex, memory_order_acquire))
        futex_wait(&w->futex, 0, NULL);
}

/* Wake `w`, already taken off its queue. Any context. */
static inline void waiter_wake(struct waiter *w)
{
    if (w->unit) {
        unit_unpark(w->unit);
    } else {
        atomic_store_explicit(&w->futex, 1, memory_order_release);
        futex_wake(&w->futex, 1);
    }
}

/* A wait with an optional deadline, for primitives whose waiters only sit
 * in a queue (the mutex counts its waiters and waits without a deadline).
 * sync_wait_begin() first, before the primitive's lock is taken (it may
 * arm a timer, and a firing timer takes that lock); then, with the lock
 * held and sw->w queued, sync_wait_block() releases it and waits. */
struct sync_wait {
    struct waiter w;
    struct weft_timer timer;
    _Atomic uint32_t *lock;
    struct waitq *queue;
    uint64_t deadline; /* clock_ns(); UINT64_MAX: none */
    int timed_out;
};

WEFT_HIDDEN void sync_wait_begin(struct sync_wait *sw, struct weft_unit_s *self, _Atomic uint32_t *lock,
                                 struct waitq *q, uint64_t deadline);
/* Returns WEFT_OK once woken, WEFT_ERR_TIMEDOUT at the deadline (then off
 * the queue). */
WEFT_HIDDEN int sync_wait_block(struct sync_wait *sw);

#endif
