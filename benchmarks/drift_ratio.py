"""Can a stagnation test tell the default's stall on Schwefel 2.21 from convergence? Measured.

    python benchmarks/drift_ratio.py                      # F1 F3 F7 F12 x populations 17 34 68 136 x seeds 0-2
    python benchmarks/drift_ratio.py --workers 2
    python benchmarks/drift_ratio.py --report             # only rewrite the report from the run files

On max_i |x_i| (F3) the default's first run stalls (``restart_tolerance.py``: no gain of 1e-6
of its best value after a median 28,000 evaluations) and, with no restart test firing, spends
the rest of a 1000 n budget there, ending at 23 to 36. A natural test for such a stall is how
far the mean travels: over a window of W generations under random selection the mean of a
weighted recombination takes a random walk of about sigma sqrt(n W / mu_eff). So this program follows the default's first run
(n = 100, until its first restart or 1000 n evaluations) and, at the end of each window of
W = 10 + ceil(30 n / M) generations (the window of the restart tests, :mod:`edamcc.restarts`),
records the drift ratio

    R = |m_t - m_{t - W}| / (sigma_W sqrt(n W / mu_eff)),

sigma_W the geometric mean of the step size over the window: about 1 when selection is random,
larger when the mean moves somewhere. It does so for the default's first population (17 at
n = 100) and the three that IPOP's restarts give next (34, 68, 136), on the sphere F1, on F3,
on Rosenbrock F7 (slow progress along a valley) and on the rotated Rastrigin F12. A stall test
on R works only if R in the stall stays below R in the runs that still converge, at every
population. Runs are cached per file under ``--out``.

The same runs also follow the test of population size adaptation (PSA-CMA-ES, Nishida and
Akimoto 2018; :mod:`edamcc.population_size`, the experiments ``edamcc-sep-cc-psa`` and
``edamcc-sep-cc-psa-path`` of ``peers.py`` and the COCO runner): |p|^2 / gamma, its path of
the distribution's change per generation against the path's expected length under random
selection (about 1 there), with PSA-CMA-ES's rate beta = 0.4 (rule ``"psa"``) and with the step-size path's rate
c_sigma (rule ``"path"``). Both grow the population while it is below alpha = 1.4 and shrink
it above; each window reports their medians over the window's generations.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from common import FUNCTIONS, RESULTS, add_campaign_options, load_runs, run_missing, runs_folder, shown_path, write_report

from edamcc import EDAMCCStrategy
from edamcc.benchmark_functions import get_function
from edamcc.models import FactorizedGaussian
from edamcc.population_size import PopulationSize
from edamcc.step_size import effective_mu
from edamcc.stopping import no_progress_window
from edamcc.variants import POPULATION_RULES

DIM = 100
OUT = RESULTS / "drift_ratio"


class DriftMeter:
    """The drift ratio R of each window of ``window`` generations, from the mean and step size
    of every generation (O(n) memory: only the mean at the window's start is kept)."""

    def __init__(self, window: int) -> None:
        self.window = window
        self._start: np.ndarray | None = None
        self._log_sigmas: list[float] = []

    def add(self, mean: np.ndarray, sigma: float, mu_eff: float) -> float | None:
        """Take one generation's mean and step size; R at the end of a window, else None."""
        if self._start is None:
            self._start = np.array(mean, dtype=float)
            return None
        self._log_sigmas.append(math.log(sigma))
        if len(self._log_sigmas) < self.window:
            return None
        sigma_w = math.exp(sum(self._log_sigmas) / self.window)  # the geometric mean over the window
        walk = sigma_w * math.sqrt(mean.size * self.window / mu_eff)
        ratio = float(np.linalg.norm(mean - self._start)) / walk
        self._start, self._log_sigmas = np.array(mean, dtype=float), []
        return ratio


def sampling_gaussian(model) -> FactorizedGaussian | None:
    """The Gaussian a generation samples (inside the mean-shift wrapper), as PSA reads it; None for the uniform box."""
    gaussian = getattr(model, "model", model)
    return gaussian if isinstance(gaussian, FactorizedGaussian) else None


def first_run(objective, bounds, population: int, seed: int, budget: int) -> dict:
    """The default's first run (until its first restart or ``budget``): R of each window and
    the medians of |p|^2 / gamma of each rule of population size adaptation over it, with the
    evaluations and best value at its end."""
    es = EDAMCCStrategy(bounds=bounds, population_size=population, seed=seed, budget=budget, record_pairs=False)
    meter = DriftMeter(no_progress_window(len(bounds), population))
    rules = {rule: PopulationSize.start(rule, len(bounds), population, es.n_selected) for rule in POPULATION_RULES}
    tests: dict[str, list[float]] = {rule: [] for rule in rules}  # the population stays: the rules only read the run
    windows = []
    while es.stop_reason is None and not es.restarts:
        before = sampling_gaussian(es.model)
        x = es.ask()
        es.tell(x, objective(x))
        after = sampling_gaussian(es.model)
        if before is not None and after is not None and not es.restarts:
            for rule, state in rules.items():
                rules[rule] = state = state.after_generation(before, after, es.n_selected)
                tests[rule].append(float(state.path @ state.path) / state.gamma)  # type: ignore[operator]
        if es.step_size is not None and not es.restarts:
            ratio = meter.add(es.model.mean, es.step_size, effective_mu(es.n_selected))  # the next generation's mean
            if ratio is not None:
                windows.append({"evaluations": es.evaluations, "best": es.best_f, "ratio": ratio}
                               | {rule: float(np.median(t)) if t else math.nan for rule, t in tests.items()})
                tests = {rule: [] for rule in rules}
    end = "budget" if not es.restarts else es.restarts[0]["reason"]
    return {"windows": windows, "end": end, "evaluations": es.evaluations, "best": es.best_f}


def run_one(job: tuple) -> dict:
    fname, population, seed, budget = job
    f = get_function(fname, DIM)
    t = time.perf_counter()
    r = first_run(f, f.bounds, population, seed, budget)
    for w in r["windows"]:
        w["error"] = float(f.error(w.pop("best")))
    return {"function": fname, "dim": DIM, "population": population, "seed": seed, "budget": budget, "windows": r["windows"],
            "end": r["end"], "evaluations": r["evaluations"], "error": float(f.error(r["best"])), "wall_seconds": time.perf_counter() - t}  # fmt: skip


def _spread(values: list[float]) -> str:
    """``median [p10, p90]``, or a dash without values."""
    if not values:
        return "–"
    p10, p50, p90 = np.percentile(values, [10, 50, 90])
    return f"{p50:.2f} [{p10:.2f}, {p90:.2f}]"


def report(out: Path) -> str:
    cells = defaultdict(list)
    for r in load_runs(out / "runs"):
        cells[(r["function"], r["population"])].append(r)
    order = lambda fname: (FUNCTIONS.index(fname) if fname in FUNCTIONS else len(FUNCTIONS), fname)  # noqa: E731
    rerun = "python benchmarks/drift_ratio.py" + ("" if Path(out).resolve() == OUT.resolve() else f" --out {shown_path(out)}")
    lines = [f"# The drift ratio of the default's first run (n = {DIM})", "",
             "R = |m_t - m_(t-W)| / (sigma_W sqrt(n W / mu_eff)) over each window of W generations (about 1 under "
             "random selection), pooled over the seeds' windows: its 10th percentile, median and 90th percentile; "
             "population size adaptation's test |p|^2 / gamma (about 1 under random selection; it grows the population "
             "below 1.4) with PSA-CMA-ES's rate 0.4 (psa) and the step-size path's rate c_sigma (path): the median and "
             "[10th, 90th percentiles] of the windows' medians; "
             "the errors at the end of each seed's first run (its first restart or the budget) and what ended it. "
             f"Regenerate: `{rerun}`.", "",
             "| function | population | seeds | windows | R p10 | R median | R p90 | psa | path | first run ended at (errors) | ended by |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for (fname, population), rs in sorted(cells.items(), key=lambda kv: (order(kv[0][0]), kv[0][1])):
        ratios = [w["ratio"] for r in rs for w in r["windows"]]
        p10, p50, p90 = np.percentile(ratios, [10, 50, 90]) if ratios else (math.nan,) * 3
        tests = {rule: _spread([w[rule] for r in rs for w in r["windows"] if math.isfinite(w[rule])]) for rule in POPULATION_RULES}
        errors = " ".join(f"{r['error']:.1e}" for r in sorted(rs, key=lambda r: r["seed"]))
        ends = ", ".join(sorted({"restart: " + r["end"].split(":")[0] if r["end"] != "budget" else "budget" for r in rs}))
        lines.append(f"| {fname} | {population} | {len(rs)} | {len(ratios)} | {p10:.2f} | {p50:.2f} | {p90:.2f} | {tests['psa']} | {tests['path']} | {errors} | {ends} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--functions", nargs="+", default=["F1", "F3", "F7", "F12"])
    parser.add_argument("--populations", nargs="+", type=int, default=[17, 34, 68, 136])
    parser.add_argument("--budget-factor", type=int, default=1000)
    add_campaign_options(parser, OUT, runs=3)
    args = parser.parse_args()
    out = runs_folder(args)
    if not args.report:
        jobs = [(f, p, s, args.budget_factor * DIM) for f in args.functions for p in args.populations for s in range(args.runs)]
        path = lambda j: out / "runs" / f"{j[0]}__{DIM}__p{j[1]}__b{j[3]}__s{j[2]}.json"  # noqa: E731
        run_missing(jobs, run_one, path, args.workers,
                    lambda j, r: f"{j[0]} population {j[1]} seed {j[2]}: {len(r['windows'])} windows, error {r['error']:.2e} ({r['wall_seconds']:.0f} s)")  # fmt: skip
    write_report(out / "report.md", report(out))


if __name__ == "__main__":
    main()
