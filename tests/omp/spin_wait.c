/* spin_wait: OpenMP threads that wait for each other by spinning on flags.
 * RUN-ENV: OMP_NUM_THREADS=2 WEFT_OMP_SHARE_STREAMS=false
 * RUN-ENV: OMP_NUM_THREADS=4 WEFT_OMP_SHARE_STREAMS=false
 * RUN-ENV: OMP_NUM_THREADS=8 WEFT_OMP_SHARE_STREAMS=false
 * RUN-ENV: OMP_NUM_THREADS=4 WEFT_OMP_SHARE_STREAMS=true
 * RUN-ENV: OMP_NUM_THREADS=8
 * RUN-ENV: OMP_NUM_THREADS=3 WEFT_NUM_XSTREAMS=1 WEFT_OMP_SHARE_STREAMS=true WEFT_OMP_RESCUE_MS=20
 * RUN-ENV: OMP_NUM_THREADS=2 WEFT_NUM_XSTREAMS=1 WEFT_OMP_SHARE_STREAMS=true WEFT_OMP_RESCUE_MS=10 OMP_TEST_MAIN_BEHIND=1
 * RUN-ENV: OMP_NUM_THREADS=1 OMP_TEST_MALFORMED=1
 * A pipeline as in NPB LU's SSOR sweeps: thread i waits, spinning on an
 * atomic read, until thread i-1 has posted its flag, many times over.
 * Every OpenMP thread must make progress while another spins. Under
 * libgomp every thread is an OS thread. weft-omp runs it three ways: one
 * stream per OpenMP thread (WEFT_OMP_SHARE_STREAMS=false, which libgomp
 * ignores), and OpenMP threads sharing streams (true, and the default for
 * a program without thread-local variables), where a spinning ULT is not
 * preempted and the thread it waits for, ready on the same stream, is
 * moved to a stream of its own by weft-omp's watchdog (rescue.c), also on
 * a single stream. OMP_TEST_MAIN_BEHIND: a worker spins for the initial
 * thread, which waits ready behind it on the one stream (the spinner is
 * moved then, from inside a signal handler; each thread must still know
 * its number after: on aarch64 the move once left the initial thread
 * taking itself for thread 1, spinning for a flag only it would set, in 1
 * run of 40 of 3 rounds under qemu). A malformed setting gets libgomp's warning for a malformed
 * variable (weft-omp) or nothing (libgomp), and the default (checked in a
 * child that does not spin). ThreadSanitizer runs signal handlers late,
 * so weft-omp built with it has no watchdog: the shared runs are skipped
 * there.
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

/* Worker 1 leaves the barrier last (thread 0 waits there first and lets
 * it run) and spins for a flag that thread 0 sets after the barrier. */
static void main_behind(void)
{
    static int f1, f2;
    for (int rep = 0; rep < 20; rep++) {
        /* a new team each time, its worker on the one stream again */
        CHECK_EQ(omp_pause_resource_all(omp_pause_soft), 0);
        f1 = f2 = 0;
#pragma omp parallel num_threads(2)
        {
            int v, me = omp_get_thread_num();
#pragma omp barrier
            if (omp_get_thread_num() == 1) {
                do {
#pragma omp atomic read
                    v = f1;
                } while (!v);
#pragma omp atomic write
                f2 = 1;
            } else {
#pragma omp atomic write
                f1 = 1;
                do {
#pragma omp atomic read
                    v = f2;
                } while (!v);
            }
            /* the moved thread, and the one left behind, still know who they are */
            CHECK(omp_get_num_threads() == 2);
            CHECK_EQ(omp_get_thread_num(), me);
        }
        CHECK_EQ(f2, 1);
    }
}

static void check_malformed(const char *assign, const char *name)
{
    const char *env[] = {"OMP_NUM_THREADS=3", assign, NULL};
    struct child c = run_self("team", env);
    CHECK(c.exited && c.status == 0);
    CHECKF(strcmp(c.out, "3\n") == 0, "stdout: [%s]", c.out);
    char want[160];
    snprintf(want, sizeof want, "\nlibgomp: Invalid value for environment variable %s\n", name);
    CHECKF(c.err[0] == '\0' || strcmp(c.err, want) == 0, "stderr: [%s]", c.err);
    child_free(&c);
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
        /* The variables are read at load: a child shows what it prints. */
        check_malformed("WEFT_OMP_SHARE_STREAMS=bogus", "WEFT_OMP_SHARE_STREAMS");
        check_malformed("WEFT_OMP_RESCUE_MS=-5", "WEFT_OMP_RESCUE_MS");
        check_malformed("WEFT_OMP_RESCUE_MS=12x", "WEFT_OMP_RESCUE_MS");
        printf("spin_wait: malformed settings ok\n");
        return 0;
    }
#if defined(__SANITIZE_THREAD__)
    {
        const char *share = getenv("WEFT_OMP_SHARE_STREAMS");
        if (!share || strcmp(share, "false") != 0) {
            printf("spin_wait: skipped (shared streams under ThreadSanitizer)\n");
            return 0;
        }
    }
#endif
    if (getenv("OMP_TEST_MAIN_BEHIND")) {
        main_behind();
        printf("spin_wait: main behind ok\n");
        return 0;
    }
    pipeline();
    printf("spin_wait: ok (%d threads)\n", omp_get_max_threads());
    return 0;
}
