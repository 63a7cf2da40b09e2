/* Stack overflow reporting: the SIGSEGV/SIGBUS handler that names the ULT
 * (or the tasklet, on its stream's scheduler stack) whose stack ran into
 * its guard or past it, and the per-thread alternate signal
 * stacks it runs on (it cannot run on the stack that just overflowed).
 *
 * Every other SIGSEGV and SIGBUS is the program's business: it goes to the
 * action the program had before weft_init(), with the effect it would have
 * had without weft, so a stray fault still kills the process. At
 * weft_finalize() weft takes back only what is still its own: a handler or
 * a signal stack the program installed after weft_init() stays. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "internal.h"
#include "mem_cache.h"
#include "sys.h"

#define ALTSTACK_SIZE (64 * 1024)

/* ---------- stack overflow reporting ---------- */

static struct sigaction g_old_segv, g_old_bus;
static int g_handler_installed;

/* Async-signal-safe decimal/hex formatting for the report. */
static size_t fmt_u64(char *out, uint64_t v, unsigned base)
{
    char tmp[24];
    size_t n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

static size_t put(char *buf, size_t at, const char *s)
{
    while (*s && at < 255) buf[at++] = *s++;
    return at;
}

/* Hand a signal that is not a guard hit to the action weft replaced. A
 * fault (si_code > 0) runs again when the handler returns; a signal sent by
 * kill() or raise() (si_code <= 0) does not. */
static void chain(int sig, siginfo_t *si, void *uc, struct sigaction *old)
{
    int fault = si->si_code > 0;
    /* sa_handler and sa_sigaction share storage, so this also catches an
     * SA_SIGINFO action whose function is SIG_DFL or SIG_IGN. */
    if (old->sa_handler == SIG_IGN && !fault) return;
    if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
        /* The kernel kills a process whose fault meets SIG_DFL or SIG_IGN
         * (an ignored fault would only run again forever). Put the default
         * action back: the fault, run again on return, then kills. A sent
         * signal is sent again; it stays blocked, pending, until we return. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        if (!fault) raise(sig);
        return;
    }
    struct sigaction h = *old;
    if (h.sa_flags & SA_RESETHAND) {
        /* One delivery, then the default action, as the kernel does it: a
         * handler that returns lets the fault run again and kill. */
        old->sa_handler = SIG_DFL;
        old->sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
    }
    /* The handler expects its own sa_mask blocked while it runs. */
    sigset_t prev;
    pthread_sigmask(SIG_BLOCK, &h.sa_mask, &prev);
    if (h.sa_flags & SA_SIGINFO)
        h.sa_sigaction(sig, si, uc);
    else
        h.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
}

/* How far below its stack a fault still counts as the stack's overflow
 * when the stack pointer is down there too: a frame that jumped the guard
 * into unmapped space. */
#define OVERFLOW_REACH ((uintptr_t)64 << 20)

static uintptr_t fault_sp(void *uc)
{
    const ucontext_t *c = uc;
#if defined(__x86_64__)
    return (uintptr_t)c->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)c->uc_mcontext.sp;
#else
    (void)c;
    return 0;
#endif
}

/* Did the stack of `s` overflow? A fault in the guard below it, or a fault
 * below it while the stack pointer has left it downwards. */
static int overflowed(const struct weft_unit_s *s, uintptr_t a, uintptr_t sp)
{
    uintptr_t lo = (uintptr_t)s->stack_lo;
    if (!lo || a >= lo) return 0;
    uintptr_t gap = (s->stack_flags & STK_OWN) ? lo - (uintptr_t)unit_stack_rec(s)->map : weft_g.guard_size;
    if (lo - a <= gap) return 1;
    return sp && sp < lo && lo - sp <= OVERFLOW_REACH && lo - a <= OVERFLOW_REACH;
}

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    struct weft_unit_s *u = xs ? xs->cur : NULL;
    uintptr_t a = (uintptr_t)si->si_addr;
    /* Only a fault has an address; a sent signal's si_addr is other data. */
    int fault = si->si_code > 0;
    /* A tasklet runs on its stream's scheduler stack. The main ULT's stack
     * is the thread's own, grown and guarded by the kernel. */
    struct weft_unit_s *s = u && u->kind == KIND_TASKLET ? xs->sched_unit : u;
    if (fault && s && s->kind != KIND_MAIN && overflowed(s, a, fault_sp(uc))) {
        char buf[256];
        size_t n;
        if (s == u && u->kind == KIND_ULT) {
            n = put(buf, 0, "weft: stack overflow in ULT ");
            n += fmt_u64(buf + n, u->id, 10);
        } else {
            n = put(buf, 0, "weft: stack overflow in ");
            n = put(buf, n, u->kind == KIND_TASKLET ? "tasklet " : "the scheduler");
            if (u->kind == KIND_TASKLET) n += fmt_u64(buf + n, u->id, 10);
            n = put(buf, n, " on the scheduler stack of stream ");
            n += fmt_u64(buf + n, (uint64_t)xs->rank, 10);
        }
        n = put(buf, n, " (stack size ");
        n += fmt_u64(buf + n, s->stack_size, 10);
        n = put(buf, n, " bytes; fault at 0x");
        n += fmt_u64(buf + n, a, 16);
        n = put(buf, n, s == u && u->kind == KIND_ULT ? "); raise its stack_size attribute or WEFT_STACK_SIZE\n"
                                                     : "); raise WEFT_SCHED_STACK_SIZE\n");
        ssize_t w = write(2, buf, n);
        (void)w;
        signal(SIGABRT, SIG_DFL);
        abort();
    }
    chain(sig, si, uc, sig == SIGBUS ? &g_old_bus : &g_old_segv);
}

int guard_install_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &g_old_segv) != 0) return WEFT_ERR_SYS;
    if (sigaction(SIGBUS, &sa, &g_old_bus) != 0) {
        sigaction(SIGSEGV, &g_old_segv, NULL);
        return WEFT_ERR_SYS;
    }
    g_handler_installed = 1;
    return WEFT_OK;
}

/* Put back the action weft replaced, unless the program has installed its
 * own since: that one stays. */
static void restore_action(int sig, const struct sigaction *old)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0) return;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == segv_handler) sigaction(sig, old, NULL);
}

void guard_remove_handler(void)
{
    if (!g_handler_installed) return;
    restore_action(SIGSEGV, &g_old_segv);
    restore_action(SIGBUS, &g_old_bus);
    g_handler_installed = 0;
}

/* Each stream's OS thread needs its own signal stack: the handler cannot run
 * on the stack that just overflowed. A thread that already has one keeps it. */
int guard_install_thread(struct weft_xstream_s *xs)
{
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return WEFT_OK;
    void *m = sys_mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return WEFT_ERR_NOMEM;
    stack_t ss = {.ss_sp = m, .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(m, ALTSTACK_SIZE);
        return WEFT_ERR_SYS;
    }
    xs->altstack = m;
    return WEFT_OK;
}

/* Called on the stream's own thread. Weft's signal stack is switched off
 * only while it is still the thread's; one the program set since stays. The
 * memory goes back to the OS once the thread no longer uses it; when that
 * cannot be known or made so, it is left mapped rather than pulled from
 * under a signal handler. */
void guard_remove_thread(struct weft_xstream_s *xs)
{
    void *m = xs->altstack;
    if (!m) return;
    xs->altstack = NULL;
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0) return;
    if (!(cur.ss_flags & SS_DISABLE) && cur.ss_sp == m) {
        stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        if (sigaltstack(&off, NULL) != 0) return; /* running on it */
    }
    munmap(m, ALTSTACK_SIZE);
}
