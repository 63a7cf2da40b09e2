/* Minimal checking macros for the test programs: a failed check prints
 * where and why, and the program exits non-zero. */
#ifndef WEFT_TESTS_CHECK_H
#define WEFT_TESTS_CHECK_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weft.h"

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* The call must return `want` (a WEFT_* code). */
#define CHECK_RC(call, want)                                                              \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_ != (want)) {                                                              \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__, \
                    __LINE__, #call, rc_, weft_strerror(rc_), (want), weft_strerror(want)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define CHECK_OK(call) CHECK_RC(call, WEFT_OK)

/* weft_init() with the environment's defaults but `nstreams` streams. */
static inline void start_weft(int nstreams)
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = nstreams;
    CHECK_OK(weft_init(&cfg));
}

/* The first pool of the caller's stream (the caller is a ULT or tasklet). */
static inline weft_pool self_pool(void)
{
    weft_xstream xs;
    weft_pool pool;
    int n;
    CHECK_OK(weft_xstream_self(&xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &pool, &n));
    CHECK(n >= 1);
    return pool;
}

/* Poll until `t` is in `state`, letting the caller's stream (or, from a
 * plain thread, its core) run others meanwhile. */
static inline void wait_for_state(weft_thread t, weft_thread_state state)
{
    weft_thread_state st;
    for (;;) {
        CHECK_OK(weft_thread_get_state(t, &st));
        if (st == state) return;
        if (weft_yield() != WEFT_OK) sched_yield();
        sched_yield();
    }
}

/* fork() with stdio flushed first; the child is killed by SIGALRM after
 * `seconds` (0: never), so a hang fails the test instead of stalling it. */
static inline pid_t fork_child(unsigned seconds)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0 && seconds) alarm(seconds);
    return pid;
}

/* Wait for child `pid`: 1 if it exited with status 0; else 0, after
 * saying on stderr, prefixed by `what`, how it ended (a hang killed by
 * fork_child's alarm, another signal, or its exit status). */
static inline int child_ok(pid_t pid, const char *what)
{
    int status;
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    CHECK(r == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 1;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        fprintf(stderr, "%s: the child hung (killed by its alarm)\n", what);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "%s: the child was killed by %s\n", what, strsignal(WTERMSIG(status)));
    else
        fprintf(stderr, "%s: the child exited with %d\n", what, WEXITSTATUS(status));
    return 0;
}

/* Run `child` in a forked process with its stderr captured into buf (NUL
 * terminated, echoed to ours); returns its wait status. */
static inline int run_child_stderr(void (*child)(void), char *buf, size_t size)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        child();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + len, size - 1 - len)) > 0) len += (size_t)r;
    buf[len] = 0;
    close(fds[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    fprintf(stderr, "child said: %s", buf);
    return status;
}

#endif
