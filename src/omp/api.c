/* The omp_* routines that read and set ICVs (OpenMP 5.1 sections 3.2,
 * 3.4-3.7, 3.10), timing (3.10), the device routines of a host with no
 * offload device (3.7, 3.8) and the `error` directive at execution time
 * (2.5.4: GOMP_error, GOMP_warning).
 *
 * Settable per-task ICVs live in the current task's copy (omp_icv());
 * device-wide ones in omp_g. Argument checks and clamping are libgomp
 * 12's as observed: a negative nthreads becomes 1, a negative
 * max-active-levels is ignored, values above 255 become 255, and so on. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_internal.h"

#define MAX_LEVELS 255 /* omp_get_supported_active_levels() */

/* No offload device: the host is device 0 = omp_get_num_devices(), as
 * in libgomp 12 (which does not take omp_initial_device, -1, yet). */
#define HOST_DEVICE 0

/* ---------- threads and nesting ---------- */

OMP_EXPORT void omp_set_num_threads(int num_threads) { omp_icv()->nthreads = num_threads > 0 ? (unsigned)num_threads : 1; }

OMP_EXPORT int omp_get_max_threads(void) { return (int)omp_icv()->nthreads; }

OMP_EXPORT int omp_get_num_procs(void) { return omp_g.num_procs; }

OMP_EXPORT void omp_set_dynamic(int dynamic_threads) { omp_icv()->dyn = dynamic_threads != 0; }

OMP_EXPORT int omp_get_dynamic(void) { return omp_icv()->dyn; }

/* Deprecated in 5.0; kept as max-active-levels-var's alias (5.1 3.2.9). */
OMP_EXPORT void omp_set_nested(int nested)
{
    struct omp_icv *icv = omp_icv();
    if (nested) icv->max_active_levels = MAX_LEVELS;
    else if (icv->max_active_levels > 1) icv->max_active_levels = 1;
}

OMP_EXPORT int omp_get_nested(void)
{
    const struct omp_icv *icv = omp_icv();
    return icv->max_active_levels > 1 && icv->max_active_levels > omp_get_active_level();
}

OMP_EXPORT int omp_get_thread_limit(void)
{
    unsigned tl = omp_icv()->thread_limit;
    return tl > INT_MAX ? INT_MAX : (int)tl;
}

OMP_EXPORT void omp_set_max_active_levels(int max_levels)
{
    if (max_levels >= 0) omp_icv()->max_active_levels = max_levels > MAX_LEVELS ? MAX_LEVELS : max_levels;
}

OMP_EXPORT int omp_get_max_active_levels(void) { return omp_icv()->max_active_levels; }

OMP_EXPORT int omp_get_supported_active_levels(void) { return MAX_LEVELS; }

/* ---------- schedule (omp_sched_t is an int-sized enum) ---------- */

OMP_EXPORT void omp_set_schedule(int kind, int chunk_size)
{
    int base = kind & ~OMP_SCHED_MONOTONIC;
    if (base < OMP_SCHED_STATIC || base > OMP_SCHED_AUTO) return; /* not a schedule: ignored */
    struct omp_icv *icv = omp_icv();
    icv->sched = kind;
    /* auto takes no chunk: libgomp leaves the previous one in place */
    if (base == OMP_SCHED_STATIC) icv->sched_chunk = chunk_size < 1 ? 0 : chunk_size; /* 0: even split */
    else if (base != OMP_SCHED_AUTO) icv->sched_chunk = chunk_size < 1 ? 1 : chunk_size;
}

OMP_EXPORT void omp_get_schedule(int *kind, int *chunk_size)
{
    const struct omp_icv *icv = omp_icv();
    *kind = icv->sched;
    *chunk_size = icv->sched_chunk;
}

/* ---------- other ICVs ---------- */

OMP_EXPORT int omp_get_cancellation(void) { return omp_g.cancel; }

OMP_EXPORT int omp_get_proc_bind(void) { return omp_icv()->bind; }

OMP_EXPORT int omp_get_max_task_priority(void) { return omp_g.max_task_priority; }

OMP_EXPORT void omp_set_num_teams(int num_teams)
{
    if (num_teams >= 0) __atomic_store_n(&omp_g.nteams, num_teams, __ATOMIC_RELAXED);
}

OMP_EXPORT int omp_get_max_teams(void) { return __atomic_load_n(&omp_g.nteams, __ATOMIC_RELAXED); }

OMP_EXPORT void omp_set_teams_thread_limit(int thread_limit)
{
    if (thread_limit >= 0) __atomic_store_n(&omp_g.teams_thread_limit, thread_limit, __ATOMIC_RELAXED);
}

OMP_EXPORT int omp_get_teams_thread_limit(void) { return __atomic_load_n(&omp_g.teams_thread_limit, __ATOMIC_RELAXED); }

/* ---------- time ---------- */

OMP_EXPORT double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

OMP_EXPORT double omp_get_wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------- devices ---------- */

OMP_EXPORT void omp_set_default_device(int device_num) { omp_icv()->default_device = device_num < 0 ? 0 : device_num; }

OMP_EXPORT int omp_get_default_device(void) { return omp_icv()->default_device; }

OMP_EXPORT int omp_get_num_devices(void) { return 0; }

OMP_EXPORT int omp_get_device_num(void) { return HOST_DEVICE; }

OMP_EXPORT int omp_is_initial_device(void) { return 1; }

OMP_EXPORT int omp_get_initial_device(void) { return HOST_DEVICE; }

/* A soft and a hard pause do the same (OpenMP 5.1 section 3.2.43): the
 * caller's idle teams end (team.c). The streams stay: they are weft's, and
 * idle ones sleep. */
OMP_EXPORT int omp_pause_resource(int kind, int device_num)
{
    (void)kind;
    return device_num == HOST_DEVICE ? omp_pause_host() : -1;
}

OMP_EXPORT int omp_pause_resource_all(int kind)
{
    (void)kind;
    return omp_pause_host();
}

/* ---------- device memory (OpenMP 5.1 section 3.8) on the host ---------- */

OMP_EXPORT void *omp_target_alloc(size_t size, int device_num)
{
    return device_num == HOST_DEVICE ? malloc(size) : NULL;
}

OMP_EXPORT void omp_target_free(void *device_ptr, int device_num)
{
    if (device_num == HOST_DEVICE) free(device_ptr);
}

OMP_EXPORT int omp_target_is_present(const void *ptr, int device_num)
{
    return !ptr || device_num == HOST_DEVICE;
}

OMP_EXPORT int omp_target_is_accessible(const void *ptr, size_t size, int device_num)
{
    (void)ptr;
    (void)size;
    return device_num == HOST_DEVICE;
}

OMP_EXPORT void *omp_get_mapped_ptr(const void *ptr, int device_num)
{
    return device_num == HOST_DEVICE ? (void *)ptr : NULL;
}

OMP_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset, size_t src_offset,
                                 int dst_device_num, int src_device_num)
{
    if (dst_device_num != HOST_DEVICE || src_device_num != HOST_DEVICE) return EINVAL;
    if (length) memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* Copy a num_dims-dimensional sub-array; sizes in elements. */
static int rect_copy(char *dst, const char *src, size_t el, int ndims, const size_t *vol, const size_t *doff,
                     const size_t *soff, const size_t *ddims, const size_t *sdims)
{
    size_t a, b, n;
    if (ndims == 1) {
        if (__builtin_mul_overflow(doff[0], el, &a) || __builtin_mul_overflow(soff[0], el, &b) ||
            __builtin_mul_overflow(vol[0], el, &n))
            return EINVAL;
        if (n) memmove(dst + a, src + b, n);
        return 0;
    }
    /* bytes of one slice of each side: el * the product of the inner dimensions */
    size_t dslice = el, sslice = el;
    for (int i = 1; i < ndims; i++)
        if (__builtin_mul_overflow(dslice, ddims[i], &dslice) || __builtin_mul_overflow(sslice, sdims[i], &sslice))
            return EINVAL;
    for (size_t j = 0; j < vol[0]; j++) {
        if (__builtin_mul_overflow(doff[0] + j, dslice, &a) || __builtin_mul_overflow(soff[0] + j, sslice, &b))
            return EINVAL;
        int rc = rect_copy(dst + a, src + b, el, ndims - 1, vol + 1, doff + 1, soff + 1, ddims + 1, sdims + 1);
        if (rc) return rc;
    }
    return 0;
}

OMP_EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size, int num_dims,
                                      const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
                                      const size_t *dst_dimensions, const size_t *src_dimensions,
                                      int dst_device_num, int src_device_num)
{
    if (!dst && !src) return INT_MAX; /* the query: any number of dimensions */
    if (dst_device_num != HOST_DEVICE || src_device_num != HOST_DEVICE) return EINVAL;
    if (num_dims < 1) return 0; /* nothing to copy (libgomp 12 returns 0 too) */
    return rect_copy(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets, dst_dimensions,
                     src_dimensions);
}

/* The OpenMP 5.1 asynchronous forms (not in libgomp 12's ABI; here for
 * later versions): done at once, so their dependences (depobj_list) are
 * already met when they return. */
OMP_EXPORT int omp_target_memcpy_async(void *dst, const void *src, size_t length, size_t dst_offset,
                                       size_t src_offset, int dst_device_num, int src_device_num, int depobj_count,
                                       void *depobj_list)
{
    (void)depobj_count;
    (void)depobj_list;
    return omp_target_memcpy(dst, src, length, dst_offset, src_offset, dst_device_num, src_device_num);
}

OMP_EXPORT int omp_target_memcpy_rect_async(void *dst, const void *src, size_t element_size, int num_dims,
                                            const size_t *volume, const size_t *dst_offsets,
                                            const size_t *src_offsets, const size_t *dst_dimensions,
                                            const size_t *src_dimensions, int dst_device_num, int src_device_num,
                                            int depobj_count, void *depobj_list)
{
    (void)depobj_count;
    (void)depobj_list;
    return omp_target_memcpy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets,
                                  dst_dimensions, src_dimensions, dst_device_num, src_device_num);
}

/* Association is for device memory; the host has none to associate
 * (libgomp 12 answers EINVAL for the host as well). */
OMP_EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr, size_t size,
                                        size_t device_offset, int device_num)
{
    (void)host_ptr;
    (void)device_ptr;
    (void)size;
    (void)device_offset;
    (void)device_num;
    return EINVAL;
}

OMP_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device_num)
{
    (void)ptr;
    (void)device_num;
    return EINVAL;
}

/* ---------- the error directive (OpenMP 5.1 section 2.5.4) ---------- */

/* msglen (size_t)-1: msg is NUL-terminated; msg NULL: no message clause. */
static void error_directive(const char *severity, const char *msg, size_t msglen)
{
    flockfile(stderr);
    fputs("\nlibgomp: ", stderr);
    fputs(severity, stderr);
    fputs("error directive encountered", stderr);
    if (msg) {
        fputs(": ", stderr);
        fwrite(msg, 1, msglen == (size_t)-1 ? strlen(msg) : msglen, stderr);
    }
    fputc('\n', stderr);
    funlockfile(stderr);
}

OMP_EXPORT void GOMP_warning(const char *msg, size_t msglen) { error_directive("", msg, msglen); }

OMP_EXPORT void GOMP_error(const char *msg, size_t msglen)
{
    error_directive("fatal error: ", msg, msglen);
    exit(EXIT_FAILURE);
}
