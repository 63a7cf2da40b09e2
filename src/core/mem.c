/* Memory for work units.
 *
 * Descriptors come from slabs that live until weft_finalize(): a stale
 * handle always points at readable memory whose magic word says "dead".
 * A ULT descriptor keeps its stack when it is freed, so the next ULT created
 * on that stream gets both without a system call (seed 004 section 3.3:
 * per-stream memory pools). Each stream caches up to CACHE_MAX descriptors
 * of each sort; the surplus goes to a global list (under a lock), and global
 * stacks above GLOBAL_STACKS_MAX go back to the OS.
 *
 * Stacks are mmap'ed with a PROT_NONE guard page below them; the SIGSEGV
 * handler, running on an alternate signal stack, names the ULT whose stack
 * overflowed into its guard. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fiber_hooks.h"
#include "internal.h"

#define SLAB_UNITS 64
#define CACHE_MAX 1024
#define GLOBAL_STACKS_MAX 4096
#define ALTSTACK_SIZE (64 * 1024)

struct slab {
    struct slab *next;
    struct weft_unit_s units[SLAB_UNITS];
};

static struct slab *g_slabs;                /* all slabs, freed at finalize */
static struct unit_cache g_plain, g_ult;    /* global lists, under weft_g.lock */

/* ---------- stacks ---------- */

int mem_stack_alloc(struct weft_unit_s *u, size_t size)
{
    size_t guard = weft_g.page_size;
    void *m = mmap(NULL, size + guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return WEFT_ERR_NOMEM;
    if (mprotect(m, guard, PROT_NONE) != 0) {
        munmap(m, size + guard);
        return WEFT_ERR_NOMEM;
    }
    u->stack_map = m;
    u->stack_lo = (char *)m + guard;
    u->stack_size = size;
    hook_stack_register(u);
    return WEFT_OK;
}

void mem_stack_free(struct weft_unit_s *u)
{
    if (!u->stack_map) return;
    hook_stack_deregister(u);
    munmap(u->stack_map, u->stack_size + weft_g.page_size);
    u->stack_map = u->stack_lo = NULL;
    u->stack_size = 0;
}

/* ---------- descriptors ---------- */

static inline struct weft_unit_s *cache_pop(struct unit_cache *c)
{
    struct weft_unit_s *u = c->head;
    if (u) {
        c->head = u->cache_next;
        c->n--;
    }
    return u;
}

static inline void cache_push(struct unit_cache *c, struct weft_unit_s *u)
{
    u->cache_next = c->head;
    c->head = u;
    c->n++;
}

/* Move up to `n` descriptors from a global list into a local one. */
static void cache_refill(struct unit_cache *local, struct unit_cache *global, size_t n)
{
    while (n-- && global->head) cache_push(local, cache_pop(global));
}

/* Under weft_g.lock: a fresh slab into g_plain. */
static int slab_new(void)
{
    struct slab *s = aligned_alloc(CACHE_LINE, sizeof *s);
    if (!s) return WEFT_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->next = g_slabs;
    g_slabs = s;
    for (int i = SLAB_UNITS - 1; i >= 0; i--) {
        atomic_store_explicit(&s->units[i].magic, MAGIC_DEAD, memory_order_relaxed);
        cache_push(&g_plain, &s->units[i]);
    }
    return WEFT_OK;
}

/* A descriptor, with a stack of `stack_size` bytes when `ult`. `xs` is the
 * calling stream (its caches are used) or NULL for a plain thread. */
struct weft_unit_s *mem_unit_alloc(struct weft_xstream_s *xs, bool ult, size_t stack_size)
{
    struct weft_unit_s *u = NULL;
    bool default_stack = ult && stack_size == weft_g.stack_size;

    if (xs && default_stack) u = cache_pop(&xs->ult_cache);
    if (!u && xs) u = cache_pop(&xs->plain_cache);
    if (!u) {
        pthread_mutex_lock(&weft_g.lock);
        if (default_stack && g_ult.head) {
            u = cache_pop(&g_ult);
            if (xs) cache_refill(&xs->ult_cache, &g_ult, 32);
        } else {
            if (!g_plain.head && slab_new() != WEFT_OK) {
                pthread_mutex_unlock(&weft_g.lock);
                return NULL;
            }
            u = cache_pop(&g_plain);
            if (xs) cache_refill(&xs->plain_cache, &g_plain, 32);
        }
        pthread_mutex_unlock(&weft_g.lock);
    }
    if (ult) {
        if (u->stack_map && u->stack_size != stack_size) mem_stack_free(u);
        if (u->stack_map) hook_stack_reuse(u);
        else if (mem_stack_alloc(u, stack_size) != WEFT_OK) {
            mem_unit_release(xs, u);
            return NULL;
        }
    }
    return u;
}

/* Return a descriptor (and its stack) to the caches. */
void mem_unit_release(struct weft_xstream_s *xs, struct weft_unit_s *u)
{
    atomic_store_explicit(&u->magic, MAGIC_DEAD, memory_order_relaxed);
    hook_fiber_destroy(u);
    if (u->stack_map && u->stack_size != weft_g.stack_size) mem_stack_free(u);
    bool has_stack = u->stack_map != NULL;
    if (xs) {
        struct unit_cache *c = has_stack ? &xs->ult_cache : &xs->plain_cache;
        if (c->n < CACHE_MAX) {
            cache_push(c, u);
            return;
        }
    }
    pthread_mutex_lock(&weft_g.lock);
    if (has_stack && g_ult.n >= GLOBAL_STACKS_MAX) {
        mem_stack_free(u);
        has_stack = false;
    }
    cache_push(has_stack ? &g_ult : &g_plain, u);
    pthread_mutex_unlock(&weft_g.lock);
}

/* A stream that ends hands its caches to the global lists. */
void mem_cache_flush(struct weft_xstream_s *xs)
{
    struct weft_unit_s *u;
    pthread_mutex_lock(&weft_g.lock);
    while ((u = cache_pop(&xs->ult_cache))) {
        if (g_ult.n >= GLOBAL_STACKS_MAX) {
            mem_stack_free(u);
            cache_push(&g_plain, u);
        } else {
            cache_push(&g_ult, u);
        }
    }
    while ((u = cache_pop(&xs->plain_cache))) cache_push(&g_plain, u);
    pthread_mutex_unlock(&weft_g.lock);
}

/* Release every stack and slab. All streams are gone. */
void mem_finalize(void)
{
    for (struct slab *s = g_slabs; s; s = s->next)
        for (int i = 0; i < SLAB_UNITS; i++) {
            hook_fiber_destroy(&s->units[i]);
            mem_stack_free(&s->units[i]);
        }
    while (g_slabs) {
        struct slab *n = g_slabs->next;
        free(g_slabs);
        g_slabs = n;
    }
    g_plain = (struct unit_cache){0};
    g_ult = (struct unit_cache){0};
}

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

static void chain(int sig, siginfo_t *si, void *uc, const struct sigaction *old)
{
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) old->sa_sigaction(sig, si, uc);
        return;
    }
    if (old->sa_handler == SIG_IGN) return;
    if (old->sa_handler == SIG_DFL) {
        /* Re-raise with the default action: returning re-runs the fault. */
        signal(sig, SIG_DFL);
        return;
    }
    old->sa_handler(sig);
}

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
    struct weft_xstream_s *xs = weft_tls_xs;
    struct weft_unit_s *u = xs ? xs->cur : NULL;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (u && u->stack_map && a >= (uintptr_t)u->stack_map && a < (uintptr_t)u->stack_lo) {
        char buf[256];
        size_t n = put(buf, 0, "weft: stack overflow in ULT ");
        n += fmt_u64(buf + n, u->id, 10);
        n = put(buf, n, " (stack size ");
        n += fmt_u64(buf + n, u->stack_size, 10);
        n = put(buf, n, " bytes; guard page hit at 0x");
        n += fmt_u64(buf + n, a, 16);
        n = put(buf, n, "); raise its stack_size attribute or WEFT_STACK_SIZE\n");
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

void guard_remove_handler(void)
{
    if (!g_handler_installed) return;
    sigaction(SIGSEGV, &g_old_segv, NULL);
    sigaction(SIGBUS, &g_old_bus, NULL);
    g_handler_installed = 0;
}

/* Each stream's OS thread needs its own signal stack: the handler cannot run
 * on the stack that just overflowed. A thread that already has one keeps it. */
int guard_install_thread(struct weft_xstream_s *xs)
{
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return WEFT_OK;
    void *m = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return WEFT_ERR_NOMEM;
    stack_t ss = {.ss_sp = m, .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(m, ALTSTACK_SIZE);
        return WEFT_ERR_SYS;
    }
    xs->altstack = m;
    return WEFT_OK;
}

void guard_remove_thread(struct weft_xstream_s *xs)
{
    if (!xs->altstack) return;
    stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    munmap(xs->altstack, ALTSTACK_SIZE);
    xs->altstack = NULL;
}
