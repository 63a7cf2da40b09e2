/* api_locks: simple and nestable locks.
 *  - a lock-protected non-atomic counter loses no update;
 *  - omp_test_lock succeeds (non-zero) on a free lock and fails (0) while
 *    another thread holds it (ordering by barriers, no timing);
 *  - nest locks: omp_test_nest_lock returns the new nesting count
 *    (1, 2, 3 ...) for the owner and 0 for another thread while held;
 *    the lock is free again only after as many unsets;
 *  - omp_init_lock_with_hint / omp_init_nest_lock_with_hint: declared by
 *    gcc 12's omp.h but NOT exported by its libgomp; referenced weakly and
 *    checked only when present (a note is printed otherwise);
 *  - the OMP_1.0 compat versions (omp_*_lock@OMP_1.0, the OpenMP 2.5 lock
 *    ABI), found with dlvsym on libgomp.so.1, work on their own lock
 *    objects (init / set / test / unset / destroy, nest counts).
 */
#include "omp_check.h"

#include <dlfcn.h>

#pragma weak omp_init_lock_with_hint
#pragma weak omp_init_nest_lock_with_hint

static void check_compat(void)
{
    void *h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    CHECK(h != NULL);
    static const char *names[] = {"omp_init_lock", "omp_destroy_lock", "omp_set_lock",
                                  "omp_unset_lock", "omp_test_lock", "omp_init_nest_lock",
                                  "omp_destroy_nest_lock", "omp_set_nest_lock",
                                  "omp_unset_nest_lock", "omp_test_nest_lock"};
    void *f[10];
    for (int i = 0; i < 10; i++) {
        char fname[64];
        f[i] = dlvsym(h, names[i], "OMP_1.0");
        CHECKF(f[i] != NULL, "%s@OMP_1.0 missing", names[i]);
        CHECKF(dlvsym(h, names[i], "OMP_3.0") != NULL, "%s@OMP_3.0 missing", names[i]);
        snprintf(fname, sizeof fname, "%s_", names[i]);
        CHECKF(dlvsym(h, fname, "OMP_1.0") != NULL, "%s@OMP_1.0 missing", fname);
    }
    /* a 2.5 lock is at most a pthread mutex plus a count: 64 bytes is room */
    union {
        char bytes[64];
        long align;
    } l, n;
    memset(&l, 0, sizeof l);
    memset(&n, 0, sizeof n);
    ((void (*)(void *))f[0])(&l);
    ((void (*)(void *))f[2])(&l);
    CHECK_EQ(((int (*)(void *))f[4])(&l), 0);
    ((void (*)(void *))f[3])(&l);
    CHECK(((int (*)(void *))f[4])(&l) != 0);
    ((void (*)(void *))f[3])(&l);
    ((void (*)(void *))f[1])(&l);
    ((void (*)(void *))f[5])(&n);
    CHECK_EQ(((int (*)(void *))f[9])(&n), 1);
    CHECK_EQ(((int (*)(void *))f[9])(&n), 2);
    ((void (*)(void *))f[7])(&n);
    ((void (*)(void *))f[8])(&n);
    ((void (*)(void *))f[8])(&n);
    ((void (*)(void *))f[8])(&n);
    CHECK_EQ(((int (*)(void *))f[9])(&n), 1);
    ((void (*)(void *))f[8])(&n);
    ((void (*)(void *))f[6])(&n);
    dlclose(h);
}

int main(void)
{
    omp_lock_t lk;
    omp_nest_lock_t nl;
    omp_init_lock(&lk);
    omp_init_nest_lock(&nl);

    /* mutual exclusion */
    volatile long counter = 0, ncounter = 0;
    int nthr = 1;
    enum { R = 2000 };
#pragma omp parallel shared(counter, ncounter, nthr)
    {
#pragma omp single
        nthr = omp_get_num_threads();
        for (int r = 0; r < R; r++) {
            if (r % 2)
                omp_set_lock(&lk);
            else
                while (!omp_test_lock(&lk))
                    ;
            long v = counter;
            tiny_delay(20);
            counter = v + 1;
            omp_unset_lock(&lk);
            omp_set_nest_lock(&nl);
            omp_set_nest_lock(&nl);
            v = ncounter;
            tiny_delay(20);
            ncounter = v + 1;
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
        }
    }
    CHECK_EQ(counter, (long)nthr * R);
    CHECK_EQ(ncounter, (long)nthr * R);

    /* test_lock against a holder */
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        if (t == 0) {
            if (!omp_test_lock(&lk))
                bad++;
            if (omp_test_nest_lock(&nl) != 1 || omp_test_nest_lock(&nl) != 2)
                bad++;
            omp_set_nest_lock(&nl); /* count 3 */
        }
#pragma omp barrier
        if (t == 1) {
            if (omp_test_lock(&lk))
                bad++;
            if (omp_test_nest_lock(&nl) != 0)
                bad++;
        }
#pragma omp barrier
        if (t == 0) {
            omp_unset_lock(&lk);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl); /* count 1: still held */
        }
#pragma omp barrier
        if (t == 1) {
            if (omp_test_nest_lock(&nl) != 0)
                bad++;
            if (!omp_test_lock(&lk))
                bad++;
            omp_unset_lock(&lk);
        }
#pragma omp barrier
        if (t == 0)
            omp_unset_nest_lock(&nl); /* free */
#pragma omp barrier
        if (t == 1) {
            if (omp_test_nest_lock(&nl) != 1)
                bad++;
            omp_unset_nest_lock(&nl);
        }
    }
    CHECK_EQ(bad, 0);
    omp_destroy_lock(&lk);
    omp_destroy_nest_lock(&nl);

    /* hints */
    if (omp_init_lock_with_hint && omp_init_nest_lock_with_hint) {
        omp_init_lock_with_hint(&lk, omp_sync_hint_contended | omp_sync_hint_speculative);
        omp_init_nest_lock_with_hint(&nl, omp_sync_hint_uncontended);
        CHECK(omp_test_lock(&lk) != 0);
        CHECK_EQ(omp_test_lock(&lk), 0);
        omp_unset_lock(&lk);
        CHECK_EQ(omp_test_nest_lock(&nl), 1);
        CHECK_EQ(omp_test_nest_lock(&nl), 2);
        omp_unset_nest_lock(&nl);
        omp_unset_nest_lock(&nl);
        omp_destroy_lock(&lk);
        omp_destroy_nest_lock(&nl);
    } else {
        printf("note: omp_init_lock_with_hint is not exported by this libgomp (as in GCC 12)\n");
    }

    check_compat();
    return 0;
}
