/* ws_ring: work-sharing constructs in consecutive parallel regions of one
 * team size (the same hot team under weft-omp, whose slots for
 * work-sharing regions are reset between regions only as far as the last
 * region used them):
 *  - regions with 0 to 20 dynamic loops (some nowait) and singles, in
 *    varying order, each iteration counted once;
 *  - a region of static loops only (no slot used) between them;
 *  - a combined `parallel for schedule(dynamic)` (set up before the team
 *    starts), then a region of sections;
 *  - a dynamic loop cancelled part way (with OMP_CANCELLATION=true), then
 *    another loop in the same region, and regions with loops again.
 * RUN-ENV: OMP_NUM_THREADS=1
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=4
 * RUN-ENV: OMP_NUM_THREADS=3 OMP_CANCELLATION=true
 */
#include "omp_check.h"

#define N 64
static int hits[N];

static void clear(void)
{
    for (int i = 0; i < N; i++) hits[i] = 0;
}

/* every element counted `times` times */
static void expect(int times)
{
    for (int i = 0; i < N; i++) CHECK_EQ(hits[i], times);
}

int main(void)
{
    volatile int vn = N;
    int n = vn;
    for (int round = 0; round < 300; round++) {
        int loops = round % 21, singles = 0;
        clear();
#pragma omp parallel
        {
            for (int k = 0; k < loops; k++) {
                if (k % 3 == 0) {
#pragma omp for schedule(dynamic, 2) nowait
                    for (int i = 0; i < n; i++)
#pragma omp atomic
                        hits[i]++;
                } else {
#pragma omp for schedule(guided)
                    for (int i = 0; i < n; i++)
#pragma omp atomic
                        hits[i]++;
                }
                if (k % 4 == 1) {
#pragma omp single
                    singles++;
                }
            }
        }
        /* the last loop may be nowait: the region's end is the barrier */
        expect(loops);
        int want_singles = 0;
        for (int k = 0; k < loops; k++) want_singles += k % 4 == 1;
        CHECK_EQ(singles, want_singles);

        if (round % 5 == 0) { /* static loops only */
            clear();
#pragma omp parallel
            {
#pragma omp for schedule(static)
                for (int i = 0; i < n; i++) hits[i]++;
#pragma omp for schedule(static, 3)
                for (int i = 0; i < n; i++) hits[i]++;
            }
            expect(2);
        }
        if (round % 7 == 0) { /* combined, then sections */
            clear();
#pragma omp parallel for schedule(dynamic, 5)
            for (int i = 0; i < n; i++) hits[i]++;
            expect(1);
            int s1 = 0, s2 = 0;
#pragma omp parallel
            {
#pragma omp sections
                {
#pragma omp section
                    s1++;
#pragma omp section
                    s2++;
                }
            }
            CHECK(s1 == 1 && s2 == 1);
        }
        if (round % 11 == 0 && omp_get_cancellation()) { /* cancelled inside a dynamic loop */
            clear();
#pragma omp parallel
            {
#pragma omp for schedule(dynamic, 1)
                for (int i = 0; i < n; i++) {
                    if (i == n / 2) {
#pragma omp cancel for
                    }
#pragma omp atomic
                    hits[i]++;
#pragma omp cancellation point for
                }
#pragma omp for schedule(dynamic, 1)
                for (int i = 0; i < n; i++)
#pragma omp atomic
                    hits[i]++;
            }
            for (int i = 0; i < N; i++) CHECK(hits[i] >= 1 && hits[i] <= 2); /* the second loop ran whole */
        }
    }
    printf("ws_ring: ok\n");
    return 0;
}
