/* spin_wait: OpenMP threads that wait for each other by spinning on flags.
 * RUN-ENV: OMP_NUM_THREADS=2 WEFT_OMP_SHARE_STREAMS=false
 * RUN-ENV: OMP_NUM_THREADS=4 WEFT_OMP_SHARE_STREAMS=false
 * RUN-ENV: OMP_NUM_THREADS=8 WEFT_OMP_SHARE_STREAMS=false
 * RUN-ENV: OMP_NUM_THREADS=1 OMP_TEST_MALFORMED=1
 * A pipeline as in NPB LU's SSOR sweeps: thread i waits, spinning on an
 * atomic read, until thread i-1 has posted its flag, many times over.
 * Every OpenMP thread must make progress while another spins. Under
 * libgomp every thread is an OS thread; weft-omp shares streams between
 * OpenMP threads unless told otherwise, and a spinning ULT is not
 * preempted, so this program runs with WEFT_OMP_SHARE_STREAMS=false (one
 * stream per OpenMP thread, which libgomp ignores). A malformed value
 * gets libgomp's warning for a malformed variable (weft-omp) or nothing
 * (libgomp), and the default (checked in a child that does not spin: with
 * no thread-local variable here, the default shares streams).
 */
#include "omp_check.h"

#define ROUNDS 200
#define MAXT 64

static int flag[MAXT][16]; /* a line each */

static void pipeline(void)
{
    int n = 0;
#pragma omp parallel shared(n)
    {
        int me = omp_get_thread_num();
#pragma omp single
        n = omp_get_num_threads();
        for (int r = 1; r <= ROUNDS; r++) {
            if (me > 0) {
                int v;
                do {
#pragma omp atomic read
                    v = flag[me - 1][0];
                } while (v < r);
            }
#pragma omp atomic write
            flag[me][0] = r;
        }
    }
    CHECK(n <= MAXT);
    for (int i = 0; i < n; i++) CHECK_EQ(flag[i][0], ROUNDS);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "team") == 0) {
        int n = 0;
#pragma omp parallel
#pragma omp single
        n = omp_get_num_threads();
        printf("%d\n", n);
        return 0;
    }
    if (argc == 1 && getenv("OMP_TEST_MALFORMED")) {
        /* The variable is read at load: a child shows what it prints. */
        const char *env[] = {"OMP_NUM_THREADS=3", "WEFT_OMP_SHARE_STREAMS=bogus", NULL};
        struct child c = run_self("team", env);
        CHECK(c.exited && c.status == 0);
        CHECKF(strcmp(c.out, "3\n") == 0, "stdout: [%s]", c.out);
        CHECKF(c.err[0] == '\0' || strcmp(c.err, "\nlibgomp: Invalid value for environment variable "
                                                  "WEFT_OMP_SHARE_STREAMS\n") == 0,
               "stderr: [%s]", c.err);
        child_free(&c);
        printf("spin_wait: malformed setting ok\n");
        return 0;
    }
    pipeline();
    printf("spin_wait: ok (%d threads)\n", omp_get_max_threads());
    return 0;
}
