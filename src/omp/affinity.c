/* Places (OpenMP 5.1 sections 3.3.2-3.3.7) and the affinity format
 * (sections 3.3.8-3.3.11, 6.13, 6.14).
 *
 * The places are omp_g's (env.c); a thread's place and place partition
 * are in its struct omp_thread, set by the core when it forms a team.
 * The format fields and their size syntax are libgomp's: %t %T %L %n %N
 * %a %H %P %i %A, or their long names in braces, each optionally preceded
 * by a width ("%5n" pads on the right, "%.5n" on the left, "%0.5n" with
 * zeros); a malformed format is fatal, with libgomp's message. */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"

/* ---------- places ---------- */

OMP_EXPORT int omp_get_num_places(void) { return omp_g.num_places; }

OMP_EXPORT int omp_get_place_num_procs(int place_num)
{
    if (place_num < 0 || place_num >= omp_g.num_places) return 0;
    return omp_g.place_nprocs[place_num];
}

OMP_EXPORT void omp_get_place_proc_ids(int place_num, int *ids)
{
    if (place_num < 0 || place_num >= omp_g.num_places || !ids) return;
    memcpy(ids, omp_g.place_procs[place_num], (size_t)omp_g.place_nprocs[place_num] * sizeof *ids);
}

/* The calling thread's place, -1 when it is not bound to one. */
static int self_place(const struct omp_thread *thr)
{
    return thr->place >= 0 && thr->place < omp_g.num_places ? thr->place : -1;
}

OMP_EXPORT int omp_get_place_num(void) { return self_place(omp_self()); }

static int part_n(const struct omp_thread *thr)
{
    int n = omp_g.num_places ? thr->part_n : 0;
    return n < 0 ? 0 : n > omp_g.num_places ? omp_g.num_places : n;
}

OMP_EXPORT int omp_get_partition_num_places(void) { return part_n(omp_self()); }

OMP_EXPORT void omp_get_partition_place_nums(int *place_nums)
{
    const struct omp_thread *thr = omp_self();
    int n = part_n(thr);
    if (!place_nums) return;
    /* a partition is a run of the place list, possibly wrapping around */
    for (int i = 0; i < n; i++) place_nums[i] = (thr->part_lo + i) % omp_g.num_places;
}

/* ---------- affinity-format-var ---------- */

/* Guards omp_g.affinity_format against omp_set_affinity_format: readers
 * copy it, the setter swaps it and frees the old one. */
static _Atomic uint32_t g_format_lock;

char *omp_affinity_format_dup(void)
{
    omp_word_lock(&g_format_lock);
    char *d = strdup(omp_g.affinity_format ? omp_g.affinity_format : "");
    omp_word_unlock(&g_format_lock);
    return d;
}

OMP_EXPORT void omp_set_affinity_format(const char *format)
{
    if (!format) return;
    char *d = strdup(format);
    if (!d) omp_die("Out of memory allocating %lu bytes", (unsigned long)strlen(format) + 1);
    omp_word_lock(&g_format_lock);
    char *old = omp_g.affinity_format;
    omp_g.affinity_format = d;
    omp_word_unlock(&g_format_lock);
    free(old);
}

/* Copy a string the way the omp_*_affinity routines return one: all of
 * it that fits with its NUL; the result is its full length. */
static size_t copy_out(char *buffer, size_t size, const char *s, size_t len)
{
    if (buffer && size) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buffer, s, n);
        buffer[n] = '\0';
    }
    return len;
}

OMP_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
{
    omp_word_lock(&g_format_lock);
    const char *f = omp_g.affinity_format ? omp_g.affinity_format : "";
    size_t len = copy_out(buffer, size, f, strlen(f));
    omp_word_unlock(&g_format_lock);
    return len;
}

/* ---------- formatting ---------- */

struct sbuf {
    char *p;
    size_t len, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) omp_die("Out of memory allocating %lu bytes", (unsigned long)cap);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return; /* a width beyond what printf can do: nothing, as libgomp */
    if ((size_t)n < sizeof small) {
        sb_put(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) omp_die("Out of memory allocating %lu bytes", (unsigned long)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_put(b, big, (size_t)n);
    free(big);
}

static const struct {
    const char *name;
    char type;
} long_names[] = {
    {"team_num", 't'},   {"num_teams", 'T'},     {"nesting_level", 'L'},    {"thread_num", 'n'},
    {"num_threads", 'N'}, {"ancestor_tnum", 'a'}, {"host", 'H'},             {"process_id", 'P'},
    {"native_thread_id", 'i'}, {"thread_affinity", 'A'},
};

/* The CPUs of the calling thread's place, else of the process. */
static void put_affinity(struct sbuf *b)
{
    const struct omp_thread *thr = omp_self();
    int p = self_place(thr);
    const int *cpus = p >= 0 ? omp_g.place_procs[p] : omp_init_cpus;
    int n = p >= 0 ? omp_g.place_nprocs[p] : omp_init_ncpus;
    size_t len = omp_format_cpus(NULL, 0, cpus, n, 0);
    char *s = malloc(len + 1);
    if (!s) omp_die("Out of memory allocating %lu bytes", (unsigned long)len + 1);
    omp_format_cpus(s, len + 1, cpus, n, 0);
    sb_put(b, s, len);
    free(s);
}

/* One field. width is the (int) of what the format said, as libgomp
 * hands it to printf; zero: "0.", right: "." */
static void put_field(struct sbuf *b, char type, int zero, int right, int width)
{
    const char *num_fmt = zero ? "%0*d" : right ? "%*d" : "%-*d";
    const char *str_fmt = zero || right ? "%*s" : "%-*s";
    switch (type) {
    case 't': sb_printf(b, num_fmt, width, omp_get_team_num()); return;
    case 'T': sb_printf(b, num_fmt, width, omp_get_num_teams()); return;
    case 'L': sb_printf(b, num_fmt, width, omp_get_level()); return;
    case 'n': sb_printf(b, num_fmt, width, omp_get_thread_num()); return;
    case 'N': sb_printf(b, num_fmt, width, omp_get_num_threads()); return;
    case 'a': sb_printf(b, num_fmt, width, omp_get_ancestor_thread_num(omp_get_level() - 1)); return;
    case 'P': sb_printf(b, num_fmt, width, (int)getpid()); return;
    case 'H': {
        char host[256];
        if (gethostname(host, sizeof host) != 0) strcpy(host, "<unknown>");
        host[sizeof host - 1] = '\0';
        sb_printf(b, str_fmt, width, host);
        return;
    }
    case 'i': {
        /* the OS thread running the OpenMP thread now (a weft stream) */
        unsigned long id = (unsigned long)pthread_self();
        if (zero) sb_printf(b, "0x%0*lx", width > -INT_MAX ? width - 2 : width, id);
        else {
            char s[2 + 2 * sizeof id + 1];
            snprintf(s, sizeof s, "0x%lx", id);
            sb_printf(b, str_fmt, width, s);
        }
        return;
    }
    case 'A': {
        if (width == 0) {
            put_affinity(b);
            return;
        }
        struct sbuf a = {0};
        put_affinity(&a);
        sb_printf(b, str_fmt, width, a.p ? a.p : "");
        free(a.p);
        return;
    }
    default: return;
    }
}

static void format_affinity(struct sbuf *b, const char *fmt)
{
    const char *p = fmt;
    sb_put(b, "", 0); /* an empty result is still a string */
    while (*p) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            sb_put(b, p, n);
            p += n;
            continue;
        }
        p++;
        if (*p == '%') {
            sb_put(b, "%", 1);
            p++;
            continue;
        }
        int zero = 0, right = 0;
        unsigned long width = 0;
        if (*p == '0') {
            zero = 1;
            p++;
            if (*p != '.') omp_die("leading zero not followed by dot in affinity format");
        }
        if (*p == '.') {
            right = 1;
            p++;
        }
        if (isdigit((unsigned char)*p)) {
            char *end;
            width = strtoul(p, &end, 10);
            p = end;
        }
        if ((zero || right) && width == 0)
            omp_die("leading zero or right justification in affinity format requires size");
        char type = 0;
        if (*p == '{') {
            const char *name = p + 1, *close = strchr(name, '}');
            if (!close) omp_die("unterminated long type name '%s' in affinity format", name);
            size_t len = (size_t)(close - name);
            for (size_t i = 0; i < sizeof long_names / sizeof long_names[0] && !type; i++)
                if (strlen(long_names[i].name) == len && memcmp(long_names[i].name, name, len) == 0)
                    type = long_names[i].type;
            if (!type) omp_die("unsupported long type name '%.*s' in affinity format", (int)len, name);
            p = close + 1;
        } else {
            type = *p;
            if (!type || !strchr("tTLnNaHPiA", type)) omp_die("unsupported type %c in affinity format", type);
            p++;
        }
        put_field(b, type, zero, right, (int)width);
    }
}

/* Format with fmt, or with affinity-format-var when fmt is NULL or "". */
static void capture(struct sbuf *b, const char *format)
{
    char *own = NULL;
    if (!format || !*format) {
        own = omp_affinity_format_dup();
        if (!own) omp_die("Out of memory allocating the affinity format");
        format = own;
    }
    format_affinity(b, format);
    free(own);
}

OMP_EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    struct sbuf b = {0};
    capture(&b, format);
    size_t len = copy_out(buffer, size, b.p, b.len);
    free(b.p);
    return len;
}

OMP_EXPORT void omp_display_affinity(const char *format)
{
    struct sbuf b = {0};
    capture(&b, format);
    sb_put(&b, "\n", 1);
    /* one write: the lines of threads displaying together stay whole */
    fwrite(b.p, 1, b.len, stderr);
    free(b.p);
}

void omp_affinity_display_thread(void) { omp_display_affinity(NULL); }
