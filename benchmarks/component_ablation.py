"""Which of the default's components cost it Schwefel 2.21 (F3, F4), and what removing them costs.

    python benchmarks/component_ablation.py --workers 2          # every ablation, 5 seeds
    python benchmarks/component_ablation.py --wide no-line-samples+no-rank-one --workers 2   # and F1-F13 at 1000 n
    python benchmarks/component_ablation.py --report             # only rewrite the report from the run files

The default (``edamcc-sep-cc``, n = 100, its own population of 17) ends F3 and F4 at 1000 n
some 300 to 600 times above the paper's variant. This program runs it with one component
taken out or changed at a time, and with pairs of them, on F3 and F4 with 1000 n evaluations
and on the sphere F1 with 100 n (the issue's small-budget target), 5 seeds each:

* ``no-active``: the shape's rank-mu term without the negative weights (``Variant.active``);
* ``cma-path``: the rank-one path at Hansen's rate, about 4 / n, instead of sep-CMA-ES's
  1 / sqrt(n) (``Variant.rank_one_path``; that is ``edamcc-csa``);
* ``line-free``: the step-size path without the mean-shift samples' share (``Variant.line_free_path``;
  that is ``edamcc-sep-cc-lf``);
* ``no-line-samples``: no mean-shift samples at all (:func:`edamcc.step_size.mean_shift_line`
  gives no line, so every row is a sample of the model);
* ``no-rank-one``: the shape without its rank-one term (c_1 = 0 in :func:`edamcc.step_size.shape_rates`);
* ``shape-rate-half``, ``shape-rate-double``: c_mu's factor ``SHAPE_RATE`` at 0.15 and 0.6 (0.3 as shipped).

With ``--wide``, the ablations named there also run on all of F1-F13 at 1000 n, and the
report sets their medians against sep-CMA-ES's (ahead, tied or behind, as ``adaptive_targets.py``
counts them) next to the default's from ``peers.py``.

The last three change module-level names of :mod:`edamcc.step_size` for the run, in its
worker process only, and put them back after it (as ``restart_tolerance.py`` does with the
restart tolerances); none of these is a package option. The report sets each median against
the paper's variant and sep-CMA-ES from ``peers.py``'s runs in ``results/adaptive/runs``,
with the issue's bounds: F3 and F4 within 3x of the paper's variant, the sphere within 10x of
sep-CMA-ES.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
from adaptive_targets import reference_medians
from common import (
    FUNCTIONS,
    PAPER_FACTOR,
    RESULTS,
    SPHERE_FACTOR,
    add_campaign_options,
    load_runs,
    pyplot,
    run_missing,
    runs_folder,
    shown_path,
    verdict_of,
    write_report,
    zeroed_median,
)

import edamcc.step_size as step_size
from edamcc import VARIANTS, Variant, minimize
from edamcc.benchmark_functions import get_function

DIM = 100
BASE = "edamcc-sep-cc"
CELLS = [("F3", 1000), ("F4", 1000), ("F1", 100)]  # (function, evaluations / n)
SINGLE = ["no-active", "cma-path", "line-free", "no-line-samples", "no-rank-one", "shape-rate-half", "shape-rate-double"]
PAIRS = ["cma-path+no-line-samples", "line-free+cma-path", "line-free+no-active", "no-line-samples+no-rank-one", "line-free+no-rank-one"]
ABLATIONS = ["shipped", *SINGLE, *PAIRS]
VARIANT_FIELDS = {"no-active": {"active": False}, "cma-path": {"rank_one_path": "cma"}, "line-free": {"line_free_path": True}}
PEERS = RESULTS / "adaptive" / "runs"  # the paper's variant's and sep-CMA-ES's runs (peers.py)
OUT = RESULTS / "component_ablation"


def _no_line(model, step):  # noqa: ANN001, ANN202  (mean_shift_line's signature)
    return None


def _without_rank_one(shape_rates):  # noqa: ANN001, ANN202
    return lambda n, mu_eff: (0.0, shape_rates(n, mu_eff)[1])


@contextlib.contextmanager
def ablated(name: str) -> Iterator[Variant]:
    """The default's variant with the ablation ``name`` (parts joined by "+"), and
    :mod:`edamcc.step_size` changed for the block where the ablation needs it."""
    parts = [] if name == "shipped" else name.split("+")
    unknown = [p for p in parts if p not in SINGLE]
    if unknown:
        raise ValueError(f"ablation: expected 'shipped' or parts of {SINGLE} joined by '+'; got {name!r}")
    fields = {k: v for p in parts for k, v in VARIANT_FIELDS.get(p, {}).items()}
    variant = replace(VARIANTS[BASE], name=f"{BASE}-{name}", **fields) if fields else VARIANTS[BASE]
    saved = step_size.mean_shift_line, step_size.shape_rates, step_size.SHAPE_RATE
    try:
        if "no-line-samples" in parts:
            step_size.mean_shift_line = _no_line
        if "no-rank-one" in parts:
            step_size.shape_rates = _without_rank_one(saved[1])
        if "shape-rate-half" in parts or "shape-rate-double" in parts:
            step_size.SHAPE_RATE = saved[2] * (0.5 if "shape-rate-half" in parts else 2.0)
        yield variant
    finally:
        step_size.mean_shift_line, step_size.shape_rates, step_size.SHAPE_RATE = saved


def run_one(job: tuple) -> dict:
    name, fname, factor, seed = job
    f = get_function(fname, DIM)
    t = time.perf_counter()
    with ablated(name) as variant:  # as peers.py runs the default, so that "shipped" repeats its runs
        res = minimize(f, f.bounds, budget=factor * DIM, seed=seed, vectorized=True, record_pairs=False, variant=variant)
    return {"ablation": name, "function": fname, "dim": DIM, "budget": factor * DIM, "seed": seed, "error": float(f.error(res.fun)),
            "restarts": len(res.strategy.restarts), "wall_seconds": time.perf_counter() - t}  # fmt: skip


def _cell_reference(reference: dict) -> dict[tuple, dict[str, float]]:
    """``{cell: {algorithm: median}}`` of :data:`CELLS` from :func:`adaptive_targets.reference_medians`."""
    return {(fname, factor): reference.get((DIM, factor * DIM), {}).get(fname, {}) for fname, factor in CELLS}


def _medians(runs: list[dict]) -> dict[tuple, float]:
    """``{(ablation, cell): median}`` of the run files."""
    cells: dict = {}
    for r in runs:
        cells.setdefault((r["ablation"], (r["function"], r["budget"] // DIM)), []).append(r["error"])
    return {key: zeroed_median(errors) for key, errors in cells.items()}


def plot(out: Path, peers: Path = PEERS) -> Path | None:
    """The trade-off in a picture: F3 and F4 at 1000 n against the sphere at 100 n, each
    ablation's medians (0 drawn at 1e-12), the issue's bounds shaded; None without matplotlib."""
    try:
        plt = pyplot()
    except ImportError:
        return None
    med, ref = _medians(load_runs(out / "runs")), _cell_reference(reference_medians(peers))
    sphere = CELLS[2]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    colors = plt.get_cmap("tab20").colors
    for ax, cell in zip(axes, CELLS[:2]):
        points = []
        for k, name in enumerate(ABLATIONS):
            if (name, cell) in med and (name, sphere) in med:
                x, y = max(med[(name, sphere)], 1e-12), max(med[(name, cell)], 1e-12)
                ax.loglog(x, y, "o*sD"[k % 4], color=colors[k % len(colors)], ms=8 if name == "shipped" else 6, label=name)
                points.append((x, y))
        for label, alg, mark in (("the paper's edamcc", "edamcc", "s"), ("sep-CMA-ES", "sep-cma", "^")):
            if alg in ref[cell] and alg in ref[sphere]:
                x, y = max(ref[sphere][alg], 1e-12), max(ref[cell][alg], 1e-12)
                ax.loglog(x, y, mark, color="k", mfc="none", ms=8, label=label)
                points.append((x, y))
        if not points:
            continue
        xs, ys = zip(*points)
        ax.set_xlim(min(xs) / 10, max(xs) * 10)
        ax.set_ylim(min(ys) / 10, max(ys) * 10)
        if "edamcc" in ref[cell] and "sep-cma" in ref[sphere]:  # both bounds met: the shaded corner
            x_max, y_max = SPHERE_FACTOR * ref[sphere]["sep-cma"], PAPER_FACTOR * ref[cell]["edamcc"]
            ax.fill_between([min(xs) / 10, x_max], min(ys) / 10, y_max, color="C2", alpha=0.15, lw=0)
            ax.axhline(y_max, color="C2", lw=0.8, ls="--")
            ax.axvline(x_max, color="C2", lw=0.8, ls="--")
        ax.set_xlabel(f"sphere F1 at {sphere[1]} n: median error")
        ax.set_ylabel(f"{cell[0]} at {cell[1]} n: median error")
        ax.set_title(f"{cell[0]} against the sphere", fontsize=10)
    fig.suptitle("Ablations of the default, n = 100, median of 5 seeds; the issue's bounds dashed, both met in the shaded corner", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 0.8, 1))
    path = out / "report.png"
    fig.savefig(path, dpi=100)
    return path


def report(out: Path, peers: Path = PEERS) -> str:
    runs = load_runs(out / "runs")
    reference = reference_medians(peers)
    ref = _cell_reference(reference)
    wide = list(_wide_cells(runs))
    rerun = "python benchmarks/component_ablation.py" + (f" --wide {' '.join(wide)}" if wide else "")
    if Path(out).resolve() != OUT.resolve():
        rerun += f" --out {shown_path(out)}"
    head = " | ".join(f"{fname} at {factor} n" for fname, factor in CELLS)
    lines = [f"# Ablations of the default (`{BASE}`) on F3 and F4 (1000 n) and the sphere F1 (100 n), n = {DIM}", "",
             "Median error over the seeds (0: below 1e-12), with each seed's error in brackets, and how many runs restarted. "
             "The issue's bounds: F3 and F4 within 3x of the paper's variant, F1 within 10x of sep-CMA-ES (their medians from "
             f"`peers.py`'s runs in `{shown_path(peers)}`). Regenerate: `{rerun}`.", "",
             f"| ablation | {head} | F3, F4 within 3x of the paper's | F1 within 10x of sep-CMA-ES |",
             "|---|" + "---|" * (len(CELLS) + 2)]  # fmt: skip
    for label, alg in (("the paper's `edamcc`", "edamcc"), ("sep-CMA-ES", "sep-cma")):
        cells = " | ".join(f"{ref[c][alg]:.2e}" if alg in ref[c] else "–" for c in CELLS)
        lines.append(f"| {label} | {cells} | | |")
    for name in ABLATIONS:
        row, med = [], {}
        for fname, factor in CELLS:
            rs = sorted((r for r in runs if r["ablation"] == name and r["function"] == fname and r["budget"] == factor * DIM), key=lambda r: r["seed"])
            if not rs:
                row.append("–")
                continue
            med[(fname, factor)] = zeroed_median([r["error"] for r in rs])
            errors = " ".join(f"{r['error']:.1e}" for r in rs)
            row.append(f"{med[(fname, factor)]:.2e} ({errors}; {sum(r['restarts'] > 0 for r in rs)} restarted)")
        paper = ", ".join(_within(med, ref, cell, "edamcc", PAPER_FACTOR) for cell in CELLS[:2])
        lines.append(f"| {name} | {' | '.join(row)} | {paper} | {_within(med, ref, CELLS[2], 'sep-cma', SPHERE_FACTOR)} |")
    lines += _wide_table(runs, reference)
    return "\n".join(lines) + "\n"


def _wide_cells(runs: list[dict]) -> dict[str, dict[str, list[float]]]:
    """``{ablation: {function: errors}}`` at 1000 n of the ablations with runs on every one of F1-F13."""
    cells: dict = {}
    for r in runs:
        if r["budget"] == 1000 * DIM:
            cells.setdefault(r["ablation"], {}).setdefault(r["function"], []).append(r["error"])
    return {name: cells[name] for name in ABLATIONS if set(cells.get(name, {})) >= set(FUNCTIONS)}


def _wide_table(runs: list[dict], reference: dict) -> list[str]:
    """The ablations with runs on every one of F1-F13 at 1000 n, against sep-CMA-ES (empty: none)."""
    budget = 1000 * DIM
    cells = _wide_cells(runs)
    wide = list(cells)
    if not wide:
        return []
    ref = reference.get((DIM, budget), {})
    columns = [("the default (`peers.py`)", {f: ref.get(f, {}).get(BASE) for f in FUNCTIONS})]
    columns += [(name, {f: zeroed_median(cells[name][f]) for f in FUNCTIONS}) for name in wide]
    sep = {f: ref.get(f, {}).get("sep-cma") for f in FUNCTIONS}
    lines = ["", f"## F1-F13 at 1000 n (`--wide`), n = {DIM}", "",
             "| function | " + " | ".join(name for name, _ in columns) + " | sep-CMA-ES |", "|---|" + "---|" * (len(columns) + 1)]  # fmt: skip
    counts = {name: {"ahead": 0, "tied": 0, "behind": 0} for name, _ in columns}
    for f in FUNCTIONS:
        row = []
        for name, med in columns:
            if med[f] is None or sep[f] is None:
                row.append("–" if med[f] is None else f"{med[f]:.2e}")
                continue
            verdict = verdict_of(med[f], sep[f])
            counts[name][verdict] += 1
            row.append(f"{med[f]:.2e} ({verdict})")
        lines.append(f"| {f} | {' | '.join(row)} | {'–' if sep[f] is None else f'{sep[f]:.2e}'} |")
    lines.append("")
    for name, c in counts.items():
        if sum(c.values()):
            lines.append(f"{name}: median ahead of sep-CMA-ES on {c['ahead']}, tied on {c['tied']}, behind on {c['behind']}.")
    return lines


def _within(med: dict, ref: dict, cell: tuple, alg: str, factor: float) -> str:
    """"yes" when the median of ``cell`` is at most ``factor`` times ``alg``'s there ("–": either missing)."""
    if cell not in med or alg not in ref[cell]:
        return "–"
    return "yes" if med[cell] <= factor * ref[cell][alg] else "no"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ablations", nargs="+", default=ABLATIONS, choices=ABLATIONS)
    parser.add_argument("--wide", nargs="*", default=[], choices=ABLATIONS, help="ablations also run on F1-F13 at 1000 n")
    add_campaign_options(parser, OUT, runs=5)
    args = parser.parse_args()
    out = runs_folder(args)
    if not args.report:
        cells = {name: list(CELLS) for name in args.ablations}
        for name in args.wide:
            cells.setdefault(name, list(CELLS)).extend((f, 1000) for f in FUNCTIONS if (f, 1000) not in CELLS)
        jobs = [(name, fname, factor, seed) for name, named in cells.items() for fname, factor in named for seed in range(args.runs)]
        path = lambda j: out / "runs" / f"{j[0]}__{j[1]}__b{j[2] * DIM}__s{j[3]}.json"  # noqa: E731
        run_missing(jobs, run_one, path, args.workers, lambda j, r: f"{j[0]} {j[1]} s{j[3]}: error {r['error']:.3e} ({r['wall_seconds']:.0f} s)")
    write_report(out / "report.md", report(out))
    picture = plot(out)
    print(f"wrote {picture}" if picture else "no picture: matplotlib is not installed")


if __name__ == "__main__":
    main()
