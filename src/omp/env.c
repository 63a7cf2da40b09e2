/* The OpenMP environment variables (OpenMP 5.1 chapter 6) and libgomp's
 * GOMP_* ones, read once into omp_g; omp_display_env.
 *
 * Behaviour is libgomp 12's, as observed on Debian 12's libgomp.so.1:
 * the same accepted syntax, the same defaults, the same warnings (in the
 * same order) and the same OMP_DISPLAY_ENV block, so that scripts and
 * tests written against GCC's runtime see no difference. Where libgomp
 * has a quirk that a program could observe (a boolean with trailing junk
 * still takes effect, OMP_SCHEDULE=staticx leaves "static,1", ...) it is
 * kept on purpose. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api_internal.h"

#ifdef WEFT_HAVE_HWLOC
#include <hwloc.h>

#include "../core/topo_hwloc.h"
#endif

int *omp_init_cpus;
int omp_init_ncpus;

/* Checks a waiter makes before it parks (omp_g.spin). A check here yields
 * the stream to the other ULTs (wait.c), so it costs far more than one
 * turn of libgomp's pause loop: the counts are smaller than libgomp's. */
#define SPIN_ACTIVE LONG_MAX
#define SPIN_DEFAULT 10000L
#define SPIN_PASSIVE 100L

#define STACK_MIN 16384UL /* libgomp reports stacks below this (PTHREAD_STACK_MIN) */
#define MAX_LEVELS 255    /* omp_get_supported_active_levels() */
#define MAX_PLACES (1 << 20)

static const char default_format[] = "level %L thread %i affinity %A";

/* What OMP_DISPLAY_ENV shows but omp_g does not keep as such. */
static unsigned long *disp_nthreads; /* OMP_NUM_THREADS as given */
static int disp_nthreads_len;
static unsigned long disp_stacksize;
static unsigned long long disp_spincount = 300000; /* libgomp's GOMP_SPINCOUNT default */

/* ---------- messages ---------- */

static void vmessage(const char *fmt, va_list ap)
{
    flockfile(stderr);
    fputs("\nlibgomp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void omp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

void omp_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    exit(EXIT_FAILURE);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) omp_die("Out of memory allocating %lu bytes", (unsigned long)(n * size));
    return p;
}

static void invalid(const char *name) { omp_warn("Invalid value for environment variable %s", name); }

/* ---------- scalar values ---------- */

static const char *skip_ws(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    return s;
}

/* Does s start with word (any case)? Then return what follows. */
static const char *word(const char *s, const char *w)
{
    size_t n = strlen(w);
    return strncasecmp(s, w, n) == 0 ? s + n : NULL;
}

/* true/false. Like libgomp, a recognised word is stored even when junk
 * follows it (then with the warning); returns 1 only for a clean value. */
static int parse_bool(const char *name, int *out)
{
    const char *e = getenv(name), *s, *t;
    if (!e) return 0;
    s = skip_ws(e);
    if ((t = word(s, "true"))) *out = 1;
    else if ((t = word(s, "false"))) *out = 0;
    else {
        invalid(name);
        return 0;
    }
    if (*skip_ws(t)) {
        invalid(name);
        return 0;
    }
    return 1;
}

/* A number, optional blanks around it; no sign but '+'. */
static int parse_ulong(const char *name, unsigned long *out, int allow_zero)
{
    const char *e = getenv(name);
    if (!e) return 0;
    const char *s = skip_ws(e);
    char *end;
    errno = 0;
    unsigned long v = *s == '-' ? 0 : strtoul(s, &end, 10);
    if (*s == '-' || errno || end == s || *skip_ws(end) || (!allow_zero && v == 0)) {
        invalid(name);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_int(const char *name, int *out, int allow_zero)
{
    unsigned long v;
    const char *e = getenv(name);
    if (!e) return 0;
    /* one warning for both a bad number and one above INT_MAX */
    const char *s = skip_ws(e);
    char *end;
    errno = 0;
    v = *s == '-' ? 0 : strtoul(s, &end, 10);
    if (*s == '-' || errno || end == s || *skip_ws(end) || (!allow_zero && v == 0) || v > INT_MAX) {
        invalid(name);
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* OMP_NUM_THREADS=n[,n...]: every element positive. */
static void parse_nthreads(void)
{
    const char *e = getenv("OMP_NUM_THREADS");
    if (!e) return;
    unsigned long *list = NULL;
    int n = 0, cap = 0;
    const char *s = e;
    for (;;) {
        s = skip_ws(s);
        char *end;
        errno = 0;
        unsigned long v = *s == '-' ? 0 : strtoul(s, &end, 10);
        if (*s == '-' || errno || end == s || v == 0) goto bad;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            unsigned long *l = realloc(list, cap * sizeof *l);
            if (!l) goto bad;
            list = l;
        }
        list[n++] = v;
        s = skip_ws(end);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\0') break;
        goto bad;
    }
    disp_nthreads = list;
    disp_nthreads_len = n;
    omp_g.nthreads_list = xcalloc(n, sizeof *omp_g.nthreads_list);
    for (int i = 0; i < n; i++) omp_g.nthreads_list[i] = list[i] > UINT_MAX ? UINT_MAX : (unsigned)list[i];
    omp_g.nthreads_list_len = n;
    omp_g.icv0.nthreads = omp_g.nthreads_list[0];
    return;
bad:
    free(list);
    invalid("OMP_NUM_THREADS");
}

/* OMP_SCHEDULE=[monotonic:|nonmonotonic:]kind[,chunk]. As in libgomp the
 * kind is stored as soon as it is recognised; an error after it leaves
 * the chunk as it was (1, the default dynamic schedule's). */
static void parse_schedule(struct omp_icv *icv)
{
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {{"static", OMP_SCHED_STATIC},
                 {"dynamic", OMP_SCHED_DYNAMIC},
                 {"guided", OMP_SCHED_GUIDED},
                 {"auto", OMP_SCHED_AUTO}};
    const char *e = getenv("OMP_SCHEDULE"), *s, *t;
    if (!e) return;
    s = skip_ws(e);
    int mono = -1; /* not given */
    if ((t = word(s, "monotonic"))) mono = 1;
    else if ((t = word(s, "nonmonotonic"))) mono = 0;
    if (mono >= 0) {
        t = skip_ws(t);
        if (*t != ':') goto unknown;
        s = skip_ws(t + 1);
    }
    int kind = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !kind; i++)
        if ((t = word(s, kinds[i].name))) kind = kinds[i].kind;
    if (!kind) goto unknown;
    /* static is monotonic unless said otherwise, the others the reverse
     * (OpenMP 5.1 section 2.11.4) */
    icv->sched = kind | ((mono == 1 || (mono < 0 && kind == OMP_SCHED_STATIC)) ? OMP_SCHED_MONOTONIC : 0);
    s = skip_ws(t);
    if (*s == '\0') {
        icv->sched_chunk = kind == OMP_SCHED_STATIC ? 0 : 1;
        return;
    }
    if (*s != ',') goto unknown;
    s = skip_ws(s + 1);
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    /* strtoul reads "-5" as its two's complement: keep what fits an int */
    if (errno || end == s || *skip_ws(end) || (long)v != (long)(int)v) {
        omp_warn("Invalid value for chunk size in environment variable OMP_SCHEDULE");
        return;
    }
    icv->sched_chunk = (int)v == 0 && kind != OMP_SCHED_STATIC ? 1 : (int)v;
    return;
unknown:
    omp_warn("Unknown value for environment variable OMP_SCHEDULE");
}

/* OMP_PROC_BIND=true|false|policy[,policy...] */
static int parse_bind(int **list, int *len)
{
    static const struct {
        const char *name;
        int bind;
    } pol[] = {{"master", OMP_BIND_PRIMARY},
               {"primary", OMP_BIND_PRIMARY},
               {"close", OMP_BIND_CLOSE},
               {"spread", OMP_BIND_SPREAD}};
    const char *e = getenv("OMP_PROC_BIND"), *s, *t;
    if (!e) return 0;
    s = skip_ws(e);
    int *l = NULL, n = 0;
    if ((t = word(s, "true")) || (t = word(s, "false"))) {
        if (*skip_ws(t)) goto bad;
        l = xcalloc(1, sizeof *l);
        l[0] = tolower((unsigned char)*s) == 't' ? OMP_BIND_TRUE : OMP_BIND_FALSE;
        n = 1;
    } else {
        for (;;) {
            s = skip_ws(s);
            int b = -1;
            for (size_t i = 0; i < sizeof pol / sizeof pol[0] && b < 0; i++)
                if ((t = word(s, pol[i].name))) b = pol[i].bind;
            if (b < 0) goto bad;
            int *nl = realloc(l, (n + 1) * sizeof *nl);
            if (!nl) goto bad;
            l = nl;
            l[n++] = b;
            s = skip_ws(t);
            if (*s == ',') {
                s++;
                continue;
            }
            if (*s == '\0') break;
            goto bad;
        }
    }
    *list = l;
    *len = n;
    return 1;
bad:
    free(l);
    invalid("OMP_PROC_BIND");
    return 0;
}

/* [OMP|GOMP]_STACKSIZE=n[B|K|M|G], K by default. */
static int parse_stacksize(const char *name, unsigned long *out)
{
    const char *e = getenv(name);
    if (!e) return 0;
    const char *s = skip_ws(e);
    char *end;
    errno = 0;
    unsigned long v = *s == '-' ? 0 : strtoul(s, &end, 10);
    if (*s == '-' || errno || end == s) goto bad;
    s = skip_ws(end);
    int shift = 10;
    switch (tolower((unsigned char)*s)) {
    case 'b': shift = 0; s++; break;
    case 'k': shift = 10; s++; break;
    case 'm': shift = 20; s++; break;
    case 'g': shift = 30; s++; break;
    default: break;
    }
    if (*skip_ws(s) || v > (ULONG_MAX >> shift)) goto bad;
    *out = v << shift;
    return 1;
bad:
    invalid(name);
    return 0;
}

/* GOMP_SPINCOUNT=n[k|M|G|T] or infinite/infinity. */
static int parse_spincount(unsigned long long *out)
{
    const char *e = getenv("GOMP_SPINCOUNT"), *s, *t;
    if (!e) return 0;
    s = skip_ws(e);
    unsigned long long v;
    if ((t = word(s, "infinite")) || (t = word(s, "infinity"))) {
        v = ULLONG_MAX;
        s = t;
    } else {
        char *end;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s) goto bad;
        s = skip_ws(end);
        unsigned long long mul = 1;
        switch (tolower((unsigned char)*s)) {
        case 'k': mul = 1000ULL; s++; break;
        case 'm': mul = 1000000ULL; s++; break;
        case 'g': mul = 1000000000ULL; s++; break;
        case 't': mul = 1000000000000ULL; s++; break;
        default: break;
        }
        v = v > ULLONG_MAX / mul ? ULLONG_MAX : v * mul;
    }
    if (*skip_ws(s)) goto bad;
    *out = v;
    return 1;
bad:
    invalid("GOMP_SPINCOUNT");
    return 0;
}

/* Match one of the names exactly (blanks around allowed): its index, or -1. */
static int parse_name(const char *name, const char *const *names, int n, int case_insensitive)
{
    const char *e = getenv(name);
    if (!e) return -2;
    const char *s = skip_ws(e);
    for (int i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        int eq = case_insensitive ? strncasecmp(s, names[i], l) == 0 : strncmp(s, names[i], l) == 0;
        if (eq && *skip_ws(s + l) == '\0') return i;
    }
    invalid(name);
    return -1;
}

static const char *const allocator_names[] = {
    "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc", "omp_high_bw_mem_alloc",
    "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",    "omp_pteam_mem_alloc", "omp_thread_mem_alloc",
};

/* ---------- CPU sets and places ---------- */

static int g_maxcpu = 64;     /* CPU numbers must be below this (libgomp's cpuset size) */
static int g_nwords = 1;
static unsigned long *g_avail; /* the CPUs this process may use */

#define WBITS (int)(8 * sizeof(unsigned long))

static unsigned long *set_new(void) { return xcalloc(g_nwords, sizeof(unsigned long)); }
static int set_has(const unsigned long *s, unsigned long c) { return (s[c / WBITS] >> (c % WBITS)) & 1; }
static void set_add(unsigned long *s, unsigned long c) { s[c / WBITS] |= 1UL << (c % WBITS); }
static void set_del(unsigned long *s, unsigned long c) { s[c / WBITS] &= ~(1UL << (c % WBITS)); }
static int set_count(const unsigned long *s)
{
    int n = 0;
    for (int i = 0; i < g_nwords; i++) n += __builtin_popcountl(s[i]);
    return n;
}

struct plist {
    unsigned long **p;
    int n, cap;
};

static int plist_add(struct plist *l, unsigned long *set)
{
    if (l->n == MAX_PLACES) return -1;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        unsigned long **p = realloc(l->p, cap * sizeof *p);
        if (!p) omp_die("Out of memory allocating %lu bytes", (unsigned long)(cap * sizeof *p));
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n++] = set;
    return 0;
}

static void plist_free(struct plist *l)
{
    for (int i = 0; i < l->n; i++) free(l->p[i]);
    free(l->p);
    l->p = NULL;
    l->n = l->cap = 0;
}

/* The process's CPUs, with a mask as large as the kernel needs. */
static void read_affinity(void)
{
    int ncpu = CPU_SETSIZE, hi = -1;
    cpu_set_t *set = NULL;
    size_t size = 0;
    for (;;) {
        set = CPU_ALLOC(ncpu);
        size = CPU_ALLOC_SIZE(ncpu);
        if (!set) break;
        if (sched_getaffinity(0, size, set) == 0) break;
        CPU_FREE(set);
        set = NULL;
        if (errno != EINVAL || ncpu >= (1 << 22)) break;
        ncpu *= 2;
    }
    if (set)
        for (int c = 0; c < ncpu; c++)
            if (CPU_ISSET_S(c, size, set)) hi = c;
    if (hi < 0) { /* no mask: every online CPU */
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        hi = (on > 0 ? (int)on : 1) - 1;
        if (set) CPU_FREE(set);
        set = NULL;
    }
    g_maxcpu = (hi / WBITS + 1) * WBITS;
    g_nwords = g_maxcpu / WBITS;
    g_avail = set_new();
    for (int c = 0; c <= hi; c++)
        if (!set || CPU_ISSET_S(c, size, set)) set_add(g_avail, c);
    if (set) CPU_FREE(set);
    omp_init_ncpus = set_count(g_avail);
    omp_init_cpus = xcalloc(omp_init_ncpus, sizeof(int));
    for (int c = 0, i = 0; c < g_maxcpu; c++)
        if (set_has(g_avail, c)) omp_init_cpus[i++] = c;
    omp_g.num_procs = omp_init_ncpus;
}

/* One place per CPU ("threads"; also what the abstract names become
 * without hwloc). */
static void places_per_cpu(struct plist *out, unsigned long count)
{
    for (int c = 0; c < g_maxcpu && (unsigned long)out->n < count; c++)
        if (set_has(g_avail, c)) {
            unsigned long *s = set_new();
            set_add(s, c);
            plist_add(out, s);
        }
}

enum { ABS_THREADS, ABS_CORES, ABS_SOCKETS, ABS_LL_CACHES, ABS_NUMA };

/* OMP_PLACES=threads|cores|sockets|ll_caches|numa_domains[(n)] */
static int abstract_places(int kind, unsigned long count, struct plist *out)
{
    if (kind == ABS_THREADS) {
        places_per_cpu(out, count);
        return out->n ? 0 : -1;
    }
#ifdef WEFT_HAVE_HWLOC
    hwloc_topology_t t;
    if (topo_hwloc_load(&t, false) != WEFT_OK) return -1;
    hwloc_obj_type_t type = HWLOC_OBJ_PU;
    int nobj = 0;
    if (kind == ABS_CORES) type = HWLOC_OBJ_CORE;
    else if (kind == ABS_SOCKETS) type = HWLOC_OBJ_PACKAGE;
    else if (kind == ABS_NUMA) type = HWLOC_OBJ_NUMANODE;
    else { /* the outermost cache level the machine has */
        static const hwloc_obj_type_t caches[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                                  HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
        type = HWLOC_OBJ_L1CACHE;
        for (size_t i = 0; i < sizeof caches / sizeof caches[0]; i++)
            if (hwloc_get_nbobjs_by_type(t, caches[i]) > 0) {
                type = caches[i];
                break;
            }
    }
    nobj = hwloc_get_nbobjs_by_type(t, type);
    if (nobj <= 0) { /* not reported (a VM without caches or packages): the whole machine */
        unsigned long *s = set_new();
        memcpy(s, g_avail, g_nwords * sizeof *s);
        plist_add(out, s);
    }
    for (int i = 0; i < nobj && (unsigned long)out->n < count; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, type, (unsigned)i);
        if (!o || !o->cpuset) continue;
        unsigned long *s = set_new();
        int c;
        hwloc_bitmap_foreach_begin(c, o->cpuset)
        {
            if (c < g_maxcpu && set_has(g_avail, c)) set_add(s, c);
        }
        hwloc_bitmap_foreach_end();
        if (set_count(s)) plist_add(out, s);
        else free(s);
    }
    hwloc_topology_destroy(t);
#else
    places_per_cpu(out, count);
#endif
    return out->n ? 0 : -1;
}

/* A number of a place list: strtoul's reading (so "-1" is ULONG_MAX and
 * reported as out of range, like libgomp). */
static int place_num(const char **sp, unsigned long *v)
{
    const char *s = skip_ws(*sp);
    char *end;
    errno = 0;
    *v = strtoul(s, &end, 10);
    if (errno || end == s) return -1;
    *sp = skip_ws(end);
    return 0;
}

/* ":len[:stride]" after a number or a place; len > 0. */
static int place_interval(const char **sp, unsigned long *len, long *stride)
{
    const char *s = *sp;
    *len = 1;
    *stride = 1;
    if (*s != ':') return 0;
    s++;
    if (place_num(&s, len) || *len == 0) return -1;
    if (*s == ':') {
        s = skip_ws(s + 1);
        char *end;
        errno = 0;
        *stride = strtol(s, &end, 10);
        if (errno || end == s) return -1;
        s = skip_ws(end);
    }
    *sp = s;
    return 0;
}

/* "{res[,res...]}" or a lone number: one place. */
static int parse_place(const char **sp, unsigned long *set)
{
    const char *s = skip_ws(*sp);
    int braces = *s == '{';
    if (braces) s++;
    for (;;) {
        s = skip_ws(s);
        int neg = braces && *s == '!';
        if (neg) s++;
        unsigned long c, len;
        long stride;
        if (place_num(&s, &c)) return -1;
        if (c >= (unsigned long)g_maxcpu) {
            omp_warn("Logical CPU number %lu out of range", c);
            return -1;
        }
        if (braces && place_interval(&s, &len, &stride)) return -1;
        if (!braces) len = 1, stride = 1;
        for (unsigned long k = 0; k < len; k++) {
            if (c >= (unsigned long)g_maxcpu) {
                omp_warn("Logical CPU number %lu out of range", c);
                return -1;
            }
            if (neg) {
                if (!set_has(set, c)) {
                    omp_warn("Logical CPU %lu to be removed is not in the set", c);
                    return -1;
                }
                set_del(set, c);
            } else set_add(set, c);
            if (stride == 0) break; /* the same CPU len times */
            if (k + 1 < len) {
                if (stride < 0 && c < (unsigned long)-stride) {
                    omp_warn("Logical CPU number %lu+%ld out of range", c, stride);
                    return -1;
                }
                c += (unsigned long)stride;
            }
        }
        if (!braces) break;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s != '}') return -1;
        s++;
        break;
    }
    *sp = skip_ws(s);
    return 0;
}

/* An explicit place list (OpenMP 5.1 section 6.5): place[:len[:stride]]
 * or !place, comma separated. */
static int explicit_places(const char *s, struct plist *out)
{
    for (;;) {
        s = skip_ws(s);
        int neg = *s == '!';
        if (neg) s = skip_ws(s + 1);
        if (*s != '{' && !isdigit((unsigned char)*s)) return -1;
        unsigned long *set = set_new();
        if (parse_place(&s, set)) {
            free(set);
            return -1;
        }
        if (neg) {
            int i;
            for (i = 0; i < out->n; i++)
                if (memcmp(out->p[i], set, g_nwords * sizeof *set) == 0) break;
            free(set);
            if (i == out->n) {
                omp_warn("Trying to remove a non-existing place from list of places");
                return -1;
            }
            free(out->p[i]);
            memmove(&out->p[i], &out->p[i + 1], (out->n - i - 1) * sizeof *out->p);
            out->n--;
        } else {
            unsigned long len;
            long stride;
            if (place_interval(&s, &len, &stride) || plist_add(out, set)) {
                if (out->n == 0 || out->p[out->n - 1] != set) free(set);
                return -1;
            }
            for (unsigned long k = 1; k < len; k++) {
                const unsigned long *prev = out->p[out->n - 1];
                unsigned long *next = set_new();
                for (unsigned long c = 0; c < (unsigned long)g_maxcpu; c++) {
                    if (!set_has(prev, c)) continue;
                    if ((stride < 0 && c < (unsigned long)-stride) ||
                        (stride > 0 && c + (unsigned long)stride >= (unsigned long)g_maxcpu)) {
                        omp_warn("Logical CPU number %lu+%ld out of range", c, stride);
                        free(next);
                        return -1;
                    }
                    set_add(next, c + (unsigned long)stride);
                }
                if (plist_add(out, next)) {
                    free(next);
                    return -1;
                }
            }
        }
        s = skip_ws(s);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\0') break;
        return -1;
    }
    if (out->n == 0) {
        omp_warn("All places have been removed");
        return -1;
    }
    return 0;
}

/* Keep the usable CPUs of each place and the places left with some. */
static int places_filter(struct plist *l)
{
    int before = l->n, n = 0;
    for (int i = 0; i < l->n; i++) {
        for (int w = 0; w < g_nwords; w++) l->p[i][w] &= g_avail[w];
        if (set_count(l->p[i])) l->p[n++] = l->p[i];
        else free(l->p[i]);
    }
    l->n = n;
    if (n == 0) {
        omp_warn("None of the places contain usable logical CPUs");
        return -1;
    }
    if (n < before)
        omp_warn("Number of places reduced from %d to %d because some places didn't contain any usable logical CPUs",
                 before, n);
    return 0;
}

/* OMP_PLACES; 1 with places in out. */
static int parse_places(struct plist *out)
{
    static const char *const names[] = {"threads", "cores", "sockets", "ll_caches", "numa_domains"};
    const char *e = getenv("OMP_PLACES"), *s, *t = NULL;
    if (!e) return 0;
    s = skip_ws(e);
    for (int k = 0; k < 5; k++) {
        if (!(t = word(s, names[k]))) continue;
        unsigned long count = ULONG_MAX;
        t = skip_ws(t);
        if (*t == '(') {
            t++;
            if (place_num(&t, &count) || *t != ')') goto bad;
            t = skip_ws(t + 1);
        }
        if (*t) goto bad;
        if (count == 0 || abstract_places(k, count, out)) {
            /* libgomp's words for "no such places" */
            omp_warn("Error reading core/socket topology");
            plist_free(out);
            return 0;
        }
        return 1;
    }
    if (explicit_places(s, out) || places_filter(out)) goto bad;
    return 1;
bad:
    plist_free(out);
    invalid("OMP_PLACES");
    return 0;
}

/* GOMP_CPU_AFFINITY="a b-c c-d:s ...": one place per CPU, in that order
 * (libgomp does not check them against the process's CPUs). */
static int parse_cpu_affinity(struct plist *out)
{
    const char *e = getenv("GOMP_CPU_AFFINITY");
    if (!e) return 0;
    const char *s = e;
    struct plist l = {0};
    for (;;) {
        while (isspace((unsigned char)*s) || *s == ',') s++;
        if (*s == '\0') break;
        if (!isdigit((unsigned char)*s)) goto bad;
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a, st = 1;
        s = end;
        if (*s == '-') {
            if (!isdigit((unsigned char)s[1])) goto bad;
            b = strtoul(s + 1, &end, 10);
            s = end;
            if (*s == ':') {
                if (!isdigit((unsigned char)s[1])) goto bad;
                st = strtoul(s + 1, &end, 10);
                s = end;
            }
        }
        if (b < a || st == 0 || b >= (unsigned long)g_maxcpu) goto bad;
        if (*s && !isspace((unsigned char)*s) && *s != ',') goto bad;
        for (unsigned long c = a; c <= b; c += st) {
            unsigned long *set = set_new();
            set_add(set, c);
            if (plist_add(&l, set)) {
                free(set);
                goto bad;
            }
        }
    }
    if (l.n == 0) goto bad;
    *out = l;
    return 1;
bad:
    plist_free(&l);
    /* sic: libgomp's spelling */
    omp_warn("Invalid value for enviroment variable GOMP_CPU_AFFINITY");
    return 0;
}

static void places_commit(struct plist *l)
{
    omp_g.num_places = l->n;
    omp_g.place_nprocs = xcalloc(l->n, sizeof *omp_g.place_nprocs);
    omp_g.place_procs = xcalloc(l->n, sizeof *omp_g.place_procs);
    for (int i = 0; i < l->n; i++) {
        int n = set_count(l->p[i]), k = 0;
        omp_g.place_nprocs[i] = n;
        omp_g.place_procs[i] = xcalloc(n, sizeof(int));
        for (int c = 0; c < g_maxcpu && k < n; c++)
            if (set_has(l->p[i], c)) omp_g.place_procs[i][k++] = c;
    }
    plist_free(l);
}

/* ---------- CPU lists as text ---------- */

size_t omp_format_cpus(char *buf, size_t cap, const int *cpus, int n, int places_style)
{
    size_t len = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1) j++;
        char item[48];
        int l;
        if (j == i) l = snprintf(item, sizeof item, "%s%d", i ? "," : "", cpus[i]);
        else if (places_style) l = snprintf(item, sizeof item, "%s%d:%d", i ? "," : "", cpus[i], j - i + 1);
        else l = snprintf(item, sizeof item, "%s%d-%d", i ? "," : "", cpus[i], cpus[j]);
        if (cap && len < cap - 1) {
            size_t room = cap - 1 - len;
            memcpy(buf + len, item, (size_t)l < room ? (size_t)l : room);
        }
        len += (size_t)l;
        i = j + 1;
    }
    if (cap) buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

/* ---------- omp_display_env ---------- */

static const char *bind_name(int b)
{
    switch (b) {
    case OMP_BIND_TRUE: return "TRUE";
    case OMP_BIND_PRIMARY: return "MASTER"; /* libgomp 12 still says MASTER */
    case OMP_BIND_CLOSE: return "CLOSE";
    case OMP_BIND_SPREAD: return "SPREAD";
    default: return "FALSE";
    }
}

static void print_schedule(FILE *f, int sched, int chunk)
{
    static const char *const names[] = {"RUNTIME", "STATIC", "DYNAMIC", "GUIDED", "AUTO"};
    int kind = sched & ~OMP_SCHED_MONOTONIC, mono = (sched & OMP_SCHED_MONOTONIC) != 0;
    /* the modifier only when it is not the kind's default */
    if (kind == OMP_SCHED_STATIC && !mono) fputs("NONMONOTONIC:", f);
    else if (kind != OMP_SCHED_STATIC && mono) fputs("MONOTONIC:", f);
    fputs(kind >= 0 && kind <= OMP_SCHED_AUTO ? names[kind] : "UNKNOWN", f);
    if ((kind == OMP_SCHED_STATIC && chunk != 0) ||
        ((kind == OMP_SCHED_DYNAMIC || kind == OMP_SCHED_GUIDED) && chunk != 1))
        fprintf(f, ",%d", chunk);
}

static void display_env(int verbose)
{
    FILE *f = stderr;
    const struct omp_icv *icv = &omp_g.icv0;
    char *fmt = omp_affinity_format_dup();
    flockfile(f);
    fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n", f);
    fputs("  _OPENMP = '201511'\n", f);
    fprintf(f, "  OMP_DYNAMIC = '%s'\n", icv->dyn ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_NESTED = '%s'\n", icv->max_active_levels > 1 ? "TRUE" : "FALSE");
    fputs("  OMP_NUM_THREADS = '", f);
    if (disp_nthreads_len)
        for (int i = 0; i < disp_nthreads_len; i++) fprintf(f, "%s%lu", i ? "," : "", disp_nthreads[i]);
    else fprintf(f, "%u", icv->nthreads);
    fputs("'\n  OMP_SCHEDULE = '", f);
    print_schedule(f, icv->sched, icv->sched_chunk);
    fputs("'\n  OMP_PROC_BIND = '", f);
    if (omp_g.bind_list_len)
        for (int i = 0; i < omp_g.bind_list_len; i++) fprintf(f, "%s%s", i ? "," : "", bind_name(omp_g.bind_list[i]));
    else fputs(bind_name(icv->bind), f);
    fputs("'\n  OMP_PLACES = '", f);
    for (int i = 0; i < omp_g.num_places; i++) {
        char buf[256];
        size_t n = omp_format_cpus(buf, sizeof buf, omp_g.place_procs[i], omp_g.place_nprocs[i], 1);
        char *big = n < sizeof buf ? NULL : malloc(n + 1);
        if (big) omp_format_cpus(big, n + 1, omp_g.place_procs[i], omp_g.place_nprocs[i], 1);
        fprintf(f, "%s{%s}", i ? "," : "", big ? big : buf);
        free(big);
    }
    fprintf(f, "'\n  OMP_STACKSIZE = '%lu'\n", disp_stacksize);
    fprintf(f, "  OMP_WAIT_POLICY = '%s'\n", omp_g.wait_policy > 0 ? "ACTIVE" : "PASSIVE");
    fprintf(f, "  OMP_THREAD_LIMIT = '%u'\n", icv->thread_limit);
    fprintf(f, "  OMP_MAX_ACTIVE_LEVELS = '%d'\n", icv->max_active_levels);
    fprintf(f, "  OMP_NUM_TEAMS = '%d'\n", omp_g.nteams);
    fprintf(f, "  OMP_TEAMS_THREAD_LIMIT = '%d'\n", omp_g.teams_thread_limit);
    fprintf(f, "  OMP_CANCELLATION = '%s'\n", omp_g.cancel ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_DEFAULT_DEVICE = '%d'\n", icv->default_device);
    fprintf(f, "  OMP_MAX_TASK_PRIORITY = '%d'\n", omp_g.max_task_priority);
    fprintf(f, "  OMP_DISPLAY_AFFINITY = '%s'\n", omp_g.display_affinity ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_AFFINITY_FORMAT = '%s'\n", fmt ? fmt : default_format);
    if (icv->def_allocator >= 1 && icv->def_allocator <= 8)
        fprintf(f, "  OMP_ALLOCATOR = '%s'\n", allocator_names[icv->def_allocator - 1]);
    else fprintf(f, "  OMP_ALLOCATOR = '%lu'\n", (unsigned long)icv->def_allocator);
    fprintf(f, "  OMP_TARGET_OFFLOAD = '%s'\n",
            omp_g.target_offload == 1 ? "MANDATORY" : omp_g.target_offload == 2 ? "DISABLED" : "DEFAULT");
    if (verbose) {
        fputs("  GOMP_CPU_AFFINITY = ''\n", f);
        fprintf(f, "  GOMP_STACKSIZE = '%lu'\n", disp_stacksize);
        fprintf(f, "  GOMP_SPINCOUNT = '%llu'\n", disp_spincount);
        /* weft-omp's own: the checks a waiter makes before it parks */
        fprintf(f, "  WEFT_OMP_SPIN = '%ld'\n", omp_g.spin);
        fprintf(f, "  WEFT_OMP_SHARE_STREAMS = '%s'\n",
                omp_g.share_streams < 0 ? "AUTO" : omp_g.share_streams ? "TRUE" : "FALSE");
        fprintf(f, "  WEFT_OMP_RESCUE_MS = '%ld'\n", omp_g.rescue_ms);
    }
    fputs("OPENMP DISPLAY ENVIRONMENT END\n", f);
    funlockfile(f);
    free(fmt);
}

/* OpenMP 5.1 section 3.15 */
OMP_EXPORT void omp_display_env(int verbose) { display_env(verbose); }

/* ---------- omp_env_init ---------- */

void omp_env_init(void)
{
    struct omp_icv *icv = &omp_g.icv0;
    read_affinity();

    /* libgomp's defaults (OpenMP 5.1 section 2.4.2 leaves most of them to
     * the implementation) */
    icv->nthreads = (unsigned)omp_g.num_procs;
    icv->sched = OMP_SCHED_DYNAMIC;
    icv->sched_chunk = 1;
    icv->dyn = 0;
    icv->bind = OMP_BIND_FALSE;
    icv->thread_limit = UINT_MAX;
    icv->max_active_levels = 1;
    icv->default_device = 0;
    icv->def_allocator = 1; /* omp_default_mem_alloc */
    omp_g.cancel = 0;
    omp_g.max_task_priority = 0;
    omp_g.stacksize = 0;
    omp_g.wait_policy = -1;
    omp_g.spin = SPIN_DEFAULT;
    omp_g.display_affinity = 0;
    omp_g.nteams = 0;
    omp_g.teams_thread_limit = 0;
    omp_g.target_offload = 0;
    omp_g.num_places = 0;

    /* In libgomp's order, so that the warnings come in the same order. */
    parse_schedule(icv);
    parse_bool("OMP_DYNAMIC", &icv->dyn);
    parse_bool("OMP_CANCELLATION", &omp_g.cancel);
    parse_bool("OMP_DISPLAY_AFFINITY", &omp_g.display_affinity);
    parse_int("OMP_DEFAULT_DEVICE", &icv->default_device, 1);
    {
        static const char *const offload[] = {"default", "mandatory", "disabled"};
        int i = parse_name("OMP_TARGET_OFFLOAD", offload, 3, 1);
        if (i >= 0) omp_g.target_offload = i;
    }
    parse_int("OMP_MAX_TASK_PRIORITY", &omp_g.max_task_priority, 1);
    {
        int i = parse_name("OMP_ALLOCATOR", allocator_names, 8, 1);
        if (i >= 0) icv->def_allocator = (uintptr_t)i + 1;
    }
    {
        unsigned long v;
        if (parse_ulong("OMP_THREAD_LIMIT", &v, 0)) icv->thread_limit = v > UINT_MAX ? UINT_MAX : (unsigned)v;
        parse_ulong("GOMP_DEBUG", &v, 1); /* libgomp's debug output: accepted, not used */
    }
    parse_nthreads();
    parse_int("OMP_NUM_TEAMS", &omp_g.nteams, 0);
    parse_int("OMP_TEAMS_THREAD_LIMIT", &omp_g.teams_thread_limit, 0);

    int *blist = NULL, blen = 0;
    int bind_set = parse_bind(&blist, &blen);
    {
        unsigned long mal;
        int nested;
        if (parse_ulong("OMP_MAX_ACTIVE_LEVELS", &mal, 1))
            icv->max_active_levels = mal > MAX_LEVELS ? MAX_LEVELS : (int)mal;
        else if (parse_bool("OMP_NESTED", &nested)) /* only a clean value counts here */
            icv->max_active_levels = nested ? MAX_LEVELS : 1;
        else if (omp_g.nthreads_list_len > 1 || blen > 1)
            icv->max_active_levels = MAX_LEVELS; /* a list per level asks for nesting */
    }

    struct plist places = {0}, gomp = {0};
    int have_places = parse_places(&places);
    int have_gomp = parse_cpu_affinity(&gomp);
    if (!have_places && have_gomp) {
        places = gomp;
        have_places = 1;
    } else plist_free(&gomp);
    if (bind_set && blist[0] == OMP_BIND_FALSE) plist_free(&places); /* no binding, no places */
    else if (have_places && !bind_set) {                             /* places imply binding */
        blist = xcalloc(1, sizeof *blist);
        blist[0] = OMP_BIND_TRUE;
        blen = 1;
    }
    if (blen && blist[0] != OMP_BIND_FALSE && places.n == 0) places_per_cpu(&places, ULONG_MAX);
    if (places.n) places_commit(&places);
    if (blen) {
        omp_g.bind_list = blist;
        omp_g.bind_list_len = blen;
        icv->bind = blist[0];
    }

    {
        static const char *const share[] = {"auto", "true", "false"};
        int i = parse_name("WEFT_OMP_SHARE_STREAMS", share, 3, 1);
        omp_g.share_streams = i == 1 ? 1 : i == 2 ? 0 : -1;
    }
    {
        /* milliseconds (0: never) before a thread left ready behind a
         * spinning one is moved to a stream of its own (rescue.c) */
        int ms = 100;
        parse_int("WEFT_OMP_RESCUE_MS", &ms, 1);
        omp_g.rescue_ms = ms;
    }
    {
        static const char *const pol[] = {"passive", "active"};
        int i = parse_name("OMP_WAIT_POLICY", pol, 2, 1);
        if (i >= 0) {
            omp_g.wait_policy = i;
            omp_g.spin = i ? SPIN_ACTIVE : SPIN_PASSIVE;
            disp_spincount = i ? 30000000000ULL : 0;
        }
        unsigned long long sc;
        if (parse_spincount(&sc)) {
            disp_spincount = sc;
            omp_g.spin = sc > LONG_MAX ? LONG_MAX : (long)sc;
        }
    }
    {
        unsigned long ss;
        if (parse_stacksize("OMP_STACKSIZE", &ss) || parse_stacksize("GOMP_STACKSIZE", &ss)) {
            disp_stacksize = ss;
            /* libgomp's threads then keep the default stack */
            if (ss < STACK_MIN) omp_warn("Stack size less than minimum of %luk", STACK_MIN / 1024);
            else omp_g.stacksize = ss;
        }
    }
    {
        const char *f = getenv("OMP_AFFINITY_FORMAT");
        if (!f) f = default_format;
        omp_g.affinity_format = strdup(f);
        if (!omp_g.affinity_format) omp_die("Out of memory allocating %lu bytes", (unsigned long)strlen(f) + 1);
    }

    const char *d = getenv("OMP_DISPLAY_ENV");
    if (d) {
        const char *s = skip_ws(d), *t;
        int show = -1;
        if ((t = word(s, "true"))) show = 1;
        else if ((t = word(s, "verbose"))) show = 2;
        else if ((t = word(s, "false"))) show = 0;
        if (show < 0 || *skip_ws(t)) invalid("OMP_DISPLAY_ENV");
        if (show > 0) display_env(show == 2);
    }
}
