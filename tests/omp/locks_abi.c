/* locks_abi: the two lock ABIs libgomp.so.1 exports (OpenMP 5.1 section
 * 3.9), beyond ../api_locks.c.
 *  - omp_lock_t is 4 bytes, omp_nest_lock_t 16 (gcc 12's omp.h on Linux);
 *  - every lock routine, C and Fortran (trailing _), exists as
 *    name@OMP_1.0 and name@@OMP_3.0; this program's own calls and an
 *    unversioned dlsym both reach the OMP_3.0 ones;
 *  - OMP_3.0 nest locks are owned by tasks: a child task of the owner
 *    (run by any thread) cannot take it (omp_test_nest_lock gives 0), nor
 *    can the implicit task of a parallel region's primary thread;
 *  - OMP_1.0 nest locks (OpenMP 2.5) are owned by threads: a task run by
 *    the owning thread nests (count + 1), so does the same thread as the
 *    primary thread of a team, another thread gets 0; they
 *    exclude each other across a team, set twice / unset twice per pass;
 *  - the OMP_1.0 simple lock excludes across a team as well;
 *  - the Fortran entries, called as gfortran does (by reference):
 *    integer(4) simple locks, integer(8) nest locks, in both versions,
 *    logical(4) results (1 for .true.), nest counts;
 *  - omp_unset_lock on a lock nobody holds (undefined) does not break it.
 * BUILD-FLAGS: -ldl
 */
#include "omp_check.h"

#include <dlfcn.h>
#include <stdint.h>

_Static_assert(sizeof(omp_lock_t) == 4, "omp_lock_t");
_Static_assert(sizeof(omp_nest_lock_t) == 16, "omp_nest_lock_t");

typedef void (*lockfn)(void *);
typedef int (*testfn)(void *);

struct lockset {
    lockfn init, destroy, set, unset;
    testfn test;
    lockfn ninit, ndestroy, nset, nunset;
    testfn ntest;
};

static void *h;

static void *sym(const char *name, const char *ver)
{
    void *p = dlvsym(h, name, ver);
    CHECKF(p != NULL, "%s@%s missing", name, ver);
    return p;
}

static struct lockset load(const char *ver, const char *suffix)
{
    char n[64];
    struct lockset s;
#define LOAD(field, name) (snprintf(n, sizeof n, "%s%s", name, suffix), *(void **)&s.field = sym(n, ver))
    LOAD(init, "omp_init_lock");
    LOAD(destroy, "omp_destroy_lock");
    LOAD(set, "omp_set_lock");
    LOAD(unset, "omp_unset_lock");
    LOAD(test, "omp_test_lock");
    LOAD(ninit, "omp_init_nest_lock");
    LOAD(ndestroy, "omp_destroy_nest_lock");
    LOAD(nset, "omp_set_nest_lock");
    LOAD(nunset, "omp_unset_nest_lock");
    LOAD(ntest, "omp_test_nest_lock");
#undef LOAD
    return s;
}

/* Mutual exclusion of a team through s's simple and nest locks; the
 * storage is big enough for either ABI (the lock is opaque). */
static void exclusion(const struct lockset *s, int nest_twice)
{
    union {
        int64_t i[4];
        char c[32];
    } lk, nl;
    memset(&lk, 0, sizeof lk);
    memset(&nl, 0, sizeof nl);
    s->init(&lk);
    s->ninit(&nl);
    volatile long counter = 0, ncounter = 0;
    enum { R = 3000 };
#pragma omp parallel num_threads(4)
    for (int i = 0; i < R; i++) {
        s->set(&lk);
        long v = counter;
        tiny_delay(3);
        counter = v + 1;
        s->unset(&lk);
        s->nset(&nl);
        if (nest_twice)
            s->nset(&nl);
        long w = ncounter;
        tiny_delay(3);
        ncounter = w + 1;
        if (nest_twice)
            s->nunset(&nl);
        s->nunset(&nl);
    }
    CHECK_EQ(counter, 4L * R);
    CHECK_EQ(ncounter, 4L * R);
    s->destroy(&lk);
    s->ndestroy(&nl);
}

static void nest_owner_25(const struct lockset *s)
{
    int64_t nl[2] = {0, 0};
    s->ninit(nl);
    CHECK_EQ(s->ntest(nl), 1);
    int in_task = -1, other = -1;
    /* a task run by this (the owning) thread: thread ownership nests */
#pragma omp task shared(in_task, nl) if (0)
    {
        in_task = s->ntest(nl);
        if (in_task)
            s->nunset(nl);
    }
    CHECK_EQ(in_task, 2);
#pragma omp parallel num_threads(2) shared(other)
    {
        if (omp_get_thread_num() == 1)
            other = s->ntest(nl);
    }
    CHECK_EQ(other, 0);
    /* the primary thread of a team is the same thread: it still owns it */
    int primary = -1;
#pragma omp parallel num_threads(2) shared(primary)
    {
        if (omp_get_thread_num() == 0) {
            primary = s->ntest(nl);
            if (primary)
                s->nunset(nl);
        }
    }
    CHECK_EQ(primary, 2);
    s->nunset(nl);
    /* free again: anyone can take it */
#pragma omp parallel num_threads(2) shared(other)
    {
        if (omp_get_thread_num() == 1) {
            other = s->ntest(nl);
            if (other)
                s->nunset(nl);
        }
    }
    CHECK_EQ(other, 1);
    s->ndestroy(nl);
}

static void nest_owner_30(void)
{
    omp_nest_lock_t nl;
    omp_init_nest_lock(&nl);
    CHECK_EQ(omp_test_nest_lock(&nl), 1);
    int in_task = -1;
#pragma omp task shared(in_task, nl) if (0)
    {
        in_task = omp_test_nest_lock(&nl);
        if (in_task)
            omp_unset_nest_lock(&nl);
    }
    CHECK_EQ(in_task, 0); /* another task, though the same thread */
    int implicit = -1;
#pragma omp parallel num_threads(2) shared(implicit, nl)
    {
        if (omp_get_thread_num() == 0) { /* the region's implicit task is not the initial task */
            implicit = omp_test_nest_lock(&nl);
            if (implicit)
                omp_unset_nest_lock(&nl);
        }
    }
    CHECK_EQ(implicit, 0);
    CHECK_EQ(omp_test_nest_lock(&nl), 2);
    omp_unset_nest_lock(&nl);
    omp_unset_nest_lock(&nl);
    int got = -1;
#pragma omp task shared(got, nl) if (0)
    {
        got = omp_test_nest_lock(&nl);
        if (got)
            omp_unset_nest_lock(&nl);
    }
    CHECK_EQ(got, 1);
    omp_destroy_nest_lock(&nl);
}

/* The Fortran entries, by reference as gfortran passes them. */
static void fortran(const char *ver)
{
    struct lockset f = load(ver, "_");
    int32_t l = 0x55;
    int64_t n = 0x55;
    f.init(&l);
    CHECK_EQ(f.test(&l), 1); /* .true. */
    CHECK_EQ(f.test(&l), 0);
    f.unset(&l);
    f.set(&l);
    f.unset(&l);
    f.destroy(&l);
    f.ninit(&n);
    CHECK_EQ(f.ntest(&n), 1);
    CHECK_EQ(f.ntest(&n), 2);
    f.nset(&n);
    CHECK_EQ(f.ntest(&n), 4);
    for (int i = 0; i < 4; i++)
        f.nunset(&n);
    int other = -1;
#pragma omp parallel num_threads(2) shared(other)
    {
        if (omp_get_thread_num() == 1) {
            other = f.ntest(&n);
            if (other)
                f.nunset(&n);
        }
    }
    CHECK_EQ(other, 1);
    f.ndestroy(&n);
    /* two locks at once: each its own object */
    int64_t a = 0, b = 0;
    f.ninit(&a);
    f.ninit(&b);
    CHECK_EQ(f.ntest(&a), 1);
    CHECK_EQ(f.ntest(&b), 1);
    f.nunset(&a);
    f.nunset(&b);
    f.ndestroy(&a);
    f.ndestroy(&b);
    exclusion(&f, 1);
}

int main(void)
{
    h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    CHECK(h != NULL);
    struct lockset v30 = load("OMP_3.0", ""), v10 = load("OMP_1.0", "");
    CHECK(*(void **)&v30.set == (void *)&omp_set_lock);
    CHECK(*(void **)&v30.ninit == (void *)&omp_init_nest_lock);
    CHECK(dlsym(h, "omp_test_nest_lock") == *(void **)&v30.ntest);

    exclusion(&v30, 1);
    exclusion(&v10, 1);
    exclusion(&v10, 0);
    nest_owner_25(&v10);
    nest_owner_30();
    fortran("OMP_3.0");
    fortran("OMP_1.0");

    /* unsetting a free lock (undefined): the lock still works */
    omp_lock_t l;
    omp_init_lock(&l);
    omp_unset_lock(&l);
    CHECK(omp_test_lock(&l));
    CHECK(!omp_test_lock(&l));
    omp_unset_lock(&l);
    omp_destroy_lock(&l);
    printf("locks_abi: ok\n");
    return 0;
}
