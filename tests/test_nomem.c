/* Out of memory: creation fails with WEFT_ERR_NOMEM (never an abort), a ULT
 * whose stack cannot be mapped waits in its pool instead of being lost, and
 * once memory is back every created unit runs exactly once. With eager
 * stacks, creation itself fails once no stack can be mapped. Runs in a child
 * process under a lowered address-space limit. Skipped under sanitizers,
 * whose shadow memory needs a huge address space, and under qemu-user, where
 * the limit would bind the emulator rather than the program. */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(WEFT_TEST_EMULATED)
#define SKIP_REASON "under a sanitizer or an emulator"
#endif

#ifndef SKIP_REASON
#define MAX_UNITS (4 * 1024 * 1024)

static int *g_runs;

static void body(void *arg)
{
    g_runs[(long)(intptr_t)arg]++;
}

static int child(int eager)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.eager_stacks = eager;
    CHECK_OK(weft_init(&cfg));
    weft_pool pool = self_pool();
    weft_thread *t = calloc(MAX_UNITS, sizeof *t);
    g_runs = calloc(MAX_UNITS, sizeof *g_runs);
    CHECK(t && g_runs);

    /* Room for a few more megabytes, no more. */
    struct rlimit old, low;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%ld", &pages) == 1);
    fclose(f);
    low = old;
    low.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + 8u * 1024 * 1024;
    CHECK(setrlimit(RLIMIT_AS, &low) == 0);

    long created = 0;
    int rc = WEFT_OK;
    while (created < MAX_UNITS &&
           (rc = weft_thread_create(pool, body, (void *)(intptr_t)created, NULL, &t[created])) == WEFT_OK)
        created++;
    CHECK_RC(rc, WEFT_ERR_NOMEM);
    CHECK(t[created] == NULL);
    CHECK(created > (eager ? 20 : 1000));

    /* No memory for their stacks: yielding lets the scheduler try them;
     * they must stay queued. */
    for (int i = 0; i < 3; i++) CHECK_OK(weft_yield());
    long ran_short = 0;
    for (long i = 0; i < created; i++) ran_short += g_runs[i];

    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    for (long i = 0; i < created; i++) CHECK_OK(weft_thread_free(&t[i]));
    for (long i = 0; i < created; i++)
        if (g_runs[i] != 1) {
            fprintf(stderr, "unit %ld ran %d times\n", i, g_runs[i]);
            return 1;
        }
    CHECK_OK(weft_finalize());
    printf("nomem (%s stacks): %ld units created before WEFT_ERR_NOMEM; %ld ran while memory was short; all ran "
           "once\n",
           eager ? "eager" : "lazy", created, ran_short);
    fflush(stdout);
    return 0;
}

#endif

int main(void)
{
#ifdef SKIP_REASON
    printf("nomem: skipped " SKIP_REASON "\n");
    return 77;
#else
    for (int eager = 0; eager <= 1; eager++) {
        pid_t pid = fork_child(60);
        if (pid == 0) _exit(child(eager));
        CHECK(child_ok(pid, eager ? "eager stacks" : "lazy stacks"));
    }
    printf("nomem: ok\n");
    return 0;
#endif
}
