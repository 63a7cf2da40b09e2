/* Waits with a deadline (waitq.h). A ULT arms a timer on its stream; a
 * plain thread gives its futex wait an absolute timeout. Whoever takes the
 * waiter off the queue first, a waker or the deadline, decides how the
 * wait ended. */
#include <errno.h>
#include <time.h>

#include "waitq.h"

__thread uintptr_t sync_thread_token;

uintptr_t sync_thread_token_slow(void)
{
    static _Atomic uintptr_t next = 0;
    return WEFT_TLS(sync_thread_token) = (atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) << 1) | 1;
}

#define container_of(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

/* Runs in the scheduler of the stream the ULT waits on, under its timer
 * lock: the waiter cannot leave before this returns. */
static void sync_wait_fire(struct weft_timer *t)
{
    struct sync_wait *sw = container_of(t, struct sync_wait, timer);
    spin_lock(sw->lock);
    bool mine = waitq_remove(sw->queue, &sw->w);
    spin_unlock(sw->lock);
    if (mine) {
        sw->timed_out = 1;
        waiter_wake(&sw->w);
    }
}

void sync_wait_begin(struct sync_wait *sw, struct weft_unit_s *self, _Atomic uint32_t *lock, struct waitq *q,
                     uint64_t deadline)
{
    sw->w = (struct waiter){.unit = self};
    sw->lock = lock;
    sw->queue = q;
    sw->deadline = deadline;
    sw->timed_out = 0;
    if (self && deadline != UINT64_MAX) {
        sw->timer.deadline = deadline;
        sw->timer.fire = sync_wait_fire;
        /* The ULT parks on this stream before the stream can look at its
         * timers again: no fire before it is queued. */
        timer_arm(self->xs, &sw->timer);
    }
}

int sync_wait_block(struct sync_wait *sw)
{
    struct waiter *w = &sw->w;
    if (w->unit) {
        unit_park(w->unit, sw->lock);
        if (sw->deadline != UINT64_MAX) timer_disarm(&sw->timer);
        return sw->timed_out ? WEFT_ERR_TIMEDOUT : WEFT_OK;
    }
    if (sw->deadline == UINT64_MAX) {
        waiter_sleep(sw->lock, w);
        return WEFT_OK;
    }
    spin_unlock(sw->lock);
    while (!atomic_load_explicit(&w->futex, memory_order_acquire))
        if (!futex_wait_until(&w->futex, 0, sw->deadline)) break;
    if (atomic_load_explicit(&w->futex, memory_order_acquire)) return WEFT_OK;
    spin_lock(sw->lock);
    bool mine = waitq_remove(sw->queue, w);
    spin_unlock(sw->lock);
    if (mine) return WEFT_ERR_TIMEDOUT;
    /* A waker took us off first: its wake is on the way. */
    while (!atomic_load_explicit(&w->futex, memory_order_acquire))
        futex_wait(&w->futex, 0, NULL);
    return WEFT_OK;
}
