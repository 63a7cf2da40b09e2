/* Memory for work units.
 *
 * Descriptors come from slabs that live until weft_finalize(): a stale
 * handle always points at readable memory whose magic word says "dead".
 * A ULT gets its stack when it first runs and gives it back the moment it
 * ends, before anyone joins it: only ULTs that have started and not finished
 * hold stacks. Each stream caches up to CACHE_MAX descriptors and as many
 * default-size stacks, so create and free on one stream take no lock and no
 * system call ([Argobots §3.3]: per-stream memory pools); the surplus
 * goes to global lists under a lock, and global stacks above
 * GLOBAL_STACKS_MAX go back to the OS. A descriptor freed on a stream other
 * than the one whose slab it is from goes back to that stream, batched.
 *
 * Stacks are mmap'ed with a PROT_NONE guard page below them; the SIGSEGV
 * handler (guard.c), running on an alternate signal stack, names the ULT whose stack
 * overflowed into its guard. Huge-page stacks (weft_config.huge_pages) are
 * carved from large chunks instead and carry a canary, not a guard. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fiber_hooks.h"
#include "internal.h"
#include "mem_cache.h"

#define GLOBAL_STACKS_MAX 4096
#define REMOTE_BATCH 64

static struct slab *g_slabs;                /* all slabs, freed at finalize */
static struct unit_cache g_plain;           /* global descriptor list, under weft_g.lock */
static struct unit_cache g_export;          /* surplus of export slabs, under weft_g.lock */

static struct stack_cache g_stacks; /* global stack list, under weft_g.lock */

/* ---------- huge-page stacks ---------- */

/* With weft_config.huge_pages, default-size stacks are slots of 2 MiB-aligned
 * chunks: hugetlbfs pages if the system reserved some, else anonymous memory
 * marked for transparent huge pages. A slot keeps the usual layout (one page,
 * then the stack) but the page is not a guard: protecting it would split the
 * huge page. Its top words hold a canary instead, checked when the ULT ends.
 * Slots never go back to the OS one by one; chunks are unmapped at
 * finalize. */
#define HUGE_CHUNK ((size_t)2 << 20)
#define CANARY_WORDS 4
#define CANARY 0x5745465443414e59ull /* "WEFTCANY" */

struct huge_chunk {
    struct huge_chunk *next;
    void *base;
    size_t size;
};

static struct huge_chunk *g_huge_chunks; /* under weft_g.lock */
static char *g_huge_next, *g_huge_end;   /* the uncarved rest of the newest chunk */

static inline bool stack_is_huge(size_t size)
{
    return weft_g.huge_stacks && size == weft_g.stack_size;
}

static uint64_t *stack_canary(void *map)
{
    return (uint64_t *)((char *)map + weft_g.page_size) - CANARY_WORDS;
}

/* Under weft_g.lock: a new chunk of at least `slot` bytes. */
static int huge_chunk_new(size_t slot)
{
    /* One huge page holds many default stacks; a stack larger than a huge
     * page gets a chunk of its own, rounded up to whole huge pages. */
    size_t size = slot <= HUGE_CHUNK ? HUGE_CHUNK : (slot + HUGE_CHUNK - 1) & ~(HUGE_CHUNK - 1);
    struct huge_chunk *c = malloc(sizeof *c);
    if (!c) return WEFT_ERR_NOMEM;
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (m == MAP_FAILED) {
        /* No reserved huge pages: align anonymous memory to 2 MiB by hand
         * and ask for transparent huge pages. */
        char *raw = mmap(NULL, size + HUGE_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
        if (raw == MAP_FAILED) {
            free(c);
            return WEFT_ERR_NOMEM;
        }
        char *al = (char *)(((uintptr_t)raw + HUGE_CHUNK - 1) & ~(HUGE_CHUNK - 1));
        if (al > raw) munmap(raw, (size_t)(al - raw));
        if (al + size < raw + size + HUGE_CHUNK) munmap(al + size, (size_t)(raw + size + HUGE_CHUNK - (al + size)));
        m = al;
        (void)madvise(m, size, MADV_HUGEPAGE); /* THP "never": small pages, still carved */
    }
    c->base = m;
    c->size = size;
    c->next = g_huge_chunks;
    g_huge_chunks = c;
    g_huge_next = m;
    g_huge_end = (char *)m + size;
    return WEFT_OK;
}

static int stack_carve(struct weft_unit_s *u, size_t size)
{
    size_t slot = size + weft_g.page_size;
    pthread_mutex_lock(&weft_g.lock);
    if ((size_t)(g_huge_end - g_huge_next) < slot && huge_chunk_new(slot) != WEFT_OK) {
        pthread_mutex_unlock(&weft_g.lock);
        return WEFT_ERR_NOMEM;
    }
    void *m = g_huge_next;
    g_huge_next += slot;
    pthread_mutex_unlock(&weft_g.lock);
    uint64_t *c = stack_canary(m);
    for (int i = 0; i < CANARY_WORDS; i++) c[i] = CANARY;
    u->stack_map = m;
    u->stack_lo = (char *)m + weft_g.page_size;
    u->stack_size = size;
    hook_stack_register(u);
    return WEFT_OK;
}

/* A huge-page stack given back: abort if its ULT ran past the bottom. */
static void stack_check(struct weft_unit_s *u)
{
    const uint64_t *c = stack_canary(u->stack_map);
    for (int i = 0; i < CANARY_WORDS; i++)
        if (c[i] != CANARY) {
            char buf[160];
            int n = snprintf(buf, sizeof buf,
                             "weft: stack overflow in ULT %llu (huge-page stack of %zu bytes, no guard page); "
                             "raise its stack size\n",
                             (unsigned long long)u->id, u->stack_size);
            ssize_t w = write(2, buf, (size_t)n);
            (void)w;
            abort();
        }
}

static void huge_chunks_release(void)
{
    while (g_huge_chunks) {
        struct huge_chunk *n = g_huge_chunks->next;
        munmap(g_huge_chunks->base, g_huge_chunks->size);
        free(g_huge_chunks);
        g_huge_chunks = n;
    }
    g_huge_next = g_huge_end = NULL;
}

/* ---------- stacks ---------- */

/* Forget a stack: its tools' records, and its memory unless it is a slot of
 * a huge-page chunk (those go with their chunk). */
static void stack_unmap(void *map, size_t size, unsigned vg_id, void *fiber)
{
    (void)vg_id;
    (void)fiber;
#ifdef WEFT_HAVE_VALGRIND
    VALGRIND_STACK_DEREGISTER(vg_id);
#endif
#ifdef WEFT_TSAN
    if (fiber) __tsan_destroy_fiber(fiber);
#endif
    if (!stack_is_huge(size)) munmap(map, size + weft_g.page_size);
}

/* A new stack of `size` usable bytes with a guard page below it. When the
 * kernel's map count runs out (each guard splits the mapping), the stack is
 * still given, without its guard, rather than failing the ULT. */
static int stack_map(struct weft_unit_s *u, size_t size)
{
    if (stack_is_huge(size)) return stack_carve(u, size);
    size_t guard = weft_g.page_size;
    void *m = mmap(NULL, size + guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return WEFT_ERR_NOMEM;
    if (mprotect(m, guard, PROT_NONE) != 0 && atomic_fetch_add(&weft_g.unguarded_stacks, 1) == 0) {
        static const char msg[] = "weft: the kernel's map count is exhausted (vm.max_map_count); "
                                  "new ULT stacks get no guard page from now on\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
    }
    u->stack_map = m;
    u->stack_lo = (char *)m + guard;
    u->stack_size = size;
    hook_stack_register(u);
    return WEFT_OK;
}

/* Slow path of mem_stack_get(): the stream's cache is empty, the size is not
 * the default, stacks are huge-page slots, or the caller is no stream. Global cache, else the OS. */
int mem_stack_get_slow(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    size_t size = u->stack_size;
    void *m = NULL;
    if (size == weft_g.stack_size) {
        if (xs) m = stack_cache_pop(&xs->stack_cache);
        if (!m) {
            pthread_mutex_lock(&weft_g.lock);
            m = stack_cache_pop(&g_stacks);
            if (m && xs)
                for (int i = 0; i < 32 && g_stacks.head; i++) {
                    void *more = stack_cache_pop(&g_stacks);
                    struct stack_hdr *h = stack_hdr_of(more);
                    stack_cache_push(&xs->stack_cache, more, h->vg_stack_id, h->tsan_fiber);
                }
            pthread_mutex_unlock(&weft_g.lock);
        }
    }
    if (!m) return stack_map(u, size);
    u->vg_stack_id = stack_hdr_of(m)->vg_stack_id;
    u->tsan_fiber = stack_hdr_of(m)->tsan_fiber;
    u->stack_map = m;
    u->stack_lo = (char *)m + weft_g.page_size;
    hook_stack_reuse(u);
    return WEFT_OK;
}

/* Slow path of mem_stack_put(); huge-page stacks always come here to be
 * checked. */
void mem_stack_put_slow(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    void *m = u->stack_map, *fiber = u->tsan_fiber;
    if (!m) return;
    if (stack_is_huge(u->stack_size)) stack_check(u);
    u->stack_map = u->stack_lo = NULL;
    u->tsan_fiber = NULL;
    if (u->stack_size != weft_g.stack_size) {
        stack_unmap(m, u->stack_size, u->vg_stack_id, fiber);
        return;
    }
    if (xs && xs->stack_cache.n < CACHE_MAX) {
        stack_cache_push(&xs->stack_cache, m, u->vg_stack_id, fiber);
        return;
    }
    pthread_mutex_lock(&weft_g.lock);
    if (g_stacks.n < GLOBAL_STACKS_MAX || weft_g.huge_stacks) {
        stack_cache_push(&g_stacks, m, u->vg_stack_id, fiber);
        m = NULL;
    }
    pthread_mutex_unlock(&weft_g.lock);
    if (m) stack_unmap(m, u->stack_size, u->vg_stack_id, fiber);
}

/* ---------- descriptors ---------- */

/* Under weft_g.lock: a fresh slab owned by `owner` into `into`. */
static int slab_new(struct unit_cache *into, struct weft_xstream_s *owner, bool exported)
{
    struct slab *s = aligned_alloc(SLAB_ALIGN, SLAB_ALIGN);
    if (!s) return WEFT_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->owner = (uintptr_t)owner | (owner && exported ? SLAB_EXPORTED : 0);
    s->next = g_slabs;
    g_slabs = s;
    for (int i = (int)SLAB_UNITS - 1; i >= 0; i--) {
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
 * and the other stream would miss on every switch. Measured: a driver
 * ULT created by the primary for a second stream made that stream's
 * tasklet create+join 8-10% slower, all of it gone once the driver's
 * descriptor sat a page away (docs/design.md "Descriptors that run
 * elsewhere"). The global list may hold descriptors of anyone's local
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

/* A stream that ends hands its caches to the global lists and its slabs to
 * no one: from now on they are freed wherever they are released. (A
 * descriptor another stream is sending back just now stays on the dead
 * stream's list until weft_finalize() frees the slabs.) */
void mem_cache_flush(struct weft_xstream_s *xs)
{
    struct weft_unit_s *u;
    void *m;
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
    while ((m = stack_cache_pop(&xs->stack_cache))) {
        struct stack_hdr *h = stack_hdr_of(m);
        unsigned id = h->vg_stack_id;
        void *fiber = h->tsan_fiber;
        if (g_stacks.n < GLOBAL_STACKS_MAX || weft_g.huge_stacks) stack_cache_push(&g_stacks, m, id, fiber);
        else stack_unmap(m, weft_g.stack_size, id, fiber);
    }
    pthread_mutex_unlock(&weft_g.lock);
}

/* Release every stack and slab. All streams are gone. */
/* ---------- pools and schedulers ---------- */

/* A freed pool, scheduler or synchronisation object keeps its memory,
 * marked dead, for the life of the process: a stale handle is then refused
 * instead of read after free, whenever it was freed (before weft_init(),
 * which sync objects and pools allow, during the runtime, or after
 * weft_finalize()). New objects of the same kind reuse it, so the
 * graveyard stays as large as the most objects ever alive at once. */
static void *g_retired[OBJ_NKINDS];
static pthread_mutex_t g_retired_lock = PTHREAD_MUTEX_INITIALIZER;

/* The link lives after the magic word, which must stay readable. */
static inline void **retired_link(void *obj)
{
    return (void **)((char *)obj + 8);
}

void *obj_alloc(int kind, size_t size)
{
    void *o = NULL;
    pthread_mutex_lock(&g_retired_lock);
    if ((o = g_retired[kind])) g_retired[kind] = *retired_link(o);
    pthread_mutex_unlock(&g_retired_lock);
    return o ? o : aligned_alloc(CACHE_LINE, size);
}

void obj_retire(int kind, void *obj)
{
    pthread_mutex_lock(&g_retired_lock);
    *retired_link(obj) = g_retired[kind];
    g_retired[kind] = obj;
    pthread_mutex_unlock(&g_retired_lock);
}

void mem_finalize(void)
{
    void *m;
    for (struct slab *s = g_slabs; s; s = s->next)
        for (size_t i = 0; i < SLAB_UNITS; i++) {
            struct weft_unit_s *u = &s->units[i];
            if (u->stack_map) stack_unmap(u->stack_map, u->stack_size, u->vg_stack_id, u->tsan_fiber);
            u->stack_map = u->tsan_fiber = NULL;
        }
    while ((m = stack_cache_pop(&g_stacks))) {
        struct stack_hdr *h = stack_hdr_of(m);
        stack_unmap(m, weft_g.stack_size, h->vg_stack_id, h->tsan_fiber);
    }
    while (g_slabs) {
        struct slab *n = g_slabs->next;
        free(g_slabs);
        g_slabs = n;
    }
    huge_chunks_release();
    g_plain = (struct unit_cache){0};
    g_export = (struct unit_cache){0};
}

