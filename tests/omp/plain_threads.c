/* plain_threads: OpenMP regions started by the program's own pthreads
 * while its main thread waits in pthread_join (outside the runtime): each
 * pthread is the primary thread of its own teams, of 2, 3, 4 and 8
 * threads (more than this machine's CPUs), with tasks in them, one and
 * four pthreads at once. Every team gets its threads and completes.
 */
#include <pthread.h>

#include "omp_check.h"

static void *region(void *arg)
{
    long id = (long)arg;
    static const int sizes[] = {2, 3, 4, 8};
    for (int rep = 0; rep < 5; rep++)
        for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            int n = sizes[k], members = 0, team = 0;
            long sum = 0;
#pragma omp parallel num_threads(n) shared(members, team, sum)
            {
#pragma omp atomic
                members++;
#pragma omp single
                {
                    team = omp_get_num_threads();
                    for (int i = 1; i <= 100; i++) {
#pragma omp task shared(sum) firstprivate(i)
                        {
#pragma omp atomic
                            sum += i;
                        }
                    }
                }
            }
            CHECKF(members == team && team == n, "pthread %ld: %d of a team of %d, asked %d", id, members, team, n);
            CHECK_EQ(sum, 5050);
        }
    return NULL;
}

int main(void)
{
    for (long count = 1; count <= 4; count *= 4) {
        pthread_t th[4];
        for (long i = 0; i < count; i++) CHECK(pthread_create(&th[i], NULL, region, (void *)i) == 0);
        for (long i = 0; i < count; i++) pthread_join(th[i], NULL);
    }
    puts("plain_threads: ok");
    return 0;
}
