/* tasks_deep: an unbalanced tree of tasks (a node has 8 children with
 * probability 7/64, else none; the root has 2000), a task per child and a
 * taskwait at every node, counted in parallel and compared with a
 * sequential count, for several tree seeds. Past the task cut-off a
 * creator runs new tasks at once and waits for their children's records:
 * that wait must be woken when the last one goes (it once was not, and
 * hung in some seeds).
 * RUN-ENV: OMP_NUM_THREADS=2
 * RUN-ENV: OMP_NUM_THREADS=4
 */
#include "omp_check.h"

static unsigned long long mix(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static int children_of(unsigned long long id) { return (mix(id) & 63) < 7 ? 8 : 0; }

static unsigned long long count_seq(unsigned long long id, int n)
{
    unsigned long long total = 1;
    for (int i = 0; i < n; i++) {
        unsigned long long c = mix(id * 31 + (unsigned long long)i + 1);
        total += count_seq(c, children_of(c));
    }
    return total;
}

static unsigned long long count_tasks(unsigned long long id, int n)
{
    unsigned long long part[n > 0 ? n : 1], total = 1;
    for (int i = 0; i < n; i++) {
        unsigned long long c = mix(id * 31 + (unsigned long long)i + 1);
#pragma omp task firstprivate(i, c) shared(part)
        part[i] = count_tasks(c, children_of(c));
    }
#pragma omp taskwait
    for (int i = 0; i < n; i++) total += part[i];
    return total;
}

int main(void)
{
    for (unsigned long long seed = 1; seed <= 6; seed++) {
        unsigned long long want = count_seq(seed, 2000), got = 0;
#pragma omp parallel
#pragma omp single
        got = count_tasks(seed, 2000);
        CHECKF(got == want, "seed %llu: %llu nodes counted, %llu in the tree", seed, got, want);
    }
    return 0;
}
