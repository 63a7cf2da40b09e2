#!/usr/bin/env python3
"""Build and run weft's benchmark suite and its peers, then write the
machine-readable results and the report.

  make bench        full run: bench/results/latest.json, bench/report/
  make bench-quick  fewer repetitions, same experiments: build/bench-quick/
  bench/run.py --report-only   the report again from the saved numbers

Each benchmark program prints one JSON object per measured point (see
bench/bench_common.h). This script adds the machine description, writes
the JSON file, one PNG plot per experiment and a Markdown report.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench")

# Program -> the runtimes it measures. A program that did not build (its
# peer's packages are missing) makes those runtimes "absent".
PROGRAMS = [
    ("bench_weft", ["weft-ult", "weft-tasklet"], ["--threads=8"]),
    # The join-latency breakdown: one program per measurement build of weft.
    ("bench_join_none", ["weft breakdown step 0"]),
    ("bench_join_mempool", ["weft breakdown steps 1-2"]),
    ("bench_join_skip", ["weft breakdown step 3"]),
    ("bench_join_all", ["weft breakdown steps 4-6"]),
    # What hot-path features cost: the shipped library against measurement
    # builds without one feature, the same points in the same run.
    ("bench_weft", ["weft feature costs (shipped)"], ["--features"]),
    ("bench_features_nomigration", ["weft feature costs (no migration)"], ["--features"]),
    ("bench_tlb", ["weft huge-page stacks"]),
    ("bench_boost", ["boost-context"]),
    # Synchronisation and idle streams, weft and pthreads in one process,
    # then each peer's own primitives (those it has).
    ("bench_sync", ["weft-ult (sync)", "pthreads (sync)"]),
    ("sync_gomp", ["gomp (sync)"], [], {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}),
    ("sync_llvm_omp", ["llvm-omp (sync)"], [], {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}),
    ("sync_tbb", ["tbb (sync)"]),
    ("sync_go", ["go (sync)"]),
]

# The patterns of [Threading-HPC] (bench/patterns.h) and the per-stream
# create/join and yield of [Argobots], for every runtime that expresses them:
# (label, program, arguments, experiments another program measures).
PATTERN_RUNTIMES = [
    ("weft-ult (private)", "patterns_weft", ["--unit=ult", "--pool=private"], {"create_join_per_stream", "yield"}),
    ("weft-ult (shared)", "patterns_weft", ["--unit=ult", "--pool=shared"], {"create_join_per_stream", "yield"}),
    ("weft-tasklet (private)", "patterns_weft", ["--unit=tasklet", "--pool=private"],
     {"create_join_per_stream", "yield"}),
    ("weft-tasklet (shared)", "patterns_weft", ["--unit=tasklet", "--pool=shared"],
     {"create_join_per_stream", "yield"}),
    ("weft-ult (stealing)", "patterns_weft", ["--unit=ult", "--pool=stealing"], {"create_join_per_stream", "yield"}),
    ("weft-tasklet (stealing)", "patterns_weft", ["--unit=tasklet", "--pool=stealing"],
     {"create_join_per_stream", "yield"}),
    ("weft-glt", "bench_glt_weft", [], set()),
    ("glt-pthreads", "bench_glt_pthreads", [], set()),
    ("pthreads", "patterns_pthreads", [], set()),
    ("gomp", "patterns_gomp", [], set()),
    ("llvm-omp", "patterns_llvm_omp", [], set()),
    ("tbb", "patterns_tbb", [], set()),
    ("go", "patterns_go", [], set()),
]
PATTERN_EXPS = ["create", "join", "for_loop", "tasks_single", "tasks_parallel", "nested_for_1000", "nested_for_100",
                "create_join_per_stream", "yield"]
THREADS = [1, 2, 4, 8]
# Why a runtime does not express an experiment (its program says "absent").
NOT_EXPRESSED = {
    "gomp": "OpenMP has no yield between tasks: `taskyield` may only run another task on top of the caller, or nothing",
    "llvm-omp": "as gomp",
    "tbb": "TBB tasks cannot yield to each other",
}
# Debian packages of each peer: its version in the report, its absence explained.
PEER_PACKAGES = {
    "pthreads": None, "gomp": "libgomp1", "llvm-omp": "libomp-dev", "tbb": "libtbb-dev", "go": "golang-go",
    "boost-context": "libboost-context-dev", "glt-pthreads": None,
}

# Experiments of bench_sync: their own section and one chart, not the
# per-thread-count summary (their peers differ in kind, e.g. pinned or not).
SYNC = ["mutex_uncontended", "mutex_contended", "eventual_pingpong", "barrier", "wake_latency"]
# Wake-up of a sleeping stream: the target of the synchronisation issue.
WAKE_TARGET_NS = 100_000

# Targets of the core-runtime issue, checked in the report (ns, 1 stream).
TARGETS = [
    ("create_join_per_stream", "weft-ult", "private", 1, 40.0, "ULT create+join per unit"),
    ("create_join_per_stream", "weft-tasklet", "private", 1, 18.0, "tasklet create+join per unit"),
    ("yield", "weft-ult", "private", 1, 22.0, "yield"),
]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def first_line(cmd):
    try:
        return sh(cmd).splitlines()[0].strip()
    except Exception:
        return "absent"


def dpkg_version(pkg):
    try:
        return sh(["dpkg-query", "-W", "-f=${Version}", pkg]).strip() or "absent"
    except Exception:
        return "absent"


def build():
    print("bench: configuring and building (Release) in build/bench", flush=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", BUILD, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                    "-DWEFT_BUILD_TESTS=OFF", "-DWEFT_BUILD_EXAMPLES=OFF"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", BUILD], check=True, stdout=subprocess.DEVNULL)


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    peers = {"pthreads": "glibc " + platform.libc_ver()[1]}
    for peer, pkg in PEER_PACKAGES.items():
        if pkg:
            peers[peer] = dpkg_version(pkg)
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "compilers": {"gcc": first_line(["gcc", "--version"]), "g++": first_line(["g++", "--version"]),
                      "clang": first_line(["clang", "--version"]), "go": first_line(["go", "version"])},
        "peers": peers,
    }


def _spin(n):
    x = 0
    for i in range(n):
        x += i
    return x


def parallel_capacity(cores):
    """How many cores' worth of computation the machine gives at once now:
    the same loop alone, then on every core at once. On a shared VM whose
    virtual CPUs compete on the host this is well below the core count, and
    every multi-thread point pays for it whatever the runtime."""
    import multiprocessing
    n = 3_000_000
    t0 = time.perf_counter()
    _spin(n)
    alone = time.perf_counter() - t0
    with multiprocessing.Pool(cores) as pool:
        pool.map(_spin, [1000] * cores)  # processes started
        t0 = time.perf_counter()
        pool.map(_spin, [n] * cores, chunksize=1)
        together = time.perf_counter() - t0
    return round(cores * alone / together, 2)


def commit():
    try:
        c = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).strip()
        # The committed report and results are this run's own output: not "dirty".
        dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".",
                    ":!bench/report", ":!bench/results"]).strip()
        return c + ("-dirty" if dirty else "")
    except Exception:
        return "unknown"


def label(r):
    if "label" in r:
        return r["label"]
    return r["runtime"] + (f" ({r['pool']})" if "pool" in r else "")


def plot_breakdown(rows, outdir, plt):
    rows = sorted(rows, key=lambda r: r["step"])
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    ys = list(range(len(rows)))[::-1]
    med = [r["median"] for r in rows]
    err = [[r["median"] - r["min"] for r in rows], [r["max"] - r["median"] for r in rows]]
    ax.barh(ys, med, xerr=err, capsize=3, color="#4c72b0")
    for y, r in zip(ys, rows):
        ax.text(r["max"], y, f"  {r['median']:.1f}", va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r["label"] for r in rows], fontsize=8)
    ax.set_xlabel("ULT create+join, ns per unit (1 stream)")
    ax.set_title("join latency, optimisations switched on in turn")
    ax.set_xlim(0, max(r["max"] for r in rows) * 1.15)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "join_breakdown.png"))
    plt.close(fig)
    return ("join_breakdown", "join_breakdown.png")


def run_programs(quick, streams):
    results, absent = [], {}
    for prog, runtimes, *more in PROGRAMS:
        args = more[0] if more else []
        env = dict(os.environ, **more[1]) if len(more) > 1 else None
        path = os.path.join(BUILD, "bench", prog)
        if not os.path.exists(path):
            for rt in runtimes:
                absent[rt] = f"{prog} was not built (its peer's packages are missing)"
            print(f"bench: {prog}: absent", flush=True)
            continue
        cmd = [path, f"--streams={streams}"] + (["--quick"] if quick else []) + args
        print(f"bench: running {' '.join([prog] + args)}", flush=True)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        for line in proc.stdout:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r["experiment"] == "create_join":
                r["experiment"] = "create_join_per_stream"
            results.append(r)
            print(f"  {r['experiment']:<24} {label(r):<24} threads={r['threads']}  "
                  f"median {r['median']:.1f} {r['unit']}  [{r['min']:.1f} .. {r['max']:.1f}]  ({r['runs']} runs)",
                  flush=True)
        if proc.wait() != 0:
            sys.exit(f"bench: {prog} failed (exit {proc.returncode})")
    return results, absent


# OpenMP set as its users set it for each pattern ([Threading-HPC] did the same).
OMP_TASK_EXPS = {"tasks_single", "tasks_parallel", "create_join_per_stream"}


def pattern_env(label, exp, threads, cores):
    """The environment of one point: what a user of that runtime would set."""
    env = dict(os.environ)
    if label in ("gomp", "llvm-omp"):
        if exp in OMP_TASK_EXPS:
            env["OMP_WAIT_POLICY"] = "passive"  # idle threads leave the task queue to the producer
        if exp.startswith("nested_for"):
            env["OMP_MAX_ACTIVE_LEVELS"] = "2"  # else the inner loops run on one thread
        if threads <= cores:
            env["OMP_PROC_BIND"] = "close"  # one thread per core, as weft's streams
            env["OMP_PLACES"] = "cores"
    return env


def point_cpus(threads):
    """Every runtime's process gets the same CPUs: the first `threads` when
    there are that many, else all of them (as [Threading-HPC]'s taskset). Inside,
    a runtime binds its workers one per CPU when they fit (bench/bench_bind.h).
    """
    allowed = sorted(os.sched_getaffinity(0))
    cpus = allowed[:threads] if threads <= len(allowed) else allowed
    return lambda: os.sched_setaffinity(0, cpus)


def run_patterns(quick, streams):
    """Experiment by experiment, every runtime at every thread count, one
    process per point. The full run takes each point's runs in ROUNDS
    processes interleaved across the runtimes, so that a noisy minute of a
    shared machine does not fall on one runtime only. Returns (results,
    absent runtimes, {experiment: runtimes that do not express it})."""
    results, absent, not_expressed = [], {}, {}
    cores = os.cpu_count() or 1
    rounds, runs = (1, 3) if quick else (3, 5)
    for n, exp in enumerate(PATTERN_EXPS, 1):
        ths = [t for t in THREADS if t <= streams] if exp == "create_join_per_stream" else THREADS
        print(f"bench: [{n}/{len(PATTERN_EXPS)}] {exp}, threads {', '.join(map(str, ths))}, "
              f"{rounds * runs} runs per point", flush=True)
        points = {}  # (label, threads) -> merged result
        for _ in range(rounds):
            for lab, prog, args, elsewhere in PATTERN_RUNTIMES:
                if exp in elsewhere or exp in not_expressed and lab in not_expressed[exp]:
                    continue
                path = os.path.join(BUILD, "bench", prog)
                if not os.path.exists(path):
                    absent[lab] = f"{prog} was not built (its peer's packages are missing)"
                    continue
                for th in ths:
                    cmd = [path, f"--exp={exp}", f"--threads={th}", f"--runs={runs}"] + \
                        (["--quick"] if quick else []) + args
                    proc = subprocess.run(cmd, env=pattern_env(lab, exp, th, cores), capture_output=True,
                                          text=True, timeout=900, preexec_fn=point_cpus(th))
                    if proc.returncode != 0:
                        sys.exit(f"bench: {' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr}")
                    r = json.loads([x for x in proc.stdout.splitlines() if x.startswith("{")][-1])
                    if r.get("absent"):
                        not_expressed.setdefault(exp, set()).add(lab)
                        break
                    if (lab, th) in points:
                        points[(lab, th)]["values"] += r["values"]
                    else:
                        points[(lab, th)] = r
        for lab, _, _, _ in PATTERN_RUNTIMES:
            rows = [points[(lab, th)] for th in ths if (lab, th) in points]
            for r in rows:
                v = sorted(r["values"])
                r["runs"] = len(v)
                r["median"] = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
                r["min"], r["max"] = v[0], v[-1]
                del r["values"]
                results.append(r)
            if rows:
                cells = "   ".join(f"{r['threads']}: {fmt(r['median'])}" for r in rows)
                print(f"  {lab:<24} {cells}  ({rows[0]['unit']}, median)", flush=True)
    return results, absent, not_expressed


# One colour per runtime, the same in every plot: weft in blues and greens,
# peers in warm colours and greys.
COLORS = {
    "weft-ult (private)": "#08519c", "weft-ult (shared)": "#4292c6", "weft-ult (stealing)": "#9ecae1",
    "weft-tasklet (private)": "#006d2c", "weft-tasklet (shared)": "#41ab5d", "weft-tasklet (stealing)": "#a1d99b",
    "weft-ult": "#08519c", "weft-glt": "#6a51a3", "glt-pthreads": "#bcbddc", "pthreads": "#636363",
    "gomp": "#e6550d", "llvm-omp": "#fd8d3c", "tbb": "#d62728", "go": "#17becf", "boost-context": "#8c564b",
}


def color_of(lab):
    return COLORS.get(lab, COLORS.get(lab.split(" (")[0], "#000000"))


def plot(results, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("bench: matplotlib missing, no plots (install python3-matplotlib)", flush=True)
        return []
    pngs = []
    for exp in sorted({r["experiment"] for r in results}):
        rows = [r for r in results if r["experiment"] == exp]
        if exp == "join_breakdown":
            pngs.append(plot_breakdown(rows, outdir, plt))
            continue
        if exp in ("feature_cost", "stack_touch", "second_stream", "yield_to_pair"):  # tables, no plot
            continue
        if exp in SYNC:  # one chart for all of them, below
            continue
        fig, ax = plt.subplots(figsize=(8.0, 4.4), dpi=110)
        labs = sorted({label(r) for r in rows}, key=lambda lab: (not lab.startswith("weft"), lab))
        for lab in labs:
            pts = sorted((r["threads"], r["median"], r["min"], r["max"]) for r in rows if label(r) == lab)
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            style = ("-o" if lab.startswith("weft") else "--s") if len(pts) > 1 else "o"
            ax.errorbar(xs, ys, yerr=err, fmt=style, capsize=3, label=lab, color=color_of(lab),
                        markersize=4, linewidth=1.6 if lab.startswith("weft") else 1.2)
        ax.set_yscale("log")
        plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 10 else f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        lo, hi = min(r["min"] for r in rows), max(r["max"] for r in rows)
        if hi / lo < 20:  # within about a decade, label the minor ticks too
            ax.yaxis.set_minor_formatter(plain)
            ax.tick_params(axis="y", which="minor", labelsize=7)
        else:
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("execution streams / threads")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_ylabel(f"time ({rows[0]['unit']}, log)")
        ax.set_xticks(sorted({r["threads"] for r in rows}))
        ax.set_title(exp.replace("_", " ") + ("  (lower is better)"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
        name = f"{exp}.png"
        fig.savefig(os.path.join(outdir, name))
        plt.close(fig)
        pngs.append((exp, name))
    sync = [r for r in results if r["experiment"] in SYNC]
    if sync:
        pngs.append(plot_sync(sync, outdir, plt, matplotlib))
    return pngs


def plot_sync(rows, outdir, plt, matplotlib):
    """One horizontal bar per measured point, grouped by experiment, log
    scale: weft and its peer side by side, whiskers min..max."""
    rows = sorted(rows, key=lambda r: (SYNC.index(r["experiment"]), r["threads"], not r["runtime"].startswith("weft")))
    fig, ax = plt.subplots(figsize=(7.5, 0.38 * len(rows) + 1.2), dpi=110)
    ys = list(range(len(rows)))[::-1]
    med = [r["median"] for r in rows]
    err = [[r["median"] - r["min"] for r in rows], [r["max"] - r["median"] for r in rows]]
    colors = [color_of(r["runtime"]) for r in rows]
    ax.barh(ys, med, xerr=err, color=colors, capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r['experiment'].replace('_', ' ')}, {r['threads']}: {label(r)}" for r in rows], fontsize=7)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    for y, r in zip(ys, rows):
        ax.text(r["median"], y, f" {fmt(r['median'])}", va="center", fontsize=6)
    ax.set_xlabel("ns per operation, median (log scale; whiskers: min..max)\ncolours as in the other plots "
                  "(blue: weft)", fontsize=8)
    ax.set_title("synchronisation and wake-up")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "sync.png"))
    plt.close(fig)
    return ("synchronisation", "sync.png")


def fmt(v):
    return f"{v:.1f}" if v < 1000 else f"{v:,.0f}"


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


def pair_section(res):
    """The cost of a second stream, measured so that the machine's own noise
    cancels: runs alternate between one stream alone on each CPU and a
    stream on every CPU, each stream compared with itself alone on its CPU."""
    rows = [r for r in res if r["experiment"] == "second_stream"]
    if not rows:
        return []
    out = ["## What a second stream costs\n",
           "The CPUs of a shared VM differ from each other and drift over seconds by more than the 10% this "
           "measures, so each run here is a pair taken back to back: one stream alone on each CPU in turn, "
           "then a stream on every CPU at once (fresh runtimes, streams bound). A stream on CPU c is compared "
           "with the stream alone on c in the same pair; the loss is the mean over CPUs, median over pairs "
           "(min..max beside it).\n",
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
           "own primitive where it has one, same run: OpenMP's `omp_lock_t` and `barrier` (sync_omp.c, gomp and "
           "llvm-omp), TBB's `tbb::mutex` (sync_tbb.cpp), Go's `sync.Mutex`, channels and a parked goroutine "
           "(sync.go). TBB has no barrier, condition or eventual; OpenMP no condition or eventual; Go no "
           "barrier. Threads are bound one per CPU when they fit, for every runtime (Go cannot bind). A "
           "blocked ULT leaves its stream to other work; a blocked thread leaves its core to the kernel.\n",
           "| experiment | streams / threads | runtime | median | [min .. max] |", "|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (SYNC.index(r["experiment"]), r["threads"],
                                         not r["runtime"].startswith("weft"))):
        out.append(f"| {r['experiment']} | {r['threads']} | {label(r)} | {fmt(r['median'])} ns | "
                   f"[{fmt(r['min'])} .. {fmt(r['max'])}] |")
    out += ["", "Wake-up: when the woken thread must run on another CPU that is idle, this VM's host takes "
            "tens of microseconds to wake that virtual CPU, for a weft stream and a pinned pthread alike; "
            "compare the weft row with the pinned pthread row. An unpinned thread is often woken on the "
            "waker's own CPU, which a stream bound to its core cannot be; Go's woken goroutine runs on the "
            "sender's own P once the sender waits for its answer (a goroutine is not tied to a P), so no idle "
            "CPU is woken at all. `WEFT_WAIT_POLICY=active` (or a "
            "longer `WEFT_SPIN_US`) trades the idle core for the latency.\n"]
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


# Measurement builds of the feature-cost table: build name -> (feature, what
# the build leaves out).
FEATURE_BUILDS = {
    "no-migration": ("migration", "the bound-unit check when a unit is picked and the pinning of a "
                     "non-migratable ULT at its first run"),
}


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
    out += ["", "Huge pages can pay only when the live stacks' touched pages overflow the TLB (*many*). When "
            "they do not (*few*), they can cost per turn: every frame sits at the same offset of physically "
            "contiguous memory, so the touched lines may crowd into few cache sets (offsetting each stack by a "
            "few cache lines, stack colouring, would be the remedy). In a virtual machine whose host backs "
            "guest memory with small pages, the TLB gains less than on bare metal. Both effects vary from core "
            "to core and run to run on a shared machine: read the ranges.\n"]
    return out


# Experiments of the summary, in the papers' order.
SUMMARY_EXPS = PATTERN_EXPS + ["yield_to"] + SYNC


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


# Why a peer beats weft where it does: measured (perf stat, counts of
# switches and wake-ups), mechanisms rather than numbers, which move from run
# to run. Keyed by experiment; the rows themselves come from the results.
WHY_BEHIND = {
    "create": "TBB's `task_group::run` pushes the task onto the creating thread's own deque: no other core's "
              "memory is touched. weft's private pools hand each unit to its target stream (a write into that "
              "stream's inbox, a cache line that moves between cores per unit), and the shared pool takes a lock "
              "per push. weft's `stealing` set-up pushes locally as TBB does, but its idle streams then take units from "
              "the creator's deque (the same cache lines again). With one unit per thread the create is a "
              "few tens of nanoseconds, close to the two clock reads that bracket it.",
    "join": "With one thread, LLVM's OpenMP runs a team of one as a plain call (a serialized region: nothing to "
            "join), and TBB's `wait()` runs the spawned task itself; weft's join runs the queued unit then (a "
            "switch into it and back) and frees it. With more threads, TBB's master runs the tasks nobody stole "
            "from its own deque, while a weft unit sent to another stream must be finished there and the joiner "
            "woken across cores. Clock reads around each step of such a wake (an eventual set for a ULT parked "
            "on another stream, 5,000 times) show where it goes: every cache line the waker takes from the other "
            "core costs 150-190 ns on this VM (the primitive's lock, the waiter's record, the unit, its pool, the "
            "stream's inbox), about 0.65 us for the waker and 1.1 us until the woken unit runs; `perf stat` "
            "(software events only here) counts no system call or context switch per repetition. Closing it: "
            "let a joiner run units still queued for a busy stream itself (TBB's steal-on-wait) and touch fewer "
            "lines per wake.",
    "for_loop": "Within the noise: one chunk per thread on one thread is a call for every runtime.",
    "tasks_single": "libgomp runs a task at once, on its creator, when more than 64 per team thread are queued "
                    "(its cut-off, `team->task_count > 64 * nthreads` in GOMP_task): most of the 1,000 tasks are "
                    "plain calls. TBB's master runs its own deque's tasks LIFO while its workers steal; weft "
                    "dispatches every task to a stream's pool and runs it from there.",
    "tasks_parallel": "As tasks_single: with one thread libgomp's cut-off turns most tasks into calls.",
    "nested_for_1000": "TBB runs nested parallel loops on the same workers, and most inner chunks on the thread "
                       "that met the inner loop (local deque, stolen only by idle threads). weft's outer units "
                       "send each inner chunk to a stream round robin (private pools) or through one locked pool "
                       "(shared): every inner step crosses cores twice (dispatch, then the completion the outer "
                       "unit waits for). When the machine gives fewer cores than it has (parallel capacity "
                       "below), each crossing also waits for the other virtual CPU to run.",
    "nested_for_100": "As nested_for_1000, with 10x fewer inner iterations per unit, so the hand-offs weigh more.",
    "yield_to": "Boost.Context's jump saves and restores the callee-saved registers only; weft's yield-to also "
                "updates the two units' states and the stream's current unit and checks the target (same "
                "stream, not running, a ULT), which is what makes it safe to call with any handle. The ratio is "
                "the target row of the core-runtime table, measured in pairs in one process.",
    "mutex_uncontended": "Every runtime here pays two atomic instructions per lock and unlock (a compare-and-swap, "
                         "then an exchange or add); a stand-alone loop of just those takes about 13 ns on this "
                         "VM, so the rows differ by a few nanoseconds of checks and calls, within run-to-run "
                         "noise. weft also checks the handle and the owner on every call (its errors).",
    "mutex_contended": "With one stream the 4 ULTs run one after another (a ULT is not preempted), so this is "
                       "the uncontended cost. With two, glibc's, TBB's and libgomp's locks let the thread that "
                       "runs take the lock again while the other sleeps in the kernel, so the counter's cache line "
                       "rarely moves; weft's waiters spin briefly on the other stream before parking and compete "
                       "for it again when woken.",
    "eventual_pingpong": "weft's two ULTs are placed on two streams (created to stream 0 and 1), so each hand-off "
                         "wakes the other stream across cores. A Go goroutine is tied to no P: the woken one "
                         "runs on the P of the goroutine that woke it, which then blocks, so Go's 2-P run is a "
                         "one-core ping-pong (compare weft's 1-stream row). weft keeps a ULT where it was created "
                         "unless it sits in a pool other streams serve; with both ULTs in one shared pool, an "
                         "eventual's set could switch straight to the waiter as the mutex's unlock does "
                         "(`unit_handoff`), which it does not do yet.",
    "barrier": "LLVM's OpenMP threads spin at a barrier (for `KMP_BLOCKTIME`, 200 ms) on one flag that the last "
               "arrival sets with a single store. A weft waiter queues a record under the barrier's spin lock, "
               "watches that record for up to 4 us (yielding to its stream's other work), then parks; the last "
               "arrival marks each record, so two cache lines cross cores per waiter and round, not one. A round "
               "word in the barrier itself measured ~210 ns here, but a watcher would then read the barrier after "
               "the round, when its owner may already have freed it: `weft_barrier_free` would have to wait for "
               "the watchers to leave.",
    "wake_latency": "The unpinned pthread and the Go goroutine are woken on (or handed to) the waker's own CPU, "
                    "so no idle CPU is woken at all; a weft stream bound to its core must be woken where it "
                    "sleeps (compare the pinned pthread row).",
}


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
    for exp in SUMMARY_EXPS:
        if any(r[0] == exp for r in rows) and exp in WHY_BEHIND:
            out.append(f"- **{exp}**: {WHY_BEHIND[exp]}")
    out.append("")
    return out


def report(doc, absent, pngs, outdir, quick):
    res = doc["results"]
    m = doc["machine"]
    out = []
    out.append("# weft benchmark report\n")
    out.append(f"Commit `{doc['commit']}`, {doc['date']}{' (quick run)' if quick else ''}. "
               f"Produced by `make bench{'-quick' if quick else ''}`; raw numbers in "
               f"`{'build/bench-quick' if quick else 'bench/results'}/latest.json`.\n")
    out.append("## Summary\n")
    out.append("For each experiment and thread count: weft's best time (any unit kind, pool set-up or API), the "
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
    out += behind_section(res)
    out.append("## Targets of the core runtime\n")
    out.append("| what | target | measured (median) | met |")
    out.append("|---|---|---|---|")
    for exp, rt, pool, th, target, what in TARGETS:
        r = [x for x in res if x["experiment"] == exp and x["runtime"] == rt and x.get("pool") == pool
             and x["threads"] == th]
        if r:
            out.append(f"| {what} | <= {target:.0f} ns | {r[0]['median']:.1f} ns | "
                       f"{'yes' if r[0]['median'] <= target else 'no'} |")
    # Measured in pairs, back to back in one process (bench_boost.cpp): the
    # two programs' own points are a minute apart, and the VM drifts more.
    pair = [x for x in res if x["experiment"] == "yield_to_pair"]
    if pair:
        p = pair[0]
        out.append(f"| yield-to vs the Boost.Context switch (in pairs, one process) | <= 1.30x | {p['ratio']:.2f}x "
                   f"[{p['ratio_min']:.2f} .. {p['ratio_max']:.2f}] ({p['median']:.1f} vs {p['boost_ns']:.1f} ns) | "
                   f"{'yes' if p['ratio'] <= 1.3 else 'no'} |")
    for r in sorted((x for x in res if x["experiment"] == "second_stream" and x.get("pool") == "private"),
                    key=lambda x: x["runtime"]):
        out.append(f"| {r['runtime']}, private pools: {r['threads']} streams against 1, same CPU (below) | "
                   f"<= +10% | {r['loss_pct']:+.1f}% | {'yes' if r['loss_pct'] <= 10 else 'no'} |")
    wake = [x for x in res if x["experiment"] == "wake_latency" and x["runtime"].startswith("weft")]
    if wake:
        w = wake[0]
        out.append(f"| a unit pushed to a sleeping stream starts (median of {w['runs']} wake-ups) | "
                   f"<= {WAKE_TARGET_NS / 1000:.0f} us | {w['median'] / 1000:.1f} us | "
                   f"{'yes' if w['median'] <= WAKE_TARGET_NS else 'no'} |")
    out.append("")
    out += scaling_section(res)
    out += sync_section(res)
    out += pair_section(res)
    out += breakdown_section(res)
    out += feature_section(res)
    out += huge_section(res)
    out.append("## Plots\n")
    out.append("Median of the runs; the bars span min to max. Solid lines are weft, dashed lines peers.\n")
    for exp, name in pngs:
        out.append(f"### {exp}\n\n![{exp}]({name})\n")
    out.append("## Experiments\n")
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
               "of the per-pair ratios. Two programs run a minute apart drift on this VM by more than the "
               "margin the target leaves.")
    ne = doc.get("not_expressed", {})
    if ne:
        out.append("")
        out.append("Not expressed (the runtime has no such operation):")
        for exp, labs in sorted(ne.items()):
            for lab in labs:
                why = NOT_EXPRESSED.get(lab, "")
                out.append(f"- {exp}, {lab}: {why}")
    out.append("")
    out.append("## Method\n")
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
    out.append("- All programs built by CMake in Release mode (-O3): gcc for weft, pthreads and gomp, g++ for TBB and "
               "Boost, clang for llvm-omp, the go tool for Go.\n")
    out.append("### How each runtime is set up\n")
    out.append("As its users would set it up for each pattern.\n")
    out.append("| runtime | threads are | worker binding (threads <= cores) | settings |")
    out.append("|---|---|---|---|")
    out.append("| weft-ult, weft-tasklet | execution streams (`weft_config.num_xstreams`) | one stream per core "
               "(weft's default, hwloc) | default hybrid wait policy (spin 200 us, then sleep); `private`: a pool "
               "per stream, the creator dispatches round robin (`weft_thread_create_to`); `shared`: one MPMC pool "
               "every stream's scheduler takes from first; `stealing`: a deque per stream, random work stealing |")
    out.append("| weft-glt | GLT threads = weft streams (`GLT_NUM_THREADS`) | as weft | `glt_*_create_to(thread)` |")
    out.append("| glt-pthreads | GLT threads over OS threads | a unit created for thread *t* is bound to CPU *t* modulo "
               "the CPUs, at every thread count (GLT's placement) | a unit is an OS thread |")
    out.append("| pthreads | OS threads, one per unit and per task | none: a thread lives for one unit; the process "
               "has `threads` CPUs | |")
    out.append("| gomp, llvm-omp | the team (`num_threads`) | `OMP_PROC_BIND=close OMP_PLACES=cores` (nested loops "
               "too: each inner team spreads from its parent's core) | `OMP_WAIT_POLICY=passive` for the task "
               "patterns (as [Threading-HPC]); `OMP_MAX_ACTIVE_LEVELS=2` for nested loops |")
    out.append("| tbb | a `task_arena` of `threads` slots, `global_control` limit | a `task_scheduler_observer` binds "
               "each thread entering the arena to its slot's CPU | static partitioner where iterations are divided "
               "among threads |")
    out.append("| go | `GOMAXPROCS` | none: Go cannot bind its Ps; the process has `threads` CPUs | a "
               "`sync.WaitGroup` per parallel step |")
    out.append("| boost-context | one thread | none | |")
    out.append("")
    out.append("## Machine\n")
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
    with open(os.path.join(outdir, "README.md"), "w") as f:
        f.write("\n".join(out))


def out_dirs(quick):
    """(results directory, report directory)."""
    if quick:
        return os.path.join(ROOT, "build", "bench-quick"), os.path.join(ROOT, "build", "bench-quick")
    return os.path.join(ROOT, "bench", "results"), os.path.join(ROOT, "bench", "report")


def write_report(doc, quick):
    resdir, repdir = out_dirs(quick)
    os.makedirs(repdir, exist_ok=True)
    for f in os.listdir(repdir):  # plots of experiments that no longer exist
        if f.endswith(".png"):
            os.remove(os.path.join(repdir, f))
    pngs = plot(doc["results"], repdir)
    report(doc, doc.get("absent", {}), pngs, repdir, quick)
    print(f"bench: results in {os.path.relpath(resdir, ROOT)}/latest.json, "
          f"report in {os.path.relpath(repdir, ROOT)}/README.md")


def rewrite_report(quick):
    """The report's text changed, not the measurements: the same numbers
    (and the commit they were measured at) in the new words."""
    with open(os.path.join(out_dirs(quick)[0], "latest.json")) as f:
        write_report(json.load(f), quick)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, same experiments")
    ap.add_argument("--streams", type=int, default=2, help="largest stream count (powers of two up to it)")
    ap.add_argument("--report-only", action="store_true",
                    help="measure nothing: write the plots and report again from the saved latest.json")
    args = ap.parse_args()
    if args.report_only:
        return rewrite_report(args.quick)
    build()
    capacity = [parallel_capacity(os.cpu_count() or 1)]
    results, absent = run_programs(args.quick, args.streams)
    pres, pabsent, not_expressed = run_patterns(args.quick, args.streams)
    results += pres
    absent.update(pabsent)
    capacity.append(parallel_capacity(os.cpu_count() or 1))
    doc = {"machine": dict(machine(), parallel_capacity=capacity), "commit": commit(),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "results": results}
    if absent:
        doc["absent"] = absent
    doc["not_expressed"] = {exp: sorted(labs) for exp, labs in not_expressed.items()}
    resdir = out_dirs(args.quick)[0]
    os.makedirs(resdir, exist_ok=True)
    with open(os.path.join(resdir, "latest.json"), "w") as f:
        json.dump(doc, f, indent=1)
    write_report(doc, args.quick)


if __name__ == "__main__":
    main()
