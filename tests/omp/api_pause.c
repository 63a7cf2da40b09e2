/* api_pause: omp_pause_resource and omp_pause_resource_all (OpenMP 5.0).
 * A soft and a hard pause of the host device, and pause_resource_all,
 * return 0; a pause of a non-existent device returns non-zero; after each
 * pause, parallel regions, worksharing loops, tasks and locks work again
 * with correct results; a pause between two regions does not change the
 * ICVs the program set (soft pause keeps them; libgomp keeps them for hard
 * pause too).
 */
#include "omp_check.h"

static void work_check(int round)
{
    long sum = 0;
    int ntasks = 0, nthr = 0;
#pragma omp parallel reduction(+ : sum) shared(ntasks, nthr)
    {
#pragma omp single
        {
            nthr = omp_get_num_threads();
            for (int k = 0; k < 50; k++) {
#pragma omp task shared(ntasks)
#pragma omp atomic
                ntasks++;
            }
        }
#pragma omp for schedule(dynamic, 7)
        for (int i = 0; i < 1000; i++)
            sum += i;
    }
    CHECKF(sum == 499500 && ntasks == 50, "round %d: sum %ld tasks %d", round, sum, ntasks);
    CHECKF(nthr == omp_get_max_threads(), "round %d: %d threads, nthreads-var %d", round, nthr,
           omp_get_max_threads());
    omp_lock_t l;
    omp_init_lock(&l);
    omp_set_lock(&l);
    CHECK_EQ(omp_test_lock(&l), 0);
    omp_unset_lock(&l);
    omp_destroy_lock(&l);
}

int main(void)
{
    int host = omp_get_initial_device();
    work_check(0);
    omp_set_num_threads(3);
    omp_set_schedule(omp_sched_guided, 5);
    CHECK_EQ(omp_pause_resource(omp_pause_soft, host), 0);
    work_check(1);
    CHECK_EQ(omp_get_max_threads(), 3);
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    CHECK_EQ(k, omp_sched_guided);
    CHECK_EQ(c, 5);
    CHECK_EQ(omp_pause_resource(omp_pause_hard, host), 0);
    work_check(2);
    CHECK_EQ(omp_get_max_threads(), 3);
    CHECK_EQ(omp_pause_resource_all(omp_pause_soft), 0);
    work_check(3);
    CHECK_EQ(omp_pause_resource_all(omp_pause_hard), 0);
    work_check(4);
    CHECK(omp_pause_resource(omp_pause_soft, host + 5) != 0);
    work_check(5);
    return 0;
}
