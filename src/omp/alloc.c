/* Memory allocators (OpenMP 5.1 sections 2.13, 3.13) and the allocate
 * clause's entry points (GOMP_alloc, GOMP_free).
 *
 * Every memory space is the process's ordinary memory (the host has no
 * other); an allocator adds traits on top: alignment, a pool size with
 * its fallback, pinning. Each block carries a small header just before
 * the pointer returned, naming the allocator it came from, so omp_free
 * and omp_realloc need no allocator argument and pools are credited back.
 *
 * Handles: the predefined allocators are the small numbers of omp.h
 * (1..8); an allocator made by omp_init_allocator is the address of its
 * struct allocator. As in libgomp 12, omp_high_bw_mem_space is refused
 * (no such memory), the others are all the default memory. */
#define _GNU_SOURCE
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "api_internal.h"

/* omp.h's values */
enum { NULL_ALLOC = 0, DEFAULT_ALLOC = 1, LAST_PREDEFINED = 8 };
enum { SPACE_DEFAULT = 0, SPACE_LARGE_CAP, SPACE_CONST, SPACE_HIGH_BW, SPACE_LOW_LAT };
enum {
    ATK_SYNC_HINT = 1, ATK_ALIGNMENT, ATK_ACCESS, ATK_POOL_SIZE, ATK_FALLBACK, ATK_FB_DATA, ATK_PINNED, ATK_PARTITION
};
#define ATV_DEFAULT ((uintptr_t)-1)
enum {
    ATV_FALSE = 0, ATV_TRUE = 1, ATV_CONTENDED = 3, ATV_UNCONTENDED, ATV_SERIALIZED, ATV_PRIVATE, ATV_ALL,
    ATV_THREAD, ATV_PTEAM, ATV_CGROUP, ATV_DEFAULT_MEM_FB, ATV_NULL_FB, ATV_ABORT_FB, ATV_ALLOCATOR_FB,
    ATV_ENVIRONMENT, ATV_NEAREST, ATV_BLOCKED, ATV_INTERLEAVED
};

/* omp_alloctrait_t */
struct omp_alloctrait {
    int key;
    uintptr_t value;
};

#define MAGIC 0x776f6d61u
#define NO_POOL SIZE_MAX
#define MIN_ALIGN alignof(max_align_t)
#define MAX_FALLBACKS 16 /* a chain of allocator_fb longer than this is a loop */

struct allocator {
    uint32_t magic;
    int fallback;        /* ATV_*_FB */
    int pinned;
    size_t alignment;
    size_t pool_size;    /* NO_POOL: unlimited */
    _Atomic size_t used; /* bytes of the pool in use */
    uintptr_t fb_data;   /* allocator_fb: the allocator to fall back to */
};

/* Just before every block. */
struct header {
    void *base;          /* what malloc or mmap returned */
    size_t size;         /* bytes asked for */
    uintptr_t allocator; /* the allocator that made it */
    size_t total;        /* bytes of the whole block (charged to a pool) */
};
_Static_assert(sizeof(struct header) % MIN_ALIGN == 0, "header keeps the block aligned");

static struct header *header_of(void *ptr) { return (struct header *)ptr - 1; }

/* The allocator behind a handle, NULL for the predefined ones (and for
 * what is no allocator at all: *bad set). */
static struct allocator *lookup(uintptr_t h, int *bad)
{
    *bad = 0;
    if (h <= LAST_PREDEFINED) return NULL;
    struct allocator *a = (struct allocator *)h;
    if (h < 4096 || h % alignof(struct allocator) || a->magic != MAGIC) {
        *bad = 1;
        return NULL;
    }
    return a;
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static int charge(struct allocator *a, size_t n)
{
    if (!a || a->pool_size == NO_POOL) return 1;
    size_t used = atomic_load_explicit(&a->used, memory_order_relaxed);
    do {
        if (n > a->pool_size || used > a->pool_size - n) return 0;
    } while (!atomic_compare_exchange_weak_explicit(&a->used, &used, used + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return 1;
}

static void credit(struct allocator *a, size_t n)
{
    if (a && a->pool_size != NO_POOL) atomic_fetch_sub_explicit(&a->used, n, memory_order_relaxed);
}

/* One attempt with one allocator; NULL when it cannot (no fallback). */
static void *try_alloc(uintptr_t h, struct allocator *a, size_t align, size_t size, int zero)
{
    if (a && a->alignment > align) align = a->alignment;
    if (align < MIN_ALIGN) align = MIN_ALIGN;
    size_t total, pad = align - MIN_ALIGN; /* malloc gives MIN_ALIGN; the rest may be lost to rounding */
    if (__builtin_add_overflow(size, sizeof(struct header) + pad, &total)) return NULL;
    int pinned = a && a->pinned;
    if (pinned) {
        size_t pg = page_size();
        if (total > SIZE_MAX - pg) return NULL;
        total = (total + pg - 1) / pg * pg;
    }
    if (!charge(a, total)) return NULL;
    void *base;
    if (pinned) {
        base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED) base = NULL;
        else if (mlock(base, total) != 0) { /* over RLIMIT_MEMLOCK: as out of memory */
            munmap(base, total);
            base = NULL;
        }
    } else base = zero ? calloc(1, total) : malloc(total);
    if (!base) {
        credit(a, total);
        return NULL;
    }
    uintptr_t user = ((uintptr_t)base + sizeof(struct header) + align - 1) & ~(uintptr_t)(align - 1);
    struct header *hd = header_of((void *)user);
    hd->base = base;
    hd->size = size;
    hd->allocator = h;
    hd->total = total;
    return (void *)user;
}

static uintptr_t resolve(uintptr_t h)
{
    if (h == NULL_ALLOC) h = omp_icv()->def_allocator;
    return h == NULL_ALLOC ? DEFAULT_ALLOC : h;
}

/* Allocate with h, following its fallback trait on failure. */
static void *alloc_with(uintptr_t h, size_t align, size_t size, int zero)
{
    if (size == 0) return NULL;
    if (align == 0) align = 1;
    if (align & (align - 1)) { /* not a power of two: the next one */
        size_t p = 1;
        while (p && p < align) p <<= 1;
        if (!p) return NULL;
        align = p;
    }
    h = resolve(h);
    for (int hops = 0; hops < MAX_FALLBACKS; hops++) {
        int bad;
        struct allocator *a = lookup(h, &bad);
        if (bad) return NULL;
        void *p = try_alloc(h, a, align, size, zero);
        if (p) return p;
        /* the predefined allocators fall back to the default memory,
         * which itself has nothing else to try */
        int fb = a ? a->fallback : h == DEFAULT_ALLOC ? ATV_NULL_FB : ATV_DEFAULT_MEM_FB;
        switch (fb) {
        case ATV_DEFAULT_MEM_FB: h = DEFAULT_ALLOC; break;
        case ATV_ALLOCATOR_FB: h = a->fb_data ? a->fb_data : DEFAULT_ALLOC; break;
        case ATV_ABORT_FB: omp_die("Out of memory allocating %lu bytes", (unsigned long)size);
        default: return NULL;
        }
    }
    return NULL;
}

static void free_block(void *ptr)
{
    struct header *hd = header_of(ptr);
    int bad;
    struct allocator *a = lookup(hd->allocator, &bad);
    credit(a, hd->total);
    if (a && a->pinned) munmap(hd->base, hd->total);
    else free(hd->base);
}

/* ---------- allocation routines ---------- */

OMP_EXPORT void *omp_alloc(size_t size, uintptr_t allocator) { return alloc_with(allocator, 1, size, 0); }

OMP_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    return alloc_with(allocator, alignment, size, 0);
}

OMP_EXPORT void *omp_calloc(size_t nmemb, size_t size, uintptr_t allocator)
{
    size_t n;
    if (__builtin_mul_overflow(nmemb, size, &n)) n = SIZE_MAX; /* fails, through the fallbacks */
    return alloc_with(allocator, 1, n, 1);
}

OMP_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size, uintptr_t allocator)
{
    size_t n;
    if (__builtin_mul_overflow(nmemb, size, &n)) n = SIZE_MAX;
    return alloc_with(allocator, alignment, n, 1);
}

/* allocator is the one the block came from, or omp_null_allocator: the
 * header knows it either way. */
OMP_EXPORT void omp_free(void *ptr, uintptr_t allocator)
{
    (void)allocator;
    if (ptr) free_block(ptr);
}

/* OpenMP 5.1 section 3.13.9: omp_null_allocator as allocator means ptr's
 * own; the old block stays valid when the new one cannot be had. */
OMP_EXPORT void *omp_realloc(void *ptr, size_t size, uintptr_t allocator, uintptr_t free_allocator)
{
    (void)free_allocator;
    if (!ptr) return alloc_with(allocator, 1, size, 0);
    if (size == 0) {
        free_block(ptr);
        return NULL;
    }
    struct header *hd = header_of(ptr);
    uintptr_t h = allocator == NULL_ALLOC ? hd->allocator : allocator;
    int bad;
    struct allocator *a = lookup(h, &bad);
    if (bad) return NULL;
    /* Same allocator, block right after its header, no pinning: grow or
     * shrink in place, charging the pool only the difference. */
    if (h == hd->allocator && (char *)hd->base + sizeof *hd == (char *)ptr && !(a && a->pinned) &&
        (!a || a->alignment <= MIN_ALIGN) && size <= SIZE_MAX - sizeof *hd) {
        size_t total = size + sizeof *hd, old = hd->total;
        if (total <= old || charge(a, total - old)) {
            void *base = realloc(hd->base, total);
            if (base) {
                if (total < old) credit(a, old - total);
                hd = base;
                hd->base = base;
                hd->size = size;
                hd->total = total;
                return hd + 1;
            }
            if (total > old) credit(a, total - old);
        }
    }
    size_t keep = hd->size < size ? hd->size : size;
    void *p = alloc_with(h, 1, size, 0);
    if (!p) return NULL;
    memcpy(p, ptr, keep);
    free_block(ptr);
    return p;
}

/* ---------- allocators ---------- */

OMP_EXPORT uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const struct omp_alloctrait *traits)
{
    struct allocator t = {
        .magic = MAGIC, .fallback = ATV_DEFAULT_MEM_FB, .alignment = 1, .pool_size = NO_POOL,
    };
    if (memspace > SPACE_LOW_LAT || memspace == SPACE_HIGH_BW) return NULL_ALLOC;
    if (ntraits > 0 && !traits) return NULL_ALLOC;
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        int def = v == ATV_DEFAULT;
        switch (traits[i].key) {
        case ATK_SYNC_HINT:
            if (!def && (v < ATV_CONTENDED || v > ATV_PRIVATE)) return NULL_ALLOC;
            break; /* every allocator is safe for any number of threads */
        case ATK_ALIGNMENT:
            if (def) v = 1;
            if (v == 0 || (v & (v - 1))) return NULL_ALLOC;
            t.alignment = v;
            break;
        case ATK_ACCESS:
            if (!def && (v < ATV_ALL || v > ATV_CGROUP)) return NULL_ALLOC;
            break; /* one address space: all memory is accessible to all */
        case ATK_POOL_SIZE: t.pool_size = def ? NO_POOL : v; break;
        case ATK_FALLBACK:
            if (def) v = ATV_DEFAULT_MEM_FB;
            if (v < ATV_DEFAULT_MEM_FB || v > ATV_ALLOCATOR_FB) return NULL_ALLOC;
            t.fallback = (int)v;
            break;
        case ATK_FB_DATA: t.fb_data = v; break;
        case ATK_PINNED:
            if (def) v = ATV_FALSE;
            if (v != ATV_FALSE && v != ATV_TRUE) return NULL_ALLOC;
            t.pinned = v == ATV_TRUE; /* mmap'ed and mlock'ed */
            break;
        case ATK_PARTITION:
            if (!def && (v < ATV_ENVIRONMENT || v > ATV_INTERLEAVED)) return NULL_ALLOC;
            break; /* no NUMA placement of our own: the kernel's */
        default: return NULL_ALLOC;
        }
    }
    struct allocator *a = aligned_alloc(alignof(struct allocator) < 16 ? 16 : alignof(struct allocator),
                                        (sizeof *a + 15) / 16 * 16);
    if (!a) return NULL_ALLOC;
    memcpy(a, &t, sizeof t);
    return (uintptr_t)a;
}

OMP_EXPORT void omp_destroy_allocator(uintptr_t allocator)
{
    int bad;
    struct allocator *a = lookup(allocator, &bad);
    if (!a) return; /* predefined or not an allocator */
    a->magic = 0;
    free(a);
}

OMP_EXPORT void omp_set_default_allocator(uintptr_t allocator)
{
    omp_icv()->def_allocator = allocator == NULL_ALLOC ? DEFAULT_ALLOC : allocator;
}

OMP_EXPORT uintptr_t omp_get_default_allocator(void) { return omp_icv()->def_allocator; }

/* ---------- the allocate clause / directive (gcc: GOMP_5.0.1) ---------- */

OMP_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    return alloc_with(allocator, alignment, size, 0);
}

OMP_EXPORT void GOMP_free(void *ptr, uintptr_t allocator) { omp_free(ptr, allocator); }
