/* The one place weft loads an hwloc topology (topo.c), for the layers
 * above the core that need one of their own (OMP_PLACES in weft-omp):
 * without hwloc's x86 component and its I/O plugins, restricted to the
 * calling thread's CPUs when asked. WEFT_OK, or WEFT_ERR_SYS. Built only
 * with hwloc (WEFT_HAVE_HWLOC). */
#ifndef WEFT_CORE_TOPO_HWLOC_H
#define WEFT_CORE_TOPO_HWLOC_H

#include <hwloc.h>
#include <stdbool.h>

__attribute__((visibility("hidden"))) int topo_hwloc_load(hwloc_topology_t *t, bool restrict_to_caller);

#endif
