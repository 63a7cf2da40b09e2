"""The machine a run was measured on: CPU, kernel, compilers, the peers'
package versions, how much of it is usable at once, and the commit."""
import multiprocessing
import os
import platform
import subprocess
import time

from .paths import ROOT
from .registry import PEER_PACKAGES


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
