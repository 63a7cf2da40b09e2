/* loop_collapse: collapse(2) and collapse(3) worksharing loops.
 * Every (i,j[,k]) combination runs exactly once under static, static,c,
 * dynamic,c, guided, runtime and nonmonotonic:dynamic schedules, with
 * negative and non-unit inner steps, an unsigned long long collapsed nest,
 * a non-rectangular (triangular, OpenMP 5.0) nest, an `ordered` region in
 * a collapsed loop (must see the collapsed iterations in lexicographic
 * order), and lastprivate of all loop variables (the values after the
 * sequentially last iteration).
 */
#include "omp_check.h"

#define NI 13
#define NJ 7
#define NK 5
static int cnt2[NI][NJ], cnt3[NI][NJ][NK];

static void zero(void)
{
    memset(cnt2, 0, sizeof cnt2);
    memset(cnt3, 0, sizeof cnt3);
}

static void check2(const char *what)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            CHECKF(cnt2[i][j] == 1, "%s: (%d,%d) ran %d times", what, i, j, cnt2[i][j]);
}

static void check3(const char *what)
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++)
                CHECKF(cnt3[i][j][k] == 1, "%s: (%d,%d,%d) ran %d times", what, i, j, k,
                       cnt3[i][j][k]);
}

#define INC2(i, j) __atomic_fetch_add(&cnt2[i][j], 1, __ATOMIC_RELAXED)
#define INC3(i, j, k) __atomic_fetch_add(&cnt3[i][j][k], 1, __ATOMIC_RELAXED)

int main(void)
{
    volatile int vni = NI; /* runtime bounds */
    int ni = vni;

    zero();
#pragma omp parallel for collapse(2) schedule(static)
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < NJ; j++)
            INC2(i, j);
    check2("collapse(2) static");

    zero();
#pragma omp parallel for collapse(2) schedule(static, 3)
    for (int i = ni - 1; i >= 0; i--)
        for (int j = NJ - 1; j >= 0; j -= 2)
            INC2(i, j);
#pragma omp parallel for collapse(2) schedule(static, 3)
    for (int i = ni - 1; i >= 0; i--)
        for (int j = NJ - 2; j >= 0; j -= 2)
            INC2(i, j);
    check2("collapse(2) static,3 negative steps");

    zero();
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < NJ; j++)
            INC2(i, j);
    check2("collapse(2) dynamic,4");

    zero();
    omp_set_schedule(omp_sched_guided, 2);
#pragma omp parallel for collapse(2) schedule(runtime)
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < NJ; j++)
            INC2(i, j);
    check2("collapse(2) runtime guided,2");

    zero();
#pragma omp parallel for collapse(3) schedule(guided)
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++)
                INC3(i, j, k);
    check3("collapse(3) guided");

    zero();
#pragma omp parallel for collapse(3) schedule(nonmonotonic : dynamic, 3)
    for (int i = ni - 1; i >= 0; i--)
        for (int j = 0; j < NJ; j++)
            for (int k = NK - 1; k >= 0; k--)
                INC3(i, j, k);
    check3("collapse(3) nonmonotonic:dynamic,3");

    zero();
#pragma omp parallel
    {
#pragma omp for collapse(3) schedule(static, 2) nowait
        for (int i = 0; i < ni; i++)
            for (int j = 0; j < NJ; j++)
                for (int k = 0; k < NK; k++)
                    INC3(i, j, k);
    }
    check3("collapse(3) static,2 orphaned nowait");

    /* unsigned long long collapsed nest */
    zero();
    {
        unsigned long long base = 1ULL << 62;
#pragma omp parallel for collapse(2) schedule(dynamic, 5)
        for (unsigned long long i = base; i < base + NI; i++)
            for (unsigned long long j = base + NJ; j > base; j--)
                INC2(i - base, j - base - 1);
        check2("collapse(2) ull dynamic,5");
    }

    /* non-rectangular: j runs from i to NJ-1 (gcc 12 allows no schedule
     * clause on it: static) */
    {
        int tri[NJ][NJ] = {{0}};
#pragma omp parallel for collapse(2)
        for (int i = 0; i < NJ; i++)
            for (int j = i; j < NJ; j++)
                __atomic_fetch_add(&tri[i][j], 1, __ATOMIC_RELAXED);
        for (int i = 0; i < NJ; i++)
            for (int j = 0; j < NJ; j++)
                CHECKF(tri[i][j] == (j >= i), "triangular (%d,%d) ran %d times", i, j, tri[i][j]);
    }

    /* ordered in a collapsed loop: lexicographic order */
    {
        int seq[NI * NJ], pos = 0;
#pragma omp parallel for collapse(2) ordered schedule(dynamic, 3)
        for (int i = 0; i < ni; i++)
            for (int j = 0; j < NJ; j++) {
#pragma omp ordered
                seq[pos++] = i * NJ + j;
            }
        CHECK_EQ(pos, NI * NJ);
        for (int p = 0; p < NI * NJ; p++)
            CHECKF(seq[p] == p, "ordered collapse: position %d holds %d", p, seq[p]);
    }

    /* lastprivate of the loop variables and of a computed value */
    {
        int i = -1, j = -1, last = -1;
#pragma omp parallel for collapse(2) lastprivate(i, j, last) schedule(dynamic, 1)
        for (i = 0; i < ni; i++)
            for (j = 0; j < NJ; j++)
                last = i * 100 + j;
        CHECK_EQ(last, (NI - 1) * 100 + NJ - 1);
        CHECK_EQ(i, NI);
        CHECK_EQ(j, NJ);
    }
    return 0;
}
