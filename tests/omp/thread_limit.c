/* thread_limit: OMP_THREAD_LIMIT bounds the threads of the whole
 * contention group, nested teams included (thread-limit-var), not each
 * team on its own.
 * RUN-ENV: OMP_THREAD_LIMIT=5 OMP_MAX_ACTIVE_LEVELS=2 OMP_NUM_THREADS=4
 * RUN-ENV: OMP_THREAD_LIMIT=3 OMP_MAX_ACTIVE_LEVELS=2 OMP_NUM_THREADS=2
 *
 * Each thread of the outer team starts a nested team, and one thread of
 * each nested team waits until every nested team has started: they all
 * exist at once, and their sizes (each counting the outer thread that
 * started it) add up to at most the limit. A nested team started when
 * the limit is reached gets one thread. After the nested regions end, an
 * outermost region gets min(OMP_NUM_THREADS, limit) again: the threads
 * ended teams counted were given back.
 */
#include "omp_check.h"

int main(void)
{
    int limit = omp_get_thread_limit(), want = omp_get_max_threads();
    CHECK(limit >= 3 && limit <= 5);
    for (int rep = 0; rep < 5; rep++) {
        int outer = 0, sum = 0, started = 0, smallest = 1 << 20;
#pragma omp parallel shared(outer, sum, started, smallest)
        {
            int n1 = omp_get_num_threads();
#pragma omp single
            outer = n1;
#pragma omp parallel shared(sum, started, smallest)
            {
#pragma omp single
                {
                    int n2 = omp_get_num_threads();
                    __atomic_add_fetch(&sum, n2, __ATOMIC_SEQ_CST);
                    int m = __atomic_load_n(&smallest, __ATOMIC_SEQ_CST);
                    while (n2 < m &&
                           !__atomic_compare_exchange_n(&smallest, &m, n2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
                    }
                    __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
                    double t0 = omp_get_wtime();
                    while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < n1 && omp_get_wtime() - t0 < 10) {
#pragma omp taskyield
                    }
                }
            }
        }
        CHECK_EQ(outer, want < limit ? want : limit);
        CHECK_EQ(started, outer);
        CHECKF(sum <= limit, "nested teams of %d threads in all at once, limit %d", sum, limit);
        CHECK(smallest >= 1);
    }
    /* what ended teams took is back */
    int again = 0;
#pragma omp parallel
#pragma omp single
    again = omp_get_num_threads();
    CHECK_EQ(again, want < limit ? want : limit);
    puts("thread_limit: ok");
    return 0;
}
