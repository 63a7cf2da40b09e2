"""Build the programs, run them, merge the rounds of each point and write
latest.json: the measuring half of the suite."""
import datetime
import json
import os
import subprocess
import sys

from . import machine as mach
from .paths import ROOT, out_dirs, rel
from .points import fmt, label, median, summarise
from .registry import (APP_EXPS, APP_ROUNDS, APP_ROUNDS_QUICK, APP_RUNTIMES, EPCC_EXPS, EPCC_ROUNDS, EPCC_ROUNDS_QUICK, EPCC_RUNTIMES, OMP_RUNTIMES, OMP_TASK_EXPS,
                       PATTERN_EXPS, PATTERN_ROUNDS, PATTERN_ROUNDS_QUICK, PATTERN_RUNTIMES, PEER_MISSING,
                       POINT_TIMEOUT_S, PROGRAMS, RENAMED, THREADS, WEFT_OMP_LIB, WEFT_OMP_MISSING, SMT_PROGRAMS, SMT_ROUNDS)


def build(build_dir):
    print(f"bench: configuring and building (Release) in {rel(build_dir)}", flush=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                    "-DWEFT_BUILD_TESTS=OFF", "-DWEFT_BUILD_EXAMPLES=OFF"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir], check=True, stdout=subprocess.DEVNULL)


def not_built(prog, why):
    return f"{prog} was not built ({why})"


def lib_missing(build_dir, lib):
    """Why a runtime whose library is `lib` (Program.lib) cannot run, or None."""
    if lib and not os.path.exists(os.path.join(build_dir, lib)):
        return WEFT_OMP_MISSING if lib == WEFT_OMP_LIB else f"{lib} was not built"
    return None


def with_lib(env, build_dir, lib):
    """`env` (a dict, or None: this process's) with `lib`'s directory first
    on LD_LIBRARY_PATH."""
    env = dict(os.environ) if env is None else env
    if lib:
        d = os.path.dirname(os.path.join(build_dir, lib))
        env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def check_lib(r, build_dir, lib, what):
    """A point of a runtime that runs on `lib` must say it did (its "lib"
    field): else the loader found another library and the point would
    measure the wrong runtime under its name. Nor may a point of another
    runtime say it ran on weft-omp."""
    if not lib:  # a peer's point: not on weft-omp by accident (LD_LIBRARY_PATH set by the caller)
        if "lib" in r and os.path.realpath(r["lib"]) == os.path.realpath(os.path.join(build_dir, WEFT_OMP_LIB)):
            sys.exit(f"bench: {what} ran on weft-omp's {r['lib']} (LD_LIBRARY_PATH?), not on its own runtime")
        return
    want = os.path.realpath(os.path.join(build_dir, lib))
    if "lib" not in r or os.path.realpath(r["lib"]) != want:
        sys.exit(f"bench: {what} ran on {r.get('lib', 'an unknown library')}, not on {want}")


def run_programs(build_dir, quick, streams, programs=None, tag=""):
    """Every program of the registry once (or of `programs`). Returns
    (results, absent runtimes)."""
    results, absent = [], {}
    for p in PROGRAMS if programs is None else programs:
        args = list(p.args)
        env = dict(os.environ, **p.env) if p.env else None
        path = os.path.join(build_dir, "bench", p.name)
        why = not_built(p.name, p.missing) if not os.path.exists(path) else lib_missing(build_dir, p.lib)
        if why:
            for rt in p.runtimes:
                absent[rt] = why
            print(f"bench: {p.name} {' '.join(args)}: absent", flush=True)
            continue
        if p.lib:
            env = with_lib(env, build_dir, p.lib)
        cmd = [path, f"--streams={streams}"] + (["--quick"] if quick else []) + args
        print(f"bench: {tag}running {' '.join([p.name] + args)}", flush=True)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        for line in proc.stdout:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            check_lib(r, build_dir, p.lib, " ".join([p.name] + args))
            r["experiment"] = RENAMED.get(r["experiment"], r["experiment"])
            results.append(r)
            # A point that measures one of several things says which
            # (feature_cost: create_join or yield, build: shipped or a measurement build).
            name = r["experiment"] + "".join(f"/{r[k]}" for k in ("what", "build") if k in r)
            print(f"  {name:<24} {label(r):<24} threads={r['threads']}  "
                  f"median {r['median']:.1f} {r['unit']}  [{r['min']:.1f} .. {r['max']:.1f}]  ({r['runs']} runs)",
                  flush=True)
        if proc.wait() != 0:
            sys.exit(f"bench: {p.name} failed (exit {proc.returncode})")
    return results, absent


def run_smt(build_dir, quick, streams):
    """The pair-mode programs in rounds interleaved across the runtimes; the
    runs of one point (its "values") merged over the rounds."""
    rounds = SMT_ROUNDS[1] if quick else SMT_ROUNDS[0]
    merged, order, absent = {}, [], {}
    for n in range(rounds):
        res, ab = run_programs(build_dir, quick, streams, SMT_PROGRAMS, f"[pair mode {n + 1}/{rounds}] ")
        absent.update(ab)
        for r in res:
            key = (r["experiment"], r["runtime"], r["threads"])
            if key not in merged:
                merged[key] = dict(r, values=list(r.get("values", [])), rounds_serial=[], rounds_parallel=[])
                order.append(key)
            else:
                merged[key]["values"] += r.get("values", [])
            m = merged[key]
            if "serial_ns" in r:
                m["rounds_serial"].append(r["serial_ns"])
                m["rounds_parallel"].append(r["parallel_ns"])
    out = []
    for key in order:
        r = merged[key]
        if r["values"]:
            summarise(r)
        else:
            r.pop("values")
        if r["rounds_serial"]:
            r["serial_ns"] = median(r["rounds_serial"])
            r["parallel_ns"] = median(r["rounds_parallel"])
        r.pop("rounds_serial"), r.pop("rounds_parallel")
        out.append(r)
    return out, absent


def pattern_env(label, exp, threads, cores):
    """The environment of one point: what a user of that runtime would set."""
    env = dict(os.environ)
    if label in OMP_RUNTIMES:
        if exp in OMP_TASK_EXPS:
            env["OMP_WAIT_POLICY"] = "passive"  # idle threads leave the task queue to the producer
        if exp.startswith("nested_for"):
            env["OMP_MAX_ACTIVE_LEVELS"] = "2"  # else the inner loops run on one thread
        if threads <= cores:
            env["OMP_PROC_BIND"] = "close"  # one thread per core, as weft's streams
            env["OMP_PLACES"] = "cores"
            if exp.startswith("nested_for"):
                # The usual binding for two levels (the OpenMP examples'): the outer threads spread over
                # the cores, each inner team stays on its thread's core. Faster than `close` at both
                # levels for every OpenMP runtime here (bench/notes/observations.md, omp.nested_binding).
                env["OMP_PROC_BIND"] = "spread,close"
    return env


def point_cpus(threads):
    """Every runtime's process gets the same CPUs: the first `threads` when
    there are that many, else all of them (as [Threading-HPC]'s taskset). Inside,
    a runtime binds its workers one per CPU when they fit (bench/bench_bind.h).
    """
    allowed = sorted(os.sched_getaffinity(0))
    cpus = allowed[:threads] if threads <= len(allowed) else allowed
    return lambda: os.sched_setaffinity(0, cpus)


def run_patterns(build_dir, quick, streams, exps=PATTERN_EXPS, runtimes=PATTERN_RUNTIMES,
                 rounds_of=(PATTERN_ROUNDS, PATTERN_ROUNDS_QUICK), tag=""):
    """Experiment by experiment, every runtime at every thread count, one
    process per point. The full run takes each point's runs in several
    rounds of processes interleaved across the runtimes, so that a noisy
    minute of a shared machine does not fall on one runtime only. Returns
    (results, absent runtimes, {experiment: runtimes that do not express it}).
    The patterns by default; the applications with APP_EXPS / APP_RUNTIMES."""
    results, absent, not_expressed = [], {}, {}
    cores = os.cpu_count() or 1
    rounds, runs = rounds_of[1] if quick else rounds_of[0]
    for n, exp in enumerate(exps, 1):
        ths = [t for t in THREADS if t <= streams] if exp == "create_join_per_stream" else THREADS
        print(f"bench: [{tag}{n}/{len(exps)}] {exp}, threads {', '.join(map(str, ths))}, "
              f"{rounds * runs} runs per point", flush=True)
        points = {}  # (label, threads) -> merged result
        for _ in range(rounds):
            for pr in runtimes:
                lab = pr.label
                if exp in pr.elsewhere or exp in not_expressed and lab in not_expressed[exp]:
                    continue
                path = os.path.join(build_dir, "bench", pr.program)
                why = not_built(pr.program, PEER_MISSING) if not os.path.exists(path) else \
                    lib_missing(build_dir, pr.lib)
                if why:
                    absent[lab] = why
                    continue
                for th in ths:
                    cmd = [path, f"--exp={exp}", f"--threads={th}", f"--runs={runs}"] + \
                        (["--quick"] if quick else []) + list(pr.args)
                    env = with_lib(pattern_env(lab, exp, th, cores), build_dir, pr.lib)
                    proc = subprocess.run(cmd, env=env, capture_output=True,
                                          text=True, timeout=POINT_TIMEOUT_S, preexec_fn=point_cpus(th))
                    if proc.returncode != 0:
                        sys.exit(f"bench: {' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr}")
                    r = json.loads([x for x in proc.stdout.splitlines() if x.startswith("{")][-1])
                    if r.get("absent"):
                        not_expressed.setdefault(exp, set()).add(lab)
                        break
                    check_lib(r, build_dir, pr.lib, " ".join(cmd))
                    if (lab, th) in points:
                        points[(lab, th)]["values"] += r["values"]
                    else:
                        points[(lab, th)] = r
        for pr in runtimes:
            rows = [points[(pr.label, th)] for th in ths if (pr.label, th) in points]
            for r in rows:
                results.append(summarise(r))
            if rows:
                cells = "   ".join(f"{r['threads']}: {fmt(r['median'])}" for r in rows)
                print(f"  {pr.label:<24} {cells}  ({rows[0]['unit']}, median)", flush=True)
    return results, absent, not_expressed


def epcc_env(threads, cores):
    """An EPCC point's environment: the team size, and OpenMP's binding as
    the patterns have it (one thread per core when they fit)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if threads <= cores:
        env["OMP_PROC_BIND"] = "close"
        env["OMP_PLACES"] = "cores"
    return env


def run_epcc(build_dir, quick):
    """The EPCC-style overheads of OpenMP's constructs: one process per
    runtime and thread count measures every construct; the full run takes
    each point's runs in rounds interleaved across the runtimes, as the
    patterns. Returns (results, absent runtimes)."""
    results, absent, points = [], {}, {}
    cores = os.cpu_count() or 1
    rounds, runs = EPCC_ROUNDS_QUICK if quick else EPCC_ROUNDS
    print(f"bench: [epcc] {len(EPCC_EXPS)} OpenMP constructs, threads {', '.join(map(str, THREADS))}, "
          f"{rounds * runs} runs per point", flush=True)
    for rnd in range(rounds):
        for pr in EPCC_RUNTIMES:
            path = os.path.join(build_dir, "bench", pr.program)
            why = not_built(pr.program, PEER_MISSING) if not os.path.exists(path) else lib_missing(build_dir, pr.lib)
            if why:
                absent[f"{pr.label} (epcc)"] = why
                continue
            if rounds > 1:
                print(f"  round {rnd + 1}/{rounds}: {pr.label}", flush=True)
            for th in THREADS:
                cmd = [path, f"--runs={runs}"] + (["--quick"] if quick else []) + list(pr.args)
                proc = subprocess.run(cmd, env=with_lib(epcc_env(th, cores), build_dir, pr.lib), capture_output=True,
                                      text=True, timeout=POINT_TIMEOUT_S, preexec_fn=point_cpus(th))
                if proc.returncode != 0:
                    sys.exit(f"bench: OMP_NUM_THREADS={th} {' '.join(cmd)} failed (exit {proc.returncode}):\n"
                             f"{proc.stderr}")
                for line in proc.stdout.splitlines():
                    if not line.startswith("{"):
                        continue
                    r = json.loads(line)
                    check_lib(r, build_dir, pr.lib, f"OMP_NUM_THREADS={th} {' '.join(cmd)}")
                    if r["threads"] != th:
                        sys.exit(f"bench: {' '.join(cmd)} ran {r['threads']} threads, not OMP_NUM_THREADS={th}")
                    key = (r["experiment"], pr.label, th)
                    if key in points:
                        points[key]["values"] += r["values"]
                    else:
                        points[key] = r
    for exp in EPCC_EXPS:
        for pr in EPCC_RUNTIMES:
            rows = [summarise(points[(exp, pr.label, th)]) for th in THREADS if (exp, pr.label, th) in points]
            results += rows
            if rows:
                cells = "   ".join(f"{r['threads']}: {fmt(r['median'])}" for r in rows)
                print(f"  {exp:<20} {pr.label:<10} {cells}  (ns, median)", flush=True)
    return results, absent


def measure(build_dir, quick, streams):
    """Build, run everything, and return the document latest.json holds."""
    build(build_dir)
    cores = os.cpu_count() or 1
    capacity = [mach.parallel_capacity(cores)]
    results, absent = run_programs(build_dir, quick, streams)
    sres, sabsent = run_smt(build_dir, quick, streams)
    results += sres
    absent.update(sabsent)
    eres, eabsent = run_epcc(build_dir, quick)
    results += eres
    absent.update(eabsent)
    pres, pabsent, not_expressed = run_patterns(build_dir, quick, streams)
    results += pres
    absent.update(pabsent)
    ares, aabsent, app_not_expressed = run_patterns(build_dir, quick, streams, APP_EXPS, APP_RUNTIMES,
                                                     (APP_ROUNDS, APP_ROUNDS_QUICK), "apps ")
    results += ares
    absent.update({f"{lab} (apps)": why for lab, why in aabsent.items()})
    not_expressed.update(app_not_expressed)
    capacity.append(mach.parallel_capacity(cores))
    doc = {"machine": dict(mach.machine(), parallel_capacity=capacity), "commit": mach.commit(),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "results": results}
    if absent:
        doc["absent"] = absent
    doc["not_expressed"] = {exp: sorted(labs) for exp, labs in not_expressed.items()}
    return doc


def save(doc, quick):
    resdir = out_dirs(quick)[0]
    os.makedirs(resdir, exist_ok=True)
    with open(os.path.join(resdir, "latest.json"), "w") as f:
        json.dump(doc, f, indent=1)


def load(quick):
    with open(os.path.join(out_dirs(quick)[0], "latest.json")) as f:
        return json.load(f)
