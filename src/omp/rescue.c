/* weft-omp: a thread left ready behind a spinning one gets a stream.
 *
 * With shared streams (streams.c) several OpenMP threads are ULTs of one
 * stream, and a ULT is not preempted. A program whose threads wait for each
 * other by spinning on a flag (NPB-CPP's LU pipeline, a hand-made barrier)
 * can then have the flag's writer wait, ready, on the stream where the
 * spinner runs: forever. libgomp never meets this, its threads being OS
 * threads. So, once a team puts two OpenMP threads on one stream, a
 * watchdog thread looks at the streams every quarter of WEFT_OMP_RESCUE_MS
 * (default 100 ms; 0: never):
 *
 * - every time OpenMP code resumes or starts on a stream it bumps that
 *   stream's beat (omp_beat: a wait's turn, a worker's start); a stream
 *   whose beat has not moved for WEFT_OMP_RESCUE_MS while its OS thread is
 *   running (state R in /proc: not asleep, not in a blocking call) has run
 *   one ULT without a break all that time;
 * - the watchdog takes a spare stream (made beyond the CPUs' if none is
 *   free) and sends the stuck stream's OS thread a signal (SIGURG, as Go's
 *   preemption does). The handler, on that thread, does nothing if it
 *   interrupted weft-omp's own code (it is asked again soon:
 *   rescue_stream); otherwise it takes the ready units out of its
 *   stream's pool (a private pool: only
 *   this OS thread may, and it is not inside a pool operation) and moves
 *   the oldest one that is not the program's initial thread to the spare
 *   stream, where it holds the stream as with own streams;
 * - when the only ready unit is the initial thread (which stays on the
 *   primary stream), the handler moves the spinner itself instead: it
 *   migrates the running ULT, which resumes on the spare stream inside
 *   the handler and returns from it there. Only when the interrupted code
 *   is the program's own (not the C library's, which may hold a lock or
 *   be in the middle of its per-thread state);
 * - one unit per signal; the watchdog asks again at once while more wait.
 *
 * With WEFT_OMP_SHARE_STREAMS=auto, the first rescue also makes later teams
 * take a stream per thread (streams.c): a program that spins once will
 * again. The cost: a program whose threads outnumber the CPUs and compute
 * for longer than WEFT_OMP_RESCUE_MS without a scheduling point gets OS
 * threads as libgomp gives it. Not under ThreadSanitizer, which runs
 * signal handlers later than their signal (so the interrupted point is not
 * known). */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "omp_internal.h"

#if defined(__SANITIZE_THREAD__)
#define RESCUE_SUPPORTED 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RESCUE_SUPPORTED 0
#endif
#endif
#ifndef RESCUE_SUPPORTED
#if defined(__x86_64__) || defined(__aarch64__)
#define RESCUE_SUPPORTED 1
#else
#define RESCUE_SUPPORTED 0
#endif
#endif

#define RESCUE_SIG SIGURG

enum { RES_NONE, RES_MOVED, RES_SELF, RES_BUSY };

struct watch {
    _Atomic uint32_t beat;     /* bumped by OpenMP code on this stream */
    _Atomic pid_t tid;         /* its OS thread, once known */
    _Atomic uint32_t req, ack; /* the handler answers request req into ack */
    weft_pool target;          /* for the handler: where to send a unit */
    int target_rank;
    _Atomic int result, more;  /* the handler's answer */
    _Atomic int drop;          /* and a stream the moved thread held before (-1: none) */
    bool open;                 /* the watchdog's: a request not finished yet */
    uint32_t seen;             /* beat at `since` */
    uint64_t since;
} __attribute__((aligned(OMP_CACHE_LINE)));

static struct watch g_watch[OMP_MAX_STREAMS];
static _Atomic uint32_t g_plain_beat; /* plain threads' beats go nowhere */
__thread _Atomic uint32_t *omp_t_beat __attribute__((tls_model("initial-exec")));
_Atomic bool omp_rescue_armed;

static pthread_mutex_t g_arm_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t g_pid;
static weft_thread g_main_unit;
static struct sigaction g_old;
static sigset_t g_mask; /* the signal mask of the thread that armed the watchdog */

/* Code ranges: weft-omp's own (busy: try later), and the program's (where
 * a spinner may be moved away). Taken when the watchdog starts. */
#define MAX_RANGES 64
struct range {
    uintptr_t lo, hi;
};
static struct range g_self[MAX_RANGES], g_user[MAX_RANGES];
static int g_nself, g_nuser;

static bool in_ranges(const struct range *r, int n, uintptr_t pc)
{
    for (int i = 0; i < n; i++)
        if (pc >= r[i].lo && pc < r[i].hi) return true;
    return false;
}

static int collect_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    uintptr_t self = (uintptr_t)&collect_ranges;
    bool is_self = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz) is_self = true;
    }
    bool user = !is_self && (!info->dlpi_name[0] || !omp_is_runtime_lib(info->dlpi_name));
    if (!is_self && !user) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        struct range r = {info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
        if (is_self && g_nself < MAX_RANGES) g_self[g_nself++] = r;
        else if (user && g_nuser < MAX_RANGES) g_user[g_nuser++] = r;
    }
    return 0;
}

/* ---------- beats ---------- */

void omp_beat_slow(void)
{
    weft_xstream xs;
    int k;
    if (weft_xstream_self(&xs) == WEFT_OK && weft_xstream_rank(xs, &k) == WEFT_OK && k >= 0 && k < OMP_MAX_STREAMS) {
        atomic_store_explicit(&g_watch[k].tid, (pid_t)syscall(SYS_gettid), memory_order_relaxed);
        WEFT_TLS(omp_t_beat) = &g_watch[k].beat;
    } else {
        WEFT_TLS(omp_t_beat) = &g_plain_beat;
    }
    omp_beat();
}

/* ---------- the handler, on the stuck stream's OS thread ---------- */

static uintptr_t interrupted_pc(void *ucv)
{
    ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* Move the oldest ready unit of the calling stream that is not the
 * initial thread to `target` (rank r). */
static int move_one(weft_xstream xs, weft_pool target, int r, bool *main_waits, int *more, int *drop)
{
    weft_pool p;
    int n, got;
    weft_thread u[64];
    *main_waits = false;
    *more = 0;
    if (weft_xstream_get_pools(xs, 1, &p, &n) != WEFT_OK || n < 1) return RES_NONE;
    if (weft_pool_pop_many(p, 64, u, &got) != WEFT_OK) return RES_NONE;
    int res = RES_NONE;
    for (int i = 0; i < got; i++) {
        void *arg;
        if (u[i] == g_main_unit) {
            *main_waits = true;
        } else if (res == RES_NONE && weft_thread_get_arg(u[i], &arg) == WEFT_OK && arg) {
            /* Every other unit of weft-omp is an OpenMP thread's
             * (team.c: worker_main). It is not running: this is safe. */
            struct omp_thread *thr = arg;
            int old_stream = thr->stream;
            bool old_holds = thr->holds;
            thr->stream = r;
            thr->holds = true;
            if (weft_pool_push(target, u[i]) == WEFT_OK) {
                res = RES_MOVED;
                if (old_holds) *drop = old_stream;
                continue;
            }
            thr->stream = old_stream;
            thr->holds = old_holds;
        } else {
            (*more)++;
        }
        if (weft_pool_push(p, u[i]) != WEFT_OK) omp_fatal("rescue: could not put a thread back");
    }
    return res;
}

/* errno is per OS thread: after a migration, the new thread's (a call,
 * so that its address is not the one taken before the switch). */
static __attribute__((noinline)) void set_errno(int e)
{
    errno = e;
}

static void forward(int sig, siginfo_t *si, void *ucv)
{
    if ((g_old.sa_flags & SA_SIGINFO) && g_old.sa_sigaction) g_old.sa_sigaction(sig, si, ucv);
    else if (g_old.sa_handler != SIG_DFL && g_old.sa_handler != SIG_IGN && g_old.sa_handler) g_old.sa_handler(sig);
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    weft_xstream xs;
    int k;
    if (si->si_code != SI_TKILL || si->si_pid != g_pid || weft_xstream_self(&xs) != WEFT_OK ||
        weft_xstream_rank(xs, &k) != WEFT_OK || k < 0 || k >= OMP_MAX_STREAMS) {
        forward(sig, si, ucv); /* not ours: the program's handler, if it had one */
        return;
    }
    struct watch *w = &g_watch[k];
    uint32_t req = atomic_load_explicit(&w->req, memory_order_acquire);
    if (atomic_load_explicit(&w->ack, memory_order_relaxed) == req) {
        forward(sig, si, ucv); /* no request open: the program's own (raise, pthread_kill) */
        return;
    }
    int saved_errno = errno;
    uintptr_t pc = interrupted_pc(ucv);
    int res = RES_BUSY, more = 0, drop = -1;
    bool main_waits = false;
    if (!in_ranges(g_self, g_nself, pc)) {
        res = move_one(xs, w->target, w->target_rank, &main_waits, &more, &drop);
        /* Woken by another stream, the initial thread (bound to the
         * primary stream) waits in its run-next list, not in the pool. */
        weft_thread_state st;
        if (k == 0 && g_main_unit && weft_thread_get_state(g_main_unit, &st) == WEFT_OK && st == WEFT_STATE_READY)
            main_waits = true;
    }
    weft_thread self;
    void *arg;
    if (res == RES_NONE && main_waits && in_ranges(g_user, g_nuser, pc) && weft_self(&self) == WEFT_OK &&
        self != g_main_unit && weft_thread_get_arg(self, &arg) == WEFT_OK && arg) {
        /* Only the initial thread waits here: move the spinner instead.
         * Its hold is its own thread's (the worker's struct, even when it
         * is thread 0 of a nested team now). */
        struct omp_thread *me = omp_self_keep(), *worker = arg;
        int old_stream = worker->stream;
        bool old_holds = worker->holds;
        worker->stream = w->target_rank;
        worker->holds = true;
        if (weft_thread_migrate(self, w->target) == WEFT_OK) {
            /* Resumed on the target stream's OS thread. Returning from
             * the signal restores the signal mask and the alternate
             * signal stack saved in the frame, which are the old
             * thread's: make them this thread's own. */
            ucontext_t *uc = ucv;
            stack_t ss;
            if (sigaltstack(NULL, &ss) == 0) uc->uc_stack = ss;
            pthread_sigmask(SIG_SETMASK, NULL, &uc->uc_sigmask);
            omp_self_restore(me);
            WEFT_TLS(omp_t_beat) = NULL; /* this OS thread's beat, on next use */
            res = RES_SELF;
            if (old_holds) drop = old_stream;
        } else {
            worker->stream = old_stream;
            worker->holds = old_holds;
        }
    }
    atomic_store_explicit(&w->result, res, memory_order_relaxed);
    atomic_store_explicit(&w->more, more, memory_order_relaxed);
    atomic_store_explicit(&w->drop, drop, memory_order_relaxed);
    atomic_store_explicit(&w->ack, req, memory_order_release);
    set_errno(saved_errno);
}

/* ---------- the watchdog ---------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Is OS thread `tid` running or runnable (not asleep, not blocked)? */
static bool thread_running(pid_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command name, which may hold anything */
    return p && p[1] == ' ' && p[2] == 'R';
}

/* The handler's answer to the open request on w: true if a thread moved
 * and more may wait. */
static bool finish(struct watch *w)
{
    w->open = false;
    int res = atomic_load_explicit(&w->result, memory_order_relaxed);
    if (res != RES_MOVED && res != RES_SELF) {
        omp_stream_release(w->target_rank);
        return false;
    }
    /* The moved thread gave up the stream it held, if any. */
    int drop = atomic_load_explicit(&w->drop, memory_order_relaxed);
    if (drop >= 0) omp_stream_release(drop);
    omp_streams_rescued();
    return res == RES_MOVED && atomic_load_explicit(&w->more, memory_order_relaxed);
}

/* A handler that found its thread inside weft-omp's own code (RES_BUSY)
 * is asked again this often, this many times, before the watchdog waits
 * a whole period: a spinner that calls into the runtime in its loop
 * (omp_get_thread_num for `masked filter`, as OpenMP_VV's
 * test_masked_filter does) is there a good part of the time. Before,
 * such a rescue took 0.15-5 s instead of 0.15. */
#define BUSY_RETRIES 64
#define BUSY_GAP_NS 200000

/* Move threads off stream k, one per request, while more wait there. */
static void rescue_stream(int k, pid_t tid)
{
    struct watch *w = &g_watch[k];
    int busy = 0;
    uint32_t beat = atomic_load_explicit(&w->beat, memory_order_relaxed);
    for (int round = 0; round < OMP_MAX_STREAMS + BUSY_RETRIES; round++) {
        /* A stream made now is a thread of this one: with the program's
         * signal mask, not the watchdog's (which blocks everything). */
        sigset_t all;
        pthread_sigmask(SIG_SETMASK, &g_mask, &all);
        int r = omp_stream_take_spare(k);
        pthread_sigmask(SIG_SETMASK, &all, NULL);
        if (r < 0) return;
        weft_xstream xs;
        weft_pool p;
        int np;
        if (weft_xstream_get(r, &xs) != WEFT_OK || weft_xstream_get_pools(xs, 1, &p, &np) != WEFT_OK || np < 1) {
            omp_stream_release(r);
            return;
        }
        w->target = p;
        w->target_rank = r;
        w->open = true;
        uint32_t req = atomic_load_explicit(&w->req, memory_order_relaxed) + 1;
        atomic_store_explicit(&w->req, req, memory_order_release);
        if (syscall(SYS_tgkill, g_pid, tid, RESCUE_SIG) != 0) {
            atomic_store_explicit(&w->result, RES_NONE, memory_order_relaxed);
            atomic_store_explicit(&w->ack, req, memory_order_release);
            finish(w);
            return;
        }
        /* The answer comes within microseconds; if not (a loaded
         * machine, or the program replaced the handler), the watchdog
         * takes it when it comes (watchdog()). */
        for (int i = 0; i < 1000 && atomic_load_explicit(&w->ack, memory_order_acquire) != req; i++) sleep_ns(100000);
        if (atomic_load_explicit(&w->ack, memory_order_acquire) != req) return;
        bool was_busy = atomic_load_explicit(&w->result, memory_order_relaxed) == RES_BUSY;
        if (finish(w)) continue;
        /* Asked again while the stream still runs the same thread */
        if (!was_busy || ++busy > BUSY_RETRIES || atomic_load_explicit(&w->beat, memory_order_relaxed) != beat ||
            !thread_running(tid))
            return;
        sleep_ns(BUSY_GAP_NS);
    }
}

static void *watchdog(void *arg)
{
    (void)arg;
    uint64_t limit = (uint64_t)omp_g.rescue_ms * 1000000u;
    for (;;) {
        sleep_ns(limit / 4);
        uint64_t now = now_ns();
        int n = 0;
        if (weft_xstream_count(&n) != WEFT_OK) continue;
        /* Ranks are not reused while weft-omp runs (its streams live to the end). */
        for (int k = 0; k < n && k < OMP_MAX_STREAMS; k++) {
            struct watch *w = &g_watch[k];
            pid_t tid = atomic_load_explicit(&w->tid, memory_order_relaxed);
            if (!tid) continue;
            if (w->open) {
                if (atomic_load_explicit(&w->ack, memory_order_acquire) != atomic_load_explicit(&w->req, memory_order_relaxed))
                    continue; /* still unanswered */
                finish(w);
            }
            uint32_t b = atomic_load_explicit(&w->beat, memory_order_relaxed);
            if (b != w->seen || !w->since) {
                w->seen = b;
                w->since = now;
                continue;
            }
            if (now - w->since < limit) continue;
            w->since = now;
            if (thread_running(tid)) rescue_stream(k, tid);
        }
    }
    return NULL;
}

/* A child of fork() has no watchdog: the next team that needs one starts it. */
static void at_fork_child(void)
{
    g_pid = getpid();
    atomic_store_explicit(&omp_rescue_armed, false, memory_order_relaxed);
    memset(g_watch, 0, sizeof g_watch);
    WEFT_TLS(omp_t_beat) = NULL;
}

/* At start, on the initial thread (the main ULT of the primary stream,
 * which never moves). */
void omp_rescue_init(void)
{
    g_pid = getpid();
    if (weft_self(&g_main_unit) != WEFT_OK) g_main_unit = WEFT_THREAD_NULL;
    pthread_atfork(NULL, NULL, at_fork_child);
}

void omp_rescue_arm_slow(void)
{
    pthread_mutex_lock(&g_arm_lock);
    if (atomic_load_explicit(&omp_rescue_armed, memory_order_relaxed)) goto out;
    atomic_store_explicit(&omp_rescue_armed, true, memory_order_relaxed);
    if (!RESCUE_SUPPORTED || omp_g.rescue_ms <= 0) goto out;
    omp_beat(); /* the caller's stream: its OS thread is known from now on */
    dl_iterate_phdr(collect_ranges, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    /* SA_NODEFER: a handler that migrates its ULT leaves this OS thread
     * without returning, which must not leave the signal blocked here. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(RESCUE_SIG, &sa, &g_old) != 0) goto out;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the watchdog takes no signal */
    g_mask = old;
    pthread_attr_t at;
    pthread_t th;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 64 * 1024);
    if (pthread_create(&th, &at, watchdog, NULL) != 0) sigaction(RESCUE_SIG, &g_old, NULL);
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
out:
    pthread_mutex_unlock(&g_arm_lock);
}
