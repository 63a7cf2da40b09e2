/* Unit descriptors: the slow paths behind the per-stream caches of
 * mem_cache.h.
 *
 * Descriptors come from slabs of handle memory (handle.c), never given
 * back, kept across runtimes: a stale handle always points at readable
 * memory whose magic word says "dead". Each stream caches up to CACHE_MAX
 * of them, so create and free on one stream take no lock ([Argobots §3.3]:
 * per-stream memory pools); the surplus goes to global lists under
 * weft_g.lock. A descriptor freed on a stream other than the one whose
 * slab it is from goes back to that stream, batched. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mem_cache.h"

#define REMOTE_BATCH 64

static struct slab *g_slabs;                /* the runtime's slabs */
static struct slab *g_spare_slabs;          /* slabs of runtimes that ended, for the next; under weft_g.lock */
static struct unit_cache g_plain;           /* global descriptor list, under weft_g.lock */
static struct unit_cache g_export;          /* surplus of export slabs, under weft_g.lock */

/* ---------- descriptors ---------- */

/* Under weft_g.lock: a fresh slab owned by `owner` into `into`. */
static int slab_new(struct unit_cache *into, struct weft_xstream_s *owner, bool exported)
{
    /* Handle memory (handle.c): never unmapped, reused across runtimes. */
    struct slab *s = g_spare_slabs;
    if (s) {
        g_spare_slabs = s->next;
        memset(s, 0, sizeof *s);
    } else if (!(s = handle_alloc(SLAB_ALIGN, SLAB_ALIGN))) {
        return WEFT_ERR_NOMEM;
    } /* else fresh from the region: zero, and not written here until used */
    s->owner = (uintptr_t)owner | (owner && exported ? SLAB_EXPORTED : 0);
    s->next = g_slabs;
    g_slabs = s;
    for (int i = (int)SLAB_UNITS - 1; i >= 0; i--) {
        __builtin_prefetch(&s->units[i].ctx, 1);
        atomic_store_explicit(&s->units[i].magic, MAGIC_DEAD, memory_order_relaxed);
        cache_push(into, &s->units[i]);
    }
    return WEFT_OK;
}

/* Slow path of mem_unit_alloc() and mem_unit_alloc_export(): what other
 * streams gave back, else (local only) the global list, else a new slab.
 *
 * Why exports have slabs of their own: a unit made here but run by
 * another stream is written by that stream whenever it switches. If its
 * descriptor shared a page with the descriptors this stream recycles all
 * the time, this stream's prefetchers would keep pulling its lines over,
 * and the other stream would miss on every switch (measured: docs/design.md,
 * "Descriptors that run elsewhere"). The global list may hold descriptors of anyone's local
 * slabs, so exports never take from it. */
struct weft_unit_s *mem_unit_alloc_slow(struct weft_xstream_s *xs, bool exported)
{
    struct weft_unit_s *u;
    struct unit_cache *c = xs ? (exported ? &xs->export_cache : &xs->unit_cache) : NULL;
    if (xs && atomic_load_explicit(&xs->returned, memory_order_relaxed)) {
        u = atomic_exchange_explicit(&xs->returned, NULL, memory_order_acquire);
        while (u) {
            struct weft_unit_s *n = u->next;
            bool ex = atomic_load_explicit(&slab_of(u)->owner, memory_order_relaxed) & SLAB_EXPORTED;
            cache_push(ex ? &xs->export_cache : &xs->unit_cache, u);
            u = n;
        }
        if ((u = cache_pop(c))) return u;
    }
    pthread_mutex_lock(&weft_g.lock);
    if (xs && exported && g_export.head) {
        /* Another round of units for other streams: the descriptors the
         * last rounds left over, not a new slab each time. */
        u = cache_pop(&g_export);
        for (int i = 0; i < 32 && g_export.head; i++) cache_push(c, cache_pop(&g_export));
        pthread_mutex_unlock(&weft_g.lock);
        return u;
    }
    if (xs && (exported || !g_plain.head)) {
        /* A stream takes a whole new slab: descriptors of different streams
         * never sit side by side. */
        int rc = slab_new(c, xs, exported);
        pthread_mutex_unlock(&weft_g.lock);
        return rc == WEFT_OK ? cache_pop(c) : NULL;
    }
    if (!g_plain.head && slab_new(&g_plain, NULL, false) != WEFT_OK) {
        pthread_mutex_unlock(&weft_g.lock);
        return NULL;
    }
    u = cache_pop(&g_plain);
    if (xs)
        for (int i = 0; i < 32 && g_plain.head; i++) cache_push(&xs->unit_cache, cache_pop(&g_plain));
    pthread_mutex_unlock(&weft_g.lock);
    return u;
}

/* Slow path of mem_unit_release(): the global list. */
void mem_unit_release_slow(struct weft_unit_s *u)
{
    pthread_mutex_lock(&weft_g.lock);
    cache_push(&g_plain, u);
    pthread_mutex_unlock(&weft_g.lock);
}

/* Send the batch of freed descriptors to their owner: one exchange-free
 * splice onto its `returned` stack. */
static void remote_flush(struct weft_xstream_s *xs)
{
    struct unit_cache *b = &xs->remote_batch;
    if (!b->head) return;
    struct weft_unit_s *last = b->head;
    while (last->next) last = last->next;
    _Atomic(struct weft_unit_s *) *into = &xs->remote_owner->returned;
    struct weft_unit_s *h = atomic_load_explicit(into, memory_order_relaxed);
    do {
        last->next = h;
    } while (!atomic_compare_exchange_weak_explicit(into, &h, b->head, memory_order_release, memory_order_relaxed));
    *b = (struct unit_cache){0};
    xs->remote_owner = NULL;
}

/* A descriptor of `owner`'s slabs freed on `xs`: batched per owner, so a
 * producer stream and a consumer stream exchange one atomic operation per
 * REMOTE_BATCH units and each stream's caches stay bounded. */
void mem_unit_release_remote(struct weft_xstream_s *xs, struct weft_unit_s *u, uintptr_t tagged)
{
    struct weft_xstream_s *owner = (struct weft_xstream_s *)(tagged & ~SLAB_EXPORTED);
    if (owner == xs) { /* one of our export slabs */
        if (xs->export_cache.n < CACHE_MAX) {
            cache_push(&xs->export_cache, u);
        } else {
            /* Kept for exports: the global list would hand it to local
             * allocations, and the next exports would need new slabs. */
            pthread_mutex_lock(&weft_g.lock);
            cache_push(&g_export, u);
            pthread_mutex_unlock(&weft_g.lock);
        }
        return;
    }
    if (xs->remote_owner != owner) {
        remote_flush(xs);
        xs->remote_owner = owner;
    }
    cache_push(&xs->remote_batch, u);
    if (xs->remote_batch.n >= REMOTE_BATCH) remote_flush(xs);
}

/* A stream that ends hands its descriptor caches to the global list and
 * its slabs to no one: from now on they are freed wherever they are
 * released. (A descriptor another stream is sending back just now stays on
 * the dead stream's list until weft_finalize() retires the slabs.) */
void slab_cache_flush(struct weft_xstream_s *xs)
{
    struct weft_unit_s *u;
    remote_flush(xs);
    pthread_mutex_lock(&weft_g.lock);
    for (struct slab *s = g_slabs; s; s = s->next)
        if ((atomic_load_explicit(&s->owner, memory_order_relaxed) & ~SLAB_EXPORTED) == (uintptr_t)xs)
            atomic_store_explicit(&s->owner, 0, memory_order_relaxed);
    u = atomic_exchange(&xs->returned, NULL);
    while (u) {
        struct weft_unit_s *n = u->next;
        cache_push(&g_plain, u);
        u = n;
    }
    while ((u = cache_pop(&xs->unit_cache))) cache_push(&g_plain, u);
    while ((u = cache_pop(&xs->export_cache))) cache_push(&g_plain, u);
    pthread_mutex_unlock(&weft_g.lock);
}

/* weft_finalize(), when nothing moves: the units the program took out of
 * pools with weft_pool_pop() and its kin and still holds. Counts them in
 * *held; HELD_MARK marks each as seen (UNIT_HELD_SEEN); HELD_TAKE claims
 * for `dest` those seen by an earlier HELD_MARK and held ever since (a push
 * and a new pop in between make it plain held again) and returns them as
 * a list linked through `next`. A claim is a compare-and-swap
 * (unit_claim_held): exactly once, against a push or run racing this.
 * Reads of other streams' descriptors are atomic: the magic word, then
 * the pool. */
struct weft_unit_s *slabs_scan_held(enum held_scan mode, struct weft_pool_s *dest, size_t *held)
{
    struct weft_unit_s *list = NULL;
    size_t n = 0;
    pthread_mutex_lock(&weft_g.lock);
    for (struct slab *s = g_slabs; s; s = s->next)
        for (size_t i = 0; i < SLAB_UNITS; i++) {
            struct weft_unit_s *u = &s->units[i];
            if (atomic_load_explicit(&u->magic, memory_order_acquire) != MAGIC_UNIT) continue;
            struct weft_pool_s *v = __atomic_load_n(&u->pool, __ATOMIC_RELAXED);
            if (v != UNIT_HELD && v != UNIT_HELD_SEEN) continue;
            n++;
            if (mode == HELD_MARK && v == UNIT_HELD) {
                /* release: the claimer's acquire then orders its plain reads of the field after this */
                __atomic_compare_exchange_n(&u->pool, &v, UNIT_HELD_SEEN, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
            } else if (mode == HELD_TAKE && v == UNIT_HELD_SEEN &&
                       __atomic_compare_exchange_n(&u->pool, &v, dest, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
                u->next = list; /* held, it is in no pool: the link is free */
                list = u;
            }
        }
    pthread_mutex_unlock(&weft_g.lock);
    *held = n;
    return list;
}

/* weft_pool_free(): whether a unit that has not ended has `p` as its pool
 * (one running, or on its way into it), so that a yield, a wake or a
 * requeue would go into it later. A walk over every descriptor: frees of
 * pools are rare. */
bool slabs_pool_in_use(const struct weft_pool_s *p)
{
    bool used = false;
    pthread_mutex_lock(&weft_g.lock);
    for (struct slab *s = g_slabs; s && !used; s = s->next)
        for (size_t i = 0; i < SLAB_UNITS; i++) {
            struct weft_unit_s *u = &s->units[i];
            if (atomic_load_explicit(&u->magic, memory_order_acquire) != MAGIC_UNIT ||
                __atomic_load_n(&u->pool, __ATOMIC_RELAXED) != p ||
                atomic_load_explicit(&u->state, memory_order_relaxed) == WEFT_STATE_TERMINATED)
                continue;
            used = true;
            break;
        }
    pthread_mutex_unlock(&weft_g.lock);
    return used;
}

/* weft_finalize(), all streams gone: every descriptor dead and without a
 * stack; the slabs are kept for the next runtime (a stale handle still
 * reads "dead"). */
void slabs_finalize(void)
{
    for (struct slab *s = g_slabs; s; s = s->next)
        for (size_t i = 0; i < SLAB_UNITS; i++) {
            struct weft_unit_s *u = &s->units[i];
            stack_release_unit(u);
            atomic_store_explicit(&u->magic, MAGIC_DEAD, memory_order_relaxed);
        }
    pthread_mutex_lock(&weft_g.lock);
    while (g_slabs) {
        struct slab *n = g_slabs->next;
        g_slabs->next = g_spare_slabs;
        g_spare_slabs = g_slabs;
        g_slabs = n;
    }
    pthread_mutex_unlock(&weft_g.lock);
    g_plain = (struct unit_cache){0};
    g_export = (struct unit_cache){0};
}

/* fork.c: the child of a live runtime leaves the parent's slabs allocated
 * as they are; the next weft_init() starts with empty lists. */
void slabs_fork_abandon(void)
{
    fork_keep(g_slabs);
    g_slabs = NULL;
    g_plain = (struct unit_cache){0};
    g_export = (struct unit_cache){0};
}
