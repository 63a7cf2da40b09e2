"""The report's plots: one PNG per experiment measured against the thread
count, one for the join-latency breakdown, one for synchronisation."""
import os

from .points import fmt, label
from .registry import COLORS, SMT_EXPS, SMT_KERNELS, SMT_RUNTIMES, SYNC, TABLE_ONLY


def color_of(lab):
    return COLORS.get(lab, COLORS.get(lab.split(" (")[0], "#000000"))


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def existing(results, outdir):
    """The plots `plot` would list for `results`, from the files already in
    `outdir` (drawn from the same numbers by an earlier run)."""
    exps = sorted({r["experiment"] for r in results})
    pngs = [(exp, f"{exp}.png") for exp in exps if exp not in SYNC and exp not in TABLE_ONLY]
    if any(exp in SYNC for exp in exps):
        pngs.append(("synchronisation", "sync.png"))
    if any(exp in SMT_EXPS for exp in exps):
        pngs.append(("pair mode: speedup over serial", "smt_speedup.png"))
    return [(title, name) for title, name in pngs if os.path.exists(os.path.join(outdir, name))]


def plot(results, outdir):
    """Writes the plots of `results` into `outdir`; returns [(title, file name)]."""
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
        if exp in TABLE_ONLY:  # tables, no plot
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
    smt = [r for r in results if r["experiment"] in SMT_EXPS]
    if smt:
        pngs.append(plot_smt(smt, outdir, plt))
    return pngs


def geomean(v):
    import math
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def plot_smt(rows, outdir, plt):
    """Speedup over serial per kernel and runtime (bars: median; whiskers:
    min..max), and the geometric means, as [Relic] Figs. 1 and 3."""
    labs = [lab for lab in SMT_RUNTIMES if any(r["runtime"] == lab for r in rows)]
    groups = SMT_KERNELS + ["geomean"]
    fig, ax = plt.subplots(figsize=(9.0, 4.4), dpi=110)
    width = 0.8 / max(1, len(labs))
    for i, lab in enumerate(labs):
        xs, ys, lo, hi = [], [], [], []
        for g, k in enumerate(groups):
            if k == "geomean":
                v = [r["median"] for r in rows if r["runtime"] == lab]
                if len(v) != len(SMT_KERNELS):
                    continue
                m = geomean(v)
                xs.append(g), ys.append(m), lo.append(0), hi.append(0)
                continue
            r = [r for r in rows if r["runtime"] == lab and r["experiment"] == "smt_" + k]
            if r:
                xs.append(g), ys.append(r[0]["median"])
                lo.append(r[0]["median"] - r[0]["min"]), hi.append(r[0]["max"] - r[0]["median"])
        ax.bar([x - 0.4 + width * (i + 0.5) for x in xs], ys, width, yerr=[lo, hi], capsize=2, label=lab,
               color=color_of(lab), error_kw={"elinewidth": 0.8})
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel("speedup over serial (two instances)")
    ax.set_title("fine-grained kernels, 2 threads [Relic]")
    ax.legend(fontsize=7, ncol=3)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "smt_speedup.png"))
    plt.close(fig)
    return ("pair mode: speedup over serial", "smt_speedup.png")


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
