/* errno is per thread: each OpenMP thread's value survives the runtime's
 * waits (barriers, a contended lock, critical), also where threads
 * outnumber the CPUs and weft-omp runs several on one OS thread. (Not
 * across a task scheduling point with tasks about, nor a nested region:
 * there libgomp itself hands the thread a task that may set errno, or
 * makes a system call that does.) */
#include "omp_check.h"

int main(void)
{
    int bad = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    int team = omp_get_max_threads() < 8 ? 8 : omp_get_max_threads();
#pragma omp parallel num_threads(team) reduction(+ : bad)
    {
        int me = omp_get_thread_num();
        for (int round = 0; round < 20; round++) {
            int want = 1000 + 100 * round + me;
            errno = want;
#pragma omp barrier
            bad += errno != want;
            omp_set_lock(&lock);
            bad += errno != want;
            omp_unset_lock(&lock);
#pragma omp critical
            bad += errno != want;
#pragma omp barrier
            bad += errno != want;
        }
    }
    omp_destroy_lock(&lock);
    CHECK_EQ(bad, 0);
    return 0;
}
