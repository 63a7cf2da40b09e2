/* tls_large: a program whose thread-local variables take several MiB.
 * gcc puts threadprivate variables in static TLS (NPB EP has a threadprivate
 * array of 1 MiB), which every OS thread carries at the top of its stack:
 * the runtime's threads must be made with room for it, and every OpenMP
 * thread still gets its own copy. Runs at 1, 2 and 4 threads.
 */
#include "omp_check.h"

#define N (3 << 20)

char big[N]; /* external: kept whole */
#pragma omp threadprivate(big)

int main(void)
{
    int bad = 0, n = 0;
#pragma omp parallel reduction(+ : bad) shared(n)
    {
        int me = omp_get_thread_num();
#pragma omp single
        n = omp_get_num_threads();
        big[0] = (char)me;
        big[N - 1] = (char)(me + 1);
        big[N / 2] = (char)(me + 2);
#pragma omp barrier
        if (big[0] != (char)me || big[N - 1] != (char)(me + 1) || big[N / 2] != (char)(me + 2)) bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(n, omp_get_max_threads());
    printf("tls_large: ok (%d threads)\n", n);
    return 0;
}
