/* masked: the masked (OpenMP 5.1) and master constructs.
 *  - master and masked without filter run only on thread 0;
 *  - masked filter(k) runs only on thread k, and on no thread when the
 *    team has no thread k;
 *  - neither has an implied barrier, so the blocks' effects are read
 *    after an explicit one;
 *  - `parallel masked` combined form.
 */
#include "omp_check.h"

/* The counters are updated atomically only so that the compiler keeps
 * each update inside its block: gcc otherwise carries all four across the
 * loop in registers and stores every one from every thread, a race of the
 * program that ThreadSanitizer rightly reports. */
int main(void)
{
    int nthr = 0, m0 = 0, m1 = 0, m2 = 0, mm = 0, who0 = -1, who1 = -1, who2 = -1, whom = -1;
    int filt = 2;
#pragma omp parallel shared(nthr, m0, m1, m2, mm, who0, who1, who2, whom)
    {
#pragma omp single
        nthr = omp_get_num_threads();
        for (int r = 0; r < 10; r++) {
#pragma omp master
            {
                __atomic_fetch_add(&m0, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&who0, omp_get_thread_num(), __ATOMIC_RELAXED);
            }
#pragma omp masked
            {
                __atomic_fetch_add(&mm, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&whom, omp_get_thread_num(), __ATOMIC_RELAXED);
            }
#pragma omp masked filter(1)
            {
                __atomic_fetch_add(&m1, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&who1, omp_get_thread_num(), __ATOMIC_RELAXED);
            }
#pragma omp masked filter(filt)
            {
                __atomic_fetch_add(&m2, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&who2, omp_get_thread_num(), __ATOMIC_RELAXED);
            }
        }
#pragma omp barrier
    }
    CHECK_EQ(m0, 10);
    CHECK_EQ(who0, 0);
    CHECK_EQ(mm, 10);
    CHECK_EQ(whom, 0);
    CHECK_EQ(m1, nthr > 1 ? 10 : 0);
    CHECK_EQ(who1, nthr > 1 ? 1 : -1);
    CHECK_EQ(m2, nthr > 2 ? 10 : 0);
    CHECK_EQ(who2, nthr > 2 ? 2 : -1);

    int pm = 0, pmwho = -1;
#pragma omp parallel masked num_threads(3) filter(1)
    {
        pm++;
        pmwho = omp_get_thread_num();
    }
    CHECK_EQ(pm, 1);
    CHECK_EQ(pmwho, 1);
    return 0;
}
