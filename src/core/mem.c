/* Memory for work units, the whole of it: descriptors (slab.c) and ULT
 * stacks (stack.c), with their per-stream caches inline in mem_cache.h;
 * this file ends their life together and holds the fault injection of
 * sys.h. Handle memory is handle.c; retired objects, obj.c. */
#include "internal.h"
#include "sys.h"
#include "mem_cache.h"

/* ---------- fault injection (sys.h) ---------- */

_Atomic long weft_fault_countdown;

bool fault_hit(void)
{
    return atomic_fetch_sub(&weft_fault_countdown, 1) == 1;
}

/* A stream that ends hands its caches of descriptors and stacks on. */
void mem_cache_flush(struct weft_xstream_s *xs)
{
    slab_cache_flush(xs);
    stack_cache_flush(xs);
}

/* Release every stack; keep the slabs, every descriptor dead, for the
 * next runtime (a stale handle still reads "dead"). All streams are gone. */
void mem_finalize(void)
{
    slabs_finalize();
    stacks_finalize();
    handle_ahead_stop();
}

/* The child of a live runtime: the parent's slabs, stacks and chunks stay
 * as they are, mapped and allocated; the next weft_init() starts with
 * empty lists. */
void mem_fork_abandon(void)
{
    slabs_fork_abandon();
    stacks_fork_abandon();
}
