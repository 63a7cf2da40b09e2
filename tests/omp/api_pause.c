/* api_pause: omp_pause_resource and omp_pause_resource_all (OpenMP 5.0).
 * A soft and a hard pause of the host device, and pause_resource_all,
 * return 0; a pause of a non-existent device returns non-zero; after each
 * pause, parallel regions, worksharing loops, tasks and locks work again
 * with correct results; a pause between two regions does not change the
 * ICVs the program set (soft pause keeps them; libgomp keeps them for hard
 * pause too). Inside a parallel region (active, or inactive with if(0))
 * both calls return -1 and nothing changes, as libgomp's do; 20 rounds of
 * pauses between regions afterwards.
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
    int inside[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(2) shared(inside)
    {
        int me = omp_get_thread_num();
        inside[me] = omp_pause_resource(omp_pause_soft, host);
        if (me == 0) inside[2] = omp_pause_resource_all(omp_pause_hard);
    }
    work_check(6);
#pragma omp parallel if (0) shared(inside)
    inside[3] = omp_pause_resource_all(omp_pause_soft);
    CHECK_EQ(inside[0], -1);
    CHECK_EQ(inside[1], -1);
    CHECK_EQ(inside[2], -1);
    CHECK_EQ(inside[3], -1);
    for (int round = 7; round < 27; round++) {
        work_check(round);
        CHECK_EQ(omp_pause_resource(round & 1 ? omp_pause_soft : omp_pause_hard, host), 0);
    }
    return 0;
}
