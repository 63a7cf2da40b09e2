/* task_counts: the counts a runtime keeps of tasks (children of a task,
 * references to a finished task's data, tasks of the team) at the points
 * where a program may rely on them, around every multiple of a batch size
 * a runtime might count in (weft-omp counts ahead, 64 at a time):
 *  - taskwait after 1 to 200 children sees every one of them done;
 *  - a barrier after each thread made 0 to 150 tasks sees every task of
 *    the team done, also tasks made by tasks run inside the barrier;
 *  - an undeferred task (if(0)) whose deferred children it does not wait
 *    for returns, and its children still run, with its data intact until
 *    they are all done (under ASan: no use after free);
 *  - a task that ends without waiting for its 150 children, whose
 *    children make children too: all done at the taskgroup's end;
 *  - the end of a parallel region completes tasks made just before it,
 *    also tasks one thread makes late, after the others are done.
 * RUN-ENV: OMP_NUM_THREADS=1
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=3
 * RUN-ENV: OMP_NUM_THREADS=8
 */
#include "omp_check.h"

static long done_by_taskwait(int n)
{
    long c = 0;
    for (int i = 0; i < n; i++) {
#pragma omp task shared(c)
        {
            tiny_delay(50);
#pragma omp atomic
            c++;
        }
    }
#pragma omp taskwait
    long seen;
#pragma omp atomic read
    seen = c;
    return seen;
}

/* A deferred child of an undeferred task reads the task's own data
 * (firstprivate copies, which live with the task) after it returned. */
static void undeferred_with_children(long *sum, int n)
{
#pragma omp task if (0) shared(sum) firstprivate(n)
    {
        long base = 1000; /* a variable of the undeferred task */
        for (int i = 0; i < n; i++) {
#pragma omp task shared(sum) firstprivate(base, i)
            {
                tiny_delay(200);
#pragma omp atomic
                *sum += base + i;
            }
        }
    }
}

static void grandchildren(long *count)
{
#pragma omp task shared(count)
    {
        for (int i = 0; i < 150; i++) {
#pragma omp task shared(count)
            {
                for (int k = 0; k < 2; k++) {
#pragma omp task shared(count)
                    {
#pragma omp atomic
                        (*count)++;
                    }
                }
#pragma omp atomic
                (*count)++;
            }
        }
        /* ends without taskwait: its children and theirs outlive it */
    }
}

int main(void)
{
    /* taskwait around the batch boundaries, from one thread and from all */
#pragma omp parallel
    {
#pragma omp single
        for (int n = 1; n <= 200; n++) CHECK_EQ(done_by_taskwait(n), n);
        for (int n = 60; n <= 70; n++) CHECK_EQ(done_by_taskwait(n), n);
        CHECK_EQ(done_by_taskwait(129), 129);
    }

    /* barriers: each thread makes a different number of tasks per round */
    long made = 0, ran = 0;
#pragma omp parallel shared(made, ran)
    {
        int me = omp_get_thread_num();
        for (int round = 0; round < 60; round++) {
            int n = (round * 37 + me * 11) % 151;
            for (int i = 0; i < n; i++) {
#pragma omp task shared(ran)
                {
                    /* every 16th task makes one more: made inside the barrier too */
                    if (i % 16 == 0) {
#pragma omp task shared(ran)
                        {
#pragma omp atomic
                            ran++;
                        }
#pragma omp atomic
                        made++;
                    }
#pragma omp atomic
                    ran++;
                }
            }
#pragma omp atomic
            made += n;
#pragma omp barrier
            long m, r;
#pragma omp atomic read
            m = made;
#pragma omp atomic read
            r = ran;
            CHECKF(m == r, "round %d: %ld tasks made, %ld done after the barrier", round, m, r);
#pragma omp barrier
        }
    }

    /* undeferred tasks with deferred children, and no taskwait */
    for (int rep = 0; rep < 20; rep++) {
        long sum = 0;
        int n = 40 + rep * 7;
#pragma omp parallel shared(sum)
#pragma omp single
        undeferred_with_children(&sum, n);
        CHECK_EQ(sum, 1000L * n + (long)n * (n - 1) / 2);
    }

    /* tasks that end before their children; all done at taskgroup end */
#pragma omp parallel
#pragma omp single
    for (int rep = 0; rep < 10; rep++) {
        long count = 0;
#pragma omp taskgroup
        grandchildren(&count);
        long c;
#pragma omp atomic read
        c = count;
        CHECK_EQ(c, 150 * 3);
    }

    /* the end of the region completes the last tasks */
    for (int rep = 0; rep < 50; rep++) {
        long c = 0;
#pragma omp parallel shared(c)
        for (int i = 0; i < 65; i++) {
#pragma omp task shared(c)
            {
#pragma omp atomic
                c++;
            }
        }
        CHECK_EQ(c, 65L * omp_get_max_threads());
    }
    /* tasks made late, by one thread, after the others finished their
     * part of the region (which may leave it for the next before the
     * tasks are done), and tasks those tasks make */
    for (int rep = 0; rep < 40; rep++) {
        long c = 0;
        int late = rep % 2 ? 0 : -1; /* thread 0, or the last thread */
#pragma omp parallel shared(c)
        {
            int me = omp_get_thread_num(), who = late < 0 ? omp_get_num_threads() - 1 : late;
            if (me == who) {
                tiny_delay(20000);
                for (int i = 0; i < 100; i++) {
#pragma omp task shared(c)
                    {
                        if (i % 10 == 0) {
#pragma omp task shared(c)
                            {
#pragma omp atomic
                                c++;
                            }
                        }
#pragma omp atomic
                        c++;
                    }
                }
            }
        }
        CHECK_EQ(c, 110);
    }
    printf("task_counts: ok (%d threads)\n", omp_get_max_threads());
    return 0;
}
