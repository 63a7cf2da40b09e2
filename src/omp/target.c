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

OMP_EXPORT void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                                unsigned short *kinds, unsigned flags, void **depend, void **args)
{
    (void)device;
    (void)flags; /* nowait: running it now is a valid schedule */
    /* As an undeferred task: after its predecessors (depend.c), with a
     * mutexinoutset taken as inout (the region runs after that wait, so
     * it must not count as a member of a set whose mutex it would not
     * hold); later siblings find it complete. */
    if (depend) omp_task_wait_depend(depend, true);
    /* firstprivate variables: a private copy each, aligned as the kind says */
    size_t size = 0, align = 1;
    for (size_t i = 0; i < mapnum; i++)
        if ((kinds[i] & MAP_KIND_MASK) == MAP_FIRSTPRIVATE) {
            size_t a = (size_t)1 << (kinds[i] >> 8);
            if (a > align) align = a;
            size = ((size + a - 1) & ~(a - 1)) + sizes[i];
        }
    void **addrs = hostaddrs;
    char *copies = NULL;
    if (size) {
        addrs = malloc(mapnum * sizeof *addrs);
        copies = aligned_alloc(align, (size + align - 1) & ~(align - 1));
        if (!addrs || !copies) omp_fatal("out of memory running a target region on the host");
        memcpy(addrs, hostaddrs, mapnum * sizeof *addrs);
        size_t at = 0;
        /* A NULL one (an absent Fortran optional argument) stays NULL. */
        for (size_t i = 0; i < mapnum; i++)
            if ((kinds[i] & MAP_KIND_MASK) == MAP_FIRSTPRIVATE && hostaddrs[i]) {
                size_t a = (size_t)1 << (kinds[i] >> 8);
                at = (at + a - 1) & ~(a - 1);
                memcpy(copies + at, hostaddrs[i], sizes[i]);
                addrs[i] = copies + at;
                at += sizes[i];
            }
    }
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
 * does above); with nowait, their maker does not wait (task.c). */
#define TARGET_FLAG_NOWAIT 1
static void data_construct_depend(unsigned flags, void **depend)
{
    if (!depend) return;
    if (flags & TARGET_FLAG_NOWAIT) omp_task_depend_nowait(depend);
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
