/* Debug invariants (WEFT_ASSERT, built in with -DWEFT_ASSERTS=ON as in the
 * ASan and TSan suites): a broken one ends the process with where and
 * what, instead of running on into a hang. Checked through the reporter
 * itself, in a child; skipped in builds without the invariants. */
#include <signal.h>
#include <string.h>

#include "check.h"

#ifdef WEFT_TEST_ASSERTS
void weft_assert_fail(const char *what, const char *file, int line); /* hidden in libweft.so, here from the archive */

static void child(void)
{
    weft_assert_fail("u->in_pool", "pool_ops.h", 42);
}
#endif

int main(void)
{
#ifndef WEFT_TEST_ASSERTS
    printf("assert: skipped (built without WEFT_ASSERTS)\n");
    return 77;
#else
    char buf[1024];
    int st = run_child_stderr(child, buf, sizeof buf);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(strstr(buf, "weft: internal invariant broken at pool_ops.h:42: u->in_pool") != NULL);
    printf("assert: ok\n");
    return 0;
#endif
}
