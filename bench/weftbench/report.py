"""The Markdown report (README.md beside the plots) from the document
latest.json holds. Measured prose comes from bench/notes/ (notes.py) and is
printed with the commit and day it was measured at."""
import os

from . import notes
from .paths import ROOT, out_dirs
from .plots import existing, geomean, have_matplotlib, plot
from .points import find, fmt, label
from .registry import (APP_EXPS, APP_ROUNDS, APP_ROUNDS_QUICK, APP_RUNTIMES, BEST_PEER, COLD_TARGET_RATIO, EPCC_CONSTRUCTS, EPCC_ROUNDS, EPCC_ROUNDS_QUICK,
                       EPCC_RUNTIMES, FEATURE_BUILDS, FIB_SCALING_THREADS, GLT_COST_TARGET_RATIO, NOT_EXPRESSED, SECOND_STREAM_TARGET_PCT,
                       SMT_KERNELS, SMT_MARGIN, SMT_NO_SLOWER, SMT_PEERS, SMT_RUNTIMES, SUMMARY_EXPS, SYNC, TARGETS,
                       UNIT_KINDS, WAKE_TARGET_NS, WEFT_OMP_TARGETS, YIELD_TO_BOOST_TARGET)

NOT_MEASURED = "Not measured yet: latest.json has no such points"


def yes_no(ok):
    return "yes" if ok else "no"


def summary_rows(res):
    """(experiment, threads, weft's best point, the best peer's point or None)."""
    out = []
    for exp in SUMMARY_EXPS:
        for th in sorted({r["threads"] for r in res if r["experiment"] == exp}):
            rows = [r for r in res if r["experiment"] == exp and r["threads"] == th]
            w = [r for r in rows if r["runtime"].startswith("weft")]
            p = [r for r in rows if not r["runtime"].startswith("weft")]
            if w:
                out.append((exp, th, min(w, key=lambda r: r["median"]), min(p, key=lambda r: r["median"]) if p else None))
    return out


def summary_section(res, m):
    out = ["## Summary\n"]
    out.append("For each experiment and thread count: weft's best time (any unit kind, pool set-up or API, "
               "weft-omp included), the "
               "best peer's time measured in the same run, and peer / weft (above 1: weft is faster). This machine "
               "has %d cores (%s of them usable at once when measured, see Machine): above that, threads "
               "share cores. Rows where a peer is faster are marked **peer "
               "faster**; *within noise* means the two runtimes' min..max ranges overlap. Why, where weft is "
               "not the fastest: [below](#where-weft-is-not-the-fastest).\n" % (
                   m["cores"], " to ".join(f"{c:.1f}" for c in m.get("parallel_capacity", []))))
    out.append("| experiment | threads | weft best | peer best | peer / weft | |")
    out.append("|---|---|---|---|---|---|")
    for exp, th, wb, pb in summary_rows(res):
        wcell = f"{fmt(wb['median'])} {wb['unit']} ({label(wb)})"
        if not pb:
            out.append(f"| {exp} | {th} | {wcell} | no peer measures this | | |")
            continue
        ratio = pb["median"] / wb["median"]
        mark = "" if ratio >= 1 else ("**peer faster**" if pb["max"] < wb["min"] else "peer faster, within noise")
        out.append(f"| {exp} | {th} | {wcell} | {fmt(pb['median'])} {pb['unit']} ({label(pb)}) | "
                   f"{ratio:.2f}x | {mark} |")
    out.append("")
    return out


def behind_section(res):
    rows = [(exp, th, wb, pb) for exp, th, wb, pb in summary_rows(res) if pb and pb["median"] < wb["median"]]
    out = ["## Where weft is not the fastest\n"]
    if not rows:
        return out + ["Nowhere in this run.\n"]
    out.append("| experiment | threads | weft best | fastest peer | weft / peer | clear of the noise |")
    out.append("|---|---|---|---|---|---|")
    for exp, th, wb, pb in rows:
        out.append(f"| {exp} | {th} | {fmt(wb['median'])} {wb['unit']} ({label(wb)}) | {fmt(pb['median'])} "
                   f"{pb['unit']} ({label(pb)}) | {wb['median'] / pb['median']:.2f}x | "
                   f"{'yes' if pb['max'] < wb['min'] else 'no (ranges overlap)'} |")
    out.append("")
    why = notes.behind()
    for exp in SUMMARY_EXPS:
        if any(r[0] == exp for r in rows) and exp in why:
            out.append(f"- **{exp}**: {why[exp].cite()}")
    out.append("")
    return out


def is_weft(r):
    return r["runtime"].startswith("weft")


def peer_point(res, exp, th, against):
    """The point weft-omp is compared with: `against`'s, or with BEST_PEER
    the fastest point of a runtime that is not weft's; None if not measured."""
    rows = [r for r in res if r["experiment"] == exp and r["threads"] == th]
    if against == BEST_PEER:
        peers = [r for r in rows if not is_weft(r)]
        return min(peers, key=lambda r: r["median"]) if peers else None
    peers = [r for r in rows if r["runtime"] == against]
    return peers[0] if peers else None


def weft_omp_point(res, exp, th):
    rows = find(res, exp, runtime="weft-omp", threads=th)
    return rows[0] if rows else None


def ratio_cell(w, p):
    """weft-omp / peer, where the peer's median is positive (EPCC overheads
    may come out at or below zero, within the noise)."""
    if p["median"] > 0:
        return f"{w['median'] / p['median']:.2f}x"
    return "n/a (peer's median <= 0)"


def runtime_cells(res, exp, th, labs):
    """A table row's cells for one experiment and thread count: each runtime
    of `labs` as median [min .. max], then weft-omp over the best peer and
    over gomp."""
    cells = []
    for lab in labs:
        p = find(res, exp, runtime=lab, threads=th)
        cells.append(f"{fmt(p[0]['median'])} [{fmt(p[0]['min'])} .. {fmt(p[0]['max'])}]" if p else "")
    w, best, gomp = (weft_omp_point(res, exp, th), peer_point(res, exp, th, BEST_PEER),
                     peer_point(res, exp, th, "gomp"))
    cells.append(f"{ratio_cell(w, best)} ({label(best)})" if w and best else "")
    cells.append(ratio_cell(w, gomp) if w and gomp else "")
    return " | ".join(cells)


def epcc_section(res, quick):
    rows = [r for r in res if r["experiment"].startswith("epcc_")]
    out = ["## OpenMP constructs (EPCC)\n"]
    rounds, runs = EPCC_ROUNDS_QUICK if quick else EPCC_ROUNDS
    out.append("The overhead of each OpenMP construct in the manner of the EPCC OpenMP microbenchmarks (J. M. Bull; "
               "bench/epcc_omp.c, written from their description): the construct around a delay of about 0.1 us, "
               "executed many times in a loop, minus the same delays without the construct, per execution of the "
               "construct (see Experiments for each construct's test and reference). One process per runtime and "
               f"team size (`OMP_NUM_THREADS`), {rounds * runs} runs per point in {rounds} round(s) interleaved across "
               "the runtimes, a run lasting about 1 ms (0.5 ms with `--quick`); ns, median [min .. max] over the "
               "runs. gomp and weft-omp are the same gcc binary (weft-omp: its `libgomp.so.1` first on "
               "`LD_LIBRARY_PATH`), llvm-omp the same source built by clang. 4 and 8 threads oversubscribe this "
               "machine's cores. Ratios: weft-omp's median over the best peer's (the faster of gomp and llvm-omp) "
               "and over gomp's; below 1, weft-omp is faster. Targets: [above](#targets-of-weft-omp).\n")
    if not rows:
        return out + [NOT_MEASURED + " (epcc_gomp, epcc_llvm_omp).\n"]
    labs = [pr.label for pr in EPCC_RUNTIMES]
    out.append("| construct | threads | " + " | ".join(labs) + " | weft-omp / best peer | weft-omp / gomp |")
    out.append("|---|---|" + "---|" * len(labs) + "---|---|")
    for c in EPCC_CONSTRUCTS:
        exp = "epcc_" + c
        for th in sorted({r["threads"] for r in rows if r["experiment"] == exp}):
            out.append(f"| {c} | {th} | " + runtime_cells(res, exp, th, labs) + " |")
    out.append("")
    return out


def apps_section(res, quick):
    """The task-parallel applications: a table per application, and the
    check that fib with weft-omp is faster at 2 threads than at 1."""
    rows = [r for r in res if r["experiment"] in APP_EXPS]
    rounds, runs = APP_ROUNDS_QUICK if quick else APP_ROUNDS
    out = ["## Task-parallel applications\n",
           "The applications of [LWT-PM] §6.3 and of dataflow runtimes' users (bench/apps/, written from the "
           "algorithms' public descriptions, every result checked): fib(24) with one task per call and fib(32) with "
           "tasks down to depth 12, N-Queens(10) with an untied task per branch, blocked sparse LU (BOTS pattern, "
           "12x12 and 24x24 blocks of 32x32) with a task per block operation and `depend` on the blocks, CG on the "
           "64x64 Poisson matrix (100 iterations, 16 row blocks, every block operation a task with `depend`), tiled "
           "Cholesky (512x512, 32x32 tiles, LAPACKE/CBLAS tile kernels), 1,000 and 10,000 empty tasks from one "
           "producer (per batch), and the peak RSS of fib(30). One process per runtime, application and thread count, "
           f"{rounds * runs} runs per point in {rounds} round(s) interleaved across the runtimes; median [min .. max]. "
           "gomp and weft-omp run the same gcc binary, llvm-omp the same source built by clang, tbb the same "
           "algorithms with task_group (fib, N-Queens, tasks) or a graph of the same tasks whose edges come from "
           "the blocks they read and write (LU, CG, Cholesky). 4 and 8 threads oversubscribe this machine's cores. "
           "Targets: [above](#targets-of-weft-omp).\n"]
    if not rows:
        return out + [NOT_MEASURED + " (apps_gomp, apps_llvm_omp, apps_tbb).\n"]
    labs = [pr.label for pr in APP_RUNTIMES]
    for exp in APP_EXPS:
        er = [r for r in rows if r["experiment"] == exp]
        if not er:
            continue
        out.append(f"**{exp}** ({er[0]['unit']})\n")
        out.append("| threads | " + " | ".join(labs) + " | weft-omp / best peer | weft-omp / gomp |")
        out.append("|---|" + "---|" * len(labs) + "---|---|")
        for th in sorted({r["threads"] for r in er}):
            out.append(f"| {th} | " + runtime_cells(res, exp, th, labs) + " |")
        out.append("")
    one, two = (weft_omp_point(res, "fib", th) for th in FIB_SCALING_THREADS)
    if one and two:
        ok = two["median"] < one["median"]
        out.append(f"fib with weft-omp at {FIB_SCALING_THREADS[1]} threads: {fmt(two['median'])} ms, at "
                   f"{FIB_SCALING_THREADS[0]}: {fmt(one['median'])} ms: target (faster at 2 than at 1) "
                   f"{'met' if ok else '**not met**'}.\n")
    return out


def smt_section(res, quick):
    """Pair mode against the peers on [Relic]'s kernels: speedups, their
    geometric means, the hand-over latency, and the issue's targets."""
    out = ["## Pair mode: fine-grained kernels\n",
           "[Relic]'s experiment (bench/pair/, kernels written for this suite from the algorithms' public "
           "descriptions): on a Kronecker graph of 32 vertices and 157 undirected edges (Graph500 R-MAT, fixed seed), "
           "betweenness centrality (Brandes, one source), breadth-first search (top-down), connected components "
           "(Shiloach-Vishkin), PageRank (20 iterations), single-source shortest paths (Dijkstra, weights 1..255) "
           "and triangle counting, and RapidJSON's parse of a 600-byte widget document. Each iteration runs two "
           "independent instances on two copies of the input: one after the other (serial), or one handed to the "
           "other thread while the caller runs the other and then waits. weft-pair: `weft_pair_submit` + "
           "`weft_pair_wait`, the owner bound to a CPU and the assistant placed by weft; weft-ult: a ULT created "
           "on stream 1 and joined (streams bound); OpenMP: `task` + `taskwait` in a team of 2 (`OMP_PROC_BIND=close`); "
           "tbb: `task_group` in a pinned arena of 2. "
           f"{'10,000' if quick else '100,000'} iterations per run; every runtime measures its own serial loop in "
           "the same process, alternating with the parallel one; a speedup is serial time / parallel time of "
           f"neighbouring runs, median [min .. max] of {'3 runs' if quick else '15 runs in 3 rounds of processes interleaved across the runtimes'}. "
           "Every run checks the count and the result of every task. The latency rows: the owner spins until the "
           "other thread has started the task, then waits (OpenMP's `taskwait` and TBB's `wait` would otherwise "
           "run the task themselves).\n"]
    rows = [r for r in res if r["experiment"].startswith("smt_") and r["unit"] == "x"]
    if not rows:
        return out + [NOT_MEASURED + " (pair_weft, pair_gomp, pair_llvm_omp, pair_tbb).\n"]
    labs = [lab for lab in SMT_RUNTIMES if any(r["runtime"] == lab for r in rows)]
    ref = [r for r in rows if r["runtime"] == "weft-pair"]
    out.append("| kernel | serial, per instance | " + " | ".join(labs) + " |")
    out.append("|---|---|" + "---|" * len(labs))
    for k in SMT_KERNELS:
        cells = []
        for lab in labs:
            r = [x for x in rows if x["runtime"] == lab and x["experiment"] == "smt_" + k]
            cells.append(f"{r[0]['median']:.2f} [{r[0]['min']:.2f} .. {r[0]['max']:.2f}]" if r else "-")
        rr = [x for x in ref if x["experiment"] == "smt_" + k]
        task = f"{rr[0]['serial_ns'] / 2:,.0f} ns" if rr else "-"
        out.append(f"| {k} | {task} | " + " | ".join(cells) + " |")
    gm, gm_pos = {}, {}
    for lab in labs:
        v = [r["median"] for r in rows if r["runtime"] == lab]
        if len(v) == len(SMT_KERNELS):
            gm[lab] = geomean(v)
            gm_pos[lab] = geomean([max(1.0, x) for x in v])
    out.append("| geometric mean | | " + " | ".join(f"{gm[lab]:.3f}" if lab in gm else "-" for lab in labs) + " |")
    out.append("| geometric mean, losses counted as 1 | | " +
               " | ".join(f"{gm_pos[lab]:.3f}" if lab in gm_pos else "-" for lab in labs) + " |")
    out.append("")
    any_r = ref[0] if ref else rows[0]
    sib = any(r.get("siblings") for r in rows)
    out.append(f"Placement: {ref[0]['placement'] if ref else 'weft-pair not measured'}. The two CPUs used "
               f"{'are' if sib else 'are **not**'} hardware threads of one core"
               f"{'' if sib else ' (this machine kind has no SMT: its two vCPUs are separate cores sharing L3, so each hand-over moves the ring entry, the instance data and the completion through L3 instead of the core-private caches [Relic] relies on, while each thread has a whole core to itself)'}"
               f". {any_r.get('iterations', 0):,} iterations per run.\n")
    lat = [r for r in res if r["experiment"] in ("smt_start", "smt_roundtrip")]
    if lat:
        out.append("Hand-over latency of one empty task (ns, median [min .. max] of the first round's "
                   f"{lat[0]['runs']:,} samples): *start*, from before the submit (task, run, create) to the "
                   "task's first instruction; *round trip*, until the owner has seen it finish (weft-ult: create on "
                   "stream 1 + join).\n")
        out.append("| | " + " | ".join(labs) + " |")
        out.append("|---|" + "---|" * len(labs))
        for exp, name in (("smt_start", "start"), ("smt_roundtrip", "round trip")):
            cells = []
            for lab in labs:
                r = [x for x in lat if x["runtime"] == lab and x["experiment"] == exp]
                cells.append(f"{fmt(r[0]['median'])} [{fmt(r[0]['min'])} .. {fmt(r[0]['max'])}]" if r else "-")
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")
    # the targets
    out.append("Targets (pair-mode issue):\n")
    pair = {r["experiment"][4:]: r["median"] for r in ref}
    if len(pair) == len(SMT_KERNELS):
        slower = [k for k in SMT_KERNELS if pair[k] < SMT_NO_SLOWER]
        out.append(f"- no kernel slower than serial with weft-pair: {'met' if not slower else '**not met** (' + ', '.join(f'{k} {pair[k]:.2f}' for k in slower) + ')'}")
        peers = {lab: gm_pos[lab] for lab in SMT_PEERS if lab in gm_pos}
        if peers and "weft-pair" in gm_pos:
            best = max(peers, key=peers.get)
            ratio = gm_pos["weft-pair"] / peers[best]
            out.append(f"- geometric-mean speedup (losses counted as 1) at least {SMT_MARGIN:.2f}x the best of "
                       f"{', '.join(SMT_PEERS)}: weft-pair {gm_pos['weft-pair']:.3f}, best peer {best} "
                       f"{peers[best]:.3f}, ratio {ratio:.3f}: {'met' if ratio >= SMT_MARGIN else '**not met**'}")
        else:
            out.append("- the geometric-mean target: peers not measured")
    else:
        out.append("- weft-pair not measured on every kernel")
    out.append("")
    return out


def weft_omp_targets_section(res):
    """Every target of WEFT_OMP_TARGETS at every experiment and thread
    count: met when weft-omp's median <= ratio x the peer's median."""
    out = ["## Targets of weft-omp\n",
           "weft-omp's median against a peer's, same experiment, thread count and run: the OpenMP constructs "
           "([EPCC](#openmp-constructs-epcc)), the patterns and the [applications](#task-parallel-applications). "
           "*best peer*: the fastest runtime that is not "
           "weft's at that point (gomp, llvm-omp, TBB, Go, pthreads, GLT over pthreads). Met when weft-omp <= "
           "target x peer.\n",
           "| experiment | threads | target | weft-omp | peer | weft-omp / peer | met |",
           "|---|---|---|---|---|---|---|"]
    any_row = False
    missed = {}  # experiment -> thread counts where a target is not met
    for t in WEFT_OMP_TARGETS:
        for exp in t.experiments:
            for th in t.threads:
                w, p = weft_omp_point(res, exp, th), peer_point(res, exp, th, t.against)
                goal = f"<= {t.ratio:.1f}x {t.against}"
                if not w or not p:
                    missing = "weft-omp" if not w else t.against
                    out.append(f"| {exp} | {th} | {goal} | | | | not measured ({missing} has no point) |")
                    continue
                any_row = True
                ok = w["median"] <= t.ratio * p["median"]
                if not ok:
                    missed.setdefault(exp, set()).add(th)
                out.append(f"| {exp} | {th} | {goal} | {fmt(w['median'])} {w['unit']} | {fmt(p['median'])} "
                           f"{p['unit']} ({label(p)}) | {ratio_cell(w, p)} | {'met' if ok else '**not met**'} |")
    if not any_row:
        out.append("")
        out.append(NOT_MEASURED + " for weft-omp.")
    if missed:
        why = notes.weft_omp()
        out += ["", "Why a target is not met, as measured (bench/notes/weft_omp.md):", ""]
        for exp in sorted(missed):
            threads = ", ".join(str(th) for th in sorted(missed[exp]))
            text = why[exp].cite() if exp in why else "no measured explanation yet."
            text = text.replace("\n\n", "\n\n  ")  # its later paragraphs stay in the list item
            out.append(f"- **{exp}** (threads {threads}): {text}")
    out.append("")
    return out


def cold_verdict(cold, warm):
    """Met or not, and when not, whether a plain write to as much fresh memory
    (the bench's first_touch, same process and repetitions) alone took more
    than the target leaves over the recycled path."""
    ratio = cold["median"] / warm["median"]
    if ratio <= COLD_TARGET_RATIO:
        return "yes"
    touch = cold.get("first_touch")
    if touch is not None and touch > (COLD_TARGET_RATIO - 1) * warm["median"]:
        return (f"no; the plain write alone: {touch:.1f} ns per 128 bytes, more than the "
                f"{(COLD_TARGET_RATIO - 1) * warm['median']:.1f} ns the target leaves")
    return "no"


def cold_pairs(res):
    """[(kind, cold point, recycled point or None)] of create_join_cold."""
    out = []
    for kind in UNIT_KINDS:
        cold = find(res, "create_join_cold", runtime=f"weft-{kind}", threads=1)
        if cold:
            warm = find(res, "create_join_per_stream", runtime=f"weft-{kind}", pool="private", threads=1)
            out.append((kind, cold[0], warm[0] if warm else None))
    return out


def glt_pairs(res):
    """[(kind, native point, GLT point)] of glt_cost_<kind>."""
    out = []
    for kind in UNIT_KINDS:
        nat = find(res, f"glt_cost_{kind}", runtime="weft-native")
        glt = find(res, f"glt_cost_{kind}", runtime="weft-glt")
        if nat and glt:
            out.append((kind, nat[0], glt[0]))
    return out


def targets_section(res):
    out = ["## Targets of the core runtime\n"]
    out.append("| what | target | measured (median) | met |")
    out.append("|---|---|---|---|")
    for t in TARGETS:
        r = find(res, t.experiment, runtime=t.runtime, pool=t.pool, threads=t.threads)
        if r:
            out.append(f"| {t.what} | <= {t.ns:.0f} ns | {r[0]['median']:.1f} ns | "
                       f"{yes_no(r[0]['median'] <= t.ns)} |")
    # Measured in pairs, back to back in one process (bench_boost.cpp): the
    # two programs' own points are a minute apart, and the VM drifts more.
    pair = find(res, "yield_to_pair")
    if pair:
        p = pair[0]
        out.append(f"| yield-to vs the Boost.Context switch (in pairs, one process) | <= {YIELD_TO_BOOST_TARGET:.2f}x "
                   f"| {p['ratio']:.2f}x [{p['ratio_min']:.2f} .. {p['ratio_max']:.2f}] "
                   f"({p['median']:.1f} vs {p['boost_ns']:.1f} ns) | {yes_no(p['ratio'] <= YIELD_TO_BOOST_TARGET)} |")
    for r in sorted((x for x in res if x["experiment"] == "second_stream" and x.get("pool") == "private"),
                    key=lambda x: x["runtime"]):
        out.append(f"| {r['runtime']}, private pools: {r['threads']} streams against 1, same CPU (below) | "
                   f"<= +{SECOND_STREAM_TARGET_PCT}% | {r['loss_pct']:+.1f}% | "
                   f"{yes_no(r['loss_pct'] <= SECOND_STREAM_TARGET_PCT)} |")
    wake = [x for x in res if x["experiment"] == "wake_latency" and x["runtime"].startswith("weft")]
    if wake:
        w = wake[0]
        out.append(f"| a unit pushed to a sleeping stream starts (median of {w['runs']} wake-ups) | "
                   f"<= {WAKE_TARGET_NS / 1000:.0f} us | {w['median'] / 1000:.1f} us | "
                   f"{yes_no(w['median'] <= WAKE_TARGET_NS)} |")
    for kind, cold, warm in cold_pairs(res):
        if warm:
            ratio = cold["median"] / warm["median"]
            out.append(f"| {kind} create+join on never-used descriptors vs recycled ones (below) | "
                       f"<= {COLD_TARGET_RATIO:.2f}x | {ratio:.2f}x ({cold['median']:.1f} vs {warm['median']:.1f} ns) "
                       f"| {cold_verdict(cold, warm)} |")
    for kind, nat, glt in glt_pairs(res):
        out.append(f"| {kind} create+join+free through glt.h vs native (in pairs, one process; below) | "
                   f"<= {GLT_COST_TARGET_RATIO:.2f}x | {glt['ratio']:.2f}x [{glt['ratio_min']:.2f} .. "
                   f"{glt['ratio_max']:.2f}] | {yes_no(glt['ratio'] <= GLT_COST_TARGET_RATIO)} |")
    out.append("")
    return out


def scaling_section(res):
    """Create+join per unit against the number of streams, with the spread
    between the fastest and the slowest stream, and the cost of a second
    stream (goal: at most 10% with private pools)."""
    rows = [r for r in res if r["experiment"] == "create_join_per_stream" and "stream_min" in r]
    if not rows:
        return []
    out = ["## Create+join against streams\n",
           "Per unit, median over runs of the mean over streams; the fastest and the slowest stream "
           "(medians over runs) beside it; the last column compares with the same set-up on 1 stream.\n",
           "| unit | pools | streams | mean | fastest stream | slowest stream | vs 1 stream |",
           "|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["runtime"], r["pool"], r["threads"])):
        one = [x for x in rows if x["runtime"] == r["runtime"] and x["pool"] == r["pool"] and x["threads"] == 1]
        vs = f"{(r['median'] / one[0]['median'] - 1) * 100:+.0f}%" if one and r["threads"] > 1 else ""
        out.append(f"| {r['runtime']} | {r['pool']} | {r['threads']} | {r['median']:.1f} ns | "
                   f"{r['stream_min']:.1f} ns | {r['stream_max']:.1f} ns | {vs} |")
    out.append("")
    return out


def span(r):
    return f"{r['median']:.1f} ns [{r['min']:.1f} .. {r['max']:.1f}]"


def cold_section(res):
    out = ["## Create+join on never-used descriptors\n",
           "The create+join of the GLT authors' microbenchmarks frees nothing while it measures, so every "
           "unit's descriptor is memory the process has not touched before (first-touch page faults, cache "
           "misses). bench_weft measures it on one stream with a private pool, in the same process and run as "
           "the recycled row (create_join_per_stream, 1 stream, private pool, whose descriptors come back "
           "from the stream's cache): each repetition creates and joins new units in batches of 256, keeping "
           "every handle of the measurement live, and frees them all only at the end. Per unit, median "
           f"[min .. max] over the repetitions. Target: cold <= {COLD_TARGET_RATIO:g}x recycled.\n",
           "*plain write*: what the platform charges for fresh memory, measured beside: before each repetition "
           "a plain loop maps as much fresh memory as the repetition's descriptors (huge pages allowed, as "
           "weft's) and writes once per 128 bytes (a descriptor's size), per 128 bytes. weft's helper thread "
           "faults its handle memory in ahead of the creations (docs/design.md, \"Handle memory\"), so cold "
           "create+join can cost less than the plain write.\n"]
    rows = cold_pairs(res)
    if not rows:
        return out + [NOT_MEASURED + " (bench_weft prints create_join_cold).\n"]
    out += ["| unit | cold | recycled | cold / recycled | plain write | target | met |",
            "|---|---|---|---|---|---|---|"]
    for kind, cold, warm in rows:
        touch = (f"{cold['first_touch']:.1f} ns [{cold['first_touch_min']:.1f} .. {cold['first_touch_max']:.1f}]"
                 if "first_touch" in cold else "not measured")
        if warm:
            ratio = cold["median"] / warm["median"]
            out.append(f"| {kind} | {span(cold)} | {span(warm)} | {ratio:.2f}x | {touch} | "
                       f"<= {COLD_TARGET_RATIO:.2f}x | {cold_verdict(cold, warm)} |")
        else:
            out.append(f"| {kind} | {span(cold)} | not measured | | {touch} | <= {COLD_TARGET_RATIO:.2f}x | |")
    live = {c.get("units") for _, c, _ in rows if c.get("units")}
    out.append("")
    if live:
        out.append(f"Units created per repetition and kind: {', '.join(f'{n:,}' for n in sorted(live))}. "
                   + notes.observation("create_join_cold.vm").cite() + "\n")
    return out


def glt_cost_section(res, absent):
    rows = glt_pairs(res)
    pairs = f"{rows[0][2]['runs']} " if rows else ""
    out = ["## What the GLT layer costs\n",
           "The same create+join+free of a unit, native weft calls against the same calls through glt.h "
           f"(bench_glt_cost.c), measured in {pairs}alternating pairs in one process so that the machine's "
           "drift falls on both; the ratio is the median of the per-pair GLT / native ratios, min and max "
           f"beside it. Target: GLT <= {GLT_COST_TARGET_RATIO:g}x native.\n"]
    if not rows:
        why = next((v for k, v in absent.items() if "(glt cost)" in k), "latest.json has no such points")
        return out + [f"Not measured yet: {why}.\n"]
    out += ["| kind | native | GLT | GLT / native, median [min .. max] | target | met |",
            "|---|---|---|---|---|---|"]
    for kind, nat, glt in rows:
        out.append(f"| {kind} | {span(nat)} | {span(glt)} | {glt['ratio']:.2f}x [{glt['ratio_min']:.2f} .. "
                   f"{glt['ratio_max']:.2f}] | <= {GLT_COST_TARGET_RATIO:.2f}x | "
                   f"{yes_no(glt['ratio'] <= GLT_COST_TARGET_RATIO)} |")
    out.append("")
    return out


def pair_section(res):
    """The cost of a second stream, measured so that the machine's own noise
    cancels: runs alternate between one stream alone on each CPU and a
    stream on every CPU, each stream compared with itself alone on its CPU."""
    rows = [r for r in res if r["experiment"] == "second_stream"]
    if not rows:
        return []
    out = ["## What a second stream costs\n",
           notes.observation("second_stream.drift").cite() + " So each run here is a pair taken back to back: "
           "one stream alone on each CPU in turn, then a stream on every CPU at once (fresh runtimes, streams "
           "bound). A stream on CPU c is compared with the stream alone on c in the same pair; the loss is the "
           "mean over CPUs, median over pairs (min..max beside it).\n",
           "| unit | pools | alone, per CPU | together, per CPU | loss (median) | loss min..max |",
           "|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda x: (x["runtime"], x["pool"])):
        cpus = sorted(r["alone_cpu"], key=int)
        alone = ", ".join(f"{r['alone_cpu'][c]:.1f}" for c in cpus)
        tog = ", ".join(f"{r['together_cpu'][c]:.1f}" for c in cpus)
        out.append(f"| {r['runtime']} | {r['pool']} | {alone} ns | {tog} ns | {r['loss_pct']:+.1f}% | "
                   f"{r['loss_pct_min']:+.1f}% .. {r['loss_pct_max']:+.1f}% |")
    out.append("")
    return out


def sync_section(res):
    rows = [r for r in res if r["experiment"] in SYNC]
    if not rows:
        return []
    out = ["## Synchronisation and idle streams\n",
           "Each weft primitive against the pthreads one in the same process (bench_sync.c), then each peer's "
           "own primitive where it has one, same run: OpenMP's `omp_lock_t` and `barrier` (sync_omp.c, gomp, "
           "weft-omp on the same gcc binary, and llvm-omp), TBB's `tbb::mutex` (sync_tbb.cpp), Go's "
           "`sync.Mutex`, channels and a parked goroutine (sync.go). TBB has no barrier, condition or "
           "eventual; OpenMP no condition or eventual; Go no barrier. Threads are bound one per CPU when they "
           "fit, for every runtime (Go cannot bind). A blocked ULT leaves its stream to other work; a blocked "
           "thread leaves its core to the kernel.\n",
           "| experiment | streams / threads | runtime | median | [min .. max] |", "|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (SYNC.index(r["experiment"]), r["threads"],
                                         not r["runtime"].startswith("weft"))):
        out.append(f"| {r['experiment']} | {r['threads']} | {label(r)} | {fmt(r['median'])} ns | "
                   f"[{fmt(r['min'])} .. {fmt(r['max'])}] |")
    out += ["", notes.observation("sync.wake_up").cite() + "\n"]
    return out


def breakdown_section(res):
    rows = sorted((r for r in res if r["experiment"] == "join_breakdown"), key=lambda r: r["step"])
    if not rows:
        return []
    out = ["## Join latency, one optimisation at a time\n",
           "ULT create+join per unit on one stream, each optimisation of the critical path added to the "
           "ones above it ([Argobots], Figs. 3-5). Steps 0-3 run measurement builds of weft compiled without "
           "the later optimisations (`WEFT_MEASURE_*`, bench/CMakeLists.txt); the shipped library is steps 4-6.\n",
           "| step | median | [min .. max] | gain on the step above |", "|---|---|---|---|"]
    prev = None
    for r in rows:
        gain = f"{(1 - r['median'] / prev) * 100:+.0f}%" if prev else ""
        out.append(f"| {r['label']} | {r['median']:.1f} ns | [{r['min']:.1f} .. {r['max']:.1f}] | {gain} |")
        prev = r["median"]
    out.append("")
    return out


def feature_section(res):
    rows = [r for r in res if r["experiment"] == "feature_cost"]
    base = {(r["runtime"], r["what"]): r for r in rows if r["build"] == "shipped"}
    if not base:
        return []
    out = ["## What the hot-path features cost\n",
           "The shipped library against measurement builds that leave one feature out, same points, same "
           "run (one stream, private pool). A switch to compile a feature out is worth having only where "
           "this cost stands clear of the noise (min..max).\n",
           "| feature | left out | point | shipped | without | cost | clear of the noise |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["build"] == "shipped" or r["build"] not in FEATURE_BUILDS:
            continue
        b = base.get((r["runtime"], r["what"]))
        if not b:
            continue
        feat, what = FEATURE_BUILDS[r["build"]]
        d = b["median"] - r["median"]
        out.append(f"| {feat} | {what} | {r['what']} {r['runtime']} | {b['median']:.1f} ns "
                   f"[{b['min']:.1f} .. {b['max']:.1f}] | {r['median']:.1f} ns [{r['min']:.1f} .. {r['max']:.1f}] | "
                   f"{d:+.1f} ns ({d / r['median'] * 100:+.0f}%) | "
                   f"{'yes' if b['min'] > r['max'] else 'no (ranges overlap)'} |")
    out.append("| stackable schedulers | (nothing to leave out) | all | | | 0: whether a stream's top scheduler "
               "may be polled inline is decided when schedulers are stacked or replaced (`sched_set_fast`), "
               "so the pick tests one flag it tests for any policy | |")
    out.append("")
    return out


def huge_section(res):
    rows = {(r["load"], r["stacks"]): r for r in res if r["experiment"] == "stack_touch"}
    if not rows:
        return []
    out = ["## Huge-page stacks\n",
           "Live ULTs on one stream, each touching pages of its 64 KiB stack per turn, then yielding; time per "
           "turn. Same program, `weft_config.huge_pages` off and on. *few*: 256 ULTs x 4 pages (the TLB "
           "covers them either way); *many*: 4,096 ULTs x 14 pages (about 57,000 small pages per round).\n",
           "| load | 4 KiB pages | huge pages | huge vs small |", "|---|---|---|---|"]
    for load in ("few", "many"):
        s, h = rows.get((load, "small")), rows.get((load, "huge"))
        if s and h:
            out.append(f"| {load} | {s['median']:.1f} ns [{s['min']:.1f} .. {s['max']:.1f}] | "
                       f"{h['median']:.1f} ns [{h['min']:.1f} .. {h['max']:.1f}] | "
                       f"{(h['median'] / s['median'] - 1) * 100:+.0f}% |")
    out += ["", notes.observation("huge_pages").cite() + "\n"]
    return out


def plots_section(pngs):
    out = ["## Plots\n"]
    out.append("Median of the runs; the bars span min to max. Solid lines are weft, dashed lines peers.\n")
    for exp, name in pngs:
        out.append(f"### {exp}\n\n![{exp}]({name})\n")
    return out


def experiments_section(doc):
    out = ["## Experiments\n"]
    out.append("The patterns of [Threading-HPC §4] and the create/join and yield of [Argobots §4], each "
               "written in every runtime's own idiom (bench/patterns.h and the `patterns_*` programs, "
               "bench/bench_glt.c for GLT, bench/bench_weft.c for weft's per-stream points). The work is a scal: "
               "each element of a vector of 1,000 doubles (or of an n x n matrix) is multiplied by a factor, and "
               "every repetition's result is checked. Times are per whole pattern unless said otherwise.\n")
    out.append("- **create**, **join**: the main thread creates one unit per thread (unit *i* on thread *i*), then "
               "joins them; the two halves of the same repetitions ([Threading-HPC], Figs. 8-9). OpenMP: the fork of a "
               "parallel region until the master starts its own part, and from the master's end to its return "
               "after the closing barrier.")
    out.append("- **for_loop**: the vector scaled, one chunk of iterations per thread (Fig. 10). OpenMP `parallel for "
               "schedule(static)`; TBB `parallel_for` with a static partitioner; the others a unit per chunk.")
    out.append("- **tasks_single**: one thread creates a task per element, 1,000 tasks, then waits for them "
               "(Fig. 11). OpenMP `single` + `task`; TBB `task_group`; weft private pools: round robin over the "
               "streams; pthreads: a thread per task, the process limited to `threads` CPUs ([Threading-HPC] used taskset).")
    out.append("- **tasks_parallel**: every thread creates the tasks of its chunk of the vector (Fig. 12); for "
               "weft and GLT the region's units are ULTs (they wait), the tasks tasklets or ULTs as labelled.")
    out.append("- **nested_for_1000**, **nested_for_100**: two nested parallel loops over an n x n matrix, the "
               "outer divided among the threads, and every outer iteration divides its row among the threads "
               "again (Fig. 13): n x threads inner units per repetition.")
    out.append("- **create_join_per_stream**: on every thread at once, a creator makes 256 units and joins them, "
               "1,000 times (100 with `--quick`; OS threads: 20 and 2); time per unit, mean over the threads "
               "([Argobots], Figs. 6-7). weft's own rows: `private` pools take no atomics; `shared` ones are MPMC "
               "(locked); `stealing`: each stream's pool is a work-stealing deque and its scheduler steals from "
               "the others when its own is empty. OpenMP: each team thread makes tasks and `taskwait`s; TBB: a "
               "`task_group` per thread; Go: goroutines and a WaitGroup.")
    out.append("- **yield**: two units per thread yield to each other 200,000 times each (OS threads: 20,000); "
               "time per yield. Go: `runtime.Gosched()`; pthreads: `sched_yield()`.")
    out.append("- **yield_to**: weft's yield-to between two ULTs (no scheduler); boost-context is two raw "
               "`jump_fcontext` contexts passing control, the floor for a user-level switch.")
    out.append("- **join_breakdown**: 256 ULTs created into the stream's pool, then freed (joined), 1,000 times, "
               "on one stream; steps as in the table above. `join-many` is `weft_thread_free_many`.")
    out.append("- **stack_touch**: see \"Huge-page stacks\"; with `huge_pages` weft carves stacks from 2 MiB "
               "chunks (hugetlbfs pages when reserved, else transparent huge pages via madvise).")
    out.append("- **mutex_uncontended**: one ULT (one thread) locks and unlocks 1,000,000 times; time per pair.")
    out.append("- **mutex_contended**: 200,000 increments of one counter under one mutex, shared by 4 ULTs per "
               "stream (weft) or by one OS thread per stream (pthreads); time per increment. The `fair mutex` row "
               "uses `weft_mutex_attr.fair`: every unlock hands the mutex to the first waiter, on whatever stream "
               "it waits.")
    out.append("- **eventual_pingpong**: two ULTs pass control through two eventuals (set, wait, reset), 20,000 "
               "round trips, both on one stream or one on each; pthreads: two threads taking turns with a "
               "mutex and a condition variable.")
    out.append("- **barrier**: one ULT per stream (one thread each) meets 20,000 times; time per round.")
    out.append("- **wake_latency**: stream 1 has been idle for 2 ms (asleep under the default hybrid policy); "
               "the time from pushing a ULT to it to that ULT's first instruction, 1,000 wake-ups (200 with "
               "`--quick`). Peer: a thread asleep on a condition variable, pinned to stream 1's CPU (the same "
               "cross-CPU wake-up) and unpinned.")
    out.append("- **yield_to_pair**: weft's yield-to (two ULTs, one stream) and the Boost.Context jump "
               "measured in turn in one process, 21 pairs (9 with `--quick`); the target row gives the median "
               "of the per-pair ratios. " + notes.observation("yield_to_pair.drift").cite())
    out.append("- **create_join_cold**: see \"Create+join on never-used descriptors\"; ULTs and tasklets in turn, "
               "repetition by repetition, in one runtime; nothing is freed until the last repetition has been "
               "timed, so no descriptor is reused.")
    out.append("- **glt_cost_ult**, **glt_cost_tasklet**: see \"What the GLT layer costs\".")
    out.append("- **epcc_*construct***: see \"OpenMP constructs (EPCC)\"; n threads, a delay of about 0.1 us. "
               "*parallel*: `parallel { delay }`; *for*: in one region, `for` over n iterations (one per thread) "
               "of delay; *parallel_for*: `parallel for` over n iterations of delay; *barrier*: in one region, "
               "delay then `barrier`; *single*: in one region, `single { delay }` (its closing barrier included); "
               "*critical*: in one region, each thread reps/n times `critical { delay }`; *lock*: the same "
               "between `omp_set_lock` and `omp_unset_lock`; *ordered*: `parallel for ordered schedule(static,1)` "
               "whose iterations run `ordered { delay }`; reference of all these: the delay alone, on one thread, "
               "per execution. *atomic*: each thread reps/n times `atomic` `a += b` on one shared double, against "
               "the same update not atomic on one thread; *reduction*: `parallel reduction(+:a) { delay; a += 1 }` "
               "against `delay; a += 1` on one thread.")
    ne = doc.get("not_expressed", {})
    if ne:
        out.append("")
        out.append("Not expressed (the runtime has no such operation):")
        for exp, labs in sorted(ne.items()):
            for lab in labs:
                why = NOT_EXPRESSED.get(lab, "")
                out.append(f"- {exp}, {lab}: {why}")
    out.append("")
    return out


def method_section():
    out = ["## Method\n"]
    out.append("- Patterns: each point is its own process. A warm-up repetition, then runs of K repetitions each (K "
               "chosen so that a run lasts about 1 ms), the run's value being the mean per repetition. A full run "
               "takes 15 runs per point in 3 rounds of 5, the rounds interleaved across the runtimes so that a "
               "noisy stretch of this shared machine does not fall on one runtime only (`--quick`: 1 round of 3). "
               "Median, min and max over the runs.")
    out.append("- weft's own programs (create_join_per_stream, yield, sync, breakdown): a warm-up run, then 15 runs "
               "per point (5 with `--quick`). Every run checks its results (each unit ran exactly once, every "
               "element scaled exactly once).")
    out.append("- Threads 1, 2, 4 and 8 (create_join_per_stream: 1 to the cores). **Pinning, the same for every "
               "runtime**: each point's process may use the first `threads` CPUs when the machine has that many "
               "(as [Threading-HPC]'s taskset), else all of them; inside, every runtime whose workers live across the "
               "pattern binds worker *i* to the *i*-th of those CPUs when there is one CPU per worker. With more "
               "threads than cores nobody binds and the kernel shares the cores.")
    out.append("- EPCC constructs: one process per runtime and thread count, every construct in it; for each "
               "construct its reference (the same bodies without it, on one thread) timed first, median of the "
               "runs, then the construct's runs, each minus that reference; the repetitions of a run doubled until "
               "the fastest of three runs lasts the target time (which warms the team up). Threads and CPUs as for "
               "the patterns.")
    out.append("- All programs built by CMake in Release mode (-O3): gcc for weft, pthreads and gomp (whose "
               "binaries weft-omp runs too), g++ for TBB and Boost, clang for llvm-omp, the go tool for Go.\n")
    out.append("### How each runtime is set up\n")
    out.append("As its users would set it up for each pattern.\n")
    out.append("| runtime | threads are | worker binding (threads <= cores) | settings |")
    out.append("|---|---|---|---|")
    out.append("| weft-ult, weft-tasklet | execution streams (`weft_config.num_xstreams`) | one stream per core "
               "(`weft_config.bind = 1`, bench/bench_weft_bind.h; weft's own default leaves them unbound) | default hybrid wait policy (spin 200 us, then sleep); `private`: a pool "
               "per stream, the creator dispatches round robin (`weft_thread_create_to`); `shared`: one MPMC pool "
               "every stream's scheduler takes from first; `stealing`: a deque per stream, random work stealing |")
    out.append("| weft-glt | GLT threads = weft streams (`GLT_NUM_THREADS`) | as weft | `glt_*_create_to(thread)` |")
    out.append("| glt-pthreads | GLT threads over OS threads | a unit created for thread *t* is bound to CPU *t* modulo "
               "the CPUs, at every thread count (GLT's placement) | a unit is an OS thread |")
    out.append("| pthreads | OS threads, one per unit and per task | none: a thread lives for one unit; the process "
               "has `threads` CPUs | |")
    out.append("| gomp, weft-omp, llvm-omp | the team (`num_threads`; EPCC: `OMP_NUM_THREADS`) | "
               "`OMP_PROC_BIND=close OMP_PLACES=cores`; nested loops `OMP_PROC_BIND=spread,close` (the outer "
               "threads one per core, each inner team on its outer thread's core) | `OMP_WAIT_POLICY=passive` for the task "
               "patterns (as [Threading-HPC]); `OMP_MAX_ACTIVE_LEVELS=2` for nested loops; EPCC: defaults. "
               "weft-omp runs the gomp programs (gcc) with its `libgomp.so.1` first on `LD_LIBRARY_PATH`; every "
               "point names the library it ran on, and the runner checks it; its OpenMP threads are ULTs of weft |")
    out.append("| tbb | a `task_arena` of `threads` slots, `global_control` limit | a `task_scheduler_observer` binds "
               "each thread entering the arena to its slot's CPU | static partitioner where iterations are divided "
               "among threads |")
    out.append("| go | `GOMAXPROCS` | none: Go cannot bind its Ps; the process has `threads` CPUs | a "
               "`sync.WaitGroup` per parallel step |")
    out.append("| boost-context | one thread | none | |")
    out.append("")
    out.append(notes.observation("omp.nested_binding").cite() + "\n")
    return out


def machine_section(m, absent):
    out = ["## Machine\n"]
    out.append(f"- CPU: {m['cpu']}, {m['cores']} cores; kernel {m['kernel']}")
    if "parallel_capacity" in m:
        cap = " and ".join(f"{c:.2f}" for c in m["parallel_capacity"])
        out.append(f"- Parallel capacity before and after the run: {cap} of {m['cores']} cores (the "
                   "same Python loop alone and on every core at once; below the core count, the VM's CPUs "
                   "compete on the host and every point above one thread pays for it, whatever the runtime)")
    out.append("- Compilers: " + "; ".join(f"{v}" for v in m["compilers"].values()))
    for k, v in m["peers"].items():
        out.append(f"- {k}: {v}")
    for k, v in absent.items():
        out.append(f"- **{k}: absent** ({v})")
    out.append("")
    return out


def report(doc, absent, pngs, outdir, quick):
    res = doc["results"]
    m = doc["machine"]
    out = ["# weft benchmark report\n"]
    out.append(f"Commit `{doc['commit']}`, {doc['date']}{' (quick run)' if quick else ''}. "
               f"Produced by `make bench{'-quick' if quick else ''}`; raw numbers in "
               f"`{'build/bench-quick' if quick else 'bench/results'}/latest.json`.\n")
    out += summary_section(res, m)
    out += behind_section(res)
    out += targets_section(res)
    out += weft_omp_targets_section(res)
    out += epcc_section(res, quick)
    out += apps_section(res, quick)
    out += smt_section(res, quick)
    out += scaling_section(res)
    out += cold_section(res)
    out += sync_section(res)
    out += pair_section(res)
    out += breakdown_section(res)
    out += feature_section(res)
    out += huge_section(res)
    out += glt_cost_section(res, absent)
    out += plots_section(pngs)
    out += experiments_section(doc)
    out += method_section()
    out += machine_section(m, absent)
    with open(os.path.join(outdir, "README.md"), "w") as f:
        f.write("\n".join(out))


def write_report(doc, quick, saved=False):
    """Plots and README.md of `doc` in the report directory. `saved`: doc
    is the saved latest.json, whose plots are already there; without
    matplotlib they are then kept as they are rather than removed."""
    resdir, repdir = out_dirs(quick)
    os.makedirs(repdir, exist_ok=True)
    if saved and not have_matplotlib():
        print("bench: matplotlib missing (python3-matplotlib, as for /usr/bin/python3): the plots already in "
              f"{os.path.relpath(repdir, ROOT)} are kept, not drawn again", flush=True)
        pngs = existing(doc["results"], repdir)
    else:
        for f in os.listdir(repdir):  # plots of experiments that no longer exist
            if f.endswith(".png"):
                os.remove(os.path.join(repdir, f))
        pngs = plot(doc["results"], repdir)
    report(doc, doc.get("absent", {}), pngs, repdir, quick)
    print(f"bench: results in {os.path.relpath(resdir, ROOT)}/latest.json, "
          f"report in {os.path.relpath(repdir, ROOT)}/README.md")
