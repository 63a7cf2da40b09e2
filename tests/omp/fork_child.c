/* fork(): a child made before the program's first parallel region runs
 * parallel regions, tasks and a nested region of its own (libgomp's child
 * makes its threads then; weft-omp's starts its runtime again there), and
 * the parent goes on with regions after the child is done. A child forked
 * after the parent's threads exist is left out: libgomp's hangs in its
 * first region. Not under a ThreadSanitizer build of the runtime, whose
 * child may start no thread ("starting new threads after multi-threaded
 * fork is not supported"), nor under an emulator (OMP_TEST_RUNNER):
 * qemu-user aborts such a child too. */
#include <dlfcn.h>

#include "omp_check.h"

static int region_sum(int n)
{
    int s = 0;
#pragma omp parallel num_threads(n) reduction(+ : s)
    s += omp_get_thread_num() + 1;
    return s;
}

static int child(void)
{
    for (int n = 1; n <= 4; n++)
        if (region_sum(n) != n * (n + 1) / 2) return 2;
    int cnt = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
        for (int i = 0; i < 200; i++) {
#pragma omp task shared(cnt)
            {
#pragma omp atomic
                cnt++;
            }
        }
#pragma omp taskwait
    }
    if (cnt != 200) return 3;
    int nested = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
#pragma omp atomic
    nested++;
    return nested == 4 ? 0 : 4;
}

int main(void)
{
    CHECK(omp_get_max_threads() >= 1); /* the runtime is loaded and asked, no team yet */
    if (dlsym(RTLD_DEFAULT, "__tsan_init")) {
        printf("fork_child: not under ThreadSanitizer\n");
        return 0;
    }
    const char *runner = getenv("OMP_TEST_RUNNER");
    if (runner && *runner) {
        printf("fork_child: not under an emulator\n");
        return 0;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        alarm(30); /* a hang fails the test */
        _exit(child());
    }
    int st;
    CHECK(waitpid(p, &st, 0) == p);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
    for (int n = 1; n <= 4; n++) CHECK_EQ(region_sum(n), n * (n + 1) / 2);
    return 0;
}
