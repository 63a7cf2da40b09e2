/* single: the single construct.
 *  - the block runs once per encounter, by one thread of the team, over
 *    many encounters (GOMP_single_start);
 *  - the implicit barrier at its end: every thread sees its write;
 *  - nowait: no barrier (checked only for completion: the team still
 *    finishes, and each single still runs once);
 *  - copyprivate of an int, a double, an array and a struct broadcasts the
 *    executing thread's values to every thread's private copies
 *    (GOMP_single_copy_start / GOMP_single_copy_end);
 *  - private and firstprivate on single.
 *  - nowait singles by the thousand, interleaved with copyprivate ones,
 *    over consecutive regions of the same team and in nested teams: each
 *    runs exactly once (the count of singles claimed starts again with
 *    every region and is the team's own).
 */
#include "omp_check.h"

struct blob {
    int a;
    double b;
    char name[16];
};

int main(void)
{
    enum { R = 200 };
    static int runs[R];
    int bad = 0, nthr = 1;
    int fp = 5, pv = 9;

#pragma omp parallel reduction(+ : bad) shared(runs, nthr, fp, pv)
    {
#pragma omp master
        nthr = omp_get_num_threads();
        for (int r = 0; r < R; r++) {
#pragma omp single
            runs[r]++;
            /* barrier at the end of single */
            if (runs[r] != 1)
                bad++;
        }
        for (int r = 0; r < 50; r++) {
#pragma omp single nowait
            __atomic_fetch_add(&runs[r], 10, __ATOMIC_RELAXED);
        }
#pragma omp barrier

        int x = -1;
        double d = -1.0;
        int arr[4] = {-1, -1, -1, -1};
        struct blob bl = {-1, -1.0, "none"};
        int who = -1;
#pragma omp single copyprivate(x, d, arr, bl, who)
        {
            who = omp_get_thread_num();
            x = 1234 + who;
            d = 2.5 * (who + 1);
            for (int k = 0; k < 4; k++)
                arr[k] = k * k + who;
            bl.a = 77 + who;
            bl.b = 0.125;
            strcpy(bl.name, "copied");
        }
        if (x != 1234 + who || d != 2.5 * (who + 1) || bl.a != 77 + who || bl.b != 0.125 ||
            strcmp(bl.name, "copied"))
            bad++;
        for (int k = 0; k < 4; k++)
            if (arr[k] != k * k + who)
                bad++;
        if (who < 0 || who >= omp_get_num_threads())
            bad++;

        /* copyprivate repeated: every round a (possibly) different thread */
        for (int r = 0; r < 20; r++) {
            int v = -1;
#pragma omp single copyprivate(v)
            v = r * 3;
            if (v != r * 3)
                bad++;
        }

#pragma omp single firstprivate(fp) private(pv)
        {
            pv = fp * 2;
            if (fp != 5 || pv != 10)
                bad++;
        }
    }
    CHECK_EQ(bad, 0);

    enum { N = 3000 };
    static int once[4][N];
    for (int region = 0; region < 3; region++) {
        int cp_bad = 0;
#pragma omp parallel reduction(+ : cp_bad)
        for (int i = 0; i < N; i++) {
#pragma omp single nowait
            __atomic_fetch_add(&once[region][i], 1, __ATOMIC_RELAXED);
            if (i % 500 == 0) {
                int v = -1;
#pragma omp single copyprivate(v)
                v = i;
                cp_bad += v != i;
            }
        }
        CHECK_EQ(cp_bad, 0);
    }
    static int nested[3][64];
    int nout = 0;
#pragma omp parallel num_threads(3) shared(nout)
    {
        int outer = omp_get_thread_num();
#pragma omp master
        nout = omp_get_num_threads();
#pragma omp parallel num_threads(2)
        for (int i = 0; i < 64; i++) {
#pragma omp single nowait
            __atomic_fetch_add(&nested[outer][i], 1, __ATOMIC_RELAXED);
        }
#pragma omp single nowait
        __atomic_fetch_add(&once[3][0], 1, __ATOMIC_RELAXED);
    }
    for (int region = 0; region < 3; region++)
        for (int i = 0; i < N; i++)
            CHECK_EQ(once[region][i], 1);
    CHECK_EQ(once[3][0], 1);
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 64; i++)
            CHECK_EQ(nested[o][i], o < nout ? 1 : 0);
    CHECK(nthr >= 1);
    CHECK_EQ(fp, 5);
    CHECK_EQ(pv, 9);
    for (int r = 0; r < R; r++)
        CHECK_EQ(runs[r], r < 50 ? 11 : 1);
    return 0;
}
