/* fork() in a program that uses weft.
 *
 * Only the thread that called fork() runs in the child. The threads of the
 * other streams are gone, with whatever they were in the middle of: units
 * half switched, lists half linked, locks held. Nothing of the parent's
 * runtime can be trusted there, so the child gives all of it up at once:
 * streams, units, pools, schedulers, descriptors and stacks stay where
 * they are, allocated and mapped, and are never freed or read again. The
 * child starts uninitialised, free to call weft_init() for a runtime of
 * its own.
 *
 * What outlives a runtime outlives the fork too: the graveyard of freed
 * objects (obj.c), keys (key.c, through core_hooks), the registry of pools made without a
 * runtime (pool.c). Their locks are taken, in one fixed order, before the
 * fork, so that the child finds them free and what they guard whole. So
 * is the global lock: the tables under it are dropped, but nobody is
 * halfway through them then, and the child gets the lock free instead of
 * making a held mutex new (which POSIX leaves undefined). The init lock is
 * not taken: a fork during weft_init() or weft_finalize() is undefined,
 * and the child makes it new. Spin locks whose data the child drops (the
 * sleepers list) are reset.
 *
 * Sync objects need nothing here: one that nobody used at the moment of
 * the fork is as good in the child as in the parent; one in use then (a
 * held mutex, a queue of waiting units) is undefined there, as with
 * pthreads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "internal.h"
#include "sys.h"

static pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;

/* What children of forks gave up (fork_keep): blocks of pointers, the
 * newest first, reachable from here so that a leak checker at the exit of
 * a child, grandchild, ... does not report any ancestor's runtime as lost.
 * Never read (`used`: else the compiler drops stores nothing reads). */
struct kept {
    struct kept *next;
    int n;
    void *p[30];
};
static struct kept *g_kept __attribute__((used));

void fork_keep(void *p)
{
    if (!p) return;
    if (!g_kept || g_kept->n == (int)(sizeof g_kept->p / sizeof g_kept->p[0])) {
        struct kept *k = sys_calloc(1, sizeof *k);
        if (!k) return; /* a leak checker may then speak; nothing else changes */
        k->next = g_kept;
        g_kept = k;
    }
    g_kept->p[g_kept->n++] = p;
}

/* The stacks a child forked by a unit may run on: that unit's own and its
 * stream's scheduler context's (a tasklet's), for weft_init() to give the
 * new main ULT the right bounds. */
static struct {
    void *lo;
    size_t size;
} g_fork_stacks[2];

/* Lock order: the global lock, pools, schedulers, the layers above
 * (core_hooks: keys), graveyard, handle memory, topology. Weft itself
 * holds one of them while it takes another only in that order: finalize
 * reads the scheduler registry under the pool registry's lock. It pins the
 * pools it will empty and lets the registry's lock go before it pops from
 * them (pool.c: pool_pin), so no user pool operation runs under these
 * locks. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&weft_g.lock);
    pools_fork_lock();
    scheds_fork_lock();
    if (core_hooks.fork_lock) core_hooks.fork_lock();
    obj_fork_lock();
    handles_fork_lock();
    topo_fork_lock();
}

static void fork_parent(void)
{
    topo_fork_unlock();
    handles_fork_unlock();
    obj_fork_unlock();
    if (core_hooks.fork_unlock) core_hooks.fork_unlock();
    scheds_fork_unlock();
    pools_fork_unlock();
    pthread_mutex_unlock(&weft_g.lock);
}

/* The child of a live runtime, its locks still held: forget the parent's
 * runtime, and undo on this thread what weft_finalize() would have. */
static void runtime_abandon(void)
{
    struct weft_xstream_s *xs = WEFT_TLS(weft_tls_xs);
    g_fork_stacks[0].lo = g_fork_stacks[1].lo = NULL;
    g_fork_stacks[0].size = g_fork_stacks[1].size = 0;
    if (xs) {
        /* This thread was a stream: the unit that forked goes on as a
         * plain thread, on its own stack or its scheduler's. */
        struct weft_unit_s *u = xs->cur, *s = xs->sched_unit;
        if (u) {
            g_fork_stacks[0].lo = u->stack_lo;
            g_fork_stacks[0].size = u->stack_size;
        }
        if (s) {
            g_fork_stacks[1].lo = s->stack_lo;
            g_fork_stacks[1].size = s->stack_size;
        }
        guard_remove_thread(xs); /* its signal stack, if still weft's */
    }
    guard_remove_handler(); /* the program's SIGSEGV and SIGBUS actions, if still weft's */
    /* The topology goes; a stream's thread gets back the CPU mask weft was
     * given, a plain thread keeps its own. */
    cpu_set_t own;
    bool keep = !xs && sched_getaffinity(0, sizeof own, &own) == 0;
    topo_finalize();
    if (keep) sched_setaffinity(0, sizeof own, &own);

    fork_keep(weft_g.streams);
    fork_keep(weft_g.dead_streams);
    fork_keep(weft_g.owned_scheds);
    weft_g.streams = NULL;
    weft_g.streams_cap = weft_g.streams_used = 0;
    atomic_store_explicit(&weft_g.n_streams, 0, memory_order_relaxed);
    weft_g.primary = NULL;
    weft_g.dead_streams = NULL;
    weft_g.owned_scheds = NULL;
    weft_g.n_owned_scheds = weft_g.owned_scheds_cap = 0;
    weft_g.main_unit = NULL;
    atomic_store_explicit(&weft_g.ext_created, 0, memory_order_relaxed);
    atomic_store_explicit(&weft_g.ext_finished, 0, memory_order_relaxed);
    mem_fork_abandon();
    pools_fork_abandon();
    scheds_fork_abandon();
    idle_fork_abandon();
}

static void fork_child(void)
{
    topo_fork_unlock(); /* first: runtime_abandon() lets the topology go */
    if (atomic_load_explicit(&weft_g.initialized, memory_order_relaxed)) runtime_abandon();
    WEFT_TLS(weft_tls_xs) = NULL;
    /* Plain threads counted in a call (ext_enter) are gone with the
     * parent's other threads; a finalize in the child must not wait for
     * them. */
    atomic_store_explicit(&weft_g.ext_active, 0, memory_order_relaxed);
    atomic_store_explicit(&weft_g.closing, 0, memory_order_relaxed);
    atomic_store_explicit(&weft_g.initialized, 0, memory_order_release);
    runtime_fork_child();
    handles_fork_child();
    obj_fork_unlock();
    if (core_hooks.fork_unlock) core_hooks.fork_unlock();
    scheds_fork_unlock();
    pools_fork_unlock();
    pthread_mutex_unlock(&weft_g.lock);
}

static void fork_register_once(void)
{
    /* Without the handlers a fork still works, unprotected: nothing to
     * report to anyone if registration fails. */
    (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void fork_register(void)
{
    pthread_once(&g_fork_once, fork_register_once);
}

/* At load: sync objects, keys and pools need no weft_init(), and a fork
 * while other threads use them must not leave a lock held in the child.
 * (weft_init() calls fork_register() too, which also links this file into
 * programs built against the static library.) */
__attribute__((constructor)) static void fork_register_at_load(void)
{
    fork_register();
}

bool fork_stack(const void *addr, void **lo, size_t *size)
{
    uintptr_t a = (uintptr_t)addr;
    for (int i = 0; i < 2; i++) {
        uintptr_t l = (uintptr_t)g_fork_stacks[i].lo;
        if (l && a >= l && a < l + g_fork_stacks[i].size) {
            *lo = g_fork_stacks[i].lo;
            *size = g_fork_stacks[i].size;
            return true;
        }
    }
    return false;
}
