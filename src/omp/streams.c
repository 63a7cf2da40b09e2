/* weft-omp: on which stream each OpenMP thread runs.
 *
 * Two ways, chosen at start (WEFT_OMP_SHARE_STREAMS; `auto` may turn from
 * shared to own once, see below):
 *
 * - shared (the default for most programs): the streams are the CPUs the
 *   process may use and no more; the threads of a team are spread over them
 *   from the encountering thread's stream onwards, and when threads
 *   outnumber streams several share one, as ULTs ([LWT-PM] section 4).
 *
 * - own: no two live OpenMP threads share a stream. A team's worker takes
 *   a stream no other OpenMP thread holds, and a new stream is made when
 *   none is free; it gives it back when its team ends. This is for programs
 *   with thread-local variables of their own (every `threadprivate`
 *   variable is one: gcc makes it a __thread variable). Two ULTs of one OS
 *   thread see the same thread-local storage, so two OpenMP threads sharing
 *   a stream would share their threadprivate copies, and `copyin` would
 *   copy a variable onto itself. The program gets what libgomp gives it,
 *   one OS thread per OpenMP thread, and keeps weft's regions, barriers
 *   and tasks.
 *
 * With shared streams, a thread that spins on a flag could keep the
 * flag's writer, ready on its stream, from running: rescue.c moves such a
 * thread to a stream of its own (a spare one, made beyond the CPUs'), and
 * with `auto` turns later teams to own streams.
 *
 * `auto` (the default) is own when a module loaded at start other than
 * the C, C++ and Fortran runtimes (and this library) has a TLS segment,
 * else shared. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "omp_internal.h"

#define MAX_STREAMS OMP_MAX_STREAMS

static int g_streams = 1;            /* streams in use: the live ones at start, then any made */
static int g_base = 1;               /* the streams at start (one per CPU): shared ones spread over these */
static int g_stream_cpu[MAX_STREAMS]; /* with binding: the CPU stream k is bound to, else -1 */
static bool g_bound;
static _Atomic bool g_own;           /* may change once, from shared to own (omp_streams_rescued) */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_held[MAX_STREAMS]; /* own: the live OpenMP threads on stream k */
static unsigned g_held_total;
static bool g_gone[MAX_STREAMS];     /* own: ended by a pause (make_stream may bring the rank back) */
_Atomic bool omp_streams_crowded;
static weft_wait_policy g_policy; /* the idle policy weft started with */
static long g_spin_us;

/* ---------- which programs need their own streams ---------- */

/* Libraries whose thread-local variables are the OS thread's working state
 * within one call (errno, malloc's cache, I/O state): sharing them between
 * the ULTs of a stream is what a ULT runtime does anyway. rescue.c uses the
 * list too: code in these may be inside that per-thread state. */
static const char *const g_runtimes[] = {
    "libc.so",      "libm.so",         "libmvec.so",     "ld-linux",    "ld64.so",      "libpthread.so",
    "libdl.so",     "librt.so",        "libstdc++.so",   "libgcc_s.so", "libgfortran.so", "libquadmath.so",
    "libasan.so",   "libtsan.so",      "libubsan.so",    "liblsan.so",  "libhwloc.so",  "libudev.so",
    "libnuma.so",   "libgomp.so",      "libatomic.so",   "linux-vdso",  "linux-gate",
};

bool omp_is_runtime_lib(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof g_runtimes / sizeof g_runtimes[0]; i++)
        if (strncmp(base, g_runtimes[i], strlen(g_runtimes[i])) == 0) return true;
    return false;
}

static int tls_probe(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    bool has_tls = false, is_self = false;
    uintptr_t self = (uintptr_t)&omp_streams_init;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_TLS && ph->p_memsz > 0) has_tls = true;
        if (ph->p_type == PT_LOAD && self >= info->dlpi_addr + ph->p_vaddr &&
            self < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
            is_self = true;
    }
    if (has_tls && !is_self && (!info->dlpi_name[0] || !omp_is_runtime_lib(info->dlpi_name))) {
        *(bool *)arg = true;
        return 1;
    }
    return 0;
}

/* Does a module of the program keep thread-local variables of its own?
 * (The executable's name is "".) Asked first thing at start, before weft
 * and OMP_PLACES load the machine's topology: the modules hwloc loads then
 * (its plugins, e.g. the OpenCL loader, which has thread-local variables)
 * are not the program's. */
static int g_program_tls = -1;

void omp_streams_probe(void)
{
    bool found = false;
    dl_iterate_phdr(tls_probe, &found);
    g_program_tls = found;
}

static bool program_has_tls(void)
{
    if (g_program_tls < 0) omp_streams_probe();
    return g_program_tls > 0;
}

/* ---------- binding ---------- */

/* With a proc_bind policy in force and places defined, OpenMP threads run
 * within their places: each stream is bound to one CPU, stream 0 (the
 * initial thread's) to the first CPU of place 0, the others to the CPUs of
 * the places in order; a thread's ULT goes to a stream whose CPU is in its
 * place (omp_stream_pick). */
static void bind_streams(void)
{
    for (int k = 0; k < MAX_STREAMS; k++) g_stream_cpu[k] = -1;
    if (omp_g.num_places <= 0 || omp_g.icv0.bind == OMP_BIND_FALSE) return;
    int k = 0;
    for (int p = 0; p < omp_g.num_places && k < g_streams && k < MAX_STREAMS; p++)
        for (int j = 0; j < omp_g.place_nprocs[p] && k < g_streams && k < MAX_STREAMS; j++) {
            int cpu = omp_g.place_procs[p][j], dup = 0;
            for (int q = 0; q < k; q++) dup |= g_stream_cpu[q] == cpu;
            weft_xstream xs;
            if (dup || weft_xstream_get(k, &xs) != WEFT_OK || weft_xstream_set_cpubind(xs, cpu) != WEFT_OK)
                continue;
            g_stream_cpu[k++] = cpu;
        }
    g_bound = k > 0;
}

static bool place_has(int place, int cpu)
{
    for (int j = 0; j < omp_g.place_nprocs[place]; j++)
        if (omp_g.place_procs[place][j] == cpu) return true;
    return false;
}

_Atomic bool omp_forked;

/* Only the forking thread runs in the child; the lock may have been held
 * by another thread of the parent. */
static void streams_at_fork_child(void)
{
    pthread_mutex_init(&g_lock, NULL);
    atomic_store(&omp_forked, true);
}

void omp_streams_restart(const weft_config *cfg)
{
    memset(g_held, 0, sizeof g_held);
    memset(g_gone, 0, sizeof g_gone);
    g_held_total = 0;
    g_streams = g_base = 1;
    omp_streams_init(cfg);
}

void omp_streams_init(const weft_config *cfg)
{
    static bool atfork_set;
    if (!atfork_set) pthread_atfork(NULL, NULL, streams_at_fork_child);
    atfork_set = true;
    g_policy = cfg->wait_policy;
    g_spin_us = cfg->spin_us;
    weft_xstream_count(&g_streams);
    if (g_streams > MAX_STREAMS) g_streams = MAX_STREAMS;
    g_base = g_streams;
    bind_streams();
    atomic_store(&g_own, omp_g.share_streams == 0 || (omp_g.share_streams < 0 && program_has_tls()));
    g_held[0] = 1; /* the initial thread's */
    g_held_total = 1;
    omp_rescue_init();
}

bool omp_streams_bound(void) { return g_bound; }

/* Under g_lock: a new stream (bound to the first CPU of `place` when
 * `place` >= 0 and the streams are bound). Returns its rank, or -1. */
static int make_stream(int place)
{
    if (g_streams >= MAX_STREAMS) return -1;
    weft_xstream xs;
    int rank;
    if (weft_xstream_create(NULL, &xs) != WEFT_OK || weft_xstream_rank(xs, &rank) != WEFT_OK) return -1;
    if (rank >= MAX_STREAMS) return -1;
    g_gone[rank] = false;
    g_stream_cpu[rank] = -1;
    if (g_bound && place >= 0 && place < omp_g.num_places &&
        weft_xstream_set_cpubind(xs, omp_g.place_procs[place][0]) == WEFT_OK)
        g_stream_cpu[rank] = omp_g.place_procs[place][0];
    if (rank >= g_streams) g_streams = rank + 1;
    return rank;
}

/* own: a stream no OpenMP thread holds (with binding, one bound to a CPU
 * of `place`), else a new one (bound there). Returns its rank, or -1. */
static int take_free(int place)
{
    bool want = g_bound && place >= 0 && place < omp_g.num_places;
    int any = -1;
    for (int k = 0; k < g_streams; k++) {
        if (g_held[k] || g_gone[k]) continue;
        if (!want || (g_stream_cpu[k] >= 0 && place_has(place, g_stream_cpu[k]))) return k;
        if (any < 0) any = k;
    }
    int rank = make_stream(place);
    return rank >= 0 ? rank : any;
}

/* Under g_lock, after a stream was taken or given back. Crowded, an idle
 * stream sleeps at once rather than spin its budget on a CPU that another
 * stream's OpenMP thread needs (unless OMP_WAIT_POLICY=active). */
static void crowding_update(void)
{
    bool now = g_held_total > (unsigned)omp_g.num_procs;
    if (now == atomic_load_explicit(&omp_streams_crowded, memory_order_relaxed)) return;
    atomic_store_explicit(&omp_streams_crowded, now, memory_order_relaxed);
    if (g_policy == WEFT_WAIT_HYBRID) weft_set_wait_policy(WEFT_WAIT_HYBRID, now ? 0 : g_spin_us);
}

/* Worker i's stream, spreading from the encountering thread's stream
 * `first`. A plain thread (first < 0) is on no stream, and stream 0 runs
 * only while the program's main thread is inside the runtime (it may be
 * blocked in pthread_join): its workers go to the other streams. */
static int spread(int place, unsigned i, int first)
{
    int lo = 0, n = g_base;
    if (first < 0) {
        if (g_base > 1) lo = 1, n = g_base - 1;
        first = 0;
    }
    if (g_bound && place >= 0 && place < omp_g.num_places)
        for (int k = 0; k < n; k++) {
            int s = lo + (int)(((unsigned)first + i + (unsigned)k) % (unsigned)n);
            if (g_stream_cpu[s] >= 0 && place_has(place, g_stream_cpu[s])) return s;
        }
    return lo + (int)(((unsigned)first + i) % (unsigned)n);
}

int omp_stream_pick(int place, unsigned i, int first, unsigned outer, bool *held)
{
    *held = false;
    bool own = atomic_load_explicit(&g_own, memory_order_relaxed);
    if (!own) {
        /* Two OpenMP threads on one stream from here on: a spinning one
         * could keep the other from running (rescue.c). */
        if (outer || i >= (unsigned)g_base) omp_rescue_arm();
        /* A nested team inside a team that already has a thread on every
         * stream gains no parallelism from other streams, only hand-overs
         * between them: its workers stay on the encountering thread's
         * stream and run when thread 0 waits, as GLTO runs a nested
         * level's ULTs on the outer thread that meets it ([LWT-PM]
         * section 4.5). */
        if (first >= 0 && first < g_base && outer >= (unsigned)g_base && !g_bound) return first;
        return spread(place, i, first);
    }
    pthread_mutex_lock(&g_lock);
    int s = take_free(place);
    /* Past MAX_STREAMS, or no memory for another stream: share one. */
    if (s < 0) {
        s = spread(place, i, first < 0 ? first : first % g_base);
        while (g_gone[s]) s = (s + 1) % g_base;
    }
    g_held[s]++;
    g_held_total++;
    crowding_update();
    pthread_mutex_unlock(&g_lock);
    *held = true;
    return s;
}

void omp_stream_release(int rank)
{
    if (rank < 0 || rank >= MAX_STREAMS) return;
    pthread_mutex_lock(&g_lock);
    g_held[rank]--;
    g_held_total--;
    crowding_update();
    pthread_mutex_unlock(&g_lock);
}

/* omp_pause_resource with own streams: every stream that no OpenMP
 * thread holds ends, but the primary one and the caller's, so the threads
 * of the next teams start on new OS threads with fresh thread-local
 * (threadprivate) variables, as libgomp's pause ends its threads. Not
 * once the watchdog runs (rescue.c keeps per-rank state of live streams).
 * Shared streams are kept: no program that has thread-local variables of
 * its own shares them (unless told to). */
void omp_streams_pause(void)
{
    if (!atomic_load_explicit(&g_own, memory_order_relaxed) ||
        atomic_load_explicit(&omp_rescue_armed, memory_order_relaxed))
        return;
    weft_xstream self = NULL, xs;
    int mine = -1;
    if (weft_xstream_self(&self) == WEFT_OK && self) weft_xstream_rank(self, &mine);
    pthread_mutex_lock(&g_lock);
    for (int k = 1; k < g_streams; k++) {
        if (k == mine || g_held[k] || g_gone[k]) continue;
        if (weft_xstream_get(k, &xs) != WEFT_OK || !xs) continue;
        if (weft_xstream_join(xs) != WEFT_OK || weft_xstream_free(&xs) != WEFT_OK)
            omp_fatal("could not end a stream at omp_pause_resource");
        g_gone[k] = true;
        g_stream_cpu[k] = -1;
    }
    pthread_mutex_unlock(&g_lock);
}

/* ---------- rescue (rescue.c) ---------- */

int omp_stream_take_spare(int avoid)
{
    pthread_mutex_lock(&g_lock);
    int s = -1;
    for (int k = g_base; k < g_streams && s < 0; k++)
        if (!g_held[k] && !g_gone[k] && k != avoid) s = k;
    if (s < 0) s = make_stream(-1);
    /* With binding, the moved thread stays on its stream's CPU (its place). */
    weft_xstream xs;
    if (s >= 0 && g_bound && avoid >= 0 && avoid < MAX_STREAMS && g_stream_cpu[avoid] >= 0 &&
        g_stream_cpu[s] != g_stream_cpu[avoid] && weft_xstream_get(s, &xs) == WEFT_OK &&
        weft_xstream_set_cpubind(xs, g_stream_cpu[avoid]) == WEFT_OK)
        g_stream_cpu[s] = g_stream_cpu[avoid];
    if (s >= 0) {
        g_held[s]++;
        g_held_total++;
        crowding_update();
    }
    pthread_mutex_unlock(&g_lock);
    return s;
}

void omp_streams_rescued(void)
{
    if (omp_g.share_streams < 0) atomic_store_explicit(&g_own, true, memory_order_relaxed);
}
