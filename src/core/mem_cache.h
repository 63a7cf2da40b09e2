/* Per-stream caches of descriptors and stacks: the fast paths, inline
 * because create, dispatch and free run them for every unit. The slow paths
 * (global lists under a lock, the OS) are in slab.c (descriptors) and stack.c. */
#ifndef WEFT_CORE_MEM_CACHE_H
#define WEFT_CORE_MEM_CACHE_H

#include "fiber_hooks.h"
#include "internal.h"

#define CACHE_MAX 1024 /* per stream, for descriptors and for stacks */

/* Measurement builds only (bench/: the join-latency breakdown): without the
 * per-stream caches every descriptor and stack goes through the global lists
 * under the runtime lock, as if no stream had a memory pool. */
#ifdef WEFT_MEASURE_NO_MEMPOOL
#define MEMPOOL_XS(xs) ((struct weft_xstream_s *)NULL)
#else
#define MEMPOOL_XS(xs) (xs)
#endif

/* Every stack weft makes (STK_OWN) keeps a record in its highest
 * STACK_REC bytes, below which the ULT's frames grow: what the stack is,
 * while any unit holds it and while it sits in a cache. Keeping it there
 * rather than in the descriptor keeps descriptors at two lines, and the
 * line is one a new ULT's first frame sits beside anyway. Caches link
 * stacks (all of the default size) by their lowest usable byte. */
struct stack_rec {
    void *next_lo;      /* next cached stack */
    void *map;          /* base of its mapping (guard first), or of its slot */
    void *tsan_fiber;   /* the ThreadSanitizer fiber that goes with the stack */
    unsigned vg_stack_id;
    uint8_t carved;     /* a slot of a shared chunk (stack.c) */
};
#define STACK_REC ((size_t)CACHE_LINE)
_Static_assert(sizeof(struct stack_rec) <= STACK_REC, "a stack record fits its line");

static inline struct stack_rec *stack_rec(void *lo, size_t size)
{
    return (struct stack_rec *)((char *)lo + size - STACK_REC);
}

/* The record of the stack unit `u` holds (STK_OWN). */
static inline struct stack_rec *unit_stack_rec(const struct weft_unit_s *u)
{
    WEFT_ASSERT(u->stack_flags & STK_OWN);
    return stack_rec(u->stack_lo, u->stack_size);
}

/* The bytes of its stack a ULT's frames may use: all but the record. */
static inline size_t unit_stack_usable(const struct weft_unit_s *u)
{
    return u->stack_size - ((u->stack_flags & STK_OWN) ? STACK_REC : 0);
}

static inline void *stack_cache_pop(struct stack_cache *c)
{
    void *lo = c->head;
    if (lo) {
        c->head = stack_rec(lo, weft_g.stack_size)->next_lo;
        c->n--;
    }
    return lo;
}

/* Put the default-size stack whose lowest usable byte is `lo` on `c`. */
static inline void stack_cache_push(struct stack_cache *c, void *lo)
{
    stack_rec(lo, weft_g.stack_size)->next_lo = c->head;
    c->head = lo;
    c->n++;
}

/* Cache the stack `u` holds; `u` holds none afterwards. */
static inline void stack_cache_push_unit(struct stack_cache *c, struct weft_unit_s *u)
{
#ifdef WEFT_TSAN
    unit_stack_rec(u)->tsan_fiber = u->tsan_fiber;
    u->tsan_fiber = NULL;
#endif
    stack_cache_push(c, u->stack_lo);
    u->stack_lo = NULL;
    u->stack_flags &= (uint8_t)~(STK_OWN | STK_CARVED);
}

/* Give `u` the cached stack whose lowest usable byte is `lo`. */
static inline void stack_adopt(struct weft_unit_s *u, void *lo)
{
    struct stack_rec *r = stack_rec(lo, weft_g.stack_size);
    u->stack_lo = lo;
    u->stack_flags |= (uint8_t)(STK_OWN | (r->carved ? STK_CARVED : 0));
#ifdef WEFT_TSAN
    u->tsan_fiber = r->tsan_fiber;
#endif
    hook_stack_reuse(u);
}

static inline struct weft_unit_s *cache_pop(struct unit_cache *c)
{
    struct weft_unit_s *u = c->head;
    if (u) {
        c->head = u->next;
        c->n--;
        /* The next one's line, while this one is set up: a descriptor
         * never used before (a fresh slab) is not in any cache. */
        __builtin_prefetch(c->head, 1);
    }
    return u;
}

static inline void cache_push(struct unit_cache *c, struct weft_unit_s *u)
{
    u->next = c->head;
    c->head = u;
    c->n++;
}

WEFT_HIDDEN struct weft_unit_s *mem_unit_alloc_slow(struct weft_xstream_s *xs, bool exported);
WEFT_HIDDEN void mem_unit_release_slow(struct weft_unit_s *u);
WEFT_HIDDEN int mem_stack_get_slow(struct weft_xstream_s *xs, struct weft_unit_s *u);
WEFT_HIDDEN void mem_stack_put_slow(struct weft_xstream_s *xs, struct weft_unit_s *u);

/* A descriptor (no stack). `xs` is the calling stream, whose cache is used,
 * or NULL for a plain thread. */
static inline struct weft_unit_s *mem_unit_alloc(struct weft_xstream_s *xs)
{
    xs = MEMPOOL_XS(xs);
    struct weft_unit_s *u;
    if (likely(xs != NULL) && (u = cache_pop(&xs->unit_cache)) != NULL) return u;
    return mem_unit_alloc_slow(xs, false);
}

/* A descriptor for a unit that `xs` makes but that will run on other
 * streams: from xs's export slabs. */
static inline struct weft_unit_s *mem_unit_alloc_export(struct weft_xstream_s *xs)
{
    xs = MEMPOOL_XS(xs);
    struct weft_unit_s *u;
    if (likely(xs != NULL) && (u = cache_pop(&xs->export_cache)) != NULL) return u;
    return mem_unit_alloc_slow(xs, true);
}

/* Give ULT `u` a stack of u->stack_size bytes. */
static inline int mem_stack_get(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    xs = MEMPOOL_XS(xs);
    void *lo;
    if (likely(xs != NULL) && u->stack_size == weft_g.fast_stack_size && (lo = stack_cache_pop(&xs->stack_cache))) {
        stack_adopt(u, lo);
        return WEFT_OK;
    }
    return mem_stack_get_slow(xs, u);
}

/* Take the stack back from `u` (which no longer runs on it). Carved stacks
 * are checked on the slow path; while ULTs wait for a stack, every stack
 * goes to the global list where they can find it. True when the slow path
 * took it (the caller then looks for waiters). */
static inline bool mem_stack_put(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    xs = MEMPOOL_XS(xs);
    if (!(u->stack_flags & STK_OWN)) return false;
    if (likely(xs != NULL) && u->stack_size == weft_g.fast_stack_size && likely(!(u->stack_flags & STK_CARVED)) &&
        xs->stack_cache.n < CACHE_MAX && likely(!atomic_load_explicit(&weft_g.stack_waiters, memory_order_relaxed))) {
        stack_cache_push_unit(&xs->stack_cache, u);
        return false;
    }
    mem_stack_put_slow(xs, u);
    return true;
}

/* Descriptors come from slabs of SLAB_UNITS, each aligned to SLAB_ALIGN and
 * tagged with the stream that took it: a descriptor's owner is one mask
 * away. */
#define SLAB_ALIGN ((size_t)32768)
#define SLAB_UNITS ((SLAB_ALIGN - CACHE_LINE) / sizeof(struct weft_unit_s))

struct slab {
    struct slab *next;
    /* The stream the slab belongs to, NULL when shared (plain threads,
     * ended streams). Tagged with SLAB_EXPORTED for a stream's export
     * slabs: a release then never takes the local fast path. */
    uintptr_t _Atomic owner;
    struct weft_unit_s units[SLAB_UNITS] __attribute__((aligned(CACHE_LINE)));
};
_Static_assert(sizeof(struct slab) <= SLAB_ALIGN, "a slab fits its alignment");

#define SLAB_EXPORTED ((uintptr_t)1)

static inline struct slab *slab_of(struct weft_unit_s *u)
{
    return (struct slab *)((uintptr_t)u & ~(SLAB_ALIGN - 1));
}

WEFT_HIDDEN void mem_unit_release_remote(struct weft_xstream_s *xs, struct weft_unit_s *u, uintptr_t owner);

/* Return a descriptor, and any stack it still holds, to the caches: the
 * caller's own when the descriptor is from one of its local slabs (or from
 * no stream's), else (slab.c) its export cache or back towards its owner in
 * batches. */
static inline void mem_unit_release(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    xs = MEMPOOL_XS(xs);
    atomic_store_explicit(&u->magic, MAGIC_DEAD, memory_order_relaxed);
    mem_stack_put(xs, u);
    if (likely(xs != NULL)) {
        uintptr_t owner = atomic_load_explicit(&slab_of(u)->owner, memory_order_relaxed);
        if (unlikely(owner != (uintptr_t)xs && owner != 0)) {
            mem_unit_release_remote(xs, u, owner);
            return;
        }
        if (likely(xs->unit_cache.n < CACHE_MAX)) {
            cache_push(&xs->unit_cache, u);
            return;
        }
    }
    mem_unit_release_slow(u);
}

#endif
