/* Delivery: a unit that becomes ready goes where it can be run.
 *
 * Every path that makes a unit ready ends here: creation, a yield's
 * requeue, a wake from a join or a wait, a migration, a unit sent home to
 * the stream it is bound to. A unit of a pool with a single consumer that
 * is another stream (a private pool, a deque's producer side) is pushed
 * into that stream's inbox, a lock-free LIFO; the owner moves it into
 * place itself when it next picks (sched_pick), so its private pools are
 * only ever touched by their owner (or, while they have none, under their
 * lock: pool.c, pool_push_remote). Every other pool takes the push
 * directly (pool_ops.h). A push wakes a sleeping consumer (idle.c). */
#include "internal.h"
#include "pool_ops.h"
#include "sched_pick.h"

/* ---------- the inbox of a stream ---------- */

bool inbox_push(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    struct weft_unit_s *head = atomic_load_explicit(&xs->inbox, memory_order_relaxed);
    do {
        if (head == INBOX_CLOSED) return false;
        u->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&xs->inbox, &head, u, memory_order_release,
                                                    memory_order_relaxed));
    xs_notify(xs);
    return true;
}

/* Empty the inbox, leaving `rest` (NULL, or INBOX_CLOSED), and return
 * what it held in arrival order. */
static struct weft_unit_s *inbox_take(struct weft_xstream_s *xs, struct weft_unit_s *rest)
{
    struct weft_unit_s *u = atomic_exchange_explicit(&xs->inbox, rest, memory_order_acquire);
    struct weft_unit_s *fifo = NULL;
    while (u) {
        struct weft_unit_s *n = u->next;
        u->next = fifo;
        fifo = u;
        u = n;
    }
    return fifo;
}

void inbox_drain(struct weft_xstream_s *xs)
{
    /* Closed (the stream is stopping): nothing comes in any more, and a
     * scheduler that still does its housekeeping must not reopen it. */
    if (atomic_load_explicit(&xs->inbox, memory_order_relaxed) == INBOX_CLOSED) return;
    struct weft_unit_s *u, *fifo = inbox_take(xs, NULL);
    while ((u = fifo)) {
        fifo = u->next;
        if (u->bound && u->home == xs) runnext_push(xs, u);
        else unit_deliver(xs, u); /* into place, or on if the pool changed hands meanwhile */
    }
}

/* A stream whose start failed (xstream.c: xs_create) after its pools
 * became its own: close its inbox and pass on the units sent to it
 * meanwhile, from the calling thread. Its pools have no owner by now:
 * they take them. */
void inbox_close_unstarted(struct weft_xstream_s *dead)
{
    struct weft_unit_s *u, *fifo = inbox_take(dead, INBOX_CLOSED);
    struct weft_xstream_s *here = WEFT_TLS(weft_tls_xs);
    while ((u = fifo)) {
        fifo = u->next;
        u->next = NULL;
        unit_deliver(here, u);
    }
}

/* ---------- ready units ---------- */

/* Put a ready unit where it belongs. `xs` is the calling stream or NULL. */
void unit_deliver(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    struct weft_pool_s *p = u->pool;
    /* Another stream's private pool or deque: its owner moves the unit in.
     * The inbox only refuses once the owner has stopped, and a stream stops
     * only with no unit of its pools pending: then nobody schedules the pool
     * any more and the unit simply waits in it. */
    struct weft_xstream_s *o = pool_owner(p);
    if (pool_forwarded(p, xs) && o && inbox_push(o, u)) return;
    pool_push_unit(p, u, xs);
}

void unit_make_ready(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    atomic_store_explicit(&u->state, WEFT_STATE_READY, memory_order_relaxed);
    unit_deliver(xs, u);
}

/* A blocked unit's wait is over. Push first, then drop the blocked count:
 * a stream that sees no blocked unit must already see the pushed one. */
void unit_wake(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    WEFT_ASSERT(atomic_load_explicit(&u->state, memory_order_relaxed) == WEFT_STATE_BLOCKED);
    struct weft_pool_s *p = u->pool;
    unit_make_ready(xs, u);
    atomic_fetch_sub_explicit(&p->n_blocked, 1, memory_order_release);
}

