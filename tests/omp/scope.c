/* scope: the OpenMP 5.1 scope construct (gcc 12).
 * A scope region is executed by every thread of the team; gcc 12 lowers
 * it inline (private copies, a reduction combined through the region's
 * implicit barrier) -- only a task reduction would call GOMP_scope_start.
 *  - private: each thread's copy is independent, the original is kept
 *    (firstprivate on scope is OpenMP 5.2: gcc 12 rejects it);
 *  - reduction(+ / max): the result is visible to every thread after the
 *    region (the implicit barrier), and equals the sequential value;
 *  - nowait: all threads still execute the region.
 */
#include "omp_check.h"

int main(void)
{
    int nthr = 0, bad = 0;
    int sum = 5, mx = -1, p = -7, fp = 3;
    int cnt = 0;
#pragma omp parallel shared(nthr, sum, mx, p, fp, cnt) reduction(+ : bad)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nthr = omp_get_num_threads();
#pragma omp scope private(p, fp) reduction(+ : sum) reduction(max : mx)
        {
            p = t * 100;
            fp = 3 + t;
            sum += t + 1;
            mx = mx > t * 3 ? mx : t * 3;
            tiny_delay(100);
            if (p != t * 100 || fp != 3 + t)
                bad++;
        }
        /* after the implicit barrier every thread sees the result */
        if (sum != 5 + nthr * (nthr + 1) / 2 || mx != (nthr - 1) * 3)
            bad++;
#pragma omp scope nowait
        {
#pragma omp atomic
            cnt++;
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(p, -7);
    CHECK_EQ(fp, 3);
    CHECK_EQ(sum, 5 + nthr * (nthr + 1) / 2);
    CHECK_EQ(mx, (nthr - 1) * 3);
    CHECK_EQ(cnt, nthr);
    return 0;
}
