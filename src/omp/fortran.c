/* The Fortran entry points of omp_lib (OpenMP 5.1 chapter 3, Fortran
 * bindings), as gfortran calls them: lower case with a trailing
 * underscore, every argument by reference, logical(4) as a 4-byte int
 * (.true. = 1), a CHARACTER argument followed by its length as a hidden
 * size_t at the end of the argument list. The *_8_ forms take
 * integer(8) / logical(8) arguments (omp_lib's generic interfaces pick
 * them); values beyond an int are clamped, as libgomp does.
 *
 * Routines whose omp_lib interface is bind(c) (omp_alloc, omp_target_*,
 * ...) need no entry here. omp_fulfill_event_ is with the tasks (task.c).
 *
 * Locks: integer(omp_lock_kind) has 4 bytes, the size of omp_lock_t, and
 * is used as one; integer(omp_nest_lock_kind) has 8, too few for the
 * 16-byte OpenMP 3.0 nest lock, so it holds a pointer to one allocated by
 * omp_init_nest_lock (freed by omp_destroy_nest_lock). The OMP_1.0
 * versions work on the OpenMP 2.5 locks of lock.c, whose 8 bytes fit. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"

static int to_int(int64_t v) { return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v; }

/* ---------- threads, nesting, schedule ---------- */

OMP_EXPORT void omp_set_dynamic_(const int32_t *set) { omp_set_dynamic(*set != 0); }
OMP_EXPORT void omp_set_dynamic_8_(const int64_t *set) { omp_set_dynamic(*set != 0); }
OMP_EXPORT void omp_set_nested_(const int32_t *set) { omp_set_nested(*set != 0); }
OMP_EXPORT void omp_set_nested_8_(const int64_t *set) { omp_set_nested(*set != 0); }
OMP_EXPORT void omp_set_num_threads_(const int32_t *n) { omp_set_num_threads(*n); }
OMP_EXPORT void omp_set_num_threads_8_(const int64_t *n) { omp_set_num_threads(to_int(*n)); }

OMP_EXPORT int32_t omp_get_dynamic_(void) { return omp_get_dynamic() != 0; }
OMP_EXPORT int32_t omp_get_nested_(void) { return omp_get_nested() != 0; }
OMP_EXPORT int32_t omp_in_parallel_(void) { return omp_in_parallel() != 0; }
OMP_EXPORT int32_t omp_in_final_(void) { return omp_in_final() != 0; }
OMP_EXPORT int32_t omp_get_cancellation_(void) { return omp_get_cancellation() != 0; }
OMP_EXPORT int32_t omp_is_initial_device_(void) { return omp_is_initial_device() != 0; }

OMP_EXPORT int32_t omp_get_max_threads_(void) { return omp_get_max_threads(); }
OMP_EXPORT int32_t omp_get_num_procs_(void) { return omp_get_num_procs(); }
OMP_EXPORT int32_t omp_get_num_threads_(void) { return omp_get_num_threads(); }
OMP_EXPORT int32_t omp_get_thread_num_(void) { return omp_get_thread_num(); }
OMP_EXPORT int32_t omp_get_thread_limit_(void) { return omp_get_thread_limit(); }
OMP_EXPORT int32_t omp_get_level_(void) { return omp_get_level(); }
OMP_EXPORT int32_t omp_get_active_level_(void) { return omp_get_active_level(); }
OMP_EXPORT int32_t omp_get_team_num_(void) { return omp_get_team_num(); }
OMP_EXPORT int32_t omp_get_num_teams_(void) { return omp_get_num_teams(); }

OMP_EXPORT double omp_get_wtick_(void) { return omp_get_wtick(); }
OMP_EXPORT double omp_get_wtime_(void) { return omp_get_wtime(); }

OMP_EXPORT void omp_set_schedule_(const int32_t *kind, const int32_t *chunk) { omp_set_schedule(*kind, *chunk); }
OMP_EXPORT void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk)
{
    omp_set_schedule(*kind, to_int(*chunk));
}

OMP_EXPORT void omp_get_schedule_(int32_t *kind, int32_t *chunk)
{
    int k, c;
    omp_get_schedule(&k, &c);
    *kind = k;
    *chunk = c;
}

OMP_EXPORT void omp_get_schedule_8_(int32_t *kind, int64_t *chunk)
{
    int k, c;
    omp_get_schedule(&k, &c);
    *kind = k;
    *chunk = c;
}

OMP_EXPORT void omp_set_max_active_levels_(const int32_t *n) { omp_set_max_active_levels(*n); }
OMP_EXPORT void omp_set_max_active_levels_8_(const int64_t *n) { omp_set_max_active_levels(to_int(*n)); }
OMP_EXPORT int32_t omp_get_max_active_levels_(void) { return omp_get_max_active_levels(); }
OMP_EXPORT int32_t omp_get_supported_active_levels_(void) { return omp_get_supported_active_levels(); }

OMP_EXPORT int32_t omp_get_ancestor_thread_num_(const int32_t *level) { return omp_get_ancestor_thread_num(*level); }
OMP_EXPORT int32_t omp_get_ancestor_thread_num_8_(const int64_t *level)
{
    return omp_get_ancestor_thread_num(to_int(*level));
}
OMP_EXPORT int32_t omp_get_team_size_(const int32_t *level) { return omp_get_team_size(*level); }
OMP_EXPORT int32_t omp_get_team_size_8_(const int64_t *level) { return omp_get_team_size(to_int(*level)); }

OMP_EXPORT int32_t omp_get_proc_bind_(void) { return omp_get_proc_bind(); }
OMP_EXPORT int32_t omp_get_max_task_priority_(void) { return omp_get_max_task_priority(); }

OMP_EXPORT void omp_set_num_teams_(const int32_t *n) { omp_set_num_teams(*n); }
OMP_EXPORT void omp_set_num_teams_8_(const int64_t *n) { omp_set_num_teams(to_int(*n)); }
OMP_EXPORT int32_t omp_get_max_teams_(void) { return omp_get_max_teams(); }
OMP_EXPORT void omp_set_teams_thread_limit_(const int32_t *n) { omp_set_teams_thread_limit(*n); }
OMP_EXPORT void omp_set_teams_thread_limit_8_(const int64_t *n) { omp_set_teams_thread_limit(to_int(*n)); }
OMP_EXPORT int32_t omp_get_teams_thread_limit_(void) { return omp_get_teams_thread_limit(); }

/* ---------- places ---------- */

OMP_EXPORT int32_t omp_get_num_places_(void) { return omp_get_num_places(); }
OMP_EXPORT int32_t omp_get_place_num_procs_(const int32_t *place) { return omp_get_place_num_procs(*place); }
OMP_EXPORT int32_t omp_get_place_num_procs_8_(const int64_t *place)
{
    return omp_get_place_num_procs(to_int(*place));
}
OMP_EXPORT void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids) { omp_get_place_proc_ids(*place, ids); }

OMP_EXPORT void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids)
{
    int p = to_int(*place), n = omp_get_place_num_procs(p);
    for (int i = 0; i < n; i++) ids[i] = omp_g.place_procs[p][i];
}

OMP_EXPORT int32_t omp_get_place_num_(void) { return omp_get_place_num(); }
OMP_EXPORT int32_t omp_get_partition_num_places_(void) { return omp_get_partition_num_places(); }
OMP_EXPORT void omp_get_partition_place_nums_(int32_t *nums) { omp_get_partition_place_nums(nums); }

OMP_EXPORT void omp_get_partition_place_nums_8_(int64_t *nums)
{
    int n = omp_get_partition_num_places();
    if (n <= 0) return;
    int *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp) omp_die("Out of memory allocating %lu bytes", (unsigned long)n * sizeof *tmp);
    omp_get_partition_place_nums(tmp);
    for (int i = 0; i < n; i++) nums[i] = tmp[i];
    free(tmp);
}

/* ---------- devices ---------- */

OMP_EXPORT void omp_set_default_device_(const int32_t *d) { omp_set_default_device(*d); }
OMP_EXPORT void omp_set_default_device_8_(const int64_t *d) { omp_set_default_device(to_int(*d)); }
OMP_EXPORT int32_t omp_get_default_device_(void) { return omp_get_default_device(); }
OMP_EXPORT int32_t omp_get_num_devices_(void) { return omp_get_num_devices(); }
OMP_EXPORT int32_t omp_get_initial_device_(void) { return omp_get_initial_device(); }
OMP_EXPORT int32_t omp_get_device_num_(void) { return omp_get_device_num(); }

OMP_EXPORT int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device_num)
{
    return omp_pause_resource(*kind, *device_num);
}
OMP_EXPORT int32_t omp_pause_resource_all_(const int32_t *kind) { return omp_pause_resource_all(*kind); }

/* ---------- affinity format: Fortran strings ---------- */

/* A NUL-terminated copy of a Fortran string (blanks kept: they are part
 * of a format, as libgomp keeps them). */
static char *c_string(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (!c) omp_die("Out of memory allocating %lu bytes", (unsigned long)len + 1);
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

/* Fill a Fortran string: as much as fits, blank padded. */
static void f_string(char *buf, size_t buflen, const char *s, size_t len)
{
    size_t n = len < buflen ? len : buflen;
    memcpy(buf, s, n);
    memset(buf + n, ' ', buflen - n);
}

OMP_EXPORT void omp_set_affinity_format_(const char *format, size_t format_len)
{
    char *f = c_string(format, format_len);
    omp_set_affinity_format(f);
    free(f);
}

OMP_EXPORT int32_t omp_get_affinity_format_(char *buffer, size_t buffer_len)
{
    char *f = omp_affinity_format_dup();
    if (!f) omp_die("Out of memory allocating the affinity format");
    size_t n = strlen(f);
    f_string(buffer, buffer_len, f, n);
    free(f);
    return to_int((int64_t)n);
}

OMP_EXPORT void omp_display_affinity_(const char *format, size_t format_len)
{
    char *f = c_string(format, format_len);
    omp_display_affinity(f); /* "" (a zero-length string): affinity-format-var */
    free(f);
}

OMP_EXPORT int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len, size_t format_len)
{
    char *f = c_string(format, format_len);
    size_t n = omp_capture_affinity(NULL, 0, f);
    char *s = malloc(n + 1);
    if (!s) omp_die("Out of memory allocating %lu bytes", (unsigned long)n + 1);
    n = omp_capture_affinity(s, n + 1, f);
    f_string(buffer, buffer_len, s, strlen(s));
    free(s);
    free(f);
    return to_int((int64_t)n);
}

/* ---------- allocators (omp_alloc & co. are bind(c)) ---------- */

OMP_EXPORT int64_t omp_init_allocator_(const int64_t *memspace, const int32_t *ntraits, const void *traits)
{
    /* type(omp_alloctrait) is {integer(4) key; integer(8) value}, laid out as omp_alloctrait_t */
    return (int64_t)omp_init_allocator((uintptr_t)*memspace, *ntraits, traits);
}

OMP_EXPORT int64_t omp_init_allocator_8_(const int64_t *memspace, const int64_t *ntraits, const void *traits)
{
    return (int64_t)omp_init_allocator((uintptr_t)*memspace, to_int(*ntraits), traits);
}

OMP_EXPORT void omp_destroy_allocator_(const int64_t *allocator) { omp_destroy_allocator((uintptr_t)*allocator); }
OMP_EXPORT void omp_set_default_allocator_(const int64_t *allocator)
{
    omp_set_default_allocator((uintptr_t)*allocator);
}
OMP_EXPORT int64_t omp_get_default_allocator_(void) { return (int64_t)omp_get_default_allocator(); }

OMP_EXPORT void omp_display_env_(const int32_t *verbose) { omp_display_env(*verbose != 0); }
OMP_EXPORT void omp_display_env_8_(const int64_t *verbose) { omp_display_env(*verbose != 0); }

/* ---------- locks ---------- */

/* OpenMP 3.0 nest lock behind an integer(8) */
static void *nest_ptr(const int64_t *lock) { return (void *)(intptr_t)*lock; }

static void f_init_lock(int32_t *lock) { omp_lock_init_impl(lock); }
static void f_destroy_lock(int32_t *lock) { omp_lock_destroy_impl(lock); }
static void f_set_lock(int32_t *lock) { omp_lock_set_impl(lock); }
static void f_unset_lock(int32_t *lock) { omp_lock_unset_impl(lock); }
static int32_t f_test_lock(int32_t *lock) { return omp_lock_test_impl(lock) != 0; }

static void f_init_nest_lock30(int64_t *lock)
{
    void *l = malloc(OMP_NEST_LOCK30_SIZE);
    if (!l) omp_die("Out of memory allocating %lu bytes", (unsigned long)OMP_NEST_LOCK30_SIZE);
    omp_nest_lock_init30(l);
    *lock = (int64_t)(intptr_t)l;
}

static void f_destroy_nest_lock30(int64_t *lock)
{
    void *l = nest_ptr(lock);
    if (!l) return;
    omp_nest_lock_destroy30(l);
    free(l);
    *lock = 0;
}

static void f_set_nest_lock30(int64_t *lock) { omp_nest_lock_set30(nest_ptr(lock)); }
static void f_unset_nest_lock30(int64_t *lock) { omp_nest_lock_unset30(nest_ptr(lock)); }
static int32_t f_test_nest_lock30(int64_t *lock) { return omp_nest_lock_test30(nest_ptr(lock)); }

static void f_init_nest_lock25(int64_t *lock) { omp_nest_lock_init25(lock); }
static void f_destroy_nest_lock25(int64_t *lock) { omp_nest_lock_destroy25(lock); }
static void f_set_nest_lock25(int64_t *lock) { omp_nest_lock_set25(lock); }
static void f_unset_nest_lock25(int64_t *lock) { omp_nest_lock_unset25(lock); }
static int32_t f_test_nest_lock25(int64_t *lock) { return omp_nest_lock_test25(lock); }

#define ALIAS(impl) __attribute__((alias(#impl), visibility("default")))

/* name_@@OMP_3.0 */
void weft_omp_init_lock__30(int32_t *) ALIAS(f_init_lock);
void weft_omp_destroy_lock__30(int32_t *) ALIAS(f_destroy_lock);
void weft_omp_set_lock__30(int32_t *) ALIAS(f_set_lock);
void weft_omp_unset_lock__30(int32_t *) ALIAS(f_unset_lock);
int32_t weft_omp_test_lock__30(int32_t *) ALIAS(f_test_lock);
void weft_omp_init_nest_lock__30(int64_t *) ALIAS(f_init_nest_lock30);
void weft_omp_destroy_nest_lock__30(int64_t *) ALIAS(f_destroy_nest_lock30);
void weft_omp_set_nest_lock__30(int64_t *) ALIAS(f_set_nest_lock30);
void weft_omp_unset_nest_lock__30(int64_t *) ALIAS(f_unset_nest_lock30);
int32_t weft_omp_test_nest_lock__30(int64_t *) ALIAS(f_test_nest_lock30);
__asm__(".symver weft_omp_init_lock__30, omp_init_lock_@@OMP_3.0");
__asm__(".symver weft_omp_destroy_lock__30, omp_destroy_lock_@@OMP_3.0");
__asm__(".symver weft_omp_set_lock__30, omp_set_lock_@@OMP_3.0");
__asm__(".symver weft_omp_unset_lock__30, omp_unset_lock_@@OMP_3.0");
__asm__(".symver weft_omp_test_lock__30, omp_test_lock_@@OMP_3.0");
__asm__(".symver weft_omp_init_nest_lock__30, omp_init_nest_lock_@@OMP_3.0");
__asm__(".symver weft_omp_destroy_nest_lock__30, omp_destroy_nest_lock_@@OMP_3.0");
__asm__(".symver weft_omp_set_nest_lock__30, omp_set_nest_lock_@@OMP_3.0");
__asm__(".symver weft_omp_unset_nest_lock__30, omp_unset_nest_lock_@@OMP_3.0");
__asm__(".symver weft_omp_test_nest_lock__30, omp_test_nest_lock_@@OMP_3.0");

/* name_@OMP_1.0 */
void weft_omp_init_lock__25(int32_t *) ALIAS(f_init_lock);
void weft_omp_destroy_lock__25(int32_t *) ALIAS(f_destroy_lock);
void weft_omp_set_lock__25(int32_t *) ALIAS(f_set_lock);
void weft_omp_unset_lock__25(int32_t *) ALIAS(f_unset_lock);
int32_t weft_omp_test_lock__25(int32_t *) ALIAS(f_test_lock);
void weft_omp_init_nest_lock__25(int64_t *) ALIAS(f_init_nest_lock25);
void weft_omp_destroy_nest_lock__25(int64_t *) ALIAS(f_destroy_nest_lock25);
void weft_omp_set_nest_lock__25(int64_t *) ALIAS(f_set_nest_lock25);
void weft_omp_unset_nest_lock__25(int64_t *) ALIAS(f_unset_nest_lock25);
int32_t weft_omp_test_nest_lock__25(int64_t *) ALIAS(f_test_nest_lock25);
__asm__(".symver weft_omp_init_lock__25, omp_init_lock_@OMP_1.0");
__asm__(".symver weft_omp_destroy_lock__25, omp_destroy_lock_@OMP_1.0");
__asm__(".symver weft_omp_set_lock__25, omp_set_lock_@OMP_1.0");
__asm__(".symver weft_omp_unset_lock__25, omp_unset_lock_@OMP_1.0");
__asm__(".symver weft_omp_test_lock__25, omp_test_lock_@OMP_1.0");
__asm__(".symver weft_omp_init_nest_lock__25, omp_init_nest_lock_@OMP_1.0");
__asm__(".symver weft_omp_destroy_nest_lock__25, omp_destroy_nest_lock_@OMP_1.0");
__asm__(".symver weft_omp_set_nest_lock__25, omp_set_nest_lock_@OMP_1.0");
__asm__(".symver weft_omp_unset_nest_lock__25, omp_unset_nest_lock_@OMP_1.0");
__asm__(".symver weft_omp_test_nest_lock__25, omp_test_nest_lock_@OMP_1.0");

/* Declared by omp_lib, not exported by libgomp 12 (left local by the
 * version script for now, like their C forms). */
OMP_EXPORT void omp_init_lock_with_hint_(int32_t *lock, const int32_t *hint)
{
    (void)hint;
    f_init_lock(lock);
}

OMP_EXPORT void omp_init_nest_lock_with_hint_(int64_t *lock, const int32_t *hint)
{
    (void)hint;
    f_init_nest_lock30(lock);
}
