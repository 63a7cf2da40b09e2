/* tasks_fib: recursive task parallelism.
 * fib(n) with two child tasks per call and taskwait, with a cutoff through
 * the if clause and one through final (included tasks) at small n; a
 * parallel merge sort with tasks and taskgroup.  Results are compared
 * with the closed-form / sequential values.
 */
#include "omp_check.h"

static long fib_task(int n, int cut)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) if (n > cut)
    a = fib_task(n - 1, cut);
#pragma omp task shared(b) if (n > cut)
    b = fib_task(n - 2, cut);
#pragma omp taskwait
    return a + b;
}

static long fib_final(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) final(n < 12)
    a = fib_final(n - 1);
#pragma omp task shared(b) final(n < 12)
    b = fib_final(n - 2);
#pragma omp taskwait
    return a + b;
}

static void msort(int *v, int *tmp, int n)
{
    if (n < 32) {
        for (int i = 1; i < n; i++) {
            int x = v[i], j = i - 1;
            while (j >= 0 && v[j] > x) {
                v[j + 1] = v[j];
                j--;
            }
            v[j + 1] = x;
        }
        return;
    }
    int h = n / 2;
#pragma omp taskgroup
    {
#pragma omp task
        msort(v, tmp, h);
        msort(v + h, tmp + h, n - h);
    }
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = v[i] <= v[j] ? v[i++] : v[j++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

int main(void)
{
    long f[31] = {0, 1};
    for (int i = 2; i <= 30; i++)
        f[i] = f[i - 1] + f[i - 2];

    long r1 = 0, r2 = 0, r3 = 0;
#pragma omp parallel
#pragma omp single
    {
        r1 = fib_task(22, 10);
        r2 = fib_task(16, 0); /* a task for every call */
        r3 = fib_final(22);
    }
    CHECK_EQ(r1, f[22]);
    CHECK_EQ(r2, f[16]);
    CHECK_EQ(r3, f[22]);

    enum { N = 20000 };
    static int v[N], tmp[N];
    unsigned s = 12345;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        v[i] = (int)(s >> 8) % 100000;
        sum += v[i];
    }
#pragma omp parallel
#pragma omp single
    msort(v, tmp, N);
    long sum2 = 0;
    for (int i = 0; i < N; i++) {
        sum2 += v[i];
        if (i)
            CHECKF(v[i - 1] <= v[i], "unsorted at %d", i);
    }
    CHECK_EQ(sum2, sum);
    return 0;
}
