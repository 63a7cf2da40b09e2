/* Handle memory: every object a public handle points at (unit descriptors,
 * streams, pools, schedulers, synchronisation objects, keys) lives in one
 * region of address space that weft reserves once per process. A handle
 * check first asks whether the pointer falls in the part of that region
 * already made readable, one subtraction and one comparison, and only then
 * reads the object's magic word: a pointer weft never handed out (NULL
 * plus a little, a non-canonical address, a heap or stack address, a
 * freed handle of another library) is refused without being dereferenced.
 *
 * The region is reserved inaccessible (PROT_NONE), aligned to 2 MiB and
 * marked for transparent huge pages, and made readable and writable from
 * its start, a huge page at a time, as objects are carved from it (a bump
 * pointer under a lock); nothing in it is ever unmapped, so a stale
 * handle, even after weft_finalize(), reads memory that says "dead".
 * Objects are reused (the graveyard in obj.c, spare slabs and
 * streams), so the region grows to the most objects alive at once.
 *
 * Its size: HANDLE_RESERVE, or a sixteenth of RLIMIT_AS when that is lower,
 * halved until the kernel grants it. Memory is charged as it is made
 * writable (the reservation is not MAP_NORESERVE: a strict overcommit
 * policy refuses the mprotect), and a commit that would take the process
 * past RLIMIT_AS, counting the usable part as if mapped beside the
 * reservation, is refused as a plain allocation would be. An exhausted region, or a refused commit,
 * is WEFT_ERR_NOMEM for the creation that needed it.
 *
 * Faulting ahead. A program that keeps many objects alive (units joined
 * and never freed) carves new memory all the time, and the kernel zeroes
 * each huge page on its first touch, on the creating stream's time. Once
 * the region's used part passes AHEAD_FROM, a helper thread of weft's own,
 * at idle priority and free to run on any CPU weft was given, keeps the
 * next AHEAD bytes past the bump pointer made writable and faulted in
 * (MADV_POPULATE_WRITE), so that a creation finds its memory ready while
 * another CPU has time to spare. Best effort: only without RLIMIT_AS (the
 * memory faulted ahead counts against it), and where the kernel knows the
 * call; the thread ends at weft_finalize() and starts again when needed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "futex.h"
#include "sys.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#define HANDLE_RESERVE ((size_t)16 << 30)
#define HANDLE_MIN ((size_t)16 << 20)
#define COMMIT_STEP ((size_t)2 << 20) /* a huge page */
#define AHEAD_FROM ((size_t)4 << 20)  /* faulting ahead starts once this much is used */
#define AHEAD ((size_t)8 << 20)       /* and keeps this much ready past the bump pointer */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

_Atomic uintptr_t handle_base WEFT_HIDDEN;
_Atomic size_t handle_lines WEFT_HIDDEN;
static size_t g_committed; /* under g_lock */

static size_t g_reserved;
static size_t g_used; /* under g_lock */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void region_reserve(void)
{
    size_t size = HANDLE_RESERVE;
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur / 16 < size)
        size = (size_t)r.rlim_cur / 16;
    size &= ~(COMMIT_STEP - 1);
    for (; size >= HANDLE_MIN; size /= 2) {
        /* Aligned to a huge page, and marked for transparent huge pages:
         * descriptors made for the first time (units created and never
         * freed) then cost a fault per 2 MiB, not one per 4 KiB. Where the
         * system has THP off, small pages, as before. */
        char *raw = sys_mmap(NULL, size + COMMIT_STEP, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) continue;
        char *m = (char *)(((uintptr_t)raw + COMMIT_STEP - 1) & ~(uintptr_t)(COMMIT_STEP - 1));
        if (m > raw) munmap(raw, (size_t)(m - raw));
        if (m + size < raw + size + COMMIT_STEP) munmap(m + size, (size_t)(raw + size + COMMIT_STEP - (m + size)));
        (void)madvise(m, size, MADV_HUGEPAGE);
#if defined(__SANITIZE_ADDRESS__)
        /* Objects here point at heap memory (an eventual's value, a pool's
         * ring): the leak checker must scan them. */
        __lsan_register_root_region(m, size);
#endif
        g_reserved = size;
        atomic_store_explicit(&handle_base, (uintptr_t)m, memory_order_release);
        return;
    }
}

/* Would the usable part of the region grow by `add` bytes past RLIMIT_AS,
 * were that part mappings of its own beside the reservation? (The
 * reservation counts whole in the process's size, so a limit set after it,
 * "what we use now plus so much", binds as the program meant.) */
static bool commit_over_limit(size_t committed, size_t add)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return false;
    char buf[64];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    size_t vm = (size_t)strtoull(buf, NULL, 10) * (size_t)sysconf(_SC_PAGESIZE);
    return vm + committed + add > (size_t)r.rlim_cur;
}

/* ---------- faulting ahead ---------- */

/* Written under g_lock; the helper reads them without it: at idle
 * priority it may be kept off the CPU for long, and must never be so
 * while creators wait for the lock. */
static struct {
    _Atomic size_t target;    /* the helper faults in up to here */
    _Atomic size_t from;      /* and not below here (the creators' own part) */
    _Atomic bool off;         /* not here (RLIMIT_AS, an old kernel, no thread) */
    bool running;             /* under g_lock: the helper exists */
    _Atomic uintptr_t epoch;  /* a helper of an older epoch ends */
    pthread_t thread;         /* under g_lock */
    _Atomic uint32_t seq;     /* bumped on every change: the helper's futex word */
} g_ahead;

static void ahead_wake(void)
{
    atomic_fetch_add_explicit(&g_ahead.seq, 1, memory_order_release);
    futex_wake(&g_ahead.seq, INT_MAX); /* an ending helper of an older epoch may be waiting too */
}

static void *ahead_main(void *arg)
{
    uintptr_t epoch = (uintptr_t)arg;
    char *base = (char *)atomic_load_explicit(&handle_base, memory_order_acquire);
    size_t done = 0;
    struct sched_param none = {0};
    pthread_setname_np(pthread_self(), "weft-ahead");
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &none); /* only on time no one else wants */
    topo_unbind_self();
    for (;;) {
        uint32_t seq = atomic_load_explicit(&g_ahead.seq, memory_order_acquire);
        if (atomic_load_explicit(&g_ahead.epoch, memory_order_acquire) != epoch) return NULL;
        size_t target = atomic_load_explicit(&g_ahead.target, memory_order_acquire);
        size_t from = atomic_load_explicit(&g_ahead.from, memory_order_relaxed);
        if (done < from) done = from;
        if (done >= target) {
            futex_wait(&g_ahead.seq, seq, NULL);
            continue;
        }
        /* A huge page at a time, so a creator catching up meets a page
         * that is either ready or not started. (The range was made writable
         * before it was requested, and nothing in it is ever unmapped.) */
        if (madvise(base + done, COMMIT_STEP, MADV_POPULATE_WRITE) != 0) {
            if (errno == EINTR || errno == EAGAIN) continue; /* the same huge page again */
            /* EINVAL: a kernel without the call; ENOMEM: memory is short. */
            atomic_store_explicit(&g_ahead.off, true, memory_order_relaxed);
            return NULL;
        }
        done += COMMIT_STEP;
    }
}

/* Under g_lock, the region's used part past AHEAD_FROM: make the next AHEAD
 * bytes writable and have the helper fault them in. */
static void ahead_request(char *base)
{
    /* Off, or no runtime (objects made before weft_init or after
     * weft_finalize): no helper, which only weft_finalize would end. */
    if (atomic_load_explicit(&g_ahead.off, memory_order_relaxed) ||
        !atomic_load_explicit(&weft_g.initialized, memory_order_relaxed))
        return;
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur != RLIM_INFINITY) {
        atomic_store_explicit(&g_ahead.off, true, memory_order_relaxed);
        return;
    }
    size_t want = (g_used + AHEAD + COMMIT_STEP - 1) & ~(COMMIT_STEP - 1);
    if (want > g_reserved) want = g_reserved;
    if (want > g_committed) {
        if (mprotect(base + g_committed, want - g_committed, PROT_READ | PROT_WRITE) != 0) {
            atomic_store_explicit(&g_ahead.off, true, memory_order_relaxed);
            return;
        }
        g_committed = want;
        atomic_store_explicit(&handle_lines, want / CACHE_LINE, memory_order_release);
    }
    /* What the creators are about to touch themselves is theirs. */
    atomic_store_explicit(&g_ahead.from, (g_used + COMMIT_STEP - 1) & ~(COMMIT_STEP - 1), memory_order_relaxed);
    atomic_store_explicit(&g_ahead.target, want, memory_order_release);
    if (!g_ahead.running) {
        /* Signals stay with the program's threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        uintptr_t epoch = atomic_load_explicit(&g_ahead.epoch, memory_order_relaxed);
        g_ahead.running = pthread_create(&g_ahead.thread, NULL, ahead_main, (void *)epoch) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!g_ahead.running) atomic_store_explicit(&g_ahead.off, true, memory_order_relaxed);
        return;
    }
    ahead_wake();
}

void handle_ahead_stop(void)
{
    pthread_mutex_lock(&g_lock);
    bool running = g_ahead.running;
    pthread_t t = g_ahead.thread;
    atomic_fetch_add_explicit(&g_ahead.epoch, 1, memory_order_release);
    g_ahead.running = false;
    atomic_store_explicit(&g_ahead.target, 0, memory_order_relaxed);
    atomic_store_explicit(&g_ahead.from, 0, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
    if (!running) return;
    ahead_wake();
    pthread_join(t, NULL);
}

void *handle_alloc(size_t size, size_t align)
{
    pthread_once(&g_once, region_reserve);
    char *base = (char *)atomic_load_explicit(&handle_base, memory_order_acquire);
    if (!base || fault_inject()) return NULL;
    pthread_mutex_lock(&g_lock);
    /* Aligned as an address, not as an offset: slabs find themselves by
     * masking a descriptor's address (mem_cache.h, slab_of). */
    size_t at = (((uintptr_t)base + g_used + align - 1) & ~(uintptr_t)(align - 1)) - (uintptr_t)base;
    if (at + size < at || at + size > g_reserved) {
        pthread_mutex_unlock(&g_lock);
        return NULL;
    }
    size_t committed = g_committed;
    if (at + size > committed) {
        size_t want = (at + size + COMMIT_STEP - 1) & ~(COMMIT_STEP - 1);
        if (want > g_reserved) want = g_reserved;
        if (commit_over_limit(committed, want - committed) ||
            mprotect(base + committed, want - committed, PROT_READ | PROT_WRITE) != 0) {
            pthread_mutex_unlock(&g_lock);
            return NULL;
        }
        /* Release: a thread that sees the new size may read what is there. */
        g_committed = want;
        atomic_store_explicit(&handle_lines, want / CACHE_LINE, memory_order_release);
    }
    g_used = at + size;
    if (g_used >= AHEAD_FROM && g_used + AHEAD > atomic_load_explicit(&g_ahead.target, memory_order_relaxed))
        ahead_request(base);
    pthread_mutex_unlock(&g_lock);
    return base + at;
}

/* fork.c: the child finds the lock free and the bump pointer whole. */
void handles_fork_lock(void) { pthread_mutex_lock(&g_lock); }
void handles_fork_unlock(void) { pthread_mutex_unlock(&g_lock); }

/* The child has no helper: the next request starts one. */
void handles_fork_child(void)
{
    g_ahead.running = false;
    atomic_fetch_add_explicit(&g_ahead.epoch, 1, memory_order_relaxed);
    atomic_store_explicit(&g_ahead.target, 0, memory_order_relaxed);
    atomic_store_explicit(&g_ahead.from, 0, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
}
