/* weft-omp target constructs on the host. weft-omp has no offload
 * devices (omp_get_num_devices() is 0), so every target region runs on
 * the host, as OpenMP prescribes when no device is available: as a new
 * initial thread whose data environment is the host's own. Mapping
 * clauses then move nothing, except that firstprivate variables get their
 * private copies. Device images that offloading compilers register at
 * start-up are accepted and never used. */
#include <stdlib.h>
#include <string.h>

#include "omp_internal.h"

/* Map kinds and target arguments (GCC's gomp-constants.h). */
#define MAP_KIND_MASK 0xff
#define MAP_FIRSTPRIVATE 0x0c
#define ARG_DEVICE_MASK 0x7f
#define ARG_DEVICE_ALL 0
#define ARG_SUBSEQUENT_PARAM (1 << 7)
#define ARG_ID_MASK (0xff << 8)
#define ARG_THREAD_LIMIT (2 << 8)
#define ARG_VALUE_SHIFT 16

struct region {
    void (*fn)(void *);
    void **hostaddrs;
};

static void run_region(void *arg)
{
    struct region *r = arg;
    r->fn(r->hostaddrs);
}

/* thread_limit from a target region's argument list (0: none). */
static unsigned thread_limit_of(void **args)
{
    if (!args) return 0;
    for (; *args; args++) {
        intptr_t id = (intptr_t)*args;
        intptr_t value;
        if (id & ARG_SUBSEQUENT_PARAM) value = (intptr_t)*++args;
        else value = id >> ARG_VALUE_SHIFT;
        if ((id & ARG_DEVICE_MASK) == ARG_DEVICE_ALL && (id & ARG_ID_MASK) == ARG_THREAD_LIMIT && value > 0)
            return (unsigned)value;
    }
    return 0;
}

#define TARGET_FLAG_NOWAIT 1

/* A target region made into a task (`nowait`): everything it needs, in
 * one block that the task's record copies. Its firstprivate copies are
 * made when the construct is met, so they are at offsets (fp_off, -1 for
 * the other entries), from the block's copies_off, aligned as they need. */
struct target_task {
    void (*fn)(void *);
    size_t mapnum;
    size_t copies_off;
    unsigned thread_limit;
    /* then void *addrs[mapnum], size_t fp_off[mapnum], the copies */
};

static void **tt_addrs(struct target_task *tt) { return (void **)(tt + 1); }
static size_t *tt_fp_off(struct target_task *tt) { return (size_t *)(tt_addrs(tt) + tt->mapnum); }

static void target_task_run(void *arg)
{
    struct target_task *tt = arg;
    void **addrs = tt_addrs(tt);
    size_t *off = tt_fp_off(tt);
    for (size_t i = 0; i < tt->mapnum; i++)
        if (off[i] != (size_t)-1) addrs[i] = (char *)tt + tt->copies_off + off[i];
    struct region r = {tt->fn, addrs};
    omp_run_initial(run_region, &r, tt->thread_limit, 0, 1);
}

/* Where the firstprivate entries' copies go in a block of their own:
 * offsets into off[] (-1 for the others), the size returned, the largest
 * alignment in *align. A NULL one (an absent Fortran optional argument)
 * gets no copy and stays NULL. */
static size_t firstprivate_layout(size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds,
                                  size_t *off, size_t *align)
{
    size_t size = 0;
    *align = 1;
    for (size_t i = 0; i < mapnum; i++) {
        off[i] = (size_t)-1;
        if ((kinds[i] & MAP_KIND_MASK) != MAP_FIRSTPRIVATE || !hostaddrs[i]) continue;
        size_t a = (size_t)1 << (kinds[i] >> 8);
        if (a > *align) *align = a;
        size = (size + a - 1) & ~(a - 1);
        off[i] = size;
        size += sizes[i];
    }
    return size;
}

static void target_nowait(void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                          unsigned short *kinds, void **depend, unsigned thread_limit)
{
    size_t head = sizeof(struct target_task) + mapnum * (sizeof(void *) + sizeof(size_t));
    size_t *off = malloc((mapnum ? mapnum : 1) * sizeof *off);
    if (!off) omp_fatal("out of memory making a target task");
    size_t align, size = firstprivate_layout(mapnum, hostaddrs, sizes, kinds, off, &align);
    if (align < _Alignof(max_align_t)) align = _Alignof(max_align_t);
    size_t copies_off = (head + align - 1) & ~(align - 1);
    size_t total = (copies_off + size + align - 1) & ~(align - 1);
    struct target_task *tt = aligned_alloc(align, total);
    if (!tt) omp_fatal("out of memory making a target task");
    tt->fn = fn;
    tt->mapnum = mapnum;
    tt->copies_off = copies_off;
    tt->thread_limit = thread_limit;
    if (mapnum) {
        memcpy(tt_addrs(tt), hostaddrs, mapnum * sizeof(void *));
        memcpy(tt_fp_off(tt), off, mapnum * sizeof(size_t));
    }
    for (size_t i = 0; i < mapnum; i++)
        if (off[i] != (size_t)-1) memcpy((char *)tt + copies_off + off[i], hostaddrs[i], sizes[i]);
    free(off);
    omp_task_deferred(target_task_run, tt, (long)total, (long)align, depend);
    free(tt);
}

OMP_EXPORT void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                                unsigned short *kinds, unsigned flags, void **depend, void **args)
{
    (void)device;
    /* nowait: a task, so its maker goes on (as libgomp's target task). */
    if (flags & TARGET_FLAG_NOWAIT) {
        target_nowait(fn, mapnum, hostaddrs, sizes, kinds, depend, thread_limit_of(args));
        return;
    }
    /* As an undeferred task: after its predecessors (depend.c), with a
     * mutexinoutset taken as inout (the region runs after that wait, so
     * it must not count as a member of a set whose mutex it would not
     * hold); later siblings find it complete. */
    if (depend) omp_task_wait_depend(depend, true);
    /* firstprivate variables: a private copy each, aligned as the kind says */
    size_t off_small[16];
    size_t *off = mapnum <= 16 ? off_small : malloc(mapnum * sizeof *off);
    if (!off) omp_fatal("out of memory running a target region on the host");
    size_t align, size = firstprivate_layout(mapnum, hostaddrs, sizes, kinds, off, &align);
    void **addrs = hostaddrs;
    char *copies = NULL;
    if (size) {
        addrs = malloc(mapnum * sizeof *addrs);
        copies = aligned_alloc(align, (size + align - 1) & ~(align - 1));
        if (!addrs || !copies) omp_fatal("out of memory running a target region on the host");
        for (size_t i = 0; i < mapnum; i++) {
            addrs[i] = hostaddrs[i];
            if (off[i] != (size_t)-1) {
                memcpy(copies + off[i], hostaddrs[i], sizes[i]);
                addrs[i] = copies + off[i];
            }
        }
    }
    if (off != off_small) free(off);
    struct region r = {fn, addrs};
    omp_run_initial(run_region, &r, thread_limit_of(args), 0, 1);
    if (size) {
        free(copies);
        free(addrs);
    }
}

/* OpenMP 4.0's entry, without firstprivate copies. */
OMP_EXPORT void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum, void **hostaddrs,
                            size_t *sizes, unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)sizes, (void)kinds;
    struct region r = {fn, hostaddrs};
    omp_run_initial(run_region, &r, 0, 0, 1);
}

/* Data constructs: the host's memory is the device's. */
OMP_EXPORT void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

OMP_EXPORT void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                     unsigned short *kinds)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

OMP_EXPORT void GOMP_target_end_data(void) {}

OMP_EXPORT void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                                   unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

/* With depend, these are tasks that move nothing: they wait for their
 * predecessors, and later siblings find them complete (as a target region
 * does above); with nowait, their maker does not wait: an empty deferred
 * task, as libgomp makes one. */
static void data_construct_depend(unsigned flags, void **depend)
{
    if (!depend) return;
    if (flags & TARGET_FLAG_NOWAIT) omp_task_deferred(omp_task_nothing, NULL, 0, 1, depend);
    else omp_task_wait_depend(depend, true);
}

OMP_EXPORT void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                       unsigned short *kinds, unsigned flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    data_construct_depend(flags, depend);
}

OMP_EXPORT void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                            unsigned short *kinds, unsigned flags, void **depend)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    data_construct_depend(flags, depend);
}

/* `teams` inside a target region run on the host (OpenMP 4.0 entry): one
 * team, with its thread limit. */
OMP_EXPORT void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    (void)num_teams;
    if (thread_limit) omp_icv()->thread_limit = thread_limit;
}

/* Device images of offloading compilers: there is no device to load them. */
OMP_EXPORT void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                                          const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

OMP_EXPORT void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                            const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

OMP_EXPORT void GOMP_offload_register(const void *host_table, int target_type, const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

OMP_EXPORT void GOMP_offload_unregister(const void *host_table, int target_type, const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}
