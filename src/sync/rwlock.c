/* Read-write locks, phase-fair: a reader that finds a writer holding or
 * waiting queues behind it, so readers cannot starve writers; a writer's
 * unlock admits every queued reader at once, so writers cannot starve
 * readers; the last reader out hands the lock to the next writer. All
 * state under one spin lock. */
#include "sync_internal.h"

#define MAGIC_RWLOCK 0x5752574cu /* "WRWL" */
#define MAGIC_RWLOCK_DEAD 0x7772776cu

struct weft_rwlock_s {
    _Atomic uint32_t magic; /* retired: bytes 8..15 link the free list */
    _Atomic uint32_t lock;
    unsigned readers;  /* holding it to read */
    uintptr_t writer;  /* the writer's token, or 0 */
    struct waitq rq, wq; /* waiting readers, waiting writers */
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(offsetof(struct weft_rwlock_s, magic) == 0, "a retired rwlock keeps its magic word");

int weft_rwlock_create(weft_rwlock *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    struct weft_rwlock_s *l = obj_alloc(sizeof *l);
    if (!l) return WEFT_ERR_NOMEM;
    atomic_store_explicit(&l->lock, 0, memory_order_relaxed);
    l->readers = 0;
    l->writer = 0;
    l->rq = l->wq = (struct waitq){0};
    atomic_store_explicit(&l->magic, MAGIC_RWLOCK, memory_order_release);
    *out = l;
    return WEFT_OK;
}

int weft_rwlock_free(weft_rwlock *lp)
{
    if (!lp) return WEFT_ERR_INVALID;
    struct weft_rwlock_s *l = *lp;
    int rc = sync_check(l, MAGIC_RWLOCK);
    if (rc) return rc;
    spin_lock(&l->lock);
    bool busy = l->readers || l->writer || l->rq.head || l->wq.head;
    if ((rc = sync_free_end(l, &l->lock, busy, MAGIC_RWLOCK, MAGIC_RWLOCK_DEAD, sizeof *l, NULL))) return rc;
    *lp = NULL;
    return WEFT_OK;
}

/* Queue on `q` (lock held) until an unlock grants the lock. */
static int rwlock_wait(struct weft_rwlock_s *l, struct waitq *q, struct weft_unit_s *self, uintptr_t me)
{
    struct sync_wait sw;
    sync_wait_begin(&sw, self, &l->lock, q, UINT64_MAX); /* no deadline: no timer, fine under the lock */
    sw.w.token = me;
    waitq_push_back(q, &sw.w);
    return sync_wait_block(&sw);
}

static int rwlock_acquire(struct weft_rwlock_s *l, bool write, bool try)
{
    int rc = sync_check(l, MAGIC_RWLOCK);
    if (rc) return rc;
    uintptr_t me = sync_self_token();
    struct weft_unit_s *self = NULL;
    int kind = try ? 1 : sync_wait_kind(&self);
    spin_lock(&l->lock);
    if (l->writer == me) rc = WEFT_ERR_BUSY; /* would wait for itself */
    else if (write ? !l->writer && !l->readers : !l->writer && !l->wq.head) {
        if (write) l->writer = me;
        else l->readers++;
    } else if (try) {
        rc = WEFT_ERR_BUSY;
    } else if (kind < 0) {
        rc = -kind;
    } else {
        return rwlock_wait(l, write ? &l->wq : &l->rq, self, me); /* granted on return */
    }
    spin_unlock(&l->lock);
    return rc;
}

int weft_rwlock_rdlock(weft_rwlock l) { return rwlock_acquire(l, false, false); }
int weft_rwlock_wrlock(weft_rwlock l) { return rwlock_acquire(l, true, false); }
int weft_rwlock_tryrdlock(weft_rwlock l) { return rwlock_acquire(l, false, true); }
int weft_rwlock_trywrlock(weft_rwlock l) { return rwlock_acquire(l, true, true); }

int weft_rwlock_unlock(weft_rwlock l)
{
    int rc = sync_check(l, MAGIC_RWLOCK);
    if (rc) return rc;
    uintptr_t me = sync_self_token();
    struct waiter *wake = NULL;
    spin_lock(&l->lock);
    bool was_writer = l->writer != 0;
    if (was_writer) {
        if (l->writer != me) rc = WEFT_ERR_NOT_OWNER;
        else l->writer = 0;
    } else if (l->readers) {
        l->readers--; /* readers are not tracked one by one */
    } else {
        rc = WEFT_ERR_NOT_OWNER; /* nobody holds it */
    }
    if (!rc && !l->writer && !l->readers) {
        /* Phases alternate: after a writer, the readers that queued behind
         * it; after readers, the next writer. Neither side starves. */
        if ((!was_writer || !l->rq.head) && (wake = waitq_pop(&l->wq))) {
            l->writer = wake->token;
            wake->next = NULL;
        } else {
            wake = l->rq.head;
            for (struct waiter *w = wake; w; w = w->next) l->readers++;
            l->rq = (struct waitq){0};
        }
    }
    spin_unlock(&l->lock);
    while (wake) {
        struct waiter *next = wake->next; /* gone once woken */
        waiter_wake(wake);
        wake = next;
    }
    return rc;
}
