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
 *   stream's beat (omp_beat: a wait's turn, a worker's start), and marks
 *   it when its thread leaves to park or end (omp_beat_away); a stream
 *   whose beat has not moved for WEFT_OMP_RESCUE_MS, unmarked, has run one
 *   ULT without a break all that time, if its OS thread is running (state
 *   R in /proc), or has been held by that ULT inside a call that waits in
 *   the kernel (a read of a pipe, a lock or condition variable of the C
 *   library: the other end may be a thread ready behind it);
 * - the watchdog takes a spare stream (made beyond the CPUs' if none is
 *   free) and sends the stuck stream's OS thread a signal (SIGURG, as Go's
 *   preemption does). The handler, on that thread, does nothing if it
 *   interrupted weft-omp's own code (it is asked again soon:
 *   rescue_stream); otherwise it takes the ready units out of its
 *   stream's pool (a private pool: only this OS thread may, and it is
 *   not inside a pool operation, nor between a yielder's requeue into
 *   that pool and the save of its registers: unit.c, unit_switch_in,
 *   runs only this library's code there) and moves
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
 * A thread blocked in the kernel is sent the signal only inside a call
 * that the kernel restarts after a handler installed with SA_RESTART and
 * that returns nothing cut short (blocked_restartable: reads of a pipe or
 * a terminal, writes of at most PIPE_BUF bytes to a pipe, futex waits
 * without a time-out, waitpid, file locks), and only while it is still
 * in the call the watchdog saw (number and stack pointer, looked at again
 * before each signal): the program sees no EINTR from it. Sleeps,
 * poll/select/epoll, socket calls and longer writes would: they are left
 * alone (a sleep ends by itself). The threads ready behind it are moved.
 * The blocked thread itself is moved (the initial thread being the only
 * one behind it) only from a wait of a condition variable or semaphore
 * (FUTEX_WAIT_BITSET) or waitpid, stopped at the system call instruction
 * that the kernel's restart makes it run again on its new OS thread: a
 * read or write may be a stdio call's, and a lock wait a stdio lock's,
 * holding the FILE's lock, whose owner is the OS thread.
 * When nothing was moved, the stream is looked at again after twice the
 * interval, up to 32 times it, until its beat moves or its thread runs
 * (a program waiting on its input).
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
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
    _Atomic uintptr_t self_sp; /* nonzero: blocked in a call it may be moved out of, at this stack pointer */
    bool open;                 /* the watchdog's: a request not finished yet */
    uint32_t seen;             /* beat at `since` */
    unsigned backoff;          /* blocked, nothing moved: the next look waits limit << backoff */
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

/* Where the signal stopped the thread: its pc and stack pointer. */
static void interrupted_at(void *ucv, uintptr_t *pc, uintptr_t *sp)
{
    ucontext_t *uc = ucv;
#if defined(__x86_64__)
    *pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    *sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    *pc = (uintptr_t)uc->uc_mcontext.pc;
    *sp = (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    *pc = *sp = 0;
#endif
}

/* The interrupted thread stopped at a system call instruction: a call
 * the kernel restarts, which the thread may make again on another OS
 * thread. (With the stack pointer the watchdog saw in the blocked call:
 * the same call, not one the thread reached after it woke up.) pc is in
 * a mapped code segment: the interrupted thread was executing it. */
static bool at_syscall(uintptr_t pc)
{
#if defined(__x86_64__)
    uint16_t insn;
    memcpy(&insn, (const void *)pc, sizeof insn);
    return insn == 0x050f; /* syscall */
#elif defined(__aarch64__)
    uint32_t insn;
    memcpy(&insn, (const void *)pc, sizeof insn);
    return insn == 0xd4000001u; /* svc #0 */
#else
    (void)pc;
    return false;
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
    uintptr_t pc, sp;
    interrupted_at(ucv, &pc, &sp);
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
    uintptr_t ssp = atomic_load_explicit(&w->self_sp, memory_order_relaxed);
    bool movable = in_ranges(g_user, g_nuser, pc) || (ssp && ssp == sp && at_syscall(pc));
    if (res == RES_NONE && main_waits && movable && weft_self(&self) == WEFT_OK &&
        self != g_main_unit && weft_thread_get_arg(self, &arg) == WEFT_OK && arg) {
        /* Only the initial thread waits here: move the spinner instead.
         * Its hold is its own thread's (the worker's struct, even when it
         * is thread 0 of a nested team now). */
        int err = *omp_errno();
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
            *omp_errno() = err;
            WEFT_TLS(omp_t_beat) = NULL;
            omp_beat(); /* this OS thread's stream's beat: held by a thread now */
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

/* /proc/self/task/<tid>/<what> (tid 0: the calling thread's), as a
 * string in buf. */
static bool task_file(pid_t tid, const char *what, char *buf, size_t size)
{
    char path[64];
    if (tid) snprintf(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, what);
    else snprintf(path, sizeof path, "/proc/thread-self/%s", what);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return true;
}

/* Is OS thread `tid` running or runnable (not asleep, not blocked)? */
static bool thread_running(pid_t tid)
{
    char buf[256];
    if (!task_file(tid, "stat", buf, sizeof buf)) return false;
    const char *p = strrchr(buf, ')'); /* after the command name, which may hold anything */
    return p && p[1] == ' ' && p[2] == 'R';
}

/* Whether OS thread `tid` waits in the kernel inside a call that the
 * kernel restarts after a handler with SA_RESTART (signal(7)), and its
 * stack pointer there. /proc/<tid>/syscall: the call's number, its six
 * arguments, sp, pc ("running" or "-1 ..." when in no call). */
static bool blocked_restartable(pid_t tid, long *call, uintptr_t *sp, bool *self_ok)
{
    char buf[256];
    if (!task_file(tid, "syscall", buf, sizeof buf)) return false;
    long nr;
    unsigned long a[6], usp;
    if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx %lx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &usp) != 8)
        return false;
    bool ok = false;
    *self_ok = false;
    switch (nr) {
    case SYS_read:
    case SYS_readv: {
        /* from a pipe or a terminal (a socket with a time-out, or a file
         * of a FUSE file system, may return EINTR) */
        struct stat st;
        ok = fstat((int)a[0], &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
        break;
    }
    case SYS_write: {
        /* to a pipe, at most PIPE_BUF bytes: all or nothing. A longer one,
         * or to anything else, may return cut short by the signal. */
        struct stat st;
        ok = a[2] <= PIPE_BUF && fstat((int)a[0], &st) == 0 && S_ISFIFO(st.st_mode);
        break;
    }
    case SYS_wait4:
    case SYS_waitid:
        ok = *self_ok = true;
        break;
    case SYS_flock:
    case SYS_fcntl:
        ok = true;
        break;
    case SYS_futex: {
        /* without a time-out (its fourth argument): one with a time-out
         * returns EINTR. WAIT_BITSET is glibc's wait of a condition
         * variable or a semaphore, which holds nothing of its OS thread:
         * the thread itself may move (its lock waits, FUTEX_WAIT, may be
         * a stdio lock's, whose owner is the OS thread). */
        int op = (int)(a[1] & FUTEX_CMD_MASK);
        ok = a[3] == 0 && (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI);
        *self_ok = ok && op == FUTEX_WAIT_BITSET;
        break;
    }
    default:
        break;
    }
    *call = nr;
    *sp = (uintptr_t)usp;
    return ok;
}

/* Can the watchdog read which call a thread waits in? Not under an
 * emulator (qemu-user shows the host's call numbers): this thread, in a
 * read of its own file, must read as SYS_read. */
static bool g_syscalls_known;
static void syscalls_probe(void)
{
    char buf[256];
    long nr;
    g_syscalls_known = task_file(0, "syscall", buf, sizeof buf) && sscanf(buf, "%ld", &nr) == 1 && nr == SYS_read;
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

/* Is the handler still ours? A program may have put its own in since. */
static bool handler_ours(void)
{
    struct sigaction cur;
    return sigaction(RESCUE_SIG, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal;
}

/* Move threads off stream k, one per request, while more wait there
 * (blocked_sp: the thread holding it is blocked in the kernel in call
 * number blocked_call, at that stack pointer). Whether one moved. */
static bool rescue_stream(int k, pid_t tid, long blocked_call, uintptr_t blocked_sp, bool self_ok)
{
    struct watch *w = &g_watch[k];
    int busy = 0;
    bool moved = false;
    uint32_t beat = atomic_load_explicit(&w->beat, memory_order_relaxed);
    atomic_store_explicit(&w->self_sp, self_ok ? blocked_sp : 0, memory_order_relaxed);
    for (int round = 0; round < OMP_MAX_STREAMS + BUSY_RETRIES; round++) {
        if (!handler_ours()) return moved;
        /* Blocked: still in the same call (a thread moved before may have
         * let it go on, into a call a signal would cut short). */
        long call;
        uintptr_t sp;
        bool again;
        if (blocked_sp && (!blocked_restartable(tid, &call, &sp, &again) || call != blocked_call || sp != blocked_sp))
            return moved;
        /* A stream made now is a thread of this one: with the program's
         * signal mask, not the watchdog's (which blocks everything). */
        sigset_t all;
        pthread_sigmask(SIG_SETMASK, &g_mask, &all);
        int r = omp_stream_take_spare(k);
        pthread_sigmask(SIG_SETMASK, &all, NULL);
        if (r < 0) return moved;
        weft_xstream xs;
        weft_pool p;
        int np;
        if (weft_xstream_get(r, &xs) != WEFT_OK || weft_xstream_get_pools(xs, 1, &p, &np) != WEFT_OK || np < 1) {
            omp_stream_release(r);
            return moved;
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
            return moved;
        }
        /* The answer comes within microseconds; if not (a loaded
         * machine, or the program replaced the handler), the watchdog
         * takes it when it comes (watchdog()). */
        for (int i = 0; i < 1000 && atomic_load_explicit(&w->ack, memory_order_acquire) != req; i++) sleep_ns(100000);
        if (atomic_load_explicit(&w->ack, memory_order_acquire) != req) return true; /* answered later */
        int res = atomic_load_explicit(&w->result, memory_order_relaxed);
        moved |= res == RES_MOVED || res == RES_SELF;
        if (finish(w)) continue;
        /* Asked again while the stream still runs the same thread */
        if (res != RES_BUSY || ++busy > BUSY_RETRIES || atomic_load_explicit(&w->beat, memory_order_relaxed) != beat ||
            !thread_running(tid))
            return moved;
        sleep_ns(BUSY_GAP_NS);
    }
    return moved;
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
                w->backoff = 0;
                continue;
            }
            /* bit 0: no OpenMP thread holds the stream (omp_beat_away) */
            if ((b & 1) || now - w->since < limit) continue;
            bool running = thread_running(tid);
            if (!running && now - w->since < (limit << w->backoff)) continue;
            w->since = now;
            uintptr_t sp;
            long call;
            bool self_ok;
            if (running) {
                w->backoff = 0;
                rescue_stream(k, tid, 0, 0, false);
            } else if (g_syscalls_known && blocked_restartable(tid, &call, &sp, &self_ok) && sp) {
                if (!rescue_stream(k, tid, call, sp, self_ok) && w->backoff < 5) w->backoff++;
            }
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
    static bool atfork_set; /* called again in a child of fork() that starts weft again */
    if (!atfork_set) pthread_atfork(NULL, NULL, at_fork_child);
    atfork_set = true;
}

void omp_rescue_arm_slow(void)
{
    pthread_mutex_lock(&g_arm_lock);
    if (atomic_load_explicit(&omp_rescue_armed, memory_order_relaxed)) goto out;
    atomic_store_explicit(&omp_rescue_armed, true, memory_order_relaxed);
    if (!RESCUE_SUPPORTED || omp_g.rescue_ms <= 0) goto out;
    omp_beat(); /* the caller's stream: its OS thread is known from now on */
    dl_iterate_phdr(collect_ranges, NULL);
    syscalls_probe();
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
