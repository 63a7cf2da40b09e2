/* weft-omp: what the user-facing parts of the runtime (env.c, api.c,
 * lock.c, affinity.c, alloc.c, fortran.c) share beyond omp_internal.h.
 * Nothing here is exported. */
#ifndef WEFT_OMP_API_INTERNAL_H
#define WEFT_OMP_API_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "omp_internal.h"

/* ---------- the team routines (team.c, task.c): their omp.h prototypes.
 * Declared here rather than through the system omp.h, whose enums and
 * typedefs the runtime's own code does not use. ---------- */
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
int omp_in_parallel(void);
int omp_in_final(void);
int omp_get_team_num(void);
int omp_get_num_teams(void);

/* The exported routines of env.c, api.c, affinity.c and alloc.c that
 * fortran.c calls (omp.h's prototypes, with int for omp.h's int-sized
 * enums and uintptr_t for its handles). */
void omp_set_num_threads(int num_threads);
int omp_get_max_threads(void);
int omp_get_num_procs(void);
void omp_set_dynamic(int dynamic_threads);
int omp_get_dynamic(void);
void omp_set_nested(int nested);
int omp_get_nested(void);
int omp_get_thread_limit(void);
void omp_set_max_active_levels(int max_levels);
int omp_get_max_active_levels(void);
int omp_get_supported_active_levels(void);
void omp_set_schedule(int kind, int chunk_size);
void omp_get_schedule(int *kind, int *chunk_size);
int omp_get_cancellation(void);
int omp_get_proc_bind(void);
int omp_get_max_task_priority(void);
void omp_set_num_teams(int num_teams);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int thread_limit);
int omp_get_teams_thread_limit(void);
double omp_get_wtime(void);
double omp_get_wtick(void);
void omp_set_default_device(int device_num);
int omp_get_default_device(void);
int omp_get_num_devices(void);
int omp_get_device_num(void);
int omp_is_initial_device(void);
int omp_get_initial_device(void);
int omp_pause_resource(int kind, int device_num);
int omp_pause_resource_all(int kind);
int omp_get_num_places(void);
int omp_get_place_num_procs(int place_num);
void omp_get_place_proc_ids(int place_num, int *ids);
int omp_get_place_num(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int *place_nums);
void omp_set_affinity_format(const char *format);
size_t omp_get_affinity_format(char *buffer, size_t size);
void omp_display_affinity(const char *format);
size_t omp_capture_affinity(char *buffer, size_t size, const char *format);
struct omp_alloctrait;
uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const struct omp_alloctrait *traits);
void omp_destroy_allocator(uintptr_t allocator);
void omp_set_default_allocator(uintptr_t allocator);
uintptr_t omp_get_default_allocator(void);
void omp_display_env(int verbose);

/* ---------- messages (env.c) ---------- */

/* libgomp's diagnostic: "\nlibgomp: <text>\n" on stderr. */
OMP_HIDDEN void omp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then exit(EXIT_FAILURE), as libgomp's fatal errors do
 * (omp_fatal of omp_internal.h with a format). */
OMP_HIDDEN _Noreturn void omp_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The CPUs the process could run on when the runtime started (sorted);
 * %A of the affinity format shows them for a thread without a place. */
extern int *omp_init_cpus OMP_HIDDEN;
extern int omp_init_ncpus OMP_HIDDEN;

/* Append "a-b,c,..." (a CPU list with ranges, as %A prints it) or
 * "a:n,c" (as OMP_PLACES is displayed, places_style) to buf, at most
 * cap bytes including the NUL; returns the length it would have. */
OMP_HIDDEN size_t omp_format_cpus(char *buf, size_t cap, const int *cpus, int n, int places_style);

/* ---------- affinity.c ---------- */

/* Print the calling thread's affinity-format line on stderr (the core
 * calls it when display-affinity-var is true). */
OMP_HIDDEN void omp_affinity_display_thread(void);
/* A malloc'ed copy of affinity-format-var (NULL if out of memory). */
OMP_HIDDEN char *omp_affinity_format_dup(void);

/* ---------- lock.c: the lock routines without their symbol versions,
 * for fortran.c. "30" is the OpenMP 3.0 layout (omp_lock_t 4 bytes,
 * omp_nest_lock_t 16 bytes, owned by tasks), "25" the OpenMP 2.5 layout
 * of the OMP_1.0 symbols (nest lock 8 bytes, owned by threads). ---------- */
OMP_HIDDEN void omp_lock_init_impl(void *lock);
OMP_HIDDEN void omp_lock_destroy_impl(void *lock);
OMP_HIDDEN void omp_lock_set_impl(void *lock);
OMP_HIDDEN void omp_lock_unset_impl(void *lock);
OMP_HIDDEN int omp_lock_test_impl(void *lock);

OMP_HIDDEN void omp_nest_lock_init30(void *lock);
OMP_HIDDEN void omp_nest_lock_destroy30(void *lock);
OMP_HIDDEN void omp_nest_lock_set30(void *lock);
OMP_HIDDEN void omp_nest_lock_unset30(void *lock);
OMP_HIDDEN int omp_nest_lock_test30(void *lock);

OMP_HIDDEN void omp_nest_lock_init25(void *lock);
OMP_HIDDEN void omp_nest_lock_destroy25(void *lock);
OMP_HIDDEN void omp_nest_lock_set25(void *lock);
OMP_HIDDEN void omp_nest_lock_unset25(void *lock);
OMP_HIDDEN int omp_nest_lock_test25(void *lock);

/* Bytes of the OpenMP 3.0 nest lock (omp.h: 8 + sizeof(void *)). */
#define OMP_NEST_LOCK30_SIZE 16

#endif
