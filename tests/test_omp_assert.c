/* weft-omp's debug invariants (OMP_ASSERT, on with WEFT_ASSERTS as the
 * core's): a misuse that breaks one ends the process at its place, with
 * the check that failed, instead of leaving a lock word in a state no
 * holder explains. Without the invariants (Release), the same misuse is
 * silent, as under libgomp, and the lock still works afterwards.
 *
 * Misuses: ending a critical section, an atomic fallback and a named
 * critical section that the caller never entered. Each in a child. */
#include <signal.h>
#include <string.h>

#include "check.h"

/* libgomp's ABI, as gcc calls it (weft-omp's libgomp.so.1). */
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **name);
void GOMP_critical_name_end(void **name);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

static void *g_name;

static void end_critical(void) { GOMP_critical_end(); }
static void end_atomic(void) { GOMP_atomic_end(); }
static void end_named(void) { GOMP_critical_name_end(&g_name); }

static void expect(void (*misuse)(void), const char *name)
{
    char buf[2048];
    int st = run_child_stderr(misuse, buf, sizeof buf);
#ifdef WEFT_TEST_ASSERTS
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(strstr(buf, "weft: internal invariant broken at") != NULL);
    CHECK(strstr(buf, "was != 0") != NULL);
#else
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(buf[0] == 0);
#endif
    printf("omp_assert: %s ok\n", name);
}

int main(void)
{
    expect(end_critical, "critical end without start");
    expect(end_atomic, "atomic end without start");
    expect(end_named, "named critical end without start");
    /* The proper use still works in this process (the children's misuse
     * touched only their copies). */
    GOMP_critical_start();
    GOMP_critical_end();
    GOMP_critical_name_start(&g_name);
    GOMP_critical_name_end(&g_name);
    GOMP_atomic_start();
    GOMP_atomic_end();
#ifndef WEFT_TEST_ASSERTS
    /* Release: after a misuse in this process too, the locks work. */
    GOMP_critical_end();
    GOMP_critical_start();
    GOMP_critical_end();
#endif
    printf("omp_assert: ok\n");
    return 0;
}
