/* api_alloc: memory allocators (OpenMP 5.0/5.1).
 *  - every predefined allocator returns usable memory; size 0 gives NULL;
 *  - omp_aligned_alloc / omp_aligned_calloc honour the alignment;
 *  - omp_calloc zeroes (memory dirtied and freed first);
 *  - omp_realloc keeps the contents (up to the smaller size), from NULL
 *    acts as alloc, to size 0 frees and returns NULL, and can move a block
 *    to another allocator (free_allocator argument);
 *  - omp_init_allocator traits: alignment (128), pool_size (4096) with
 *    fallback null_fb (exhaustion gives NULL, freeing makes room again),
 *    default_mem_fb (exhaustion falls back to default memory),
 *    allocator_fb + fb_data, abort_fb (the process ends: checked in a
 *    child; libgomp prints "libgomp: Out of memory allocating N bytes" and
 *    exits with status 1); an invalid trait value gives omp_null_allocator;
 *  - omp_set_default_allocator / omp_get_default_allocator, used by
 *    omp_alloc(size, omp_null_allocator); the default is per task;
 *  - the allocate clause on a parallel's private variable (GOMP_alloc /
 *    GOMP_free) with an aligned allocator;
 *  - omp_destroy_allocator.
 */
#include "omp_check.h"

#include <stdint.h>

#define ALIGNED(p, a) (((uintptr_t)(p) & ((a)-1)) == 0)

static void child_abort(void)
{
    omp_alloctrait_t tr[] = {{omp_atk_pool_size, 1024}, {omp_atk_fallback, omp_atv_abort_fb}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, tr);
    if (a == omp_null_allocator)
        exit(3);
    void *p = omp_alloc(4096, a); /* exceeds the pool: abort */
    printf("survived %p\n", p);
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "abort"))
        child_abort();

    static const omp_allocator_handle_t predef[] = {
        omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
        omp_high_bw_mem_alloc, omp_low_lat_mem_alloc,   omp_cgroup_mem_alloc,
        omp_pteam_mem_alloc,   omp_thread_mem_alloc};
    for (unsigned i = 0; i < sizeof predef / sizeof *predef; i++) {
        char *p = omp_alloc(1000, predef[i]);
        CHECKF(p != NULL, "predefined allocator %u", i);
        memset(p, 0x5a, 1000);
        CHECK(p[999] == 0x5a);
        omp_free(p, predef[i]);
        CHECK(omp_alloc(0, predef[i]) == NULL);
    }

    for (size_t al = 8; al <= 8192; al *= 4) {
        void *p = omp_aligned_alloc(al, 333, omp_default_mem_alloc);
        CHECKF(p && ALIGNED(p, al), "aligned_alloc %zu gave %p", al, p);
        memset(p, 1, 333);
        omp_free(p, omp_default_mem_alloc);
        int *q = omp_aligned_calloc(al, 50, sizeof(int), omp_default_mem_alloc);
        CHECK(q && ALIGNED(q, al));
        for (int k = 0; k < 50; k++)
            CHECK_EQ(q[k], 0);
        omp_free(q, omp_default_mem_alloc);
    }

    /* calloc really zeroes */
    for (int r = 0; r < 20; r++) {
        unsigned char *d = omp_alloc(4096, omp_default_mem_alloc);
        CHECK(d != NULL);
        memset(d, 0xff, 4096);
        omp_free(d, omp_default_mem_alloc);
        unsigned char *z = omp_calloc(64, 64, omp_default_mem_alloc);
        CHECK(z != NULL);
        for (int k = 0; k < 4096; k++)
            CHECK_EQ(z[k], 0);
        omp_free(z, omp_default_mem_alloc);
    }

    /* realloc */
    {
        int *p = omp_realloc(NULL, 100 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
        CHECK(p != NULL);
        for (int k = 0; k < 100; k++)
            p[k] = k * 7;
        p = omp_realloc(p, 100000 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
        CHECK(p != NULL);
        for (int k = 0; k < 100; k++)
            CHECK_EQ(p[k], k * 7);
        p[99999] = 1;
        p = omp_realloc(p, 10 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
        for (int k = 0; k < 10; k++)
            CHECK_EQ(p[k], k * 7);
        omp_alloctrait_t tr[] = {{omp_atk_alignment, 256}};
        omp_allocator_handle_t a256 = omp_init_allocator(omp_default_mem_space, 1, tr);
        CHECK(a256 != omp_null_allocator);
        p = omp_realloc(p, 20 * sizeof(int), a256, omp_default_mem_alloc);
        CHECK(p && ALIGNED(p, 256));
        for (int k = 0; k < 10; k++)
            CHECK_EQ(p[k], k * 7);
        CHECK(omp_realloc(p, 0, a256, a256) == NULL);
        omp_destroy_allocator(a256);
    }

    /* traits */
    {
        omp_alloctrait_t t1[] = {{omp_atk_alignment, 128}};
        omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, t1);
        CHECK(a != omp_null_allocator);
        for (int r = 0; r < 10; r++) {
            void *p = omp_alloc(24 + r, a);
            CHECK(p && ALIGNED(p, 128));
            omp_free(p, a);
        }
        omp_destroy_allocator(a);

        omp_alloctrait_t t2[] = {{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb}};
        omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 2, t2);
        CHECK(pool != omp_null_allocator);
        void *a1 = omp_alloc(3000, pool);
        CHECK(a1 != NULL);
        CHECK(omp_alloc(3000, pool) == NULL);
        CHECK(omp_alloc(8192, pool) == NULL);
        omp_free(a1, pool);
        a1 = omp_alloc(3000, pool);
        CHECK(a1 != NULL);
        omp_free(a1, pool);

        omp_alloctrait_t t3[] = {{omp_atk_pool_size, 4096},
                                 {omp_atk_fallback, omp_atv_default_mem_fb}};
        omp_allocator_handle_t pool2 = omp_init_allocator(omp_default_mem_space, 2, t3);
        CHECK(pool2 != omp_null_allocator);
        void *big = omp_alloc(100000, pool2);
        CHECK(big != NULL);
        memset(big, 1, 100000);
        omp_free(big, pool2);

        omp_alloctrait_t t4[] = {{omp_atk_pool_size, 4096},
                                 {omp_atk_fallback, omp_atv_allocator_fb},
                                 {omp_atk_fb_data, (omp_uintptr_t)pool2}};
        omp_allocator_handle_t pool3 = omp_init_allocator(omp_default_mem_space, 3, t4);
        CHECK(pool3 != omp_null_allocator);
        void *b = omp_alloc(50000, pool3);
        CHECK(b != NULL);
        omp_free(b, pool3);

        omp_alloctrait_t bad[] = {{omp_atk_alignment, 3}};
        CHECK(omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator);

        /* default allocator */
        CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
        omp_set_default_allocator(pool);
        CHECK(omp_get_default_allocator() == pool);
        CHECK(omp_alloc(8192, omp_null_allocator) == NULL); /* pool too small */
        void *s = omp_alloc(100, omp_null_allocator);
        CHECK(s != NULL);
        omp_free(s, omp_null_allocator);
        int bad_threads = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad_threads)
        {
            /* implicit tasks inherit the default allocator */
            if (omp_get_default_allocator() != pool)
                bad_threads++;
            omp_set_default_allocator(omp_thread_mem_alloc);
            if (omp_get_default_allocator() != omp_thread_mem_alloc)
                bad_threads++;
        }
        CHECK_EQ(bad_threads, 0);
        CHECK(omp_get_default_allocator() == pool);
        omp_set_default_allocator(omp_default_mem_alloc);
        omp_destroy_allocator(pool3);
        omp_destroy_allocator(pool2);
        omp_destroy_allocator(pool);
    }

    /* allocate clause */
    {
        omp_alloctrait_t t1[] = {{omp_atk_alignment, 256}};
        omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, t1);
        CHECK(a != omp_null_allocator);
        int x = 5, bad = 0;
        double arr[10];
#pragma omp parallel num_threads(3) private(arr) firstprivate(x) allocate(a : x, arr) reduction(+ : bad)
        {
            if (!ALIGNED(&x, 256) || !ALIGNED(arr, 256) || x != 5)
                bad++;
            x += omp_get_thread_num();
            for (int k = 0; k < 10; k++)
                arr[k] = k;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(x, 5);
        omp_destroy_allocator(a);
    }

    /* abort fallback */
    struct child c = run_self("abort", NULL);
    CHECKF(!(c.exited && (c.status == 0 || c.status == 3)),
           "abort_fb: child exited %d status %d, out [%s]", c.exited, c.status, c.out);
    /* libgomp: exit status 1 after "libgomp: Out of memory allocating 4096 bytes" */
    CHECKF(c.exited && c.status == 1 &&
               strstr(c.err, "libgomp: Out of memory allocating 4096 bytes\n") != NULL,
           "abort_fb: exited %d status %d, stderr [%s]", c.exited, c.status, c.err);
    child_free(&c);
    return 0;
}
