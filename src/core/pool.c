/* Pools: the public calls, ownership, attach/detach. The list operations of
 * the hot path are inline in pool_ops.h. */
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dlist.h"
#include "internal.h"
#include "sys.h"
#include "pool_ops.h"


/* `xs` (NULL: none) becomes the pool's owner: the stream that pops a
 * single-consumer pool, or pushes into a deque. Under the lock: other
 * threads push into (and, with no owner, pop from) the pool under it, and
 * decide there whether it has an owner to leave the work to. */
void pool_own(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    pool_lock(p);
    __atomic_store_n(&p->owner, xs, __ATOMIC_RELAXED); /* a join on another stream may read it */
    __atomic_store_n(&p->list_owner, xs && p->impl == IMPL_LIST && p->kind != POOL_KIND_USER ? xs : POOL_NOT_MINE,
                     __ATOMIC_RELAXED);
    pool_unlock(p);
}

void pool_disown(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    if (pool_owner(p) == xs) pool_own(p, NULL);
}

/* The owner rule: a single-consumer pool belongs to the stream that
 * schedules it; a deque to the first stream that schedules it as its first
 * pool (`first`); other pools have no owner. True when `xs` took it now:
 * the scheduler that made it so gives it up (sched.c: sched_release_pools). */
bool pool_take_owner(struct weft_pool_s *p, struct weft_xstream_s *xs, bool first)
{
    if (!pool_single_consumer(p) && !(p->impl == IMPL_DEQUE && first && !pool_owner(p))) return false;
    pool_own(p, xs);
    return true;
}

/* One more scheduler uses `p` (pool_detach undoes it). A single-consumer
 * pool serves one scheduler: the second of two racing claims fails. */
int pool_claim(struct weft_pool_s *p)
{
    if (!pool_single_consumer(p)) {
        atomic_fetch_add(&p->n_scheds, 1);
        return WEFT_OK;
    }
    int none = 0;
    return atomic_compare_exchange_strong(&p->n_scheds, &none, 1) ? WEFT_OK : WEFT_ERR_POOL_ACCESS;
}

/* A scheduler on `xs` starts to use `p` (as its first pool when `first`);
 * *took as pool_take_owner. */
int pool_attach(struct weft_pool_s *p, struct weft_xstream_s *xs, bool first, bool *took)
{
    int rc = pool_claim(p);
    if (rc) return rc;
    *took = pool_take_owner(p, xs, first);
    return WEFT_OK;
}

void pool_detach(struct weft_pool_s *p)
{
    atomic_fetch_sub(&p->n_scheds, 1);
}

/* May the calling stream pop from / inspect `p`? Its owner first moves in
 * the units other streams sent it (a user-defined scheduler sees them). */
static int pool_access_from(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    if (!pool_single_consumer(p) || !pool_owner(p)) return WEFT_OK;
    if (pool_owner(p) != xs) return WEFT_ERR_POOL_ACCESS;
    if (atomic_load_explicit(&xs->inbox, memory_order_relaxed)) inbox_drain(xs);
    return WEFT_OK;
}

static int pool_local_access(struct weft_pool_s *p)
{
    return pool_access_from(p, WEFT_TLS(weft_tls_xs));
}

/* The calling thread, let through by pool_local_access, is to call a
 * user pool's size or is_empty: under the lock for a shared pool, and for
 * a private one while it has no owner (still none once the lock is held,
 * else the owner's lock-free calls could overlap). *locked says whether to
 * unlock after. */
static int pool_user_enter(struct weft_pool_s *p, bool *locked)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    *locked = p->impl == IMPL_LOCKED || pool_single_locked(p, xs);
    if (*locked && !pool_lock_unowned(p, xs)) {
        *locked = false;
        return WEFT_ERR_POOL_ACCESS;
    }
    return WEFT_OK;
}

/* ---------- the deque (Chase-Lev) and the SPSC/MPSC push stack ---------- */

#define DEQUE_FIRST_CAP 256

static struct deque_ring *ring_new(int64_t cap)
{
    struct deque_ring *r = sys_malloc(sizeof *r + (size_t)cap * sizeof r->slot[0]);
    if (r) {
        r->cap = cap;
        r->older = NULL;
    }
    return r;
}

/* Double the ring (the producer only). The old one stays readable. */
static bool deque_grow(struct weft_pool_s *p)
{
    struct deque_ring *old = atomic_load_explicit(&p->ring, memory_order_relaxed);
    struct deque_ring *r = ring_new(old->cap * 2);
    if (!r) return false;
    int64_t t = atomic_load_explicit(&p->top, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&p->bottom, memory_order_relaxed);
    for (int64_t i = t; i < b; i++)
        atomic_store_explicit(&r->slot[i & (r->cap - 1)],
                              atomic_load_explicit(&old->slot[i & (old->cap - 1)], memory_order_relaxed),
                              memory_order_relaxed);
    r->older = old;
    atomic_store_explicit(&p->ring, r, memory_order_release);
    return true;
}

/* Any stream takes the oldest unit. */
static struct weft_unit_s *deque_steal(struct weft_pool_s *p)
{
    for (;;) {
        int64_t t = atomic_load_explicit(&p->top, memory_order_seq_cst);
        int64_t b = atomic_load_explicit(&p->bottom, memory_order_seq_cst);
        if (t >= b) return NULL;
        struct deque_ring *r = atomic_load_explicit(&p->ring, memory_order_acquire);
        struct weft_unit_s *u = atomic_load_explicit(&r->slot[t & (r->cap - 1)], memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&p->top, &t, t + 1, memory_order_seq_cst,
                                                    memory_order_relaxed)) {
            u->in_pool = 0;
            return u;
        }
        /* Another taker won that unit: try the next one. */
    }
}

/* The producer (the owner, or a pusher holding the lock while there is
 * none) appends at bottom. False when the ring is full and cannot grow. */
static bool deque_push(struct weft_pool_s *p, struct weft_unit_s *u)
{
    int64_t b = atomic_load_explicit(&p->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&p->top, memory_order_acquire);
    struct deque_ring *r = atomic_load_explicit(&p->ring, memory_order_relaxed);
    if (unlikely(b - t >= r->cap)) {
        if (!deque_grow(p)) return false;
        r = atomic_load_explicit(&p->ring, memory_order_relaxed);
    }
    WEFT_ASSERT(!u->in_pool);
    u->in_pool = 1;
    atomic_store_explicit(&r->slot[b & (r->cap - 1)], u, memory_order_relaxed);
    atomic_store_explicit(&p->bottom, b + 1, memory_order_release);
    return true;
}

/* The owner takes the newest unit. */
static struct weft_unit_s *deque_take(struct weft_pool_s *p)
{
    int64_t b = atomic_load_explicit(&p->bottom, memory_order_relaxed) - 1;
    struct deque_ring *r = atomic_load_explicit(&p->ring, memory_order_relaxed);
    atomic_store_explicit(&p->bottom, b, memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&p->top, memory_order_seq_cst);
    struct weft_unit_s *u = NULL;
    if (t <= b) {
        u = atomic_load_explicit(&r->slot[b & (r->cap - 1)], memory_order_relaxed);
        if (t == b) { /* the last one: race the thieves for it */
            if (!atomic_compare_exchange_strong_explicit(&p->top, &t, t + 1, memory_order_seq_cst,
                                                         memory_order_relaxed))
                u = NULL;
            atomic_store_explicit(&p->bottom, b + 1, memory_order_release);
        }
    } else {
        atomic_store_explicit(&p->bottom, b + 1, memory_order_release);
    }
    if (u) u->in_pool = 0;
    return u;
}

/* SPSC/MPSC: a push from a stream other than the owner. */
static void incoming_push(struct weft_pool_s *p, struct weft_unit_s *u)
{
    atomic_fetch_add_explicit(&p->incoming_n, 1, memory_order_relaxed); /* before: a count never runs short */
    WEFT_ASSERT(!u->in_pool);
    u->in_pool = 1;
    struct weft_unit_s *h = atomic_load_explicit(&p->incoming, memory_order_relaxed);
    do {
        u->next = h;
    } while (!atomic_compare_exchange_weak_explicit(&p->incoming, &h, u, memory_order_release,
                                                    memory_order_relaxed));
}

/* A push into a private list or a deque by a thread that is not its
 * owner. With an owner, the unit travels through its inbox; without one
 * (or once the owner has stopped and closed its inbox), the lock makes the
 * pusher the only one to touch the list or the deque's producer end. A
 * ring that cannot grow sends units to the locked list. */
static void pool_push_remote(struct weft_pool_s *p, struct weft_unit_s *u, struct weft_xstream_s *xs)
{
    for (;;) {
        pool_lock(p);
        struct weft_xstream_s *o = pool_owner(p);
        if (!o || o == xs) break;
        pool_unlock(p);
        if (inbox_push(o, u)) return;
        pool_lock(p);
        if (pool_owner(p) == o) break; /* stopped: it pushes no more */
        pool_unlock(p);
    }
    if (p->impl == IMPL_LIST) {
        list_push(p, u);
    } else if (!deque_push(p, u)) {
        list_push(p, u);
        atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
    }
    pool_unlock(p);
}

/* A pop from a single-consumer pool by a thread that does not own it,
 * which pool_access_from let through because it had no owner: under the
 * lock, and only while that is still so. */
static struct weft_unit_s *pool_pop_unowned(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    if (!pool_lock_unowned(p, xs)) return NULL;
    if (p->impl == IMPL_INCOMING && atomic_load_explicit(&p->incoming, memory_order_relaxed)) incoming_drain(p);
    struct weft_unit_s *u = list_pop(p);
    pool_unlock(p);
    return u;
}

/* ---------- the registry of live pools ---------- */

static struct weft_pool_s *g_pools; /* under g_pools_lock */
static _Atomic uint32_t g_pools_lock;

static void pool_register(struct weft_pool_s *p)
{
    spin_lock(&g_pools_lock);
    DLIST_INSERT(&g_pools, p, reg_next, reg_pprev);
    spin_unlock(&g_pools_lock);
}

/* Whether `p` is live, once a weft_pool_free() of it that is under way
 * has decided: the free marks the pool dead, and puts the mark back when
 * the pool turned out to be listed, inside one hold of g_pools_lock. */
bool pool_live(struct weft_pool_s *p)
{
    if (atomic_load(&p->magic) == MAGIC_POOL) return true;
    spin_lock(&g_pools_lock);
    bool live = atomic_load(&p->magic) == MAGIC_POOL;
    spin_unlock(&g_pools_lock);
    return live;
}

/* Mark a pool dead and keep its memory (obj_retire): stale handles. */
void pool_retire(struct weft_pool_s *p)
{
    atomic_store(&p->magic, MAGIC_DEAD);
    spin_lock(&g_pools_lock);
    if (p->reg_pprev) DLIST_REMOVE(p, reg_next, reg_pprev);
    spin_unlock(&g_pools_lock);
    for (struct deque_ring *r = atomic_load(&p->ring), *n; r; r = n) {
        n = r->older;
        free(r);
    }
    atomic_store(&p->ring, NULL);
    obj_retire(p, sizeof *p);
}

/* Under g_pools_lock: `p` is to be emptied by finalize once the lock is
 * let go (a user pool's pop may create or free pools). Listed, it cannot
 * be freed meanwhile (weft_pool_free marks it dead and looks at n_listed
 * under the same lock). */
static void pool_pin(struct weft_pool_s *p, struct weft_pool_s **pinned)
{
    atomic_fetch_add(&p->n_listed, 1);
    if (atomic_load(&p->magic) != MAGIC_POOL) { /* being freed */
        atomic_fetch_sub(&p->n_listed, 1);
        return;
    }
    p->adopt_next = *pinned;
    *pinned = p;
}

/* Pop every ready unit of the pinned pools into the list *moved, in the
 * order each pool gives them, and unpin the pools; how many. */
static size_t pools_empty_pinned(struct weft_pool_s *pinned, struct weft_xstream_s *xs, struct weft_unit_s **moved)
{
    size_t n = 0;
    struct weft_unit_s **tail = moved;
    for (struct weft_pool_s *p = pinned, *next; p; p = next) {
        next = p->adopt_next;
        struct weft_unit_s *u;
        while ((u = pool_pop_unit(p, xs)) != NULL) {
            u->next = NULL;
            *tail = u;
            tail = &u->next;
            n++;
        }
        atomic_fetch_sub(&p->n_listed, 1);
    }
    return n;
}

/* Which pools a scheduler that runs now can reach, through schedulers
 * stacked but not started whose unit waits in a pool it reaches (the
 * marks are finalize's, under g_pools_lock). A pool's mark starts as the
 * number of schedulers using it that are not such pending ones: above 0,
 * a running scheduler serves it. */
static void pending_unmark(struct weft_sched_s *s, struct weft_pool_s *at, void *ctx)
{
    (void)at;
    (void)ctx;
    s->reached = 0;
    for (int i = 0; i < s->npools; i++) s->pools[i]->adopt_mark--;
}

static void pending_reach(struct weft_sched_s *s, struct weft_pool_s *at, void *changed)
{
    /* A scheduler whose unit the program holds (at NULL) is started by no
     * running scheduler: it reaches nothing, and the units of its pools
     * run on the primary. Its own unit is left to the program while other
     * units live (units_adopt_held). */
    if (s->reached || !at || at->adopt_mark <= 0) return;
    s->reached = 1;
    *(bool *)changed = true;
    for (int i = 0; i < s->npools; i++) s->pools[i]->adopt_mark++;
}

/* Under g_pools_lock: pin the pools no running scheduler reaches that
 * hold units, e.g. two schedulers each stacked on the other's pool and
 * neither on a pool a stream serves. */
static void pools_pin_unreached(struct weft_pool_s *dest, struct weft_pool_s **pinned)
{
    /* No pending scheduler starts meanwhile. Those stacked meanwhile are
     * not reported but counted in n_scheds, read after: served. */
    scheds_pending_lock();
    for (struct weft_pool_s *p = g_pools; p; p = p->reg_next) p->adopt_mark = 0;
    scheds_each_pending(pending_unmark, NULL);
    for (struct weft_pool_s *p = g_pools; p; p = p->reg_next) p->adopt_mark += atomic_load(&p->n_scheds);
    bool changed;
    do {
        changed = false;
        scheds_each_pending(pending_reach, &changed);
    } while (changed);
    for (struct weft_pool_s *p = g_pools; p; p = p->reg_next)
        if (p != dest && p->adopt_mark <= 0 && pool_count(p) > 0) pool_pin(p, pinned);
    scheds_pending_unlock();
}

/* weft_finalize(), from the main ULT on the primary stream `xs`, when no
 * unit has ended for a while: units that wait in pools no scheduler
 * serves (a freed stream's, a user pool never attached) would never run.
 * Move them to the primary's pool. Only when there are none: the units of
 * pools that only schedulers stacked out of reach would serve. Returns how
 * many moved. A unit bound to a stream that has ended is unbound when it
 * is picked (unit.c, unit_claim). */
size_t pools_adopt_orphans(struct weft_xstream_s *xs)
{
    struct weft_pool_s *dest = sched_migration_pool(xs_main_sched(xs));
    struct weft_unit_s *moved = NULL, *u;
    struct weft_pool_s *pinned = NULL;
    spin_lock(&g_pools_lock);
    for (struct weft_pool_s *p = g_pools; p; p = p->reg_next)
        if (p != dest && atomic_load(&p->n_scheds) == 0 && pool_count(p) > 0) pool_pin(p, &pinned);
    if (!pinned) pools_pin_unreached(dest, &pinned);
    spin_unlock(&g_pools_lock);
    size_t n = pools_empty_pinned(pinned, xs, &moved);
    while ((u = moved)) {
        moved = u->next;
        unit_set_pool(u, dest);
        unit_deliver(xs, u);
    }
    return n;
}

/* weft_finalize(), when nothing moved even so: units the program took out
 * of pools and still holds. With `take`, when they are all the `live`
 * units there are (no other unit could give one back), those held since
 * the previous call run on the primary stream; a push or run of one of
 * them that loses the race to this gets WEFT_ERR_STATE. Otherwise they
 * are marked for the next call. Returns how many are held. */
size_t units_adopt_held(struct weft_xstream_s *xs, uint64_t live, bool take)
{
    struct weft_pool_s *dest = sched_migration_pool(xs_main_sched(xs));
    size_t n;
    if (take) {
        slabs_scan_held(HELD_COUNT, NULL, &n);
        if (n == live) {
            struct weft_unit_s *u = slabs_scan_held(HELD_TAKE, dest, &n), *next;
            for (; u; u = next) {
                next = u->next;
                u->next = NULL;
                unit_deliver(xs, u);
            }
            return n;
        }
    }
    slabs_scan_held(HELD_MARK, NULL, &n);
    return n;
}

/* The combinations weft_pool_create() accepts: a deque is for stealing. */
bool pool_kind_valid(int kind, int access)
{
    if (kind < 0 || kind > WEFT_POOL_DEQUE || access < 0 || access > WEFT_POOL_ACCESS_SPMC) return false;
    return kind != WEFT_POOL_DEQUE || access == WEFT_POOL_ACCESS_SPMC || access == WEFT_POOL_ACCESS_MPMC;
}

/* pool_push_unit() and pool_pop_unit() for every case but the owner's
 * own built-in private list. */
void pool_push_shared(struct weft_pool_s *p, struct weft_unit_s *u, struct weft_xstream_s *xs)
{
    switch (p->impl) {
    case IMPL_LIST: /* a user pool's owner, or a thread without a stream to forward to */
        if (xs && pool_owner(p) == xs) list_push(p, u);
        else pool_push_remote(p, u, xs);
        return;
    case IMPL_LOCKED:
        locked_push(p, u);
        break;
    case IMPL_INCOMING:
        if (xs && p->owner == xs) {
            if (atomic_load_explicit(&p->incoming, memory_order_relaxed)) incoming_drain(p);
            list_push(p, u);
        } else {
            incoming_push(p, u);
        }
        break;
    default:
        if (!(xs && pool_owner(p) == xs && deque_push(p, u))) pool_push_remote(p, u, xs);
    }
    pool_notify(p);
}

struct weft_unit_s *pool_pop_shared(struct weft_pool_s *p, struct weft_xstream_s *xs)
{
    struct weft_unit_s *u;
    switch (p->impl) {
    case IMPL_LOCKED:
        return locked_pop(p);
    case IMPL_LIST: /* a user pool's owner, or a pool without one */
    case IMPL_INCOMING:
        if (pool_single_locked(p, xs)) return pool_pop_unowned(p, xs);
        if (p->impl == IMPL_INCOMING && atomic_load_explicit(&p->incoming, memory_order_relaxed)) incoming_drain(p);
        return list_pop(p);
    default:
        u = p->lifo && xs && pool_owner(p) == xs ? deque_take(p) : deque_steal(p);
        /* Units that found the ring full and unable to grow wait in the list. */
        return u ? u : locked_pop(p);
    }
}

int weft_pool_create(weft_pool_kind kind, weft_pool_access access, weft_pool *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (!pool_kind_valid((int)kind, (int)access)) return WEFT_ERR_INVALID;
    struct weft_pool_s *p = obj_alloc(sizeof *p);
    if (!p) return WEFT_ERR_NOMEM;
    *p = (struct weft_pool_s){0};
    p->kind = (uint8_t)kind;
    p->access = (uint8_t)access;
    p->lifo = kind != WEFT_POOL_FIFO;
    p->list_owner = POOL_NOT_MINE; /* no owner yet */
    if (kind == WEFT_POOL_DEQUE || access == WEFT_POOL_ACCESS_SPMC) p->impl = IMPL_DEQUE;
    else if (access == WEFT_POOL_ACCESS_MPMC) p->impl = IMPL_LOCKED;
    else if (access == WEFT_POOL_ACCESS_PRIVATE) p->impl = IMPL_LIST;
    else p->impl = IMPL_INCOMING;
    if (p->impl == IMPL_DEQUE) {
        struct deque_ring *r = ring_new(DEQUE_FIRST_CAP);
        if (!r) {
            pool_retire(p);
            return WEFT_ERR_NOMEM;
        }
        atomic_store(&p->ring, r);
    }
    pool_register(p);
    atomic_store(&p->magic, MAGIC_POOL);
    *out = p;
    return WEFT_OK;
}

int weft_pool_create_user(const weft_pool_ops *ops, void *state, weft_pool_access access, weft_pool *out)
{
    if (!out) return WEFT_ERR_INVALID;
    *out = NULL;
    if (!ops || !ops->push || !ops->pop) return WEFT_ERR_INVALID;
    if ((unsigned)access > WEFT_POOL_ACCESS_SPMC) return WEFT_ERR_INVALID;
    int rc = weft_pool_create(WEFT_POOL_FIFO, WEFT_POOL_ACCESS_PRIVATE, out);
    if (rc) return rc;
    (*out)->kind = POOL_KIND_USER;
    (*out)->lifo = 0;
    (*out)->access = (uint8_t)access;
    (*out)->impl = access == WEFT_POOL_ACCESS_PRIVATE ? IMPL_LIST : IMPL_LOCKED; /* the ops need no sync of their own */
    (*out)->ops = *ops;
    (*out)->ops_state = state;
    if (ops->init && (rc = ops->init(state, *out)) != WEFT_OK) {
        pool_retire(*out);
        *out = NULL;
        return rc;
    }
    return WEFT_OK;
}

int weft_pool_free(weft_pool *pool)
{
    if (!pool) return WEFT_ERR_INVALID;
    struct weft_pool_s *p = *pool;
    int rc = pool_check(p);
    if (rc) return rc;
    if (p->runtime_owned || atomic_load(&p->n_scheds) > 0 || atomic_load(&p->n_listed) > 0 || pool_count(p) > 0 ||
        atomic_load(&p->n_blocked) > 0 || slabs_pool_in_use(p))
        return WEFT_ERR_BUSY;
    /* Under the registry's lock, which finalize holds while it pins pools
     * to empty them (pool_pin): either it sees the pool dead, or this sees
     * it pinned before the pool ever looks dead to anyone. */
    spin_lock(&g_pools_lock);
    uint32_t live = MAGIC_POOL;
    if (!atomic_compare_exchange_strong(&p->magic, &live, MAGIC_DEAD)) {
        spin_unlock(&g_pools_lock);
        return WEFT_ERR_HANDLE; /* freed meanwhile */
    }
    if (atomic_load(&p->n_listed) > 0) { /* a scheduler created meanwhile lists it (sched.c: sched_new) */
        atomic_store(&p->magic, MAGIC_POOL);
        spin_unlock(&g_pools_lock);
        return WEFT_ERR_BUSY;
    }
    spin_unlock(&g_pools_lock);
    if (p->kind == POOL_KIND_USER && p->ops.free) p->ops.free(p->ops_state);
    pool_retire(p);
    *pool = NULL;
    return WEFT_OK;
}

int weft_pool_size(weft_pool pool, size_t *n)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!n) return WEFT_ERR_INVALID;
    if ((rc = pool_local_access(pool))) return rc;
    if (pool->kind == POOL_KIND_USER && pool->ops.size) {
        bool locked;
        if ((rc = pool_user_enter(pool, &locked))) return rc;
        *n = pool->ops.size(pool->ops_state);
        if (locked) pool_unlock(pool);
    } else {
        *n = pool_count(pool);
    }
    return WEFT_OK;
}

int weft_pool_total_size(weft_pool pool, size_t *n)
{
    int rc = weft_pool_size(pool, n);
    if (rc) return rc;
    long blocked = atomic_load_explicit(&pool->n_blocked, memory_order_acquire);
    *n += blocked > 0 ? (size_t)blocked : 0;
    return WEFT_OK;
}

int weft_pool_is_empty(weft_pool pool, int *empty)
{
    if (!empty) return WEFT_ERR_INVALID;
    int rc = pool_check(pool);
    if (rc) return rc;
    if (pool->kind == POOL_KIND_USER && pool->ops.is_empty) {
        if ((rc = pool_local_access(pool))) return rc;
        bool locked;
        if ((rc = pool_user_enter(pool, &locked))) return rc;
        *empty = pool->ops.is_empty(pool->ops_state) != 0;
        if (locked) pool_unlock(pool);
        return WEFT_OK;
    }
    size_t n;
    if ((rc = weft_pool_size(pool, &n))) return rc;
    *empty = n == 0;
    return WEFT_OK;
}

int weft_pool_push(weft_pool pool, weft_thread unit)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if ((rc = unit_check(unit))) return rc;
    /* Only a unit the program holds (weft_pool_pop handed it out: ready,
     * in no pool, in no inbox) may move; once, and not after weft_finalize
     * adopted it. */
    if (!unit_claim_held(unit, pool)) return WEFT_ERR_STATE;
    unit_deliver(WEFT_TLS(weft_tls_xs), unit);
    return WEFT_OK;
}

int weft_pool_pop(weft_pool pool, weft_thread *unit)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!unit) return WEFT_ERR_INVALID;
    if ((rc = pool_local_access(pool))) return rc;
    struct weft_unit_s *u = pool_pop_unit(pool, WEFT_TLS(weft_tls_xs));
    if (u) unit_set_pool(u, UNIT_HELD); /* held by the caller until pushed again */
    *unit = u;
    return WEFT_OK;
}

/* Up to `max` units of `p` for `xs` into out[]. */
static int pool_pop_batch(struct weft_pool_s *p, struct weft_xstream_s *xs, int max, struct weft_unit_s **out)
{
    int n = 0;
    struct weft_unit_s *u;
    if (p->impl != IMPL_LOCKED && !(p->kind == POOL_KIND_USER && p->ops.pop_many)) {
        while (n < max && (u = pool_pop_unit(p, xs))) out[n++] = u;
        return n;
    }
    /* A shared user pool, or a private one: by its owner, or locked while
     * it has none. */
    bool locked = p->impl == IMPL_LOCKED || pool_single_locked(p, xs);
    if (p->impl == IMPL_LOCKED && !atomic_load_explicit(&p->size_snapshot, memory_order_relaxed)) return 0;
    if (locked && !pool_lock_unowned(p, xs)) return 0; /* owned since the caller looked */
    if (p->kind == POOL_KIND_USER && p->ops.pop_many) {
        int want = p->size < (size_t)max ? (int)p->size : max;
        if (want > 0 && !(p->ops.is_empty && p->ops.is_empty(p->ops_state))) {
            n = p->ops.pop_many(p->ops_state, out, want);
            if (n > want) {
                static const char msg[] = "weft: a user pool's pop_many returned more units than asked for\n";
                ssize_t w = write(2, msg, sizeof msg - 1);
                (void)w;
                abort();
            }
            if (n < 0) n = 0;
            for (int i = 0; i < n; i++) out[i]->in_pool = 0;
            p->size -= (size_t)n;
        }
    }
    while (n < max && (u = list_pop(p))) out[n++] = u; /* built-in, or a pop_many that gave fewer */
    if (locked) {
        if (p->impl == IMPL_LOCKED) atomic_store_explicit(&p->size_snapshot, p->size, memory_order_relaxed);
        pool_unlock(p);
    }
    return n;
}

int weft_pool_pop_many(weft_pool pool, int max, weft_thread *units, int *n)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!n || max < 0 || (max > 0 && !units)) return WEFT_ERR_INVALID;
    *n = 0;
    if ((rc = pool_local_access(pool))) return rc;
    int got = pool_pop_batch(pool, WEFT_TLS(weft_tls_xs), max, units);
    for (int i = 0; i < got; i++) unit_set_pool(units[i], UNIT_HELD); /* held by the caller until pushed again */
    *n = got;
    return WEFT_OK;
}

int weft_pool_pop_wait(weft_pool pool, uint64_t timeout_ns, weft_thread *unit)
{
    int rc = pool_check(pool);
    if (rc) return rc;
    if (!unit) return WEFT_ERR_INVALID;
    *unit = NULL;
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_unit_s *self = xs ? xs->cur : NULL;
    if (timeout_ns && self && self->kind == KIND_TASKLET) return WEFT_ERR_TASKLET_BLOCKS;
    /* A ULT waits by yielding; its stream (and so its pool access) is
     * whatever it runs on after each yield. */
    bool ult = self && (self->kind == KIND_ULT || self->kind == KIND_MAIN);
    if (!ult && timeout_ns && pool->kind == POOL_KIND_USER && pool->ops.pop_wait && pool->impl == IMPL_LIST &&
        !(rc = pool_access_from(pool, xs)) && pool->size) {
        /* It holds units back: let it wait for their release its own way. */
        struct weft_unit_s *u = pool_pop_unit(pool, xs);
        if (!u && (u = pool->ops.pop_wait(pool->ops_state, timeout_ns))) {
            bool locked = pool_single_locked(pool, xs); /* pushers count under the lock meanwhile */
            if (locked) pool_lock(pool);
            u->in_pool = 0;
            pool->size--;
            if (locked) pool_unlock(pool);
        }
        if (u) unit_set_pool(u, UNIT_HELD);
        *unit = u;
        return WEFT_OK;
    }
    uint64_t start = clock_ns();
    uint64_t deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns; /* saturate */
    unsigned idle = 0;
    for (;;) {
        if (ult) xs = self->xs;
        if ((rc = pool_access_from(pool, xs))) return rc;
        struct weft_unit_s *u = pool_pop_unit(pool, xs);
        if (u) {
            unit_set_pool(u, UNIT_HELD);
            *unit = u;
            return WEFT_OK;
        }
        if (timeout_ns == 0 || (deadline != UINT64_MAX && clock_ns() >= deadline)) return WEFT_OK;
        if (ult) weft_yield();
        else idle_backoff(&idle);
    }
}

/* ---------- fork (fork.c) ---------- */

/* The registry is held across fork(): the child finds it whole, to keep
 * it (no runtime ran) or to give up the parent's pools in one piece. */
void pools_fork_lock(void)
{
    spin_lock(&g_pools_lock);
}

void pools_fork_unlock(void)
{
    spin_unlock(&g_pools_lock);
}

/* The child of a live runtime: the parent's pools belong to streams and
 * units that are gone. Each leaves the registry, so that no finalize of
 * the child adopts their units and a free of one touches no list. */
void pools_fork_abandon(void)
{
    fork_keep(g_pools);
    for (struct weft_pool_s *p = g_pools; p; p = p->reg_next) p->reg_pprev = NULL;
    g_pools = NULL;
}
