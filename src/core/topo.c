/* Topology and binding: hwloc when the build has it, else the Linux
 * affinity calls (the aarch64 cross build has no hwloc to link). Either
 * way weft uses only the CPUs the thread that calls weft_init() may run
 * on (taskset, cgroups, an MPI launcher's binding), and gives that thread
 * its mask back at weft_finalize(). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "internal.h"

static cpu_set_t g_allowed; /* the initial thread's affinity at weft_init() */

static void allowed_save(void)
{
    if (sched_getaffinity(0, sizeof g_allowed, &g_allowed) != 0) CPU_ZERO(&g_allowed);
}

static void allowed_restore(void)
{
    if (CPU_COUNT(&g_allowed) > 0) sched_setaffinity(0, sizeof g_allowed, &g_allowed);
}

/* A helper thread of weft's own (handle.c) may run on any CPU weft was
 * given, whatever the stream that started it is bound to. */
void topo_unbind_self(void)
{
    cpu_set_t set = g_allowed;
    if (CPU_COUNT(&set) > 0) sched_setaffinity(0, sizeof set, &set);
}

#ifdef WEFT_HAVE_HWLOC
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "topo_hwloc.h"

static hwloc_topology_t g_topo;
static int g_topo_ok;
/* Guards g_topo's life against topo_count_cores(), which weft_config_init()
 * may call from any thread while another runs weft_finalize(). */
static pthread_mutex_t g_topo_lock = PTHREAD_MUTEX_INITIALIZER;

/* Is the calling thread the process's only one? (Threads: in
 * /proc/self/status; no answer counts as no.) */
static bool process_single_threaded(void)
{
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nThreads:");
    return p && strtol(p + 9, NULL, 10) == 1;
}

/* hwloc's plugins describe I/O devices (PCI, OpenCL, OpenGL, XML through
 * libxml2), which weft never asks for, and the first hwloc topology of a
 * process loads every plugin installed (libhwloc-plugins, which Debian's
 * libhwloc recommends) with the libraries each needs: X11, ICU, libxml2,
 * the OpenCL loader. On this machine kind that added 7 ms to the start of
 * every OpenMP program on weft-omp (17.5 against 10.6 ms, libgomp 8.6) and
 * 3 MB to its resident memory. hwloc looks for them in HWLOC_PLUGINS_PATH
 * when its components first start (the first topology of the process;
 * they stay while one lives): an empty path, set only for that call and
 * taken away again, keeps them out. Not done when the user set
 * HWLOC_PLUGINS_PATH or HWLOC_PLUGINS_BLACKLIST, when WEFT_HWLOC_PLUGINS=1
 * (a program that wants hwloc's I/O objects for itself while weft runs),
 * or when another thread could read the environment meanwhile. */
static int topo_hwloc_start(hwloc_topology_t *t)
{
    const char *want = getenv("WEFT_HWLOC_PLUGINS");
    bool hide = !getenv("HWLOC_PLUGINS_PATH") && !getenv("HWLOC_PLUGINS_BLACKLIST") &&
                !(want && want[0] == '1' && want[1] == '\0') && process_single_threaded();
    if (hide && setenv("HWLOC_PLUGINS_PATH", "", 1) != 0) hide = false;
    int rc = hwloc_topology_init(t);
    if (hide) unsetenv("HWLOC_PLUGINS_PATH");
    return rc;
}

/* Load the machine's topology, cut down to the calling thread's CPUs.
 * Without hwloc's x86 component: to read each CPU's CPUID it binds the
 * calling thread to every CPU in turn and leaves it on the last, where the
 * first stream created next then tends to start as well (the Linux
 * component reads the same topology from sysfs without moving anyone). */
static int topo_load(hwloc_topology_t *t)
{
    return topo_hwloc_load(t, true);
}

int topo_hwloc_load(hwloc_topology_t *t, bool restrict_to_caller)
{
    if (topo_hwloc_start(t) != 0) return WEFT_ERR_SYS;
    hwloc_topology_set_components(*t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    if (hwloc_topology_load(*t) != 0) {
        hwloc_topology_destroy(*t);
        return WEFT_ERR_SYS;
    }
    cpu_set_t mask;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (restrict_to_caller && set && sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 0 &&
        hwloc_cpuset_from_glibc_sched_affinity(*t, set, &mask, sizeof mask) == 0 &&
        !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(*t), set))
        hwloc_topology_restrict(*t, set, 0); /* on failure the whole machine stays */
    hwloc_bitmap_free(set);
    return WEFT_OK;
}

/* The topology weft_config_init() loaded to count the cores (under
 * g_topo_lock), kept for weft_init(), which takes it when the calling
 * thread's mask is still the one it was cut down to: a load is ~1 ms, a
 * fifth of an OpenMP program's start. */
static hwloc_topology_t g_spare;
static int g_spare_ok;
static cpu_set_t g_spare_mask;

/* The caller's CPU mask (all zero when it cannot be read). */
static void caller_mask(cpu_set_t *m)
{
    if (sched_getaffinity(0, sizeof *m, m) != 0) CPU_ZERO(m);
}

int topo_init(void)
{
    allowed_save();
    hwloc_topology_t t;
    cpu_set_t mask;
    caller_mask(&mask);
    pthread_mutex_lock(&g_topo_lock);
    bool spare = g_spare_ok && CPU_EQUAL(&mask, &g_spare_mask);
    if (spare) {
        t = g_spare;
        g_spare_ok = 0;
    }
    pthread_mutex_unlock(&g_topo_lock);
    if (!spare) {
        int rc = topo_load(&t);
        if (rc) return rc;
    }
    pthread_mutex_lock(&g_topo_lock);
    g_topo = t;
    g_topo_ok = 1;
    pthread_mutex_unlock(&g_topo_lock);
    return WEFT_OK;
}

void topo_finalize(void)
{
    pthread_mutex_lock(&g_topo_lock);
    if (g_topo_ok) {
        hwloc_topology_destroy(g_topo);
        allowed_restore();
    }
    g_topo_ok = 0;
    pthread_mutex_unlock(&g_topo_lock);
}

/* fork.c: a fork while another thread counts cores leaves the child the
 * lock free. */
void topo_fork_lock(void) { pthread_mutex_lock(&g_topo_lock); }
void topo_fork_unlock(void) { pthread_mutex_unlock(&g_topo_lock); }

int topo_num_cores(void)
{
    int n = hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_CORE);
    if (n <= 0) n = hwloc_get_nbobjs_by_type(g_topo, HWLOC_OBJ_PU);
    return n > 0 ? n : 1;
}

/* Cores this process may use, before or after weft_init(). */
int topo_count_cores(void)
{
    pthread_mutex_lock(&g_topo_lock);
    int ok = g_topo_ok, n = ok ? topo_num_cores() : 0;
    pthread_mutex_unlock(&g_topo_lock);
    if (ok) return n;
    hwloc_topology_t t;
    cpu_set_t mask;
    caller_mask(&mask);
    if (topo_load(&t) == WEFT_OK) {
        n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        if (n <= 0) n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        /* Kept for weft_init() (the newest, for its mask). */
        pthread_mutex_lock(&g_topo_lock);
        hwloc_topology_t old = g_spare;
        bool drop = g_spare_ok;
        g_spare = t;
        g_spare_mask = mask;
        g_spare_ok = 1;
        pthread_mutex_unlock(&g_topo_lock);
        if (drop) hwloc_topology_destroy(old);
    }
    return n;
}

int topo_core_cpu(int core)
{
    hwloc_obj_t c = hwloc_get_obj_by_type(g_topo, HWLOC_OBJ_CORE, (unsigned)core);
    if (!c) c = hwloc_get_obj_by_type(g_topo, HWLOC_OBJ_PU, (unsigned)core);
    if (!c || !c->cpuset) return -1;
    return hwloc_bitmap_first(c->cpuset);
}

int topo_cpu_core(int cpu)
{
    hwloc_obj_t pu = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(g_topo, (unsigned)cpu) : NULL;
    hwloc_obj_t c = pu ? hwloc_get_ancestor_obj_by_type(g_topo, HWLOC_OBJ_CORE, pu) : NULL;
    if (c) return (int)c->logical_index;
    return pu ? (int)pu->logical_index : -1;
}

int topo_cpu_valid(int cpu)
{
    return cpu >= 0 && hwloc_bitmap_isset(hwloc_topology_get_allowed_cpuset(g_topo), (unsigned)cpu);
}

int topo_bind_thread(pthread_t t, int cpu)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set) return WEFT_ERR_NOMEM;
    if (cpu < 0) hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(g_topo));
    else hwloc_bitmap_only(set, (unsigned)cpu);
    int rc = hwloc_set_thread_cpubind(g_topo, t, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc == 0 ? WEFT_OK : WEFT_ERR_SYS;
}


/* Where a pair's assistant goes (src/pair). First adds to `allowed` the
 * CPUs weft was given (once weft_init() ran). Then returns the CPU of
 * `allowed` at the lowest level of the hierarchy the CPU `cpu` shares with
 * another: its core (an SMT sibling, *level 0), a cache (*level 1), or only
 * the machine (*level 2); -1 if there is none (*level 3). */
int topo_pair_cpu(int cpu, cpu_set_t *allowed, int *level)
{
    *level = 3;
    pthread_mutex_lock(&g_topo_lock);
    hwloc_topology_t t = g_topo, own = NULL;
    if (!g_topo_ok) {
        if (topo_hwloc_load(&own, false) != WEFT_OK) {
            pthread_mutex_unlock(&g_topo_lock);
            return -1;
        }
        t = own;
    }
    if (CPU_COUNT(&g_allowed) > 0) CPU_OR(allowed, allowed, &g_allowed);
    hwloc_const_bitmap_t usable = hwloc_topology_get_allowed_cpuset(t);
    int found = -1, c;
    hwloc_obj_t pu = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(t, (unsigned)cpu) : NULL;
    for (hwloc_obj_t o = pu ? pu->parent : NULL; o && found < 0; o = o->parent) {
        if (!o->cpuset) continue;
        hwloc_bitmap_foreach_begin(c, o->cpuset)
            if (c != cpu && c < CPU_SETSIZE && CPU_ISSET(c, allowed) && hwloc_bitmap_isset(usable, (unsigned)c)) {
                found = c;
                break;
            }
        hwloc_bitmap_foreach_end();
        if (found >= 0) *level = o->type == HWLOC_OBJ_CORE ? 0 : hwloc_obj_type_is_cache(o->type) ? 1 : 2;
    }
    if (own) hwloc_topology_destroy(own);
    pthread_mutex_unlock(&g_topo_lock);
    return found;
}

#else /* no hwloc */

int topo_init(void)
{
    allowed_save();
    return WEFT_OK;
}

void topo_finalize(void)
{
    allowed_restore();
}

int topo_num_cores(void)
{
    int n = CPU_COUNT(&g_allowed);
    return n > 0 ? n : 1;
}

void topo_fork_lock(void) {}
void topo_fork_unlock(void) {}

int topo_count_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

int topo_core_cpu(int core)
{
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &g_allowed) && seen++ == core) return cpu;
    return -1;
}

int topo_cpu_core(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &g_allowed)) return -1;
    int core = 0;
    for (int c = 0; c < cpu; c++) core += CPU_ISSET(c, &g_allowed) != 0;
    return core;
}

int topo_cpu_valid(int cpu)
{
    return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &g_allowed);
}

int topo_bind_thread(pthread_t t, int cpu)
{
    cpu_set_t set;
    if (cpu < 0) set = g_allowed;
    else {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
    }
    return pthread_setaffinity_np(t, sizeof set, &set) == 0 ? WEFT_OK : WEFT_ERR_SYS;
}

/* Without hwloc: any other CPU of `allowed` (and weft's), as "the machine". */
int topo_pair_cpu(int cpu, cpu_set_t *allowed, int *level)
{
    if (CPU_COUNT(&g_allowed) > 0) CPU_OR(allowed, allowed, &g_allowed);
    *level = 3;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (c != cpu && CPU_ISSET(c, allowed)) {
            *level = 2;
            return c;
        }
    return -1;
}
#endif
