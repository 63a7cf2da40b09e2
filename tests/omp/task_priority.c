/* task_priority: the priority clause and max-task-priority-var.
 * RUN-ENV: OMP_MAX_TASK_PRIORITY=20 OMP_NUM_THREADS=2
 * RUN-ENV: OMP_MAX_TASK_PRIORITY=3 OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=2
 * omp_get_max_task_priority() returns OMP_MAX_TASK_PRIORITY (0 when
 * unset), in and out of parallel regions; tasks with priorities from 0
 * to beyond the maximum (clamped by the runtime) all run exactly once.
 * Priority is only a hint, so no execution order is asserted.
 */
#include "omp_check.h"

int main(void)
{
    const char *e = getenv("OMP_MAX_TASK_PRIORITY");
    int want = e ? atoi(e) : 0;
    CHECK_EQ(omp_get_max_task_priority(), want);
    int maxp = omp_get_max_task_priority();

    enum { N = 300 };
    static int ran[N];
    int in_par = 0;
#pragma omp parallel shared(in_par)
    {
        CHECK_EQ(omp_get_max_task_priority(), want); /* same value everywhere */
#pragma omp single
        {
            in_par = omp_get_num_threads();
            for (int i = 0; i < N; i++) {
                int p = i % (maxp + 3); /* includes values above the maximum */
#pragma omp task priority(p) firstprivate(i)
                __atomic_fetch_add(&ran[i], 1, __ATOMIC_RELAXED);
            }
        }
    }
    CHECK(in_par >= 1);
    for (int i = 0; i < N; i++)
        CHECK_EQ(ran[i], 1);
    return 0;
}
