"""Build the programs, run them, merge the rounds of each point and write
latest.json: the measuring half of the suite."""
import datetime
import json
import os
import subprocess
import sys

from . import machine as mach
from .paths import ROOT, out_dirs, rel
from .points import fmt, label, summarise
from .registry import (OMP_TASK_EXPS, PATTERN_EXPS, PATTERN_ROUNDS, PATTERN_ROUNDS_QUICK, PATTERN_RUNTIMES,
                       PEER_MISSING, POINT_TIMEOUT_S, PROGRAMS, RENAMED, THREADS)


def build(build_dir):
    print(f"bench: configuring and building (Release) in {rel(build_dir)}", flush=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                    "-DWEFT_BUILD_TESTS=OFF", "-DWEFT_BUILD_EXAMPLES=OFF"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir], check=True, stdout=subprocess.DEVNULL)


def not_built(prog, why):
    return f"{prog} was not built ({why})"


def run_programs(build_dir, quick, streams):
    """Every program of the registry once. Returns (results, absent runtimes)."""
    results, absent = [], {}
    for p in PROGRAMS:
        args = list(p.args)
        env = dict(os.environ, **p.env) if p.env else None
        path = os.path.join(build_dir, "bench", p.name)
        if not os.path.exists(path):
            for rt in p.runtimes:
                absent[rt] = not_built(p.name, p.missing)
            print(f"bench: {p.name}: absent", flush=True)
            continue
        cmd = [path, f"--streams={streams}"] + (["--quick"] if quick else []) + args
        print(f"bench: running {' '.join([p.name] + args)}", flush=True)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        for line in proc.stdout:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            r["experiment"] = RENAMED.get(r["experiment"], r["experiment"])
            results.append(r)
            print(f"  {r['experiment']:<24} {label(r):<24} threads={r['threads']}  "
                  f"median {r['median']:.1f} {r['unit']}  [{r['min']:.1f} .. {r['max']:.1f}]  ({r['runs']} runs)",
                  flush=True)
        if proc.wait() != 0:
            sys.exit(f"bench: {p.name} failed (exit {proc.returncode})")
    return results, absent


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


def run_patterns(build_dir, quick, streams):
    """Experiment by experiment, every runtime at every thread count, one
    process per point. The full run takes each point's runs in several
    rounds of processes interleaved across the runtimes, so that a noisy
    minute of a shared machine does not fall on one runtime only. Returns
    (results, absent runtimes, {experiment: runtimes that do not express it})."""
    results, absent, not_expressed = [], {}, {}
    cores = os.cpu_count() or 1
    rounds, runs = PATTERN_ROUNDS_QUICK if quick else PATTERN_ROUNDS
    for n, exp in enumerate(PATTERN_EXPS, 1):
        ths = [t for t in THREADS if t <= streams] if exp == "create_join_per_stream" else THREADS
        print(f"bench: [{n}/{len(PATTERN_EXPS)}] {exp}, threads {', '.join(map(str, ths))}, "
              f"{rounds * runs} runs per point", flush=True)
        points = {}  # (label, threads) -> merged result
        for _ in range(rounds):
            for pr in PATTERN_RUNTIMES:
                lab = pr.label
                if exp in pr.elsewhere or exp in not_expressed and lab in not_expressed[exp]:
                    continue
                path = os.path.join(build_dir, "bench", pr.program)
                if not os.path.exists(path):
                    absent[lab] = not_built(pr.program, PEER_MISSING)
                    continue
                for th in ths:
                    cmd = [path, f"--exp={exp}", f"--threads={th}", f"--runs={runs}"] + \
                        (["--quick"] if quick else []) + list(pr.args)
                    proc = subprocess.run(cmd, env=pattern_env(lab, exp, th, cores), capture_output=True,
                                          text=True, timeout=POINT_TIMEOUT_S, preexec_fn=point_cpus(th))
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
        for pr in PATTERN_RUNTIMES:
            rows = [points[(pr.label, th)] for th in ths if (pr.label, th) in points]
            for r in rows:
                results.append(summarise(r))
            if rows:
                cells = "   ".join(f"{r['threads']}: {fmt(r['median'])}" for r in rows)
                print(f"  {pr.label:<24} {cells}  ({rows[0]['unit']}, median)", flush=True)
    return results, absent, not_expressed


def measure(build_dir, quick, streams):
    """Build, run everything, and return the document latest.json holds."""
    build(build_dir)
    cores = os.cpu_count() or 1
    capacity = [mach.parallel_capacity(cores)]
    results, absent = run_programs(build_dir, quick, streams)
    pres, pabsent, not_expressed = run_patterns(build_dir, quick, streams)
    results += pres
    absent.update(pabsent)
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
