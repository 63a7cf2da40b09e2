/* late_tasks: tasks that one thread makes after the others of its team
 * have reached the region's end (`master`, or `single` without a barrier
 * of its own, after a delay: the common producer pattern) are run by those
 * others too, as at a barrier. Under libgomp the threads at the region's
 * end run them; weft-omp once let a worker that found no task pending
 * there leave for the next region, and every later task of the region ran
 * on its producer alone: a program whose late tasks wait for each other
 * hung, and the others lost their parallelism.
 *  - rendezvous: in each of 20 regions, after a delay, the master makes
 *    two tasks that each wait (spinning, up to 10 s) until both have
 *    started: only two threads running them at once get through;
 *  - share: after a delay, `single` makes 16 tasks per thread of 2 ms
 *    each: threads other than the producer run some of them.
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=3
 * RUN-ENV: OMP_NUM_THREADS=2 WEFT_OMP_SHARE_STREAMS=false OMP_WAIT_POLICY=passive
 */
#include "omp_check.h"

#include <time.h>
#include <unistd.h>

#define REGIONS 20
#define MAXT 64

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Spins until *arrived reaches 2 or 10 s pass: 1 if it did. */
static int meet(int *arrived)
{
    __atomic_fetch_add(arrived, 1, __ATOMIC_ACQ_REL);
    double t0 = now();
    while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < 2)
        if (now() - t0 > 10) return 0;
    return 1;
}

static void rendezvous(void)
{
    for (int r = 0; r < REGIONS; r++) {
        int arrived = 0, met = 0;
#pragma omp parallel shared(arrived, met)
#pragma omp master
        {
            usleep(2000); /* the others reach the region's end first */
            for (int k = 0; k < 2; k++) {
#pragma omp task shared(arrived, met)
                if (meet(&arrived)) __atomic_fetch_add(&met, 1, __ATOMIC_ACQ_REL);
            }
        }
        CHECKF(met == 2, "region %d: %d of 2 late tasks met the other (they did not run at once)", r, met);
    }
}

static void share(void)
{
    static long ran[MAXT];
    int producer = -1, nthreads = 1;
#pragma omp parallel shared(producer, nthreads)
#pragma omp single nowait
    {
        producer = omp_get_thread_num();
        nthreads = omp_get_num_threads();
        usleep(20000);
        for (int i = 0; i < 16 * nthreads; i++) {
#pragma omp task
            {
                double t0 = now();
                while (now() - t0 < 0.002) {
                }
                __atomic_fetch_add(&ran[omp_get_thread_num() % MAXT], 1, __ATOMIC_RELAXED);
            }
        }
    }
    long all = 0, others = 0;
    for (int i = 0; i < MAXT; i++) {
        all += ran[i];
        if (i != producer) others += ran[i];
    }
    CHECK_EQ(all, 16L * nthreads);
    CHECKF(others > 0, "all %ld late tasks ran on their producer, thread %d", all, producer);
}

int main(void)
{
    if (omp_get_max_threads() < 2) return 0;
    rendezvous();
    share();
    printf("late_tasks: ok (%d threads)\n", omp_get_max_threads());
    return 0;
}
