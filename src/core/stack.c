/* ULT stacks: the slow paths behind the per-stream caches of mem_cache.h.
 *
 * A ULT gets its stack when it first runs and gives it back the moment it
 * ends, before anyone joins it: only ULTs that have started and not
 * finished hold stacks. Each stream caches up to CACHE_MAX default-size
 * stacks ([Argobots §3.3]: per-stream memory pools); the surplus goes to a
 * global list under weft_g.lock, and global stacks above its bound
 * (g_global_max: GLOBAL_STACKS_MAX, doubled whenever a stack had to be
 * mapped anew after cached ones were given back, so that a program whose
 * live ULTs outnumber the caches does not map and unmap stacks on every
 * round)
 * go back to the OS.
 *
 * Stacks are mmap'ed with a PROT_NONE guard of weft_g.guard_size bytes
 * below them (WEFT_STACK_GUARD); the SIGSEGV handler (guard.c), running on
 * an alternate signal stack, names the ULT whose stack overflowed into its
 * guard. Huge-page stacks, and default-size stacks once the kernel's map
 * count runs low, are carved from large chunks instead and carry a canary,
 * not a guard (see "carved stacks"). A ULT that can get no stack at all
 * waits for one to be given back (unit.c, stack_starve). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fiber_hooks.h"
#include "internal.h"
#include "sys.h"
#include "mem_cache.h"

#define GLOBAL_STACKS_MAX 4096

static size_t g_global_max;         /* the global list's bound; under weft_g.lock */
static _Atomic long g_given_back;   /* default-size stacks unmapped because the list was full */

static struct stack_cache g_stacks; /* global stack list, under weft_g.lock */

/* ---------- carved stacks ---------- */

/* Some stacks are slots carved from large shared chunks instead of
 * mappings of their own:
 *  - with weft_config.huge_pages, every default-size stack: the chunks are
 *    2 MiB-aligned, hugetlbfs pages if the system reserved some, else
 *    anonymous memory marked for transparent huge pages;
 *  - default-size stacks once the kernel's map count runs low: a guarded
 *    stack costs two map entries (vm.max_map_count, 65,530 by default), a
 *    chunk of CARVE_CHUNK bytes one for hundreds of stacks. Weft switches
 *    when its own stacks use half the limit, or when a mapping or a guard
 *    is refused ([Argobots §3.3] takes stacks from its memory pool alike).
 * A slot keeps the usual layout, a page and then the stack, but the page
 * is no guard (protecting it would split the chunk): its top words hold a
 * canary, checked when the ULT ends. Slots never go back to the OS one by
 * one; chunks are unmapped at finalize. */
#define HUGE_CHUNK ((size_t)2 << 20)
#define CARVE_CHUNK ((size_t)32 << 20)
#define CANARY_WORDS 4
#define CANARY 0x5745465443414e59ull /* "WEFTCANY" */

struct chunk {
    struct chunk *next;
    void *base;
    size_t size;
};

static struct chunk *g_chunks;       /* under weft_g.lock */
static char *g_carve_next, *g_carve_end; /* the uncarved rest of the newest chunk */
static _Atomic int g_carving;        /* default-size stacks are carved (map count low) */
static _Atomic long g_stack_maps;    /* mappings of weft's guarded stacks (two map entries each) */
static long g_map_limit;             /* vm.max_map_count */
static _Atomic int g_stack_errno;    /* why the last stack could not be had */
static _Atomic int g_map_failures;   /* stack mappings refused in a row */
#define MAP_FAILURES_TO_CARVE 16

static inline bool stack_carves(size_t size)
{
    return size == weft_g.stack_size &&
           (weft_g.huge_stacks || atomic_load_explicit(&g_carving, memory_order_relaxed));
}

static uint64_t *stack_canary(void *lo)
{
    return (uint64_t *)lo - CANARY_WORDS;
}

/* Under weft_g.lock: a new chunk of at least `slot` bytes. */
static int chunk_new(size_t slot)
{
    size_t unit = weft_g.huge_stacks ? HUGE_CHUNK : CARVE_CHUNK;
    size_t size = slot <= unit ? unit : (slot + HUGE_CHUNK - 1) & ~(HUGE_CHUNK - 1);
    struct chunk *c = sys_malloc(sizeof *c);
    if (!c) return WEFT_ERR_NOMEM;
    void *m = MAP_FAILED;
    if (weft_g.huge_stacks)
        m = sys_mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (m == MAP_FAILED && weft_g.huge_stacks) {
        /* No reserved huge pages: align anonymous memory to 2 MiB by hand
         * and ask for transparent huge pages. */
        char *raw = sys_mmap(NULL, size + HUGE_CHUNK, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw != MAP_FAILED) {
            char *al = (char *)(((uintptr_t)raw + HUGE_CHUNK - 1) & ~(HUGE_CHUNK - 1));
            if (al > raw) munmap(raw, (size_t)(al - raw));
            if (al + size < raw + size + HUGE_CHUNK)
                munmap(al + size, (size_t)(raw + size + HUGE_CHUNK - (al + size)));
            m = al;
            (void)madvise(m, size, MADV_HUGEPAGE); /* THP "never": small pages, still carved */
        }
    } else if (m == MAP_FAILED) {
        m = sys_mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    if (m == MAP_FAILED) {
        atomic_store_explicit(&g_stack_errno, errno, memory_order_relaxed);
        free(c);
        return WEFT_ERR_NOMEM;
    }
    c->base = m;
    c->size = size;
    c->next = g_chunks;
    g_chunks = c;
    g_carve_next = m;
    g_carve_end = (char *)m + size;
    return WEFT_OK;
}

/* Give `u` the new stack [lo, lo + size) from `map`, and write its record. */
static void stack_adopt_new(struct weft_unit_s *u, void *lo, size_t size, void *map, bool carved)
{
    struct stack_rec *r = stack_rec(lo, size);
    *r = (struct stack_rec){.map = map, .carved = carved, .vg_stack_id = hook_stack_register(lo, size)};
    u->stack_lo = lo;
    u->stack_size = size;
    u->stack_flags |= (uint8_t)(STK_OWN | (carved ? STK_CARVED : 0));
}

static int stack_carve(struct weft_unit_s *u, size_t size)
{
    size_t slot = size + weft_g.page_size;
    pthread_mutex_lock(&weft_g.lock);
    if ((size_t)(g_carve_end - g_carve_next) < slot && chunk_new(slot) != WEFT_OK) {
        pthread_mutex_unlock(&weft_g.lock);
        return WEFT_ERR_NOMEM;
    }
    void *m = g_carve_next;
    g_carve_next += slot;
    pthread_mutex_unlock(&weft_g.lock);
    stack_adopt_new(u, (char *)m + weft_g.page_size, size, m, true);
    uint64_t *c = stack_canary(u->stack_lo);
    for (int i = 0; i < CANARY_WORDS; i++) c[i] = CANARY;
    return WEFT_OK;
}

/* A carved stack given back: abort if its ULT ran past the bottom. */
static void stack_check(struct weft_unit_s *u)
{
    const uint64_t *c = stack_canary(u->stack_lo);
    for (int i = 0; i < CANARY_WORDS; i++)
        if (c[i] != CANARY) {
            char buf[200];
            int n = snprintf(buf, sizeof buf,
                             "weft: stack overflow in ULT %llu (stack of %zu bytes carved from a shared %s "
                             "chunk, no guard page); raise its stack size\n",
                             (unsigned long long)u->id, u->stack_size, weft_g.huge_stacks ? "huge-page" : "");
            ssize_t w = write(2, buf, (size_t)n);
            (void)w;
            abort();
        }
}

static void chunks_release(void)
{
    while (g_chunks) {
        struct chunk *n = g_chunks->next;
        munmap(g_chunks->base, g_chunks->size);
        free(g_chunks);
        g_chunks = n;
    }
    g_carve_next = g_carve_end = NULL;
}

/* From now on default-size stacks are carved. */
static void carving_start(const char *why)
{
    if (atomic_exchange(&g_carving, 1)) return;
    char buf[240];
    int n = snprintf(buf, sizeof buf,
                     "weft: %s; default-size ULT stacks are carved from shared chunks from now on "
                     "(a canary, checked when the ULT ends, instead of a guard page)\n", why);
    ssize_t w = write(2, buf, (size_t)n);
    (void)w;
}

/* ---------- stacks ---------- */

void stacks_init(void)
{
    long lim = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &lim) != 1 || lim < 1024) lim = 65530;
        fclose(f);
    }
    g_map_limit = lim;
    g_global_max = GLOBAL_STACKS_MAX;
    atomic_store(&g_given_back, 0);
    atomic_store(&g_carving, 0);
    atomic_store(&g_stack_maps, 0);
    atomic_store(&g_stack_errno, 0);
    atomic_store(&g_map_failures, 0);
}

int mem_stack_errno(void)
{
    return atomic_load_explicit(&g_stack_errno, memory_order_relaxed);
}

/* Forget the stack [lo, lo + size) (its record says what it is): its
 * tools' records, and its memory unless it is a carved slot (those go with
 * their chunk). */
static void stack_unmap(void *lo, size_t size)
{
    struct stack_rec r = *stack_rec(lo, size);
#ifdef WEFT_HAVE_VALGRIND
    VALGRIND_STACK_DEREGISTER(r.vg_stack_id);
#endif
#ifdef WEFT_TSAN
    if (r.tsan_fiber) __tsan_destroy_fiber(r.tsan_fiber);
#endif
    if (r.carved) return;
    munmap(r.map, size + weft_g.guard_size);
    atomic_fetch_sub_explicit(&g_stack_maps, 1, memory_order_relaxed);
}

/* The same for the stack `u` holds; `u` holds none afterwards. */
static void stack_unmap_unit(struct weft_unit_s *u)
{
#ifdef WEFT_TSAN
    unit_stack_rec(u)->tsan_fiber = u->tsan_fiber;
    u->tsan_fiber = NULL;
#endif
    stack_unmap(u->stack_lo, u->stack_size);
    u->stack_lo = NULL;
    u->stack_flags &= (uint8_t)~(STK_OWN | STK_CARVED);
}

/* A new stack of `size` usable bytes with a guard of weft_g.guard_size
 * bytes below it, or a carved one (see above). */
static int stack_map(struct weft_unit_s *u, size_t size)
{
    if (stack_carves(size)) return stack_carve(u, size);
    if (size == weft_g.stack_size && atomic_load_explicit(&g_stack_maps, memory_order_relaxed) * 2 > g_map_limit / 2) {
        carving_start("weft's ULT stacks use half of the kernel's map count (vm.max_map_count)");
        return stack_carve(u, size);
    }
    if (size == weft_g.stack_size && atomic_load_explicit(&g_given_back, memory_order_relaxed)) {
        /* Cached stacks went back to the OS and one is needed again: the
         * program keeps more ULTs live than the list holds. Hold more (up
         * to a quarter of the map count: half of it is where carving
         * starts). */
        pthread_mutex_lock(&weft_g.lock);
        if (g_global_max < (size_t)g_map_limit / 4) g_global_max *= 2;
        atomic_store_explicit(&g_given_back, 0, memory_order_relaxed);
        pthread_mutex_unlock(&weft_g.lock);
    }
    size_t guard = weft_g.guard_size;
    void *m = sys_mmap(NULL, size + guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) {
        atomic_store_explicit(&g_stack_errno, errno, memory_order_relaxed);
        if (size != weft_g.stack_size) return WEFT_ERR_NOMEM;
        /* Out of map entries or of address space: a slot of a chunk made
         * earlier may still be had; else the ULT waits (unit.c). Failing
         * again and again, the map count is spent: carve from now on. */
        if (atomic_fetch_add(&g_map_failures, 1) + 1 >= MAP_FAILURES_TO_CARVE)
            carving_start("ULT stacks could not be mapped again and again (map count or memory exhausted)");
        return stack_carve(u, size);
    }
    atomic_store_explicit(&g_map_failures, 0, memory_order_relaxed);
    if (mprotect(m, guard, PROT_NONE) != 0) {
        /* The guard would split the mapping and the map count is spent. */
        if (size == weft_g.stack_size) {
            munmap(m, size + guard);
            carving_start("the kernel's map count is exhausted (vm.max_map_count)");
            return stack_carve(u, size);
        }
        if (atomic_fetch_add(&weft_g.unguarded_stacks, 1) == 0) {
            static const char msg[] = "weft: the kernel's map count is exhausted (vm.max_map_count); "
                                      "ULT stacks of other than the default size get no guard from now on\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
        }
    }
    atomic_fetch_add_explicit(&g_stack_maps, 1, memory_order_relaxed);
    stack_adopt_new(u, (char *)m + guard, size, m, false);
    return WEFT_OK;
}

/* Slow path of mem_stack_get(): the stream's cache is empty, the size is not
 * the default, stacks are huge-page slots, or the caller is no stream. Global cache, else the OS. */
int mem_stack_get_slow(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    size_t size = u->stack_size;
    void *lo = NULL;
    if (size == weft_g.stack_size) {
        if (xs) lo = stack_cache_pop(&xs->stack_cache);
        if (!lo) {
            pthread_mutex_lock(&weft_g.lock);
            lo = stack_cache_pop(&g_stacks);
            /* Take a few more along, unless ULTs wait for them. */
            if (lo && xs && !atomic_load_explicit(&weft_g.stack_waiters, memory_order_relaxed))
                for (int i = 0; i < 32 && g_stacks.head; i++) {
                    stack_cache_push(&xs->stack_cache, stack_cache_pop(&g_stacks));
                }
            pthread_mutex_unlock(&weft_g.lock);
        }
    }
    if (!lo) return stack_map(u, size);
    stack_adopt(u, lo);
    return WEFT_OK;
}

/* Slow path of mem_stack_put(); carved stacks always come here to be
 * checked. */
void mem_stack_put_slow(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    if (!(u->stack_flags & STK_OWN)) return;
    if (u->stack_flags & STK_CARVED) stack_check(u);
    if (u->stack_size != weft_g.stack_size) {
        stack_unmap_unit(u);
        return;
    }
    bool waiters = atomic_load_explicit(&weft_g.stack_waiters, memory_order_relaxed) != 0;
    if (xs && !waiters && xs->stack_cache.n < CACHE_MAX) {
        stack_cache_push_unit(&xs->stack_cache, u);
        return;
    }
    bool cached = false;
    pthread_mutex_lock(&weft_g.lock);
    if (g_stacks.n < g_global_max || (u->stack_flags & STK_CARVED) || waiters) {
        stack_cache_push_unit(&g_stacks, u);
        cached = true;
    }
    pthread_mutex_unlock(&weft_g.lock);
    if (!cached) {
        atomic_fetch_add_explicit(&g_given_back, 1, memory_order_relaxed);
        stack_unmap_unit(u);
    }
}

/* Move the stream's cached stacks to the global list, where ULTs waiting
 * for one find them; returns how many moved. */
size_t mem_stack_cache_drain(struct weft_xstream_s *xs)
{
    size_t n = 0;
    void *lo;
    if (!xs->stack_cache.head) return 0;
    pthread_mutex_lock(&weft_g.lock);
    while ((lo = stack_cache_pop(&xs->stack_cache))) {
        stack_cache_push(&g_stacks, lo);
        n++;
    }
    pthread_mutex_unlock(&weft_g.lock);
    return n;
}

/* A ULT can get no stack and no other ULT holds one: give the global list
 * back to the OS, so that memory or map entries it holds may serve the
 * waiter. True if anything was released. */
bool mem_stacks_trim(void)
{
    struct stack_cache keep = {0};
    void *lo;
    bool freed = false;
    pthread_mutex_lock(&weft_g.lock);
    while ((lo = stack_cache_pop(&g_stacks))) {
        if (stack_rec(lo, weft_g.stack_size)->carved) {
            stack_cache_push(&keep, lo);
        } else {
            stack_unmap(lo, weft_g.stack_size);
            freed = true;
        }
    }
    g_stacks = keep;
    pthread_mutex_unlock(&weft_g.lock);
    return freed;
}

/* A stream that ends hands its cached stacks to the global list (or, past
 * its bound, to the OS). */
void stack_cache_flush(struct weft_xstream_s *xs)
{
    void *m;
    pthread_mutex_lock(&weft_g.lock);
    while ((m = stack_cache_pop(&xs->stack_cache))) {
        if (g_stacks.n < g_global_max || stack_rec(m, weft_g.stack_size)->carved || weft_g.stack_waiters)
            stack_cache_push(&g_stacks, m);
        else
            stack_unmap(m, weft_g.stack_size);
    }
    pthread_mutex_unlock(&weft_g.lock);
}

/* weft_finalize(): the stack a unit still holds (it never ran to its end). */
void stack_release_unit(struct weft_unit_s *u)
{
    if (u->stack_flags & STK_OWN) stack_unmap_unit(u);
#ifdef WEFT_TSAN
    u->tsan_fiber = NULL;
#endif
}

/* weft_finalize(), all streams gone: every cached stack and chunk goes back. */
void stacks_finalize(void)
{
    void *m;
    while ((m = stack_cache_pop(&g_stacks))) stack_unmap(m, weft_g.stack_size);
    chunks_release();
}

/* fork.c: the child of a live runtime leaves the parent's stacks and
 * chunks mapped as they are; the next weft_init() starts with empty lists. */
void stacks_fork_abandon(void)
{
    fork_keep(g_chunks);
    g_stacks = (struct stack_cache){0};
    g_chunks = NULL;
    g_carve_next = g_carve_end = NULL;
}
