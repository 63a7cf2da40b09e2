/* The guard-page signal handler and the signal stacks, each case in a child
 * process:
 *  - a ULT that overflows its stack hits the guard page; the runtime names
 *    the ULT and its stack size, then aborts; so does a single frame far
 *    larger than a page;
 *  - a tasklet that overflows its stream's scheduler stack is named too, and
 *    that stack has the same size on the primary and a secondary stream;
 *  - a fault that is not a guard hit ends the process as it would without
 *    weft, whatever SIGSEGV action the program had before weft_init();
 *  - weft_finalize() leaves alone a SIGSEGV action or a signal stack that
 *    the program installed after weft_init().
 * A child that would hang is ended by alarm(), so a hang shows up as SIGALRM.
 * `test_stack_guard NAME` runs one case. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define CHILD_TIMEOUT 10 /* seconds */

static volatile int g_forever = 1;
static int *volatile g_null; /* read through, so the compiler cannot see the NULL */

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

/* One frame far larger than a page: its first store lands well below the
 * stack, past where a one-page guard would have been (issue 18 item 15). */
static void big_frame(void *arg)
{
    (void)arg;
    volatile char big[160 * 1024];
    big[0] = 1;
    big[sizeof big - 1] = big[0];
}

static void tasklet_overflow(void *arg)
{
    (void)arg;
    recurse(0);
}

/* The store must reach the hardware: UBSan's null check would end the child
 * before the fault. */
__attribute__((no_sanitize("null"))) static void deref_null(void *arg)
{
    (void)arg;
    *g_null = 1;
}

static void raise_segv(void *arg)
{
    (void)arg;
    raise(SIGSEGV);
}

static void say(const char *s)
{
    ssize_t w = write(2, s, strlen(s));
    (void)w;
}

/* Run fn in a ULT on a single stream, and join it. */
static void run_in_ult(void (*fn)(void *))
{
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 1;
    cfg.stack_size = 64 * 1024;
    CHECK_OK(weft_init(&cfg));
    weft_thread t;
    CHECK_OK(weft_thread_create(self_pool(), fn, NULL, NULL, &t));
    CHECK_OK(weft_thread_join(t));
}

/* ---------- the children ---------- */

static void child_big_frame(void)
{
    alarm(CHILD_TIMEOUT);
    run_in_ult(big_frame);
}

/* A tasklet recursing without end on stream `rank`'s scheduler stack. */
static void tasklet_on(int rank)
{
    alarm(CHILD_TIMEOUT);
    weft_config cfg;
    CHECK_OK(weft_config_init(&cfg));
    cfg.num_xstreams = 2;
    CHECK_OK(weft_init(&cfg));
    weft_xstream xs;
    weft_pool pool;
    int n;
    CHECK_OK(weft_xstream_get(rank, &xs));
    CHECK_OK(weft_xstream_get_pools(xs, 1, &pool, &n));
    weft_thread t;
    CHECK_OK(weft_tasklet_create(pool, tasklet_overflow, NULL, &t));
    CHECK_OK(weft_thread_join(t));
}

static void child_tasklet_primary(void) { tasklet_on(0); }
static void child_tasklet_secondary(void) { tasklet_on(1); }

static void child_overflow(void)
{
    alarm(CHILD_TIMEOUT);
    run_in_ult(overflow); /* the overflow aborts */
}

/* Without weft, a NULL dereference kills the process even when SIGSEGV is
 * ignored: the kernel forces the default action of a fault. */
static void child_ignored_fault(void)
{
    alarm(CHILD_TIMEOUT);
    signal(SIGSEGV, SIG_IGN);
    run_in_ult(deref_null);
    say("survived\n");
}

/* A handler with SA_RESETHAND runs once, with its sa_mask blocked; the
 * action is then the default one, so the fault, run again when the handler
 * returns, kills the process. */
static void note_fault(int sig)
{
    (void)sig;
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    say(sigismember(&now, SIGUSR1) ? "noted, SIGUSR1 blocked\n" : "noted, SIGUSR1 open\n");
}

static void child_resethand(void)
{
    alarm(CHILD_TIMEOUT);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = note_fault;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    run_in_ult(deref_null);
    say("survived\n");
}

/* A SIGSEGV that is sent, not a fault, is not run again by returning: with
 * the default action it must still kill, and when ignored it is ignored. */
static void child_raised_default(void)
{
    alarm(CHILD_TIMEOUT);
    signal(SIGSEGV, SIG_DFL);
    run_in_ult(raise_segv);
    say("survived\n");
}

static void child_raised_ignored(void)
{
    alarm(CHILD_TIMEOUT);
    signal(SIGSEGV, SIG_IGN);
    run_in_ult(raise_segv);
    CHECK_OK(weft_finalize());
    say("survived\n");
}

static void prog_handler(int sig)
{
    (void)sig;
}

static void *action_of(int sig)
{
    struct sigaction cur;
    CHECK(sigaction(sig, NULL, &cur) == 0);
    return (cur.sa_flags & SA_SIGINFO) ? (void *)cur.sa_sigaction : (void *)cur.sa_handler;
}

/* weft_finalize() gives back the action weft replaced, but only while weft's
 * handler is still the one installed. */
static void child_later_handler(void)
{
    alarm(CHILD_TIMEOUT);
    signal(SIGSEGV, SIG_IGN);
    signal(SIGBUS, SIG_IGN);
    CHECK_OK(weft_init(NULL));
    CHECK(action_of(SIGSEGV) != (void *)SIG_IGN);
    CHECK_OK(weft_finalize());
    CHECK(action_of(SIGSEGV) == (void *)SIG_IGN);
    CHECK(action_of(SIGBUS) == (void *)SIG_IGN);

    CHECK_OK(weft_init(NULL));
    signal(SIGSEGV, prog_handler);
    signal(SIGBUS, prog_handler);
    CHECK_OK(weft_finalize());
    CHECK(action_of(SIGSEGV) == (void *)prog_handler);
    CHECK(action_of(SIGBUS) == (void *)prog_handler);
    say("kept\n");
}

static int mapped(void *p)
{
    return msync(p, (size_t)sysconf(_SC_PAGESIZE), MS_ASYNC) == 0 || errno != ENOMEM;
}

/* weft_finalize() takes away the signal stack it gave the thread, but not
 * one the program set after weft_init(); weft's memory is unmapped either
 * way. */
static void child_later_altstack(void)
{
    alarm(CHILD_TIMEOUT);
    /* Start without a signal stack (a sanitizer may have set one), so weft
     * gives this thread its own, as in a plain program. */
    stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    CHECK(sigaltstack(&off, NULL) == 0);

    stack_t cur;
    CHECK_OK(weft_init(NULL));
    CHECK(sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE));
    CHECK_OK(weft_finalize());
    CHECK(sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE));

    static char mine[64 * 1024];
    CHECK_OK(weft_init(NULL));
    CHECK(sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE));
    void *weft_stack = cur.ss_sp;
    CHECK(weft_stack != mine);
    stack_t ss = {.ss_sp = mine, .ss_size = sizeof mine, .ss_flags = 0};
    CHECK(sigaltstack(&ss, NULL) == 0);
    CHECK_OK(weft_finalize());
    CHECK(sigaltstack(NULL, &cur) == 0);
    CHECK(!(cur.ss_flags & SS_DISABLE) && cur.ss_sp == mine && cur.ss_size == sizeof mine);
    CHECK(!mapped(weft_stack));
    say("kept\n");
}

/* ---------- the cases ---------- */

static int died_by(int status, int sig)
{
    return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

static int exited_ok(int status)
{
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct guard_case {
    const char *name;
    void (*child)(void);
    int (*check)(int status, const char *err);
};

static int check_overflow(int status, const char *err)
{
    return died_by(status, SIGABRT) &&
           strstr(err, "weft: stack overflow in ULT 1 (stack size 65536 bytes") != NULL;
}

static int check_big_frame(int status, const char *err)
{
    return died_by(status, SIGABRT) && strstr(err, "weft: stack overflow in ULT 1 (stack size 65536 bytes") != NULL;
}

/* The same size on every stream (the default 1 MiB scheduler stack; on a
 * secondary stream the thread's stack, of which its TLS takes a little). */
static int check_tasklet_primary(int status, const char *err)
{
    return died_by(status, SIGABRT) &&
           strstr(err, "weft: stack overflow in tasklet 1 on the scheduler stack of stream 0 (stack size 1048576 ") &&
           strstr(err, "raise WEFT_SCHED_STACK_SIZE");
}

static int check_tasklet_secondary(int status, const char *err)
{
    return died_by(status, SIGABRT) &&
           strstr(err, "weft: stack overflow in tasklet 1 on the scheduler stack of stream 1 (stack size 10") &&
           strstr(err, "raise WEFT_SCHED_STACK_SIZE");
}

static int check_fault_kills(int status, const char *err)
{
    return died_by(status, SIGSEGV) && !strstr(err, "stack overflow") && !strstr(err, "survived");
}

static int check_resethand(int status, const char *err)
{
    const char *n = strstr(err, "noted, SIGUSR1 blocked\n");
    return died_by(status, SIGSEGV) && n && !strstr(n + 1, "noted") && !strstr(err, "survived");
}

static int check_survived(int status, const char *err)
{
    return exited_ok(status) && strstr(err, "survived") != NULL;
}

static int check_kept(int status, const char *err)
{
    return exited_ok(status) && strstr(err, "kept") != NULL;
}

static const struct guard_case g_cases[] = {
    {"overflow_names_ult", child_overflow, check_overflow},
    {"big_frame_names_ult", child_big_frame, check_big_frame},
    {"tasklet_overflow_primary", child_tasklet_primary, check_tasklet_primary},
    {"tasklet_overflow_secondary", child_tasklet_secondary, check_tasklet_secondary},
    {"ignored_segv_fault_kills", child_ignored_fault, check_fault_kills},
    {"resethand_handler_runs_once", child_resethand, check_resethand},
    {"raised_segv_default_kills", child_raised_default, check_fault_kills},
    {"raised_segv_ignored_survives", child_raised_ignored, check_survived},
    {"finalize_keeps_later_handler", child_later_handler, check_kept},
    {"finalize_keeps_later_altstack", child_later_altstack, check_kept},
};

static void describe(int status)
{
    if (WIFSIGNALED(status))
        fprintf(stderr, "  child was killed by signal %d (%s)\n", WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        fprintf(stderr, "  child exited with status %d\n", WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
    int failed = 0, ran = 0;
    for (size_t i = 0; i < sizeof g_cases / sizeof g_cases[0]; i++) {
        const struct guard_case *c = &g_cases[i];
        if (argc > 1 && strcmp(argv[1], c->name) != 0) continue;
        ran++;
        static char buf[16384];
        int status = run_child_stderr(c->child, buf, sizeof buf);
        if (c->check(status, buf)) {
            printf("guard: %s ok\n", c->name);
        } else {
            fprintf(stderr, "guard: %s FAILED\n", c->name);
            describe(status);
            failed++;
        }
    }
    CHECK(ran > 0);
    if (failed) return 1;
    printf("guard: ok\n");
    return 0;
}
