"""Why the default stops short on Schwefel 2.21 (F3, F4) and Rosenbrock (F7, F8), measured.

    python benchmarks/restart_tolerance.py                 # the default: every setting x F3, F4 x 1000 n, 10,000 n x 5 seeds
    python benchmarks/restart_tolerance.py --variant edamcc-csa   # the default from 0.3 to 0.6
    python benchmarks/restart_tolerance.py --functions F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 F13 --settings shipped tolfun-1e-13 --workers 2
    python benchmarks/restart_tolerance.py --report        # only rewrite the report from the run files

On max_i |x_i - o_i| the error is linear in the distance to the optimum, so the step-size
variants' restart tests (:mod:`edamcc.restarts`: every standard deviation below ``TOL_STD`` =
1e-12 of the box, 2e-10 here, or best value and last spread flat within ``RESTART_TOL_FUN`` =
1e-11) fire at errors of about 1e-10, where the paper's variant, which never restarts, goes on
below 1e-12. The same ``TOL_STD`` test is also what ends a run that has converged early to a
point that is not the optimum. This program runs ``--variant`` (a step-size variant; n = 100,
its own population) with the module's two constants as shipped and set lower, and records for
each run its error, each restart (evaluations, reason, best value then) and the evaluations
after which the best value no longer improved by more than 1e-6 of itself before the first
restart (where that run stalled). Each variant's runs and report are in a folder of its own,
``results/restart_tolerance/<variant>/``.

On Rosenbrock (F7, and F8 with its bias of 390) the same ``RESTART_TOL_FUN`` ends each run
at an error of about 1e-11, since a converged generation's values then span about its error,
and no later run gets below that either; sep-CMA-ES, run without ``tolfun``
(``peers.py``), goes on below 1e-12.

Settings (``TOL_STD``, ``RESTART_TOL_FUN``): ``shipped`` (1e-12, 1e-11), ``tol-std-1e-15``
(1e-15, 1e-11), ``both-lower`` (1e-15, 1e-13), ``tolfun-1e-13`` (1e-12, 1e-13). Runs are cached
per file under ``--out``. Where ``peers.py`` has runs of sep-CMA-ES at n = 100 and the same
budget in ``results/adaptive/runs``, the report sets each median against sep-CMA-ES's (as
``adaptive_targets.py`` does: errors below 1e-12 count as 0) and counts, per budget and
setting, the functions on which it is ahead, tied and behind.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from adaptive_targets import medians
from coco.optimizers import LOW_RESTART_TOL_FUN, restart_tolerances
from common import FUNCTIONS, RESULTS, load_runs, run_missing, shown_path, verdict_of, write_report, zeroed_median

import edamcc.restarts as restarts
from edamcc import DEFAULT_VARIANT, VARIANTS, EDAMCCStrategy
from edamcc.benchmark_functions import get_function

SHIPPED = (restarts.TOL_STD, restarts.RESTART_TOL_FUN)  # 1e-12 and 1e-11
SETTINGS = {"shipped": SHIPPED, "tol-std-1e-15": (1e-15, SHIPPED[1]), "both-lower": (1e-15, LOW_RESTART_TOL_FUN),
            "tolfun-1e-13": (SHIPPED[0], LOW_RESTART_TOL_FUN)}  # fmt: skip
DIM = 100  # the paper's 100-D functions
STALL = 1e-6  # relative improvement of the best value below which a run counts as stalled
PEERS = RESULTS / "adaptive" / "runs"  # peers.py's runs, whose sep-CMA-ES medians the report sets each median against


def run_one(job: tuple) -> dict:
    variant, setting, fname, dim, budget, seed = job
    f = get_function(fname, dim)
    t = time.perf_counter()
    es = EDAMCCStrategy(bounds=f.bounds, seed=seed, budget=budget, variant=variant, record_pairs=False)
    events, last_gain = [], 0  # restarts with the best value then; evaluations of the last real gain
    best = np.inf
    with restart_tolerances(*SETTINGS[setting]):
        while es.stop_reason is None:
            x = es.ask()
            es.tell(x, f(x))
            if not events and (best == np.inf or es.best_f < best - STALL * abs(best)):
                last_gain = es.evaluations
            best = es.best_f
            if len(es.restarts) > len(events):
                r = es.restarts[-1]
                events.append({"evaluations": r["evaluations"], "reason": r["reason"], "best_error": float(f.error(best))})
    return {"variant": variant, "setting": setting, "function": fname, "dim": dim, "budget": budget, "seed": seed,
            "error": float(f.error(es.best_f)), "restarts": events, "last_gain_before_first_restart": last_gain,
            "wall_seconds": time.perf_counter() - t}  # fmt: skip


def variant_folder(variant: str) -> Path:
    """Where a variant's runs and report go unless ``--out`` says otherwise."""
    return RESULTS / "restart_tolerance" / variant


def sep_cma_medians(peers: Path) -> dict[int, dict[str, float]]:
    """``{budget: {function: median error}}`` of ``peers.py``'s sep-CMA-ES runs at n = 100 in
    ``peers``, as ``adaptive_targets.py`` takes them (0 below 1e-12; empty without the folder)."""
    runs = [r for r in load_runs(peers) if r["algorithm"] == "sep-cma"] if Path(peers).is_dir() else []
    return {budget: {f: algs["sep-cma"] for f, algs in cell.items()} for (dim, budget), cell in medians(runs).items() if dim == DIM}


def report(out: Path, peers: Path = PEERS) -> str:
    runs = load_runs(out / "runs")
    variants = sorted({r["variant"] for r in runs})
    if len(variants) > 1:
        raise ValueError(f"{out}: expected the runs of one variant; got {variants}")
    cells = defaultdict(list)
    for r in runs:
        cells[(r["function"], r["budget"], r["setting"])].append(r)
    variant = variants[0] if variants else None
    rerun = "python benchmarks/restart_tolerance.py" + ("" if variant in (None, DEFAULT_VARIANT) else f" --variant {variant}")
    if variant is None or Path(out).resolve() != variant_folder(variant).resolve():
        rerun += f" --out {shown_path(out)}"
    order = lambda fname: (FUNCTIONS.index(fname) if fname in FUNCTIONS else len(FUNCTIONS), fname)  # noqa: E731
    functions = sorted({key[0] for key in cells}, key=order)
    sep_cma = sep_cma_medians(peers)
    lines = [f"# Restart tolerances of {', '.join(variants) or 'no variant'} on {', '.join(functions) or 'no function'} (n = {DIM})", "",
             "Median error over the seeds (0: below 1e-12); restarts per run (median); for the runs whose first "
             "restart came at an error above 1e-6: how many, and the median evaluations at which their best value "
             f"stopped improving by more than {STALL:g} of itself and at which they restarted; the median "
             "evaluations of every run's last restart (–: no run restarted), after which it ran to the end of its "
             f"budget; sep-CMA-ES's median over `peers.py`'s runs in `{shown_path(peers)}` (–: none there) and the "
             f"verdict against it. Regenerate: `{rerun}`.", "",
             "| function | budget | setting | seeds | median error | errors | restarts | early stalls | stalled at | restarted at | last restart at | sep-CMA-ES | vs sep-CMA-ES |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: {"ahead": 0, "tied": 0, "behind": 0})
    for (fname, budget, setting), rs in sorted(cells.items(), key=lambda kv: (order(kv[0][0]), kv[0][1], list(SETTINGS).index(kv[0][2]))):
        errors = [r["error"] for r in rs]
        med = zeroed_median(errors)
        early = [r for r in rs if r["restarts"] and r["restarts"][0]["best_error"] > 1e-6]
        early += [r for r in rs if not r["restarts"] and r["error"] > 1e-6]  # stalled and never restarted
        stalled = f"{np.median([r['last_gain_before_first_restart'] for r in early]):.0f}" if early else "–"
        restarted = [r["restarts"][0]["evaluations"] for r in early if r["restarts"]]
        at = f"{np.median(restarted):.0f}" if restarted else ("never" if early else "–")
        last = [r["restarts"][-1]["evaluations"] for r in rs if r["restarts"]]
        last_at = f"{np.median(last):.0f}" if last else "–"
        peer, verdict = sep_cma.get(budget, {}).get(fname), "–"
        if peer is not None:
            verdict = verdict_of(med, peer)
            counts[(budget, setting)][verdict] += 1
        lines.append(f"| {fname} | {budget // DIM} n | {setting} | {len(rs)} | {med:.2e} | "
                     f"{' '.join(f'{e:.1e}' for e in sorted(errors))} | {np.median([len(r['restarts']) for r in rs]):.0f} | "
                     f"{len(early)} | {stalled} | {at} | {last_at} | {'–' if peer is None else f'{peer:.2e}'} | {verdict} |")  # fmt: skip
    if counts:
        lines.append("")
    for (budget, setting), c in sorted(counts.items(), key=lambda kv: (kv[0][0], list(SETTINGS).index(kv[0][1]))):
        lines.append(f"{budget // DIM} n, {setting}: median ahead of sep-CMA-ES on {c['ahead']} of {sum(c.values())} functions, "
                     f"tied on {c['tied']}, behind on {c['behind']}.")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    step_size = [name for name, v in VARIANTS.items() if v.uses_step_size]
    parser.add_argument("--variant", default=DEFAULT_VARIANT, choices=step_size, help="a step-size variant (default: the package default)")
    parser.add_argument("--functions", nargs="+", default=["F3", "F4"])
    parser.add_argument("--budget-factors", nargs="+", type=int, default=[1000, 10000])
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", help="folder of the runs and the report (default: results/restart_tolerance/<variant>)")
    parser.add_argument("--report", action="store_true", help="only rewrite report.md from the run files")
    args = parser.parse_args()
    out = Path(args.out) if args.out else variant_folder(args.variant)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    if not args.report:
        others = sorted({r["variant"] for r in load_runs(out / "runs")} - {args.variant})
        if others:  # its cached runs would stand in for this variant's
            parser.error(f"--out: {out} holds runs of {', '.join(others)}; expected a folder for --variant {args.variant}")
        jobs = [(args.variant, s, fname, DIM, k * DIM, seed) for fname in args.functions for k in args.budget_factors
                for s in args.settings for seed in range(args.runs)]  # fmt: skip
        path = lambda j: out / "runs" / f"{j[1]}__{j[2]}__{j[3]}__b{j[4]}__s{j[5]}.json"  # noqa: E731
        run_missing(jobs, run_one, path, args.workers,
                    lambda j, r: f"{j[1]} {j[2]} {j[4]}: error {r['error']:.3e}, {len(r['restarts'])} restarts ({r['wall_seconds']:.0f} s)")  # fmt: skip
    write_report(out / "report.md", report(out))


if __name__ == "__main__":
    main()
