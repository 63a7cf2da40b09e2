/* parallel_nested: nested parallel regions and the level queries.
 *  - omp_get_level / omp_get_active_level / omp_get_ancestor_thread_num /
 *    omp_get_team_size at every level of a 3-deep nest (2 x 3 x 2 threads
 *    with max-active-levels 3), checked against the thread numbers recorded
 *    at the outer levels; out-of-range levels give -1;
 *  - max-active-levels 1: inner regions are inactive (one thread) but still
 *    count in omp_get_level; omp_get_nested() follows max-active-levels;
 *  - max-active-levels 2: the third level is inactive;
 *  - omp_get_supported_active_levels() >= 1 and set_max_active_levels
 *    clamps to it; a negative value is ignored;
 *  - the nthreads-var list: nested regions of an inner team take the
 *    setting made with omp_set_num_threads inside the outer region
 *    (ICVs are per task and inherited).
 */
#include "omp_check.h"

int main(void)
{
    int sup = omp_get_supported_active_levels();
    CHECK(sup >= 1);
    omp_set_max_active_levels(-1); /* ignored */
    CHECK(omp_get_max_active_levels() >= 1);
    omp_set_max_active_levels(sup + 1000);
    CHECK_EQ(omp_get_max_active_levels(), sup);
    CHECK(sup >= 3); /* needed below; libgomp supports 255 */

    /* full nesting: 2 x 3 x 2 */
    omp_set_max_active_levels(3);
    CHECK_EQ(omp_get_nested(), 1);
    {
        int hits[2][3][2] = {{{0}}};
        int bad = 0;
#pragma omp parallel num_threads(2) shared(hits, bad)
        {
            int t1 = omp_get_thread_num();
#pragma omp parallel num_threads(3) shared(hits, bad)
            {
                int t2 = omp_get_thread_num();
#pragma omp parallel num_threads(2) shared(hits, bad)
                {
                    int t3 = omp_get_thread_num();
                    int ok = omp_get_level() == 3 && omp_get_active_level() == 3 &&
                             omp_get_ancestor_thread_num(0) == 0 &&
                             omp_get_ancestor_thread_num(1) == t1 &&
                             omp_get_ancestor_thread_num(2) == t2 &&
                             omp_get_ancestor_thread_num(3) == t3 &&
                             omp_get_ancestor_thread_num(4) == -1 &&
                             omp_get_ancestor_thread_num(-1) == -1 &&
                             omp_get_team_size(0) == 1 && omp_get_team_size(1) == 2 &&
                             omp_get_team_size(2) == 3 && omp_get_team_size(3) == 2 &&
                             omp_get_team_size(4) == -1 && omp_get_num_threads() == 2 &&
                             omp_in_parallel();
                    if (!ok)
                        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
                    __atomic_fetch_add(&hits[t1][t2][t3], 1, __ATOMIC_RELAXED);
                }
                if (omp_get_level() != 2 || omp_get_team_size(2) != 3)
                    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
            }
        }
        CHECK_EQ(bad, 0);
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 3; b++)
                for (int c = 0; c < 2; c++)
                    CHECK_EQ(hits[a][b][c], 1);
    }

    /* max-active-levels 1: inner regions inactive */
    omp_set_max_active_levels(1);
    CHECK_EQ(omp_get_nested(), 0);
    {
        int inner_total = 0, bad = 0;
#pragma omp parallel num_threads(3) shared(inner_total, bad)
        {
#pragma omp parallel num_threads(4) shared(inner_total, bad)
            {
                __atomic_fetch_add(&inner_total, 1, __ATOMIC_RELAXED);
                if (omp_get_num_threads() != 1 || omp_get_level() != 2 ||
                    omp_get_active_level() != 1 || omp_get_team_size(2) != 1 ||
                    omp_get_ancestor_thread_num(2) != 0)
                    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
            }
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(inner_total, 3);
    }

    /* max-active-levels 2: level 3 inactive */
    omp_set_max_active_levels(2);
    {
        int total = 0, bad = 0;
#pragma omp parallel num_threads(2) shared(total, bad)
#pragma omp parallel num_threads(2) shared(total, bad)
#pragma omp parallel num_threads(2) shared(total, bad)
        {
            __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
            if (omp_get_level() != 3 || omp_get_active_level() != 2 ||
                omp_get_num_threads() != 1)
                __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(total, 4);
    }

    /* omp_set_num_threads inside a thread affects that thread's nested
     * regions only */
    omp_set_max_active_levels(2);
    {
        int sizes[4] = {0};
#pragma omp parallel num_threads(4) shared(sizes)
        {
            int t = omp_get_thread_num();
            omp_set_num_threads(t + 1);
#pragma omp barrier
            if (omp_get_max_threads() != t + 1)
                sizes[t] = -100;
            else {
#pragma omp parallel
                {
#pragma omp master
                    sizes[t] = omp_get_num_threads();
                }
            }
        }
        for (int t = 0; t < 4; t++)
            CHECK_EQ(sizes[t], t + 1);
    }
    /* the outer setting is unchanged */
    CHECK(omp_get_max_threads() >= 1);

    /* an inactive if(0) region in the middle does not count as active */
    omp_set_max_active_levels(3);
    {
        int lvl = 0, alvl = 0, n = 0;
        volatile int zero = 0;
#pragma omp parallel num_threads(2) shared(lvl, alvl, n)
#pragma omp parallel if (zero) shared(lvl, alvl, n)
#pragma omp parallel num_threads(2) shared(lvl, alvl, n)
#pragma omp master
        if (omp_get_ancestor_thread_num(1) == 0) {
            lvl = omp_get_level();
            alvl = omp_get_active_level();
            n = omp_get_team_size(2);
        }
        CHECK_EQ(lvl, 3);
        CHECK_EQ(alvl, 2);
        CHECK_EQ(n, 1);
    }
    return 0;
}
