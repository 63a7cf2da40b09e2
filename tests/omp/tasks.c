/* tasks: explicit tasks without dependences (GOMP_task, GOMP_taskwait,
 * GOMP_taskyield, GOMP_taskgroup_start/end).
 *  - 5000 tasks from a single thread, each writing its own slot;
 *  - tasks from every thread of the team, each counted per creator;
 *  - default data sharing: a variable of the generating context is
 *    firstprivate (captured at creation), shared when declared so;
 *  - firstprivate of a VLA (gcc passes a copy function, cpyfn) and of a
 *    64-byte aligned array (arg_align 64: the copy must be aligned);
 *  - if(0): the task is undeferred, its effect is visible right after;
 *  - final(1): omp_in_final() is true in it and in its descendants, which
 *    are included tasks (run at once by the encountering thread);
 *  - untied and mergeable tasks compute the right results;
 *  - taskwait waits for the children; taskgroup waits for all descendants
 *    (grandchildren included);
 *  - taskyield returns and the tasks still complete;
 *  - a barrier and the end of the parallel region complete all tasks;
 *  - tasks in nested teams run in their own team;
 *  - tasks made while their maker holds a lock, a nestable lock or a
 *    critical region that the tasks take too (libgomp queues them below
 *    its cut-off: they must not run at once on the maker's stack and wait
 *    for it), with tasks queued before them or not.
 */
#include <stdalign.h>
#include <stdint.h>

#include "omp_check.h"

enum { NT = 5000 };
static long slot[NT];

static void mk_children(int depth, int *counter)
{
    if (depth == 0) {
        tiny_delay(2000);
#pragma omp atomic
        (*counter)++;
        return;
    }
    for (int k = 0; k < 3; k++) {
#pragma omp task firstprivate(depth) shared(counter)
        mk_children(depth - 1, counter);
    }
}

/* In a function: gcc refuses a critical nested in one of its own name in
 * the same body, which the task would be. */
static void held_inc(long *c)
{
#pragma omp critical(held)
    (*c)++;
}

/* Tasks that each take what their maker holds while making them; 48 at
 * most pending at once (libgomp runs tasks at once past 64 per thread,
 * and would then wait for ever too). */
static void held_while_made(int queued_before)
{
    omp_lock_t l;
    omp_nest_lock_t nl;
    omp_init_lock(&l);
    omp_init_nest_lock(&nl);
    long a = 0, b = 0, c = 0, q = 0;
#pragma omp parallel shared(a, b, c, q, l, nl)
#pragma omp single
    {
        for (int k = 0; k < queued_before; k++) {
#pragma omp task shared(q)
            {
#pragma omp atomic
                q++;
            }
        }
        omp_set_lock(&l);
        for (int i = 0; i < 40; i++) {
#pragma omp task shared(a, l)
            {
                omp_set_lock(&l);
                a++;
                omp_unset_lock(&l);
            }
        }
        omp_unset_lock(&l);
#pragma omp taskwait
        omp_set_nest_lock(&nl);
        for (int i = 0; i < 40; i++) {
#pragma omp task shared(b, nl)
            {
                omp_set_nest_lock(&nl);
                b++;
                omp_unset_nest_lock(&nl);
            }
        }
        omp_unset_nest_lock(&nl);
#pragma omp taskwait
#pragma omp critical(held)
        for (int i = 0; i < 40; i++) {
#pragma omp task shared(c)
            held_inc(&c);
        }
    }
    CHECK_EQ(a, 40);
    CHECK_EQ(b, 40);
    CHECK_EQ(c, 40);
    CHECK_EQ(q, queued_before);
    omp_destroy_lock(&l);
    omp_destroy_nest_lock(&nl);
}

int main(void)
{
    held_while_made(0);
    held_while_made(8);
    int nthr = 1;
    /* many tasks from single */
#pragma omp parallel shared(nthr)
#pragma omp single
    {
        nthr = omp_get_num_threads();
        for (int i = 0; i < NT; i++) {
#pragma omp task
            slot[i] = (long)i * i + 1;
        }
#pragma omp taskwait
        for (int i = 0; i < NT; i++)
            CHECK_EQ(slot[i], (long)i * i + 1);
    }

    /* tasks from every thread */
    {
        int per[64] = {0};
        int bad = 0;
#pragma omp parallel shared(per) reduction(+ : bad)
        {
            int me = omp_get_thread_num();
            for (int k = 0; k < 200; k++) {
#pragma omp task firstprivate(me) shared(per, bad)
                {
                    int t = omp_get_thread_num();
                    if (t < 0 || t >= omp_get_num_threads())
                        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
                    __atomic_fetch_add(&per[me], 1, __ATOMIC_RELAXED);
                }
            }
#pragma omp taskwait
            if (per[me] != 200)
                bad++;
        }
        CHECK_EQ(bad, 0);
        for (int t = 0; t < nthr; t++)
            CHECK_EQ(per[t], 200);
    }

    /* data sharing, cpyfn, alignment */
#pragma omp parallel
#pragma omp single
    {
        int captured[10] = {0};
        int sh = 0;
        for (int i = 0; i < 10; i++) {
            int v = i * 11; /* firstprivate by default */
#pragma omp task shared(captured, sh)
            {
                tiny_delay(1000);
                captured[i] = v;
#pragma omp atomic
                sh += 1;
            }
        }
#pragma omp taskwait
        for (int i = 0; i < 10; i++)
            CHECK_EQ(captured[i], i * 11);
        CHECK_EQ(sh, 10);

        volatile int len = 37;
        int vla[len];
        for (int k = 0; k < len; k++)
            vla[k] = k * 3;
        alignas(64) double al[8];
        for (int k = 0; k < 8; k++)
            al[k] = k + 0.5;
        int vla_ok = 0, al_ok = 0;
#pragma omp task firstprivate(vla, al) shared(vla_ok, al_ok)
        {
            int ok = 1;
            for (int k = 0; k < len; k++)
                ok &= vla[k] == k * 3;
            vla[0] = -1;
            vla_ok = ok;
            al_ok = ((uintptr_t)al % 64 == 0) && al[7] == 7.5;
            al[7] = 0;
        }
        vla[1] = -5; /* the task has its own copy */
#pragma omp taskwait
        CHECK_EQ(vla_ok, 1);
        CHECK_EQ(al_ok, 1);
        CHECK_EQ(vla[0], 0);
        CHECK(al[7] == 7.5);
    }

    /* if(0), final, untied, mergeable */
#pragma omp parallel
#pragma omp single
    {
        int x = 0;
        volatile int zero = 0;
#pragma omp task if (zero) shared(x)
        x = 42;
        CHECK_EQ(x, 42); /* undeferred: already done */

        int in_final = -1, child_final = -1, child_done = 0, gchild_done = 0;
#pragma omp task final(1) shared(in_final, child_final, child_done, gchild_done)
        {
            in_final = omp_in_final();
#pragma omp task shared(child_final, child_done, gchild_done)
            {
                child_final = omp_in_final();
#pragma omp task shared(gchild_done)
                gchild_done = 1;
                /* included: done before the construct's end */
                child_done = gchild_done ? 1 : -1;
            }
            if (child_done != 1)
                child_done = -2;
        }
#pragma omp taskwait
        CHECK_EQ(in_final, 1);
        CHECK_EQ(child_final, 1);
        CHECK_EQ(child_done, 1);
        CHECK_EQ(omp_in_final(), 0);

        long usum = 0;
        for (int k = 0; k < 100; k++) {
#pragma omp task untied shared(usum) firstprivate(k)
            {
#pragma omp taskyield
#pragma omp atomic
                usum += k;
            }
        }
        int m = 7;
        int mres = 0;
#pragma omp task mergeable shared(mres) firstprivate(m)
        mres = m * 6;
#pragma omp taskwait
        CHECK_EQ(usum, 4950);
        CHECK_EQ(mres, 42);
    }

    /* taskwait waits for children only; taskgroup for all descendants */
#pragma omp parallel
#pragma omp single
    {
        int leaves = 0;
#pragma omp taskgroup
        mk_children(3, &leaves);
        CHECK_EQ(leaves, 27);

        int kids = 0;
        for (int k = 0; k < 20; k++) {
#pragma omp task shared(kids)
            {
                tiny_delay(3000);
#pragma omp atomic
                kids++;
            }
        }
#pragma omp taskwait
        CHECK_EQ(kids, 20);

        /* nested taskgroups */
        int inner = 0, outer = 0;
#pragma omp taskgroup
        {
#pragma omp task shared(inner, outer)
            {
#pragma omp taskgroup
                {
                    for (int k = 0; k < 10; k++) {
#pragma omp task shared(inner)
#pragma omp atomic
                        inner++;
                    }
                }
                outer = inner; /* all 10 done here */
            }
        }
        CHECK_EQ(inner, 10);
        CHECK_EQ(outer, 10);
    }

    /* barrier and region end complete tasks */
    {
        int by_barrier = 0, by_end = 0, bad = 0;
#pragma omp parallel reduction(+ : bad) shared(by_barrier, by_end)
        {
#pragma omp single nowait
            for (int k = 0; k < 50; k++) {
#pragma omp task shared(by_barrier)
                {
                    tiny_delay(1000);
#pragma omp atomic
                    by_barrier++;
                }
            }
#pragma omp barrier
            if (__atomic_load_n(&by_barrier, __ATOMIC_RELAXED) != 50)
                bad++;
#pragma omp barrier
#pragma omp single nowait
            for (int k = 0; k < 50; k++) {
#pragma omp task shared(by_end)
#pragma omp atomic
                by_end++;
            }
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(by_end, 50);
    }

    /* tasks in nested teams */
    omp_set_max_active_levels(2);
    {
        int cnt[2] = {0, 0}, bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad) shared(cnt)
        {
            int o = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : bad) shared(cnt)
            {
#pragma omp single
                for (int k = 0; k < 100; k++) {
#pragma omp task shared(cnt, bad) firstprivate(o)
                    {
                        if (omp_get_level() != 2 || omp_get_ancestor_thread_num(1) != o)
                            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
                        __atomic_fetch_add(&cnt[o], 1, __ATOMIC_RELAXED);
                    }
                }
            }
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(cnt[0], 100);
        CHECK_EQ(cnt[1], 100);
    }
    return 0;
}
