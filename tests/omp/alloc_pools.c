/* alloc_pools: allocator traits and pools in detail (OpenMP 5.1 sections
 * 2.13.2, 3.13), beyond ../api_alloc.c.
 *  - omp_init_allocator refuses (omp_null_allocator) every trait value the
 *    specification does not list for its key, an unknown key, an alignment
 *    that is not a power of two, a memory space beyond omp.h's, and (as
 *    libgomp 12, which has no such memory) omp_high_bw_mem_space; it takes
 *    every listed value, omp_atv_default for each key, ntraits <= 0;
 *    pinned=true may be refused (libgomp 12) or honoured (weft-omp);
 *  - pool accounting: a pool is used up, a block freed with
 *    omp_null_allocator gives its room back, blocks bigger than the pool
 *    never come from it; omp_realloc within the pool counts only the
 *    difference (600 -> 700 bytes in a 1000-byte pool works); a failed
 *    omp_realloc leaves the old block intact;
 *  - fallbacks: null_fb gives NULL, default_mem_fb gives memory,
 *    allocator_fb goes to fb_data (and on to its own fallback), and
 *    allocator_fb without fb_data gives default memory;
 *  - omp_calloc with nmemb * size overflowing gives NULL (null_fb or
 *    default memory alike), never a short block;
 *  - the default allocator is per task: a pool allocator set as default
 *    in one thread of a team serves omp_alloc(omp_null_allocator) there
 *    and not in the other threads; omp_set_default_allocator of
 *    omp_null_allocator gives omp_default_mem_alloc back;
 *  - an alignment trait combines with omp_aligned_alloc (the larger wins);
 *  - abort_fb: "libgomp: Out of memory allocating 200 bytes" and exit
 *    status 1, with stdout flushed (libgomp exits, it does not abort).
 */
#include "omp_check.h"

#include <stdint.h>

#define T(k, v) ((omp_alloctrait_t){(k), (omp_uintptr_t)(v)})

static omp_allocator_handle_t make(int n, omp_alloctrait_t *tr)
{
    return omp_init_allocator(omp_default_mem_space, n, tr);
}

static omp_allocator_handle_t pool(size_t size, int fb)
{
    omp_alloctrait_t tr[] = {T(omp_atk_pool_size, size), T(omp_atk_fallback, fb)};
    return make(2, tr);
}

static void refused(int key, omp_uintptr_t value)
{
    omp_alloctrait_t tr[] = {T(key, value)};
    omp_allocator_handle_t a = make(1, tr);
    CHECKF(a == omp_null_allocator, "trait %d = %lu accepted", key, (unsigned long)value);
}

static void accepted(int key, omp_uintptr_t value)
{
    omp_alloctrait_t tr[] = {T(key, value)};
    omp_allocator_handle_t a = make(1, tr);
    CHECKF(a != omp_null_allocator, "trait %d = %lu refused", key, (unsigned long)value);
    char *p = omp_alloc(100, a);
    CHECK(p != NULL);
    memset(p, 1, 100);
    omp_free(p, a);
    omp_destroy_allocator(a);
}

static void child_abort(void)
{
    omp_allocator_handle_t a = pool(100, omp_atv_abort_fb);
    if (a == omp_null_allocator)
        exit(3);
    printf("pending"); /* no newline: only exit() flushes it */
    void *p = omp_alloc(200, a);
    printf(" survived %p\n", p);
    exit(0);
}

static void traits(void)
{
    refused(omp_atk_sync_hint, omp_atv_all);
    refused(omp_atk_sync_hint, 99);
    refused(omp_atk_alignment, 3);
    refused(omp_atk_alignment, 0);
    refused(omp_atk_alignment, 48);
    refused(omp_atk_access, omp_atv_contended);
    refused(omp_atk_fallback, omp_atv_true);
    refused(omp_atk_fallback, 99);
    refused(omp_atk_pinned, 5);
    refused(omp_atk_partition, omp_atv_all);
    refused(99, 1);
    refused(0, 1);

    static const omp_uintptr_t sync[] = {omp_atv_contended, omp_atv_uncontended, omp_atv_serialized,
                                         omp_atv_private, omp_atv_default};
    for (unsigned i = 0; i < sizeof sync / sizeof *sync; i++)
        accepted(omp_atk_sync_hint, sync[i]);
    static const omp_uintptr_t access[] = {omp_atv_all, omp_atv_cgroup, omp_atv_pteam, omp_atv_thread,
                                           omp_atv_default};
    for (unsigned i = 0; i < sizeof access / sizeof *access; i++)
        accepted(omp_atk_access, access[i]);
    static const omp_uintptr_t fb[] = {omp_atv_default_mem_fb, omp_atv_null_fb, omp_atv_abort_fb,
                                       omp_atv_allocator_fb, omp_atv_default};
    for (unsigned i = 0; i < sizeof fb / sizeof *fb; i++)
        accepted(omp_atk_fallback, fb[i]);
    static const omp_uintptr_t part[] = {omp_atv_environment, omp_atv_nearest, omp_atv_blocked,
                                         omp_atv_interleaved, omp_atv_default};
    for (unsigned i = 0; i < sizeof part / sizeof *part; i++)
        accepted(omp_atk_partition, part[i]);
    accepted(omp_atk_alignment, 1);
    accepted(omp_atk_alignment, 4096);
    accepted(omp_atk_alignment, omp_atv_default);
    accepted(omp_atk_pool_size, omp_atv_default);
    accepted(omp_atk_pool_size, 1 << 20);
    accepted(omp_atk_fb_data, omp_default_mem_alloc);
    accepted(omp_atk_pinned, omp_atv_false);
    accepted(omp_atk_pinned, omp_atv_default);

    /* pinned memory: libgomp 12 has none (refuses), weft-omp locks it */
    omp_alloctrait_t pin[] = {T(omp_atk_pinned, omp_atv_true), T(omp_atk_fallback, omp_atv_null_fb)};
    omp_allocator_handle_t pa = make(2, pin);
    if (pa != omp_null_allocator) {
        char *p = omp_alloc(5000, pa);
        if (p) { /* mlock may be limited (RLIMIT_MEMLOCK): then NULL, the null_fb */
            memset(p, 3, 5000);
            p = omp_realloc(p, 9000, pa, pa);
            CHECK(p && p[4999] == 3);
            omp_free(p, omp_null_allocator);
        }
        omp_destroy_allocator(pa);
    }

    /* memory spaces */
    CHECK(omp_init_allocator(omp_high_bw_mem_space, 0, NULL) == omp_null_allocator);
    CHECK(omp_init_allocator((omp_memspace_handle_t)5, 0, NULL) == omp_null_allocator);
    CHECK(omp_init_allocator((omp_memspace_handle_t)100, 0, NULL) == omp_null_allocator);
    const omp_memspace_handle_t spaces[] = {omp_default_mem_space, omp_large_cap_mem_space, omp_const_mem_space,
                                            omp_low_lat_mem_space};
    for (unsigned i = 0; i < 4; i++) {
        omp_allocator_handle_t a = omp_init_allocator(spaces[i], 0, NULL);
        CHECKF(a != omp_null_allocator, "memory space %u", i);
        void *p = omp_alloc(64, a);
        CHECK(p != NULL);
        omp_free(p, omp_null_allocator);
        omp_destroy_allocator(a);
    }
    omp_alloctrait_t tr[1] = {T(omp_atk_alignment, 64)};
    omp_allocator_handle_t a = make(-1, tr); /* ntraits < 0: none */
    CHECK(a != omp_null_allocator);
    omp_destroy_allocator(a);

    /* the later of two traits with the same key is the one that counts (either is fine) */
    omp_alloctrait_t two[] = {T(omp_atk_alignment, 64), T(omp_atk_alignment, 256)};
    a = make(2, two);
    CHECK(a != omp_null_allocator);
    void *p = omp_alloc(10, a);
    CHECK(p && ((uintptr_t)p % 64) == 0);
    omp_free(p, a);
    omp_destroy_allocator(a);

    /* alignment trait vs omp_aligned_alloc: the larger */
    omp_alloctrait_t al[] = {T(omp_atk_alignment, 256)};
    a = make(1, al);
    for (int i = 0; i < 8; i++) {
        void *q = omp_aligned_alloc(16, 24, a), *r = omp_aligned_alloc(1024, 24, a);
        CHECK(q && ((uintptr_t)q % 256) == 0);
        CHECK(r && ((uintptr_t)r % 1024) == 0);
        omp_free(q, a);
        omp_free(r, omp_null_allocator);
    }
    omp_destroy_allocator(a);
}

static void pools(void)
{
    /* used up, then room again after a free through omp_null_allocator */
    omp_allocator_handle_t a = pool(1000, omp_atv_null_fb);
    CHECK(a != omp_null_allocator);
    void *p = omp_alloc(600, a);
    CHECK(p != NULL);
    CHECK(omp_alloc(600, a) == NULL);
    void *q = omp_alloc(100, a);
    CHECK(q != NULL);
    omp_free(p, omp_null_allocator);
    p = omp_alloc(600, a);
    CHECK(p != NULL);
    omp_free(p, a);
    omp_free(q, a);
    CHECK(omp_alloc(1001, a) == NULL);
    volatile size_t huge = (size_t)1 << 40;
    CHECK(omp_alloc(huge, a) == NULL);
    /* all of it can be had again, block by block */
    void *blocks[8];
    int got = 0;
    for (int i = 0; i < 8; i++)
        if ((blocks[i] = omp_alloc(100, a)) != NULL)
            got++;
    CHECK(got >= 5 && got < 8); /* 8 * 100 bytes plus headers do not fit in 1000 */
    for (int i = 0; i < 8; i++)
        omp_free(blocks[i], omp_null_allocator);
    p = omp_alloc(600, a);
    CHECK(p != NULL);
    omp_free(p, omp_null_allocator);

    /* realloc in the pool: only the difference counts */
    char *r = omp_alloc(600, a);
    CHECK(r != NULL);
    memset(r, 7, 600);
    char *r2 = omp_realloc(r, 700, a, a);
    CHECK(r2 != NULL);
    CHECK(r2[0] == 7 && r2[599] == 7);
    /* too big for the pool: NULL, the old block untouched and still owned */
    CHECK(omp_realloc(r2, 5000, a, a) == NULL);
    CHECK(r2[0] == 7 && r2[599] == 7);
    /* shrinking gives room back */
    r2 = omp_realloc(r2, 100, omp_null_allocator, omp_null_allocator);
    CHECK(r2 && r2[99] == 7);
    p = omp_alloc(600, a);
    CHECK(p != NULL);
    omp_free(p, a);
    /* moving out of the pool frees its room */
    char *out = omp_realloc(r2, 100, omp_default_mem_alloc, a);
    CHECK(out && out[0] == 7 && out[99] == 7);
    p = omp_alloc(800, a);
    CHECK(p != NULL);
    omp_free(p, a);
    omp_free(out, omp_default_mem_alloc);
    omp_destroy_allocator(a);

    /* threads sharing one pool never overdraw it */
    a = pool(64 * 1024, omp_atv_null_fb);
    int over = 0;
#pragma omp parallel num_threads(4) reduction(+ : over)
    {
        void *mine[200];
        int n = 0;
        for (int i = 0; i < 200; i++)
            if ((mine[n] = omp_alloc(512, a)) != NULL)
                n++;
        /* 4 threads x 200 x 512 bytes is far beyond 64 KiB */
#pragma omp barrier
        over += n;
#pragma omp barrier
        for (int i = 0; i < n; i++)
            omp_free(mine[i], omp_null_allocator);
    }
    CHECK(over > 0 && over * 512 <= 64 * 1024);
    omp_destroy_allocator(a);
}

static void fallbacks(void)
{
    omp_allocator_handle_t n = pool(100, omp_atv_null_fb);
    omp_allocator_handle_t d = pool(100, omp_atv_default_mem_fb);
    CHECK(omp_alloc(200, n) == NULL);
    char *p = omp_alloc(200, d);
    CHECK(p != NULL);
    memset(p, 1, 200);
    omp_free(p, omp_null_allocator);

    /* allocator_fb: to fb_data, and from there its own fallback */
    omp_alloctrait_t tr[] = {T(omp_atk_pool_size, 100), T(omp_atk_fallback, omp_atv_allocator_fb),
                             T(omp_atk_fb_data, n)};
    omp_allocator_handle_t c = make(3, tr);
    CHECK(c != omp_null_allocator);
    void *x = omp_alloc(60, c);  /* from c's pool */
    void *y = omp_alloc(60, c);  /* c full: from n */
    void *z = omp_alloc(60, c);  /* both full: n's null_fb */
    CHECK(x && y && !z);
    omp_free(y, omp_null_allocator); /* back to n's pool */
    y = omp_alloc(60, n);
    CHECK(y != NULL);
    omp_free(x, omp_null_allocator);
    omp_free(y, omp_null_allocator);

    omp_alloctrait_t tr2[] = {T(omp_atk_pool_size, 100), T(omp_atk_fallback, omp_atv_allocator_fb),
                              T(omp_atk_fb_data, d)};
    omp_allocator_handle_t c2 = make(3, tr2);
    p = omp_alloc(1000, c2); /* c2 -> d -> default memory */
    CHECK(p != NULL);
    omp_free(p, omp_null_allocator);

    omp_alloctrait_t tr3[] = {T(omp_atk_pool_size, 100), T(omp_atk_fallback, omp_atv_allocator_fb)};
    omp_allocator_handle_t c3 = make(2, tr3);
    CHECK(c3 != omp_null_allocator);
    p = omp_alloc(1000, c3); /* no fb_data: default memory */
    CHECK(p != NULL);
    omp_free(p, omp_null_allocator);

    /* calloc overflow: never a short block (volatile: no compile-time warning) */
    volatile size_t half = SIZE_MAX / 2, big = (size_t)1 << 40, eighth = SIZE_MAX / 8;
    CHECK(omp_calloc(half, 4, n) == NULL);
    CHECK(omp_calloc(half, 4, d) == NULL);
    CHECK(omp_calloc(big, big, omp_default_mem_alloc) == NULL);
    CHECK(omp_aligned_calloc(64, eighth, 16, omp_default_mem_alloc) == NULL);

    omp_destroy_allocator(c);
    omp_destroy_allocator(c2);
    omp_destroy_allocator(c3);
    omp_destroy_allocator(n);
    omp_destroy_allocator(d);
}

static void defaults(void)
{
    omp_set_default_allocator(omp_null_allocator);
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
    omp_allocator_handle_t a = pool(1000, omp_atv_null_fb);
    int ok = 1;
#pragma omp parallel num_threads(2) reduction(& : ok)
    {
        if (omp_get_thread_num() == 0) {
            omp_set_default_allocator(a);
            ok &= omp_get_default_allocator() == a;
            void *p = omp_alloc(900, omp_null_allocator); /* from the pool */
            ok &= p != NULL;
            ok &= omp_alloc(900, omp_null_allocator) == NULL;
            omp_free(p, omp_null_allocator);
        }
#pragma omp barrier
        if (omp_get_thread_num() == 1) {
            ok &= omp_get_default_allocator() == omp_default_mem_alloc;
            void *p = omp_alloc(5000, omp_null_allocator);
            ok &= p != NULL;
            omp_free(p, omp_null_allocator);
        }
    }
    CHECK(ok);
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
    omp_destroy_allocator(a);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "abort"))
        child_abort();
    traits();
    pools();
    fallbacks();
    defaults();
    struct child c = run_self("abort", NULL);
    CHECKF(c.exited && c.status == 1, "abort_fb: exited %d status %d", c.exited, c.status);
    CHECKF(!strcmp(c.err, "\nlibgomp: Out of memory allocating 200 bytes\n"), "stderr [%s]", c.err);
    CHECKF(!strcmp(c.out, "pending"), "stdout [%s]", c.out);
    child_free(&c);
    printf("alloc_pools: ok\n");
    return 0;
}
