/* What the primitives of the sync layer share: the check of a handle, and
 * the mutex's insides, which condition variables need. */
#ifndef WEFT_SYNC_INTERNAL_H
#define WEFT_SYNC_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>

#include "waitq.h"

/* Every sync object starts with its magic word; a freed one keeps a dead
 * magic (obj_retire keeps the memory) so stale handles are caught. */
static inline int sync_check(const void *obj, uint32_t magic)
{
    if (!handle_ok(obj) ||
        atomic_load_explicit((_Atomic uint32_t *)obj, memory_order_relaxed) != magic)
        return WEFT_ERR_HANDLE;
    return WEFT_OK;
}

/* The end of every free call, the object's `lock` held and `busy` judged
 * under it: a busy object stays; a free one goes from `live` to `dead`
 * magic in one compare-and-swap (of two threads freeing it at once, the
 * second gets WEFT_ERR_HANDLE), loses `extra` (memory of its own) and is
 * retired (its memory kept: stale handles read the dead magic). */
static inline int sync_free_end(void *obj, _Atomic uint32_t *lock, bool busy, uint32_t live, uint32_t dead,
                                size_t size, void *extra)
{
    bool mine = !busy && atomic_compare_exchange_strong((_Atomic uint32_t *)obj, &live, dead);
    spin_unlock(lock);
    if (busy) return WEFT_ERR_BUSY;
    if (!mine) return WEFT_ERR_HANDLE;
    free(extra);
    obj_retire(obj, size);
    return WEFT_OK;
}

#define MAGIC_MUTEX 0x574d5458u /* "WMTX" */
#define MAGIC_MUTEX_DEAD 0x776d7478u

struct weft_mutex_s {
    _Atomic uint32_t magic; /* retired: bytes 8..15 link the free list */
    uint8_t recursive;
    uint8_t fair;           /* strict hand-off to the first waiter */
    _Atomic uintptr_t owner;
    _Atomic long n_waiters; /* waiting: queued, about to be, or woken to compete */
    _Atomic uint32_t woken; /* a waiter is out competing for it */
    _Atomic uint32_t starving; /* hand over on every unlock: a waiter waited too long */
    unsigned depth;         /* recursive: extra locks held by the owner */
    _Atomic uint32_t lock;  /* guards `queue` */
    struct waitq queue;
} __attribute__((aligned(CACHE_LINE))); /* a line of its own, and obj_alloc wants whole lines */

_Static_assert(offsetof(struct weft_mutex_s, magic) == 0, "a retired mutex keeps its magic word");

static inline int mutex_check(struct weft_mutex_s *m) { return sync_check(m, MAGIC_MUTEX); }

WEFT_HIDDEN int mutex_lock(struct weft_mutex_s *m, bool high);
WEFT_HIDDEN void mutex_release(struct weft_mutex_s *m, uintptr_t me, bool may_switch);

#endif
