/* task_reduction: taskgroup task_reduction(...) with tasks in_reduction,
 * across nested taskgroups (an inner group reducing the same variable as
 * the outer one, and another one), from grandchildren, with several
 * operators and an array section; reduction(task, ...) on parallel, for
 * (static, dynamic, ordered, doacross), sections and scope, where the
 * implicit tasks contribute beside their tasks; many tasks at once; and
 * an orphaned taskgroup outside any parallel region (run last: libgomp 12
 * then leaves the initial thread a team of its own).
 */
#include <limits.h>

#include "omp_check.h"

static void taskgroups(void)
{
    long x = 0, y = 100, prod = 1;
    int mn = INT_MAX;
    long arr[4] = {0, 0, 0, 0};
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : x) task_reduction(* : prod) task_reduction(min : mn)
        {
            for (int k = 1; k <= 50; k++) {
#pragma omp task in_reduction(+ : x) in_reduction(min : mn) firstprivate(k)
                {
                    x += k;
                    if (1000 - k < mn) mn = 1000 - k;
                }
            }
#pragma omp task in_reduction(* : prod)
            prod *= 3;
#pragma omp task in_reduction(* : prod)
            prod *= 5;
            /* an inner group: the same x again (its own copies, folded
             * into the outer x's at its end) and y */
#pragma omp taskgroup task_reduction(+ : x, y)
            {
                for (int k = 0; k < 20; k++) {
#pragma omp task in_reduction(+ : x, y)
                    {
                        x += 2;
                        y += 1;
                    }
                }
                /* a task in the inner group reducing into the outer prod */
#pragma omp task in_reduction(* : prod)
                prod *= 7;
            }
            /* grandchildren: a task makes tasks that reduce into the outer group */
#pragma omp task in_reduction(+ : x)
            {
                x += 1000;
                for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : x)
                    x += 10000;
                }
            }
        }
        CHECK_EQ(x, 50 * 51 / 2 + 40 + 1000 + 100000);
        CHECK_EQ(y, 120);
        CHECK_EQ(prod, 105);
        CHECK_EQ(mn, 950);
        /* an array section */
#pragma omp taskgroup task_reduction(+ : arr[0 : 4])
        {
            for (int k = 0; k < 40; k++) {
#pragma omp task in_reduction(+ : arr[0 : 4]) firstprivate(k)
                arr[k % 4] += k;
            }
        }
        CHECK_EQ(arr[0], 0 + 4 + 8 + 12 + 16 + 20 + 24 + 28 + 32 + 36);
        CHECK_EQ(arr[1], 190);
        CHECK_EQ(arr[2], 200);
        CHECK_EQ(arr[3], 210);
    }
    /* a taskgroup in every implicit task, with many tasks each */
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        long mine = 0;
#pragma omp taskgroup task_reduction(+ : mine)
        {
            for (int k = 0; k < 3000; k++) {
#pragma omp task in_reduction(+ : mine)
                mine += 1;
            }
        }
        CHECK_EQ(mine, 3000);
        total += mine;
    }
    CHECK_EQ(total, 3000L * omp_get_max_threads());
}

static void worksharing(void)
{
    int nth = omp_get_max_threads();
    /* parallel reduction(task, ...): every implicit task adds 1 and makes a
     * task that adds 10 */
    long p = 0;
#pragma omp parallel reduction(task, + : p)
    {
        p += 1;
#pragma omp task in_reduction(+ : p)
        p += 10;
    }
    CHECK_EQ(p, 11L * nth);
    long a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;
#pragma omp parallel
    {
#pragma omp for reduction(task, + : a) schedule(static)
        for (int i = 0; i < 100; i++) {
#pragma omp task in_reduction(+ : a)
            a += i;
        }
#pragma omp for reduction(task, + : b) schedule(dynamic, 3)
        for (int i = 0; i < 100; i++) {
            b += 1;
#pragma omp task in_reduction(+ : b)
            b += i;
        }
#pragma omp for reduction(task, + : c) ordered
        for (int i = 0; i < 50; i++) {
#pragma omp task in_reduction(+ : c)
            c += i;
#pragma omp ordered
            c += 1000;
        }
#pragma omp for reduction(task, + : d) ordered(1)
        for (int i = 0; i < 30; i++) {
#pragma omp ordered depend(sink : i - 1)
#pragma omp task in_reduction(+ : d)
            d += i;
#pragma omp ordered depend(source)
        }
#pragma omp sections reduction(task, + : e)
        {
#pragma omp section
            {
#pragma omp task in_reduction(+ : e)
                e += 1;
            }
#pragma omp section
            {
                e += 2;
#pragma omp task in_reduction(+ : e)
                e += 4;
            }
        }
#pragma omp scope reduction(task, + : f)
        {
            f += 1;
#pragma omp task in_reduction(+ : f)
            f += 100;
        }
    }
    CHECK_EQ(a, 4950);
    CHECK_EQ(b, 5050);
    CHECK_EQ(c, 1225 + 50000);
    CHECK_EQ(d, 435);
    CHECK_EQ(e, 7);
    CHECK_EQ(f, 101L * nth);
}

/* A registration per level of recursion, 40 deep: each level's lookup
 * holds the levels above (sized by their entries, not their tables). */
static long deep(int d)
{
    long s = 0;
#pragma omp taskgroup task_reduction(+ : s)
    {
#pragma omp task in_reduction(+ : s)
        s += 1;
        if (d > 0) {
#pragma omp task in_reduction(+ : s) firstprivate(d)
            s += deep(d - 1);
        }
    }
    return s;
}

static void orphaned(void)
{
    long x = 0;
#pragma omp taskgroup task_reduction(+ : x)
    {
        for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : x)
            x += k;
        }
    }
    CHECK_EQ(x, 45);
}

int main(void)
{
    for (int rep = 0; rep < 20; rep++) {
        taskgroups();
        worksharing();
    }
    long levels = 0;
#pragma omp parallel
#pragma omp single
    levels = deep(40);
    CHECK_EQ(levels, 41);
    orphaned();
    puts("task_reduction: ok");
    return 0;
}
