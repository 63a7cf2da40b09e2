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

int main(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        weft_config cfg;
        weft_config_init(&cfg);
        cfg.num_xstreams = 1;
        cfg.stack_size = 64 * 1024;
        weft_init(&cfg);
        weft_xstream xs;
        weft_pool pool;
        int n;
        weft_xstream_self(&xs);
        weft_xstream_get_pools(xs, 1, &pool, &n);
        weft_thread t;
        weft_thread_create(pool, overflow, NULL, NULL, &t);
        weft_thread_join(t);
        _exit(0); /* not reached */
    }
    close(fds[1]);
    char buf[4096];
    size_t len = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)r;
    buf[len] = 0;
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    fprintf(stderr, "child said: %s", buf);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(buf, "weft: stack overflow in ULT 1 (stack size 65536 bytes") != NULL);
    printf("guard: ok\n");
    return 0;
}
