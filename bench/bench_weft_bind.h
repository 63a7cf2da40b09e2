/* weft's streams in the benchmarks are bound as every runtime's workers are
 * here (bench_bind.h): one per CPU of the process when they fit, none when
 * they do not, unless WEFT_BIND says otherwise. (weft's own default leaves
 * them unbound: README, "Binding".) Needs _GNU_SOURCE. */
#ifndef WEFT_BENCH_WEFT_BIND_H
#define WEFT_BENCH_WEFT_BIND_H

#include <sched.h>
#include <stdlib.h>

#include "weft.h"

static inline void bench_weft_bind(weft_config *cfg)
{
    if (getenv("WEFT_BIND")) return;
    cpu_set_t s;
    cfg->bind = sched_getaffinity(0, sizeof s, &s) == 0 && cfg->num_xstreams <= CPU_COUNT(&s);
}

#endif
