/* A ULT that overflows its stack hits the guard page; the runtime names the
 * ULT and its stack size, then aborts. Checked in a child process. */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static volatile int g_forever = 1;

static int recurse(int depth)
{
    volatile char pad[1024];
    pad[0] = (char)depth;
    if (!g_forever) return 0;
    return recurse(depth + 1) + pad[0]; /* not a tail call */
}

static void overflow(void *arg)
{
    (void)arg;
    recurse(0);
}

static void child(void)
{
    weft_config cfg;
    weft_config_init(&cfg);
    cfg.num_xstreams = 1;
    cfg.stack_size = 64 * 1024;
    weft_init(&cfg);
    weft_thread t;
    weft_thread_create(self_pool(), overflow, NULL, NULL, &t);
    weft_thread_join(t); /* not reached: the overflow aborts */
}

int main(void)
{
    char buf[4096];
    int status = run_child_stderr(child, buf, sizeof buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(buf, "weft: stack overflow in ULT 1 (stack size 65536 bytes") != NULL);
    printf("guard: ok\n");
    return 0;
}
