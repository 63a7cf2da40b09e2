#!/usr/bin/env python3
# Generates tests/omp/ABI.md from the system libgomp's dynamic symbols, the
# installed omp.h / openacc.h / acc_prof.h prototypes, and the tables below
# (prototypes of the compiler / plugin entry points and what gcc 12 emits,
# established with gcc -fopenmp -S / -fdump-tree-ompexp on small programs).
# Usage: gen_abi_md.py > tests/omp/ABI.md
import re, subprocess, collections
LIB = '/usr/lib/x86_64-linux-gnu/libgomp.so.1'
INC = '/usr/lib/gcc/x86_64-linux-gnu/12/include/'

out = subprocess.run(['readelf', '--dyn-syms', '-W', LIB], capture_output=True, text=True).stdout
vers = collections.defaultdict(list)
for line in out.splitlines():
    f = line.split()
    if len(f) < 8 or f[3] != 'FUNC' or f[6] == 'UND':
        continue
    name, v = re.split(r'@@?', f[7])
    vers[name].append(('@@' if '@@' in f[7] else '@') + v)

def cproto(header):
    text = open(INC + header).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'^\s*#.*$', ' ', text, flags=re.M)
    protos = {}
    for m in re.finditer(r'(?:extern\s+)?([A-Za-z_][\w\s\*]*?)\b((?:omp|acc)_\w+)\s*\(([^;{]*?)\)\s*([^;{]*);', text):
        ret, name, args, tail = m.groups()
        if 'typedef' in ret or 'return' in ret:
            continue
        ret = ' '.join(ret.replace('extern', '').replace('inline', '').split())
        args = re.sub(r'__GOMP_DEFAULT_NULL_ALLOCATOR', '', args)
        args = ' '.join(args.split()).replace('__SIZE_TYPE__', 'size_t')
        ret = ret.replace('__SIZE_TYPE__', 'size_t')
        if name in protos:
            continue
        star = ''
        protos[name] = f'{ret} {name}({args})'.replace('* ', '*').replace(' (', '(').replace(' ,', ',')
    return protos

OMP = cproto('omp.h')
ACC = cproto('openacc.h')
ACC.update(cproto('acc_prof.h'))
ACC['acc_on_device'] = 'int acc_on_device(int)'

# ---- GOMP_* (libgomp_g.h facts; GOMP_task etc. as gcc 12 passes them) ----
L, U, P = 'long', 'unsigned long long', 'void (*fn)(void *), void *data'
G = {}
def g(name, proto, emitted, status='THIS'):
    G[name] = (proto, emitted, status)

g('GOMP_barrier', 'void GOMP_barrier(void)', '`barrier`; the end barrier of `single`, `scope`, `sections`/loops not last in a region')
g('GOMP_barrier_cancel', 'bool GOMP_barrier_cancel(void)', 'barriers inside a region that contains `cancel parallel` (returns true if cancelled)')
g('GOMP_critical_start', 'void GOMP_critical_start(void)', 'unnamed `critical`')
g('GOMP_critical_end', 'void GOMP_critical_end(void)', 'unnamed `critical`')
g('GOMP_critical_name_start', 'void GOMP_critical_name_start(void **pptr)', 'named `critical(name)` (with or without `hint`); pptr is the common symbol `.gomp_critical_user_name`')
g('GOMP_critical_name_end', 'void GOMP_critical_name_end(void **pptr)', 'named `critical(name)`')
g('GOMP_atomic_start', 'void GOMP_atomic_start(void)', '`atomic` on types without a native atomic (long double, __int128 without -mcx16), `lastprivate(conditional:)`, `scope`/combined reductions of several variables')
g('GOMP_atomic_end', 'void GOMP_atomic_end(void)', 'as GOMP_atomic_start')
for kind, what in [('static', 'not emitted by gcc 12 (static loops are inlined); legacy'),
                   ('dynamic', '`for schedule(monotonic:dynamic[,c])` (also lastprivate(conditional:) loops)'),
                   ('guided', '`for schedule(monotonic:guided[,c])`'),
                   ('nonmonotonic_dynamic', '`for schedule(dynamic[,c])` (default modifier) / `nonmonotonic:dynamic`'),
                   ('nonmonotonic_guided', '`for schedule(guided[,c])` / `nonmonotonic:guided`')]:
    g(f'GOMP_loop_{kind}_start', f'bool GOMP_loop_{kind}_start(long start, long end, long incr, long chunk, long *istart, long *iend)', what, 'LEGACY' if kind == 'static' else 'THIS')
    g(f'GOMP_loop_{kind}_next', f'bool GOMP_loop_{kind}_next(long *istart, long *iend)', what if kind != 'static' else 'static doacross loops, `GOMP_parallel_loop_static*` bodies', 'THIS')
    g(f'GOMP_loop_ull_{kind}_start', f'bool GOMP_loop_ull_{kind}_start(bool up, {U} start, {U} end, {U} incr, {U} chunk, {U} *istart, {U} *iend)', (what + ', unsigned long long iteration variable') if kind != 'static' else 'not emitted by gcc 12; legacy', 'LEGACY' if kind == 'static' else 'THIS')
    g(f'GOMP_loop_ull_{kind}_next', f'bool GOMP_loop_ull_{kind}_next({U} *istart, {U} *iend)', (what + ', ull') if kind != 'static' else 'ull static doacross loops')
for kind, what in [('runtime', '`for schedule(monotonic:runtime)`'),
                   ('nonmonotonic_runtime', '`for schedule(nonmonotonic:runtime)`'),
                   ('maybe_nonmonotonic_runtime', '`for schedule(runtime)` (no modifier)')]:
    g(f'GOMP_loop_{kind}_start', f'bool GOMP_loop_{kind}_start(long start, long end, long incr, long *istart, long *iend)', what)
    g(f'GOMP_loop_{kind}_next', f'bool GOMP_loop_{kind}_next(long *istart, long *iend)', what)
    g(f'GOMP_loop_ull_{kind}_start', f'bool GOMP_loop_ull_{kind}_start(bool up, {U} start, {U} end, {U} incr, {U} *istart, {U} *iend)', what + ', ull')
    g(f'GOMP_loop_ull_{kind}_next', f'bool GOMP_loop_ull_{kind}_next({U} *istart, {U} *iend)', what + ', ull')
for kind in ['static', 'dynamic', 'guided']:
    g(f'GOMP_loop_ordered_{kind}_start', f'bool GOMP_loop_ordered_{kind}_start(long start, long end, long incr, long chunk, long *istart, long *iend)', f'`for ordered schedule({kind})` (static also for the default schedule)')
    g(f'GOMP_loop_ordered_{kind}_next', f'bool GOMP_loop_ordered_{kind}_next(long *istart, long *iend)', f'`for ordered schedule({kind})`')
    g(f'GOMP_loop_ull_ordered_{kind}_start', f'bool GOMP_loop_ull_ordered_{kind}_start(bool up, {U} start, {U} end, {U} incr, {U} chunk, {U} *istart, {U} *iend)', f'`for ordered schedule({kind})`, ull')
    g(f'GOMP_loop_ull_ordered_{kind}_next', f'bool GOMP_loop_ull_ordered_{kind}_next({U} *istart, {U} *iend)', f'`for ordered schedule({kind})`, ull')
    g(f'GOMP_loop_doacross_{kind}_start', f'bool GOMP_loop_doacross_{kind}_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend)', f'`for ordered(n) schedule({kind})` with depend(sink/source) (static also for the default); then GOMP_loop_{kind}_next')
    g(f'GOMP_loop_ull_doacross_{kind}_start', f'bool GOMP_loop_ull_doacross_{kind}_start(unsigned ncounts, {U} *counts, {U} chunk, {U} *istart, {U} *iend)', f'as GOMP_loop_doacross_{kind}_start, ull')
g('GOMP_loop_ordered_runtime_start', 'bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart, long *iend)', '`for ordered schedule(runtime)`')
g('GOMP_loop_ordered_runtime_next', 'bool GOMP_loop_ordered_runtime_next(long *istart, long *iend)', '`for ordered schedule(runtime)`')
g('GOMP_loop_ull_ordered_runtime_start', f'bool GOMP_loop_ull_ordered_runtime_start(bool up, {U} start, {U} end, {U} incr, {U} *istart, {U} *iend)', '`for ordered schedule(runtime)`, ull')
g('GOMP_loop_ull_ordered_runtime_next', f'bool GOMP_loop_ull_ordered_runtime_next({U} *istart, {U} *iend)', '`for ordered schedule(runtime)`, ull')
g('GOMP_loop_doacross_runtime_start', 'bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)', '`for ordered(n) schedule(runtime)`; then GOMP_loop_runtime_next')
g('GOMP_loop_ull_doacross_runtime_start', f'bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, {U} *counts, {U} *istart, {U} *iend)', 'as above, ull')
g('GOMP_loop_start', 'bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend, uintptr_t *reductions, void **mem)',
  '`for reduction(task, ...)` (reductions != NULL: task reductions) and `for reduction(inscan, ...)` with `scan` (istart == iend == NULL, sched 0x80000001: only allocates the scan buffer through *mem)')
g('GOMP_loop_ull_start', f'bool GOMP_loop_ull_start(bool up, {U} start, {U} end, {U} incr, long sched, {U} chunk, {U} *istart, {U} *iend, uintptr_t *reductions, void **mem)', 'ull `for reduction(task, ...)`', 'DATAFLOW')
g('GOMP_loop_ordered_start', 'bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend, uintptr_t *reductions, void **mem)', '`for ordered reduction(task, ...)` only', 'DATAFLOW')
g('GOMP_loop_ull_ordered_start', f'bool GOMP_loop_ull_ordered_start(bool up, {U} start, {U} end, {U} incr, long sched, {U} chunk, {U} *istart, {U} *iend, uintptr_t *reductions, void **mem)', 'ull `for ordered reduction(task, ...)` only', 'DATAFLOW')
g('GOMP_loop_doacross_start', 'bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk, long *istart, long *iend, uintptr_t *reductions, void **mem)', '`for ordered(n) reduction(task, ...)` only', 'DATAFLOW')
g('GOMP_loop_ull_doacross_start', f'bool GOMP_loop_ull_doacross_start(unsigned ncounts, {U} *counts, long sched, {U} chunk, {U} *istart, {U} *iend, uintptr_t *reductions, void **mem)', 'ull doacross with task reductions only', 'DATAFLOW')
g('GOMP_loop_end', 'void GOMP_loop_end(void)', 'end of a non-static loop without nowait that is not the last statement of its region')
g('GOMP_loop_end_nowait', 'void GOMP_loop_end_nowait(void)', 'end of a non-static loop with nowait, or the last one in a region (the region end barrier follows)')
g('GOMP_loop_end_cancel', 'bool GOMP_loop_end_cancel(void)', 'end of a non-static loop inside a region that contains `cancel parallel`')
g('GOMP_ordered_start', 'void GOMP_ordered_start(void)', '`ordered` / `ordered threads` block')
g('GOMP_ordered_end', 'void GOMP_ordered_end(void)', '`ordered` block')
g('GOMP_doacross_post', 'void GOMP_doacross_post(long *counts)', '`ordered depend(source)`')
g('GOMP_doacross_wait', 'void GOMP_doacross_wait(long first, ...)', '`ordered depend(sink: ...)` (one long per loop of the nest)')
g('GOMP_doacross_ull_post', f'void GOMP_doacross_ull_post({U} *counts)', '`ordered depend(source)`, ull loop')
g('GOMP_doacross_ull_wait', f'void GOMP_doacross_ull_wait({U} first, ...)', '`ordered depend(sink: ...)`, ull loop')
g('GOMP_parallel_start', 'void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)', 'gcc < 4.9 `parallel` (caller then runs fn itself and calls GOMP_parallel_end)', 'LEGACY')
g('GOMP_parallel_end', 'void GOMP_parallel_end(void)', 'gcc < 4.9 `parallel` (pairs with the *_start forms)', 'LEGACY')
g('GOMP_parallel', 'void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)', '`parallel` (num_threads 0 = default; the if clause false passes 1; flags carry proc_bind); also `parallel for` with static or non-constant bounds')
g('GOMP_parallel_reductions', 'unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)', '`parallel reduction(task, ...)` only (plain reductions use GOMP_parallel)', 'DATAFLOW')
for kind, what in [('static', 'not emitted by gcc 12 (static loops are inlined); gcc 4.9+ legacy'),
                   ('dynamic', '`parallel for schedule(monotonic:dynamic)` with bounds computable before the region'),
                   ('guided', '`parallel for schedule(monotonic:guided)`, bounds known before the region'),
                   ('nonmonotonic_dynamic', '`parallel for schedule(dynamic)`, bounds known before the region'),
                   ('nonmonotonic_guided', '`parallel for schedule(guided)`, bounds known before the region')]:
    g(f'GOMP_parallel_loop_{kind}', f'void GOMP_parallel_loop_{kind}({P}, unsigned num_threads, long start, long end, long incr, long chunk, unsigned flags)', what, 'LEGACY' if kind == 'static' else 'THIS')
for kind, what in [('runtime', '`parallel for schedule(monotonic:runtime)`, bounds known before the region'),
                   ('nonmonotonic_runtime', '`parallel for schedule(nonmonotonic:runtime)`, bounds known before'),
                   ('maybe_nonmonotonic_runtime', '`parallel for schedule(runtime)`, bounds known before')]:
    g(f'GOMP_parallel_loop_{kind}', f'void GOMP_parallel_loop_{kind}({P}, unsigned num_threads, long start, long end, long incr, unsigned flags)', what)
for kind in ['static', 'dynamic', 'guided']:
    g(f'GOMP_parallel_loop_{kind}_start', f'void GOMP_parallel_loop_{kind}_start({P}, unsigned num_threads, long start, long end, long incr, long chunk)', 'gcc < 4.9 combined `parallel for` (then fn(data) by the caller and GOMP_parallel_end)', 'LEGACY')
g('GOMP_parallel_loop_runtime_start', f'void GOMP_parallel_loop_runtime_start({P}, unsigned num_threads, long start, long end, long incr)', 'gcc < 4.9 combined `parallel for schedule(runtime)`', 'LEGACY')
g('GOMP_parallel_sections_start', f'void GOMP_parallel_sections_start({P}, unsigned num_threads, unsigned count)', 'gcc < 4.9 `parallel sections`', 'LEGACY')
g('GOMP_parallel_sections', f'void GOMP_parallel_sections({P}, unsigned num_threads, unsigned count, unsigned flags)', '`parallel sections`, and `parallel` whose only statement is `sections`')
g('GOMP_sections_start', 'unsigned GOMP_sections_start(unsigned count)', 'orphaned `sections` / `sections` not alone in its region; returns the first section number (1-based, 0 = none)')
g('GOMP_sections2_start', 'unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)', '`sections lastprivate(conditional:)` (mem) and `sections reduction(task, ...)` (reductions: task reductions)')
g('GOMP_sections_next', 'unsigned GOMP_sections_next(void)', 'every `sections`: next section number, 0 when done')
g('GOMP_sections_end', 'void GOMP_sections_end(void)', 'end of `sections` without nowait that is not last in its region')
g('GOMP_sections_end_nowait', 'void GOMP_sections_end_nowait(void)', '`sections nowait`, or last in its region')
g('GOMP_sections_end_cancel', 'bool GOMP_sections_end_cancel(void)', 'end of `sections` inside a region that contains `cancel parallel`')
g('GOMP_single_start', 'bool GOMP_single_start(void)', '`single` without copyprivate (true for the thread that runs it); also Fortran `workshare` scalar parts')
g('GOMP_single_copy_start', 'void *GOMP_single_copy_start(void)', '`single copyprivate(...)`: NULL for the executing thread, else the executing thread\'s copy block')
g('GOMP_single_copy_end', 'void GOMP_single_copy_end(void *data)', '`single copyprivate(...)`: publishes the copy block (a GOMP_barrier follows)')
g('GOMP_scope_start', 'void GOMP_scope_start(uintptr_t *reductions)', '`scope reduction(task, ...)` only; a plain `scope` is inlined (private copies + barrier, reductions via GOMP_atomic_start)', 'DATAFLOW')
g('GOMP_cancel', 'bool GOMP_cancel(int which, bool do_cancel)', '`cancel parallel/for/sections/taskgroup [if(...)]` (which: 1 parallel, 2 for, 4 sections, 8 taskgroup; do_cancel = the if clause)')
g('GOMP_cancellation_point', 'bool GOMP_cancellation_point(int which)', '`cancellation point ...`')
g('GOMP_task', 'void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend, int priority, void *detach)',
  '`task` (flags as gcc 12 passes them: untied 1, final 2, mergeable 4, depend 8, priority 16, detach 8192; if_clause false = undeferred; cpyfn non-NULL for C++ copy constructors / VLAs; arg_size/arg_align describe the firstprivate block); also `target nowait`. The depend array (src/omp/depend.c) and the detach event (task.c) are implemented')
g('GOMP_taskwait', 'void GOMP_taskwait(void)', '`taskwait`')
g('GOMP_taskwait_depend', 'void GOMP_taskwait_depend(void **depend)', '`taskwait depend(...)` (src/omp/depend.c)')
g('GOMP_taskyield', 'void GOMP_taskyield(void)', '`taskyield`')
g('GOMP_taskgroup_start', 'void GOMP_taskgroup_start(void)', '`taskgroup`')
g('GOMP_taskgroup_end', 'void GOMP_taskgroup_end(void)', '`taskgroup` (waits for all descendant tasks)')
g('GOMP_taskgroup_reduction_register', 'void GOMP_taskgroup_reduction_register(uintptr_t *data)', '`taskgroup task_reduction(...)`', 'DATAFLOW')
g('GOMP_taskgroup_reduction_unregister', 'void GOMP_taskgroup_reduction_unregister(uintptr_t *data)', 'task reductions, `parallel reduction(task,...)`', 'DATAFLOW')
g('GOMP_task_reduction_remap', 'void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)', '`task in_reduction(...)`', 'DATAFLOW')
g('GOMP_workshare_task_reduction_unregister', 'void GOMP_workshare_task_reduction_unregister(bool cancelled)', 'end of `for`/`sections`/`scope` with reduction(task, ...)', 'DATAFLOW')
g('GOMP_taskloop', 'void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start, long end, long step)', '`taskloop`', 'DATAFLOW')
g('GOMP_taskloop_ull', f'void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, int priority, {U} start, {U} end, {U} step)', '`taskloop` over an unsigned long long variable', 'DATAFLOW')
g('GOMP_teams_reg', 'void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit, unsigned flags)', 'host `teams` (num_teams 0 = nteams-var; for `num_teams(lo:hi)` gcc 12 passes hi only); also `teams distribute ...`')
g('GOMP_teams4', 'bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit, bool first)', '`teams` inside a `target` region (host fallback calls it in a loop: returns true while another team must run)')
g('GOMP_teams', 'void GOMP_teams(unsigned num_teams, unsigned thread_limit)', 'gcc 4.9-10 `teams` inside `target`', 'LEGACY')
g('GOMP_target_ext', 'void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, unsigned int flags, void **depend, void **args)', '`target` (device -1 = default-device-var; flags bit 1 = nowait; depend: waits for its dependences)')
g('GOMP_target_data_ext', 'void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds)', '`target data`')
g('GOMP_target_end_data', 'void GOMP_target_end_data(void)', 'end of `target data`')
g('GOMP_target_update_ext', 'void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, unsigned int flags, void **depend)', '`target update`')
g('GOMP_target_enter_exit_data', 'void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, unsigned int flags, void **depend)', '`target enter data` / `target exit data` (flags bit 2 = exit)')
g('GOMP_target', 'void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned char *kinds)', 'gcc 4.9-5 `target` (host fallback: fn(hostaddrs))', 'LEGACY')
g('GOMP_target_data', 'void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned char *kinds)', 'gcc 4.9-5 `target data`', 'LEGACY')
g('GOMP_target_update', 'void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned char *kinds)', 'gcc 4.9-5 `target update`', 'LEGACY')
g('GOMP_alloc', 'void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)', '`allocate(al: list)` clause on private/firstprivate variables')
g('GOMP_free', 'void GOMP_free(void *ptr, uintptr_t allocator)', '`allocate` clause (end of the construct)')
g('GOMP_error', 'void GOMP_error(const char *msg, size_t msglen)', '`error at(execution) severity(fatal)` (also the default severity); msglen (size_t)-1 = NUL-terminated')
g('GOMP_warning', 'void GOMP_warning(const char *msg, size_t msglen)', '`error at(execution) severity(warning)`; msg NULL when no message clause')
g('GOMP_offload_register', 'void GOMP_offload_register(const void *host_table, int target_type, const void *target_data)', 'constructors of offloading images (gcc 5-6)', 'OFFLOAD')
g('GOMP_offload_unregister', 'void GOMP_offload_unregister(const void *host_table, int target_type, const void *target_data)', 'destructors of offloading images', 'OFFLOAD')
g('GOMP_offload_register_ver', 'void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type, const void *target_data)', 'constructors of offloading images (mkoffload)', 'OFFLOAD')
g('GOMP_offload_unregister_ver', 'void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type, const void *target_data)', 'destructors of offloading images', 'OFFLOAD')

PLUG = {
 'GOMP_PLUGIN_malloc': 'void *GOMP_PLUGIN_malloc(size_t size)',
 'GOMP_PLUGIN_malloc_cleared': 'void *GOMP_PLUGIN_malloc_cleared(size_t size)',
 'GOMP_PLUGIN_realloc': 'void *GOMP_PLUGIN_realloc(void *ptr, size_t size)',
 'GOMP_PLUGIN_debug': 'void GOMP_PLUGIN_debug(int kind, const char *fmt, ...)',
 'GOMP_PLUGIN_error': 'void GOMP_PLUGIN_error(const char *fmt, ...)',
 'GOMP_PLUGIN_fatal': 'void GOMP_PLUGIN_fatal(const char *fmt, ...) /* noreturn */',
 'GOMP_PLUGIN_target_task_completion': 'void GOMP_PLUGIN_target_task_completion(void *data)',
 'GOMP_PLUGIN_async_unmap_vars': 'void GOMP_PLUGIN_async_unmap_vars(void *ptr, int async)',
 'GOMP_PLUGIN_acc_thread': 'void *GOMP_PLUGIN_acc_thread(void)',
 'GOMP_PLUGIN_goacc_thread': 'struct goacc_thread *GOMP_PLUGIN_goacc_thread(void)',
 'GOMP_PLUGIN_acc_default_dim': 'int GOMP_PLUGIN_acc_default_dim(unsigned int i)',
 'GOMP_PLUGIN_goacc_profiling_dispatch': 'void GOMP_PLUGIN_goacc_profiling_dispatch(acc_prof_info *, acc_event_info *, acc_api_info *)',
}
GOACC = {
 'GOACC_wait': 'void GOACC_wait(int async, int num_waits, ...)',
 'GOACC_enter_exit_data': 'void GOACC_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, int async, int num_waits, ...)',
 'GOACC_enter_data': 'void GOACC_enter_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, int async, int num_waits, ...)',
 'GOACC_exit_data': 'void GOACC_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, int async, int num_waits, ...)',
 'GOACC_declare': 'void GOACC_declare(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds)',
 'GOACC_parallel_keyed': 'void GOACC_parallel_keyed(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, ...)',
 'GOACC_parallel': 'void GOACC_parallel(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, int num_gangs, int num_workers, int vector_length, int async, int num_waits, ...)',
 'GOACC_data_start': 'void GOACC_data_start(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds)',
 'GOACC_data_end': 'void GOACC_data_end(void)',
 'GOACC_update': 'void GOACC_update(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds, int async, int num_waits, ...)',
 'GOACC_get_num_threads': 'int GOACC_get_num_threads(void)',
 'GOACC_get_thread_num': 'int GOACC_get_thread_num(void)',
}

# ---- Fortran omp_lib entries (C view of gfortran's calls) ----
I4, I8 = 'const int32_t *', 'const int64_t *'
F = {}
def fsig(base, c_ret, args4, args8=None):
    F[base + '_'] = f'{c_ret} {base}_({args4})'
    if args8 is not None:
        F[base + '_8_'] = f'{c_ret} {base}_8_({args8})'
int_getters = ['omp_get_num_threads', 'omp_get_max_threads', 'omp_get_thread_num', 'omp_get_num_procs',
               'omp_get_thread_limit', 'omp_get_max_active_levels', 'omp_get_supported_active_levels',
               'omp_get_level', 'omp_get_active_level', 'omp_get_proc_bind', 'omp_get_num_places',
               'omp_get_place_num', 'omp_get_partition_num_places', 'omp_get_default_device',
               'omp_get_num_devices', 'omp_get_device_num', 'omp_get_num_teams', 'omp_get_team_num',
               'omp_get_initial_device', 'omp_get_max_task_priority', 'omp_get_max_teams',
               'omp_get_teams_thread_limit']
for b in int_getters:
    fsig(b, 'int32_t', 'void')
for b in ['omp_in_parallel', 'omp_get_dynamic', 'omp_get_nested', 'omp_in_final', 'omp_get_cancellation', 'omp_is_initial_device']:
    fsig(b, 'int32_t /* LOGICAL(4) */', 'void')
fsig('omp_get_wtime', 'double', 'void'); fsig('omp_get_wtick', 'double', 'void')
for b in ['omp_set_num_threads', 'omp_set_max_active_levels', 'omp_set_default_device', 'omp_set_num_teams', 'omp_set_teams_thread_limit']:
    fsig(b, 'void', I4 + 'n', I8 + 'n')
for b in ['omp_set_dynamic', 'omp_set_nested', 'omp_display_env']:
    fsig(b, 'void', 'const int32_t *flag /* LOGICAL(4) */', 'const int64_t *flag /* LOGICAL(8) */')
fsig('omp_get_ancestor_thread_num', 'int32_t', I4 + 'level', I8 + 'level')
fsig('omp_get_team_size', 'int32_t', I4 + 'level', I8 + 'level')
fsig('omp_get_place_num_procs', 'int32_t', I4 + 'place', I8 + 'place')
fsig('omp_get_place_proc_ids', 'void', I4 + 'place, int32_t *ids', I8 + 'place, int64_t *ids')
fsig('omp_get_partition_place_nums', 'void', 'int32_t *nums', 'int64_t *nums')
fsig('omp_set_schedule', 'void', 'const int32_t *kind, const int32_t *chunk', 'const int32_t *kind, const int64_t *chunk')
fsig('omp_get_schedule', 'void', 'int32_t *kind, int32_t *chunk', 'int32_t *kind, int64_t *chunk')
for op in ['init', 'destroy', 'set', 'unset']:
    fsig(f'omp_{op}_lock', 'void', 'omp_lock_t *lock /* INTEGER(4) holds the 4-byte lock itself */')
    fsig(f'omp_{op}_nest_lock', 'void', 'omp_nest_lock_t **lock /* INTEGER(8) holds a pointer to a 16-byte nest lock */')
fsig('omp_test_lock', 'int32_t /* LOGICAL(4) */', 'omp_lock_t *lock')
fsig('omp_test_nest_lock', 'int32_t', 'omp_nest_lock_t **lock')
fsig('omp_set_affinity_format', 'void', 'const char *format, size_t format_len')
fsig('omp_get_affinity_format', 'int32_t', 'char *buffer, size_t buffer_len')
fsig('omp_display_affinity', 'void', 'const char *format, size_t format_len')
fsig('omp_capture_affinity', 'int32_t', 'char *buffer, const char *format, size_t buffer_len, size_t format_len')
fsig('omp_pause_resource', 'int32_t', 'const int32_t *kind, const int32_t *device_num')
fsig('omp_pause_resource_all', 'int32_t', 'const int32_t *kind')
fsig('omp_init_allocator', 'intptr_t', 'const intptr_t *memspace, const int32_t *ntraits, const omp_alloctrait_t *traits', 'const intptr_t *memspace, const int64_t *ntraits, const omp_alloctrait_t *traits')
fsig('omp_destroy_allocator', 'void', 'const intptr_t *allocator')
fsig('omp_set_default_allocator', 'void', 'const intptr_t *allocator')
fsig('omp_get_default_allocator', 'intptr_t', 'void')
fsig('omp_fulfill_event', 'void', 'intptr_t event /* VALUE */')

DATAFLOW = {'omp_fulfill_event', 'omp_fulfill_event_'}
LOCKS = {n for n, v in vers.items() if any(x == '@OMP_1.0' for x in v)}

def verstr(n):
    return ', '.join(sorted(vers[n], key=lambda s: s.lstrip('@')))

def acc_fortran(n):
    base = n[:-3] if n.endswith('_h_') else n
    m = re.match(r'(acc_\w+?)(_async)?_(32|64|array)_h_$', n)
    if m:
        b, asy, w = m.group(1), m.group(2) or '', m.group(3)
        a = {'32': 'void *a, const int32_t *len', '64': 'void *a, const int64_t *len', 'array': 'gfc_array_descriptor *a'}[w]
        if asy:
            a += ', const int32_t *async'
        return f'void {n}({a})'
    return f'{n}(...) /* Fortran openacc module wrapper of {base}, arguments by reference */'

rows_api, rows_f, rows_g, rows_off = [], [], [], []
for n in sorted(vers):
    if n.startswith('omp_') and not n.endswith('_'):
        st = 'DATAFLOW' if n in DATAFLOW else 'THIS'
        rows_api.append((n, verstr(n), OMP.get(n, '?'), st))
    elif n.startswith('omp_'):
        st = 'DATAFLOW' if n in DATAFLOW else 'THIS'
        rows_f.append((n, verstr(n), F.get(n, '?'), st))
    elif n.startswith('GOMP_PLUGIN'):
        rows_off.append((n, verstr(n), PLUG.get(n, '?'), 'plugin interface (libgomp-plugin-*.so calls it)'))
    elif n.startswith('GOACC'):
        rows_off.append((n, verstr(n), GOACC.get(n, '?'), 'gcc -fopenacc compiler entry point'))
    elif n.startswith('acc_'):
        p = ACC.get(n) or acc_fortran(n)
        rows_off.append((n, verstr(n), p, 'OpenACC API' + (' (Fortran)' if n.endswith('_h_') else '')))
    elif n.startswith('GOMP_'):
        p, e, st = G.get(n, ('?', '?', '?'))
        if st == 'OFFLOAD':
            rows_off.append((n, verstr(n), p, e))
        else:
            rows_g.append((n, verstr(n), p, e, st))

missing = [r[0] for r in rows_api + rows_f + rows_g + rows_off if '?' in r[2][:2] or r[2] == '?']
assert not missing, missing

def esc(s):
    return s.replace('|', '\\|')

o = []
w = o.append
w('# weft-omp ABI: the exported functions of GCC 12\'s libgomp.so.1')
w('')
w('Generated from Debian 12\'s `/usr/lib/x86_64-linux-gnu/libgomp.so.1` (gcc 12.2.0):')
w('`readelf --dyn-syms -W` for the names and versions, the installed `omp.h`,')
w('`openacc.h` and `acc_prof.h` for the API prototypes, and the public')
w('`libgomp_g.h` / `libgomp-plugin.h` / `oacc-plugin.h` declarations for the')
w('compiler and plugin entry points.  The "emitted by" column was checked by')
w('compiling small programs with `gcc -fopenmp -O2 -S` and `-fdump-tree-ompexp`')
w('(gcc 12.2.0) and by the `nm -u` of the conformance tests.  See')
w('`src/omp/libgomp.map` for the version script and `tests/omp/README.md` for')
w('the tests.')
w('')
total = sum(len(v) for v in vers.values())
w(f'{len(vers)} names, {total} symbol versions (the 20 lock routines are exported twice:')
w('`name@OMP_1.0` for the OpenMP 2.5 lock ABI and `name@@OMP_3.0`, the default).')
w('')
w('Status: **THIS** = the runtime without dataflow (issue 20); **DATAFLOW** =')
w('task dependences, taskloop, task reductions and detach (issue 21); both')
w('implemented, and so is the `reductions` argument of the entries gcc 12')
w('emits for `reduction(task, ...)`; **LEGACY** = never')
w('emitted by gcc 12 but called by binaries of older gcc (tested by')
w('`legacy_abi.c` / `parallel_basic.c`); offload-only symbols are listed')
w('separately at the end.')
w('')
w('## Facts an implementer needs beyond the prototypes')
w('')
w('- `flags` of `GOMP_parallel*`: the low bits carry `proc_bind` (0 none,')
w('  2 master/primary, 3 close, 4 spread); gcc passes `num_threads` 0 for "use')
w('  nthreads-var" and 1 when an `if` clause is false.')
w('- Loop entry points take the loop as `[start, end)` with step `incr` (end is')
w('  exclusive, `incr` negative for decreasing loops); the `_ull` forms take')
w('  `up` (false for decreasing loops, with `incr` the two\'s complement of the')
w('  step) and chunk sizes as unsigned long long.  `*_start` returns the first')
w('  chunk, `*_next` the following ones, false when none is left.  Static loops')
w('  without `ordered` are inlined by gcc (they call omp_get_num_threads /')
w('  omp_get_thread_num only).')
w('- `sched` values of `GOMP_loop_start`-style entries: 0 runtime, 1 static,')
w('  2 dynamic, 3 guided, 4 auto, with bit 31 = monotonic; the same encoding as')
w('  `omp_sched_t` (omp_get_schedule returns static with bit 31 set when')
w('  OMP_SCHEDULE=static).')
w('- Doacross: `counts[i]` is the trip count of loop i of the `ordered(n)`')
w('  nest; `GOMP_loop_doacross_*_start` and the `*_next` calls that follow')
w('  hand out ranges of 0-based *logical* iteration numbers of the outermost')
w('  (or collapsed) loop, not loop-variable values; `GOMP_doacross_post(v)`')
w('  gets the current logical iteration vector, `GOMP_doacross_wait(first,')
w('  ...)` the sink\'s (gcc itself skips sinks outside the iteration')
w('  space, except in the cases below).  gcc 12 + libgomp 12')
w('  deadlock on decreasing ull doacross loops, and hang on a sink before the')
w('  first iteration of a decreasing loop or `j - 1` of an unsigned loop from')
w('  0 (the tests guard those).')
w('- `GOMP_single_copy_start` returns NULL in the thread that must run the')
w('  block; it then calls `GOMP_single_copy_end(data)`; the others receive')
w('  `data`.  gcc emits a `GOMP_barrier` after the copy-out.')
w('- `GOMP_critical_name_start(void **pptr)`: `pptr` points to a per-name,')
w('  pointer-sized, zero-initialised common symbol `.gomp_critical_user_NAME`')
w('  (shared by every object file naming that critical); the runtime may use')
w('  that word as the lock itself or store a pointer to a lock there.')
w('- `GOMP_error`/`GOMP_warning` print `"\\nlibgomp: error directive encountered:')
w('  MSG\\n"` (warning) or `"\\nlibgomp: fatal error: error directive encountered:')
w('  MSG\\n"` and `exit(1)` (fatal); without a message clause `": MSG"` is')
w('  omitted.  Diagnostics of libgomp all have the form `"\\nlibgomp: ...\\n"`.')
w('- Fortran: gfortran passes every argument by reference (except `VALUE`')
w('  arguments), `LOGICAL(4)` as a 4-byte integer (0 = false), and one hidden')
w('  `size_t` length per `CHARACTER` argument after all other arguments.  The')
w('  `_8_` forms are what the generic interfaces of `omp_lib` pick for')
w('  integer(8)/logical(8) actual arguments (e.g. `-fdefault-integer-8`).')
w('  `omp_lock_kind` is 4 = `sizeof(omp_lock_t)`, so a Fortran lock variable *is*')
w('  the lock; `omp_nest_lock_kind` is 8 < `sizeof(omp_nest_lock_t)` = 16, so a')
w('  Fortran nest-lock variable holds a pointer to a separately allocated nest')
w('  lock (set by `omp_init_nest_lock_`, freed by `omp_destroy_nest_lock_`).')
w('  Routines whose `omp_lib` interface is `bind(c)` (omp_alloc, omp_free,')
w('  omp_calloc, omp_aligned_alloc, omp_aligned_calloc, omp_realloc, omp_target_*)')
w('  have no `_` entry: Fortran calls the C symbol.')
w('- `GOMP_taskloop*`: the argument block starts with the task\'s bounds (two')
w('  words of the loop\'s type, written by the runtime into each task\'s copy')
w('  after `cpyfn`/memcpy), then, with flag 1<<12 (reduction), a pointer to the')
w('  task-reduction descriptor.  Flags: 1<<8 up (ull), 1<<9 grainsize (then')
w('  `num_tasks` is the grain size), 1<<10 if-true, 1<<11 nogroup, 1<<14 strict.')
w('  A taskloop that makes no task sets word 2 of a reduction descriptor to 0')
w('  (the compiled code then skips combining and unregistering).')
w('- Task-reduction descriptor (uintptr_t words): [0] variables, [1] bytes per')
w('  thread, [2] alignment (the runtime writes the zeroed per-thread array\'s')
w('  address there), [3] allocator, [4] next descriptor, [5] [6] the runtime\'s,')
w('  then (address, offset, the runtime\'s) per variable.  The compiled code')
w('  marks a thread\'s copy used, combines the copies itself after the construct')
w('  and then calls `GOMP_taskgroup_reduction_unregister` (parallel, taskgroup,')
w('  taskloop) or `GOMP_workshare_task_reduction_unregister` (for, sections,')
w('  scope: thread 0 combines first).  `GOMP_task_reduction_remap` maps an')
w('  original\'s address, or any thread\'s copy of it, to the running thread\'s copy.')
w('- `omp_init_lock_with_hint` / `omp_init_nest_lock_with_hint` are declared in')
w('  gcc 12\'s omp.h but NOT exported by its libgomp (programs calling them do')
w('  not link).  No depobj entry exists: gcc 12 expands `depobj` inline.')
w('')
w(f'## OpenMP API, C (`omp.h`) -- {len(rows_api)} functions')
w('')
w('| symbol | version | C prototype | status |')
w('|---|---|---|---|')
for n, v, p, st in rows_api:
    w(f'| `{n}` | {v} | `{esc(p)}` | {st} |')
w('')
w(f'## OpenMP API, Fortran (`omp_lib`) -- {len(rows_f)} functions')
w('')
w('The C view of what gfortran calls.  `_8_` = integer(8)/logical(8) specific.')
w('')
w('| symbol | version | C view of the Fortran call | status |')
w('|---|---|---|---|')
for n, v, p, st in rows_f:
    w(f'| `{n}` | {v} | `{esc(p)}` | {st} |')
w('')
w(f'## Compiler entry points (`GOMP_*`) -- {len(rows_g)} functions')
w('')
w('| symbol | version | C prototype (as gcc 12 calls it) | emitted by (gcc 12) | status |')
w('|---|---|---|---|---|')
for n, v, p, e, st in rows_g:
    w(f'| `{n}` | {v} | `{esc(p)}` | {esc(e)} | {st} |')
w('')
w(f'## Offload-plugin and OpenACC only -- {len(rows_off)} functions')
w('')
w('Kept in the version script (grouped and marked [OFFLOAD]) so that the')
w('library stays a drop-in replacement; a host-only weft-omp can implement')
w('them as "no device" stubs.  `GOMP_offload_register*` are called from the')
w('constructors of binaries built with offloading, `GOMP_PLUGIN_*` only by')
w('libgomp\'s own device plugins, `GOACC_*` by code built with -fopenacc,')
w('`acc_*` by OpenACC programs (`acc_*_h_` are the Fortran `openacc` module')
w('wrappers).')
w('')
w('| symbol | version | prototype | used by |')
w('|---|---|---|---|')
for n, v, p, e in rows_off:
    w(f'| `{n}` | {v} | `{esc(p)}` | {esc(e)} |')
w('')
print('\n'.join(o))
