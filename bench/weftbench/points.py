"""Helpers on measured points: the dicts the programs print (see
bench/bench_common.h) and latest.json holds."""


def label(r):
    """A point's runtime as plots and tables name it."""
    if "label" in r:
        return r["label"]
    return r["runtime"] + (f" ({r['pool']})" if "pool" in r else "")


def fmt(v):
    return f"{v:.1f}" if v < 1000 else f"{v:,.0f}"


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def summarise(r):
    """A point merged from rounds: its runs' values become runs, median,
    min and max, as a program's own points have them."""
    v = sorted(r.pop("values"))
    r["runs"] = len(v)
    r["median"] = median(v)
    r["min"], r["max"] = v[0], v[-1]
    return r


def find(res, experiment, **fields):
    """The points of `experiment` whose fields have the given values."""
    return [r for r in res if r["experiment"] == experiment and all(r.get(k) == v for k, v in fields.items())]
