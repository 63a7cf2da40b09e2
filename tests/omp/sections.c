/* sections: the sections construct.
 *  - each section runs exactly once, whatever the team size (more and
 *    fewer sections than threads), in `parallel sections` (GOMP_parallel_sections)
 *    and in orphaned `sections` (GOMP_sections_start/next/end);
 *  - lastprivate takes the value of the lexically last section;
 *  - firstprivate initialises every section's copy;
 *  - reduction(+) over sections;
 *  - the implicit barrier at the end (a later read sees every section's
 *    write) and nowait (GOMP_sections_end_nowait);
 *  - lastprivate(conditional:) (GOMP_sections2_start).
 */
#include "omp_check.h"

static int ran[8];

int main(void)
{
    /* parallel sections, 5 sections */
    memset(ran, 0, sizeof ran);
    int lp = -1, fp = 10;
#pragma omp parallel sections lastprivate(lp) firstprivate(fp)
    {
#pragma omp section
        {
            __atomic_fetch_add(&ran[0], 1, __ATOMIC_RELAXED);
            lp = 100 + fp;
            fp = -1;
        }
#pragma omp section
        {
            __atomic_fetch_add(&ran[1], 1, __ATOMIC_RELAXED);
            lp = 200 + fp;
        }
#pragma omp section
        {
            __atomic_fetch_add(&ran[2], 1, __ATOMIC_RELAXED);
            lp = 300 + fp;
        }
#pragma omp section
        {
            __atomic_fetch_add(&ran[3], 1, __ATOMIC_RELAXED);
            lp = 400 + fp;
        }
#pragma omp section
        {
            __atomic_fetch_add(&ran[4], 1, __ATOMIC_RELAXED);
            lp = 500 + fp; /* lexically last: fp is 10 here unless the same
                              thread ran section 1 first, which set its
                              copy to -1 */
            if (fp != 10 && fp != -1)
                lp = -999;
        }
    }
    for (int s = 0; s < 5; s++)
        CHECK_EQ(ran[s], 1);
    CHECK(lp == 510 || lp == 499);
    CHECK_EQ(fp, 10);

    /* orphaned sections with barrier, nowait and a reduction */
    int data[3] = {0, 0, 0};
    int bad = 0, sum = 0;
    memset(ran, 0, sizeof ran);
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp sections
        {
#pragma omp section
            data[0] = 11;
#pragma omp section
            data[1] = 22;
#pragma omp section
            data[2] = 33;
        }
        /* implicit barrier: all three writes are visible */
        if (data[0] != 11 || data[1] != 22 || data[2] != 33)
            bad++;
#pragma omp sections reduction(+ : sum)
        {
#pragma omp section
            sum += 1;
#pragma omp section
            sum += 10;
#pragma omp section
            sum += 100;
#pragma omp section
            sum += 1000;
        }
#pragma omp sections nowait
        {
#pragma omp section
            __atomic_fetch_add(&ran[5], 1, __ATOMIC_RELAXED);
#pragma omp section
            __atomic_fetch_add(&ran[6], 1, __ATOMIC_RELAXED);
        }
#pragma omp sections
        {
#pragma omp section
            __atomic_fetch_add(&ran[7], 1, __ATOMIC_RELAXED);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(sum, 1111);
    CHECK_EQ(ran[5], 1);
    CHECK_EQ(ran[6], 1);
    CHECK_EQ(ran[7], 1);

    /* conditional lastprivate */
    int c = -1;
    volatile int yes = 1;
#pragma omp parallel sections lastprivate(conditional : c)
    {
#pragma omp section
        if (yes)
            c = 1;
#pragma omp section
        if (yes)
            c = 2;
#pragma omp section
        if (!yes)
            c = 3;
    }
    CHECK_EQ(c, 2);

    /* many rounds with varying team sizes */
    long total = 0;
    for (int r = 0; r < 50; r++) {
        int k = 1 + r % 6;
        int cnt[3] = {0, 0, 0};
#pragma omp parallel sections num_threads(k)
        {
#pragma omp section
            cnt[0]++;
#pragma omp section
            cnt[1]++;
#pragma omp section
            cnt[2]++;
        }
        CHECK(cnt[0] == 1 && cnt[1] == 1 && cnt[2] == 1);
        total += cnt[0] + cnt[1] + cnt[2];
    }
    CHECK_EQ(total, 150);
    return 0;
}
