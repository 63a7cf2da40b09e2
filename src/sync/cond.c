/* Condition variables: a queue of parked waiters (waitq.h). */
#include "sync_internal.h"

#define MAGIC_COND 0x57434e44u /* "WCND" */
#define MAGIC_COND_DEAD 0x77636e64u

struct weft_cond_s {
    _Atomic uint32_t magic; /* retired: bytes 8..15 link the free list */
    _Atomic uint32_t lock;  /* guards `queue` */
    struct waitq queue;
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(offsetof(struct weft_cond_s, magic) == 0, "a retired cond keeps its magic word");

int weft_cond_create(weft_cond *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    struct weft_cond_s *c = obj_alloc(sizeof *c);
    if (!c) return WEFT_ERR_NOMEM;
    atomic_store_explicit(&c->lock, 0, memory_order_relaxed);
    c->queue = (struct waitq){0};
    atomic_store_explicit(&c->magic, MAGIC_COND, memory_order_release);
    *out = c;
    return WEFT_OK;
}

int weft_cond_free(weft_cond *cp)
{
    if (!cp) return WEFT_ERR_INVALID;
    struct weft_cond_s *c = *cp;
    int rc = sync_check(c, MAGIC_COND);
    if (rc) return rc;
    spin_lock(&c->lock);
    bool busy = c->queue.head != NULL;
    if ((rc = sync_free_end(c, &c->lock, busy, MAGIC_COND, MAGIC_COND_DEAD, sizeof *c, NULL))) return rc;
    *cp = NULL;
    return WEFT_OK;
}

static int cond_wait(struct weft_cond_s *c, struct weft_mutex_s *m, uint64_t deadline)
{
    int rc = sync_check(c, MAGIC_COND);
    if (rc || (rc = mutex_check(m))) return rc;
    struct weft_unit_s *self;
    int kind = sync_wait_kind(&self);
    if (kind < 0) return -kind;
    uintptr_t me = sync_self_token();
    if (atomic_load_explicit(&m->owner, memory_order_relaxed) != me) return WEFT_ERR_NOT_OWNER;
    if (deadline != UINT64_MAX && deadline <= clock_ns()) return WEFT_ERR_TIMEDOUT;
    struct sync_wait sw;
    sync_wait_begin(&sw, self, &c->lock, &c->queue, deadline);
    spin_lock(&c->lock);
    waitq_push_back(&c->queue, &sw.w);
    /* Queued before the mutex goes: a signal from whoever takes it next
     * finds us. No hand-off switch: we hold the cond's lock. */
    unsigned depth = m->depth;
    m->depth = 0;
    mutex_release(m, me, false);
    rc = sync_wait_block(&sw);
    int lrc = mutex_lock(m, false);
    if (lrc) return lrc;
    m->depth = depth;
    return rc;
}

int weft_cond_wait(weft_cond c, weft_mutex m) { return cond_wait(c, m, UINT64_MAX); }

int weft_cond_timedwait(weft_cond c, weft_mutex m, uint64_t deadline_ns)
{
    return cond_wait(c, m, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns);
}

int weft_cond_signal(weft_cond c)
{
    int rc = sync_check(c, MAGIC_COND);
    if (rc) return rc;
    spin_lock(&c->lock);
    struct waiter *w = waitq_pop(&c->queue);
    spin_unlock(&c->lock);
    if (w) waiter_wake(w);
    return WEFT_OK;
}

int weft_cond_broadcast(weft_cond c)
{
    int rc = sync_check(c, MAGIC_COND);
    if (rc) return rc;
    spin_lock(&c->lock);
    struct waiter *w = c->queue.head;
    c->queue = (struct waitq){0};
    spin_unlock(&c->lock);
    while (w) {
        struct waiter *next = w->next; /* w is gone once woken */
        waiter_wake(w);
        w = next;
    }
    return WEFT_OK;
}
