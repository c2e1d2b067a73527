"""Steady state against generational evaluation, simulated: what asynchrony costs per evaluation and gains per hour.

No processes and no sleeping: a discrete-event simulation of W workers whose evaluation times are drawn from the
point's bytes, 0.02-0.2 time units, as in ``async_utilization.py``. So it runs in seconds, anyone gets the same
numbers, and many seeds, workers and variants fit in one run.

* generational: a generation's rows go to the W workers in order (each takes the next row when it is free, like a
  pool's ``map``); the next generation starts when its last row ends.
* steady: W rows in flight; the first to end is told at once and its worker gets ``ask(1)``, or ``ask_extra(1)``
  once the generation is all handed out (what ``minimize(executor=...)`` does).

For each variant, function and W: the median over seeds of the best value after the budget (the same number of
evaluations), of the best value steady state has when the generational run's simulated wall time has passed (the
same time), and the share of steady state's rows that were drawn by ``ask_extra``: these come from the model before
the generation that uses them, so a generation of M - 1 rows holds about W - 1 of them.

    python benchmarks/steady_state_quality.py                       # writes results/steady_state_quality.md
    python benchmarks/steady_state_quality.py --variants edamcc-csa --workers 8 --seeds 5
"""

from __future__ import annotations

import argparse
import heapq
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from common import RESULTS, write_report

from edamcc import EDAMCCStrategy

FUNCTIONS: dict[str, Callable[[np.ndarray], float]] = {
    "sphere": lambda x: float(np.sum(x**2)),
    "ellipsoid": lambda x: float(np.sum(10.0 ** (6.0 * np.arange(x.size) / (x.size - 1)) * x**2)),
    "rosenbrock": lambda x: float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)),
}


def cost(x: np.ndarray) -> float:
    """The evaluation's duration, 0.02-0.2, drawn from the point's bytes (as ``async_utilization.Timed``)."""
    return 0.02 + 0.18 * np.random.default_rng(zlib.crc32(x.tobytes())).random()


def generational(strategy: EDAMCCStrategy, fun: Callable[[np.ndarray], float], workers: int) -> tuple[float, float]:
    """Run to the budget one generation at a time; (simulated wall time, best value)."""
    now, best = 0.0, np.inf
    while not strategy.should_stop():
        x = strategy.ask()
        if x.shape[0] == 0:
            break
        free = [now] * workers  # each worker's next free time: a map hands out rows in order
        end = now
        for row in x:
            done = heapq.heappop(free) + cost(row)
            heapq.heappush(free, done)
            end = max(end, done)
        values = np.array([fun(row) for row in x])
        best = min(best, float(values.min()))
        strategy.tell(x, values)
        now = end
    return now, best


def steady(strategy: EDAMCCStrategy, fun: Callable[[np.ndarray], float], workers: int, cut: float) -> dict[str, float]:
    """Run to the budget with ``workers`` rows in flight; the best value at the end and at time ``cut``."""
    now, best, best_at_cut, told_by_cut, extra, asked = 0.0, np.inf, np.inf, 0, 0, 0
    flight: list[tuple[float, int, np.ndarray]] = []  # (end time, ask number: the tie-break, row)

    def submit() -> None:
        nonlocal extra, asked
        x = strategy.ask(1)
        if x.shape[0] == 0:
            x = strategy.ask_extra(1)
            extra += x.shape[0]
        if x.shape[0]:
            asked += 1
            heapq.heappush(flight, (now + cost(x[0]), asked, x[0]))

    for _ in range(workers):
        submit()
    while flight:
        now, _, row = heapq.heappop(flight)
        value = fun(row)
        best = min(best, value)
        if now <= cut:
            best_at_cut, told_by_cut = best, told_by_cut + 1
        strategy.tell(row, value)
        if not strategy.should_stop():
            submit()
    return {"best": best, "best_at_cut": best_at_cut, "told_by_cut": told_by_cut, "extra_share": extra / max(asked, 1)}


def cell(variant: str, fname: str, workers: int, seeds: int, dim: int, budget: int, population: int) -> dict[str, float]:
    """Medians over ``seeds`` of one (variant, function, workers) cell."""
    fun, bounds = FUNCTIONS[fname], [(-5.0, 5.0)] * dim
    make = lambda seed, b: EDAMCCStrategy(bounds=bounds, population_size=population, variant=variant, seed=seed, budget=b)  # noqa: E731
    gen_best, st_best, st_cut, st_told, share = [], [], [], [], []
    for seed in range(seeds):
        wall, best = generational(make(seed, budget), fun, workers)
        same_budget = steady(make(seed, budget), fun, workers, cut=np.inf)
        same_time = steady(make(seed, 4 * budget), fun, workers, cut=wall)  # enough budget to run past the cut
        gen_best.append(best)
        st_best.append(same_budget["best"])
        st_cut.append(same_time["best_at_cut"])
        st_told.append(same_time["told_by_cut"])
        share.append(same_budget["extra_share"])
    med = lambda v: float(np.median(v))  # noqa: E731
    return {"generational": med(gen_best), "steady": med(st_best), "steady_same_time": med(st_cut),
            "evaluations_same_time": med(st_told), "extra_share": med(share),
            "steady_better_same_budget": sum(s < g for s, g in zip(st_best, gen_best)),
            "steady_better_same_time": sum(s < g for s, g in zip(st_cut, gen_best))}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", nargs="+", default=["edamcc-csa", "edamcc-adaptive", "edamcc"])
    parser.add_argument("--functions", nargs="+", default=list(FUNCTIONS), choices=list(FUNCTIONS))
    parser.add_argument("--workers", nargs="+", type=int, default=[2, 4, 8])
    parser.add_argument("--seeds", type=int, default=15)
    parser.add_argument("--dim", type=int, default=6)
    parser.add_argument("--budget", type=int, default=400)
    parser.add_argument("--population", type=int, default=12)
    parser.add_argument("--out", default=str(RESULTS / "steady_state_quality.md"))
    args = parser.parse_args()
    for name, values in (("--workers", args.workers), ("--seeds", [args.seeds]), ("--dim", [args.dim])):
        if min(values) < (2 if name == "--dim" else 1):
            raise ValueError(f"{name}: expected positive integers (--dim at least 2); got {values}")
    if args.budget < args.population:
        raise ValueError(f"--budget: expected at least --population ({args.population}); got {args.budget}")
    lines = [f"Command: `{' '.join(['python benchmarks/steady_state_quality.py', *sys.argv[1:]])}`", "",
             f"Simulated: dimension {args.dim}, box [-5, 5], population {args.population}, budget {args.budget}, "
             f"costs 0.02-0.2 drawn from the point, medians over seeds 0-{args.seeds - 1}. \"same time\": steady state's "
             "best value and evaluations when the generational run's simulated wall time has passed. \"extras\": share "
             "of steady state's rows drawn by `ask_extra`, from the model before their generation's. \"better\": seeds "
             "on which steady state's value is below generational's.", "",
             "| variant | function | workers | generational | steady, same budget | better | steady, same time | better "
             "| evaluations by then | extras |", "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for variant in args.variants:
        for fname in args.functions:
            for w in args.workers:
                r = cell(variant, fname, w, args.seeds, args.dim, args.budget, args.population)
                line = (f"| {variant} | {fname} | {w} | {r['generational']:.3g} | {r['steady']:.3g} | "
                        f"{r['steady_better_same_budget']}/{args.seeds} | {r['steady_same_time']:.3g} | "
                        f"{r['steady_better_same_time']}/{args.seeds} | {r['evaluations_same_time']:.0f} | "
                        f"{100 * r['extra_share']:.0f}% |")  # fmt: skip
                lines.append(line)
                print(line, flush=True)
    write_report(Path(args.out), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
