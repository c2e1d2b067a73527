"""The optimizers users would otherwise pick, on F1-F13, same budget and seeds, one table.

    python benchmarks/peers.py --dims 100 500 --runs 1                     # the paper's budgets
    python benchmarks/peers.py --dims 100 --budget-factor 1000 --runs 1    # a 10x cheaper check

Algorithms: our EDA-MCC and UMDAc/EEDA/EMNA_global/MIMIC variants (the paper's settings), the
self-adaptive EDA-MCC (``edamcc-adaptive``) and whatever ``minimize`` does by default
(``edamcc-default``), the self-adaptive variants with learned groups (``edamcc-adaptive-learned``,
``edamcc-csa-learned``: ``partition="learned"``), the default with its first population scaled
with the budget (``edamcc-budget-pop``, an experiment: :func:`coco.optimizers.budget_scaled_population`),
pycma's sep-CMA-ES (``CMA_diagonal``, lambda = 4 + floor(3 ln n), sigma = a third of the range,
start at the centre, as in the paper), full CMA-ES (100D only: its O(n^2) update per
sample is not affordable at 500D in this time) and VD-CMA (``vd-cma``: pycma's
``GaussVDSampler``, a diagonal times one learned direction, C = D (I + v v^T) D, linear in n;
Akimoto, Auger and Hansen, "Comparison-based natural gradient optimization in high dimension",
GECCO 2014; same start, step size and tolerances), Nevergrad's EMNA and NGOpt, and pypop7's
RPEDA when it is installed. Every run stops at the budget: 10000 n evaluations (2.5e6 at
500D) unless ``--budget-factor`` says otherwise; pycma's runs stop by its own ``maxfevals``,
after a whole generation, so their last generation may run up to lambda - 1 evaluations past
it, counted (for sep-cma, cma and vd-cma at most 0.13% of the budget here; for sep-cma-ipop,
whose lambda doubles at each restart, up to about 0.3%). pycma runs with its tolerances off, and when
it still stops early (``noeffectcoord``, say) it starts again from the centre with the budget
left and a seed of its own (:func:`cma_seed`); a run file counts those ``restarts``.
``sep-cma-ipop`` is sep-CMA-ES with pycma's own tolerances and IPOP restarts: each restart
doubles lambda and starts from a uniform point of the box (the first from the centre). Results
are cached per run under ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

from coco.optimizers import BUDGET_POP_VARIANT, POPULATION_EXPERIMENTS, budget_scaled_population, direction_experiments, population_variant
from common import FUNCTIONS, RESULTS, ZERO, load_runs, paper_budget, run_missing, write_report
from edamcc import VARIANTS, minimize
from edamcc.benchmark_functions import get_function

ALGORITHMS = ["edamcc", "edamcc-adaptive", "edamcc-csa", "edamcc-tpa", "edamcc-tpa-all", "edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-lf0", "edamcc-vd-lf0-na", "edamcc-vd-lf0-na-wi", "edamcc-vd-wi-am", "edamcc-sep-cc-psa", "edamcc-sep-cc-psa-path", "edamcc-adaptive-learned", "edamcc-csa-learned", "edamcc-default",
              "edamcc-budget-pop", "edamcc-exact-theta",
              "umdac", "eeda", "emna-global", "mimic", "sep-cma", "sep-cma-ipop", "cma", "vd-cma", "ng-emna", "ng-ngopt", "rpeda"]
# The self-adaptive variants with SM's groups learned from |corr| (partition="learned") instead of random.
LEARNED = {"edamcc-adaptive-learned": "edamcc-adaptive", "edamcc-csa-learned": "edamcc-csa"}
# edamcc-tpa's two-point step size at every n, not only from n = 300 on (what the switch at 300 is measured against)
TPA_EVERYWHERE = replace(VARIANTS["edamcc-tpa"], name="edamcc-tpa-all", two_point_from=1)
# the default with population size adaptation within a run (experiments, not registered variants): PSA-CMA-ES's rule
# (its rate 0.4 and step-size correction), and the test over the step-size path's horizon (rate c_sigma, no correction)
POPULATION_ADAPTIVE = {name: population_variant(name) for name in POPULATION_EXPERIMENTS}
# edamcc-vd with the default's step-size path: the default plus one learned direction, with and
# without the active term of the diagonal's update, and without it with WI blind to the direction (experiments), by name
DIRECTION_ONLY = direction_experiments()
# run through minimize with their own defaults: the package's self-adaptive variants and the entries built on them
SELF_ADAPTIVE = {name for name, v in VARIANTS.items() if v.adaptive} | {TPA_EVERYWHERE.name, *DIRECTION_ONLY, *POPULATION_ADAPTIVE, "edamcc-default", "edamcc-budget-pop", "edamcc-exact-theta", *LEARNED}
PYCMA = ("sep-cma", "cma", "vd-cma", "sep-cma-ipop")  # pycma's, restarted with the budget left (IPOP: doubled populations)
EXPENSIVE_AT_500 = {"eeda", "emna-global", "cma"}  # O(n^2) per sample or O(n^3) per generation


def _budget(dim: int, factor: int | None) -> int:
    return factor * dim if factor is not None else paper_budget(dim)


def minimize_options(algorithm: str, dim: int | None = None, budget: int | None = None) -> dict:
    """``minimize``'s algorithm options for a self-adaptive entry: none for ``edamcc-default``,
    ``theta="exact"`` for ``edamcc-exact-theta``, the
    first population of :func:`coco.optimizers.budget_scaled_population` for ``edamcc-budget-pop``
    (``edamcc-csa``, the default when it was measured, otherwise; it needs ``dim`` and ``budget``),
    the variant and ``partition="learned"`` for the ``-learned`` entries, else the variant."""
    if algorithm == "edamcc-default":
        return {}
    if algorithm == "edamcc-exact-theta":  # the default with WI's threshold from the exact null law
        return {"theta": "exact"}
    if algorithm == "edamcc-budget-pop":
        if dim is None or budget is None:
            raise ValueError("edamcc-budget-pop: its first population needs dim and budget")
        return {"variant": BUDGET_POP_VARIANT, "population_size": budget_scaled_population(dim, budget)}
    if algorithm in LEARNED:
        return {"variant": LEARNED[algorithm], "partition": "learned"}
    if algorithm == TPA_EVERYWHERE.name:
        return {"variant": TPA_EVERYWHERE}
    if algorithm in POPULATION_ADAPTIVE:
        return {"variant": POPULATION_ADAPTIVE[algorithm]}
    if algorithm in DIRECTION_ONLY:
        return {"variant": DIRECTION_ONLY[algorithm]}
    return {"variant": algorithm}


def cma_seed(seed: int, restart: int) -> int:
    """pycma's seed for run ``restart`` of a run with our ``seed``: ``seed + 1`` for the first (as
    it has always been), then one drawn from ``SeedSequence([seed, restart])``, so that no two of
    our seeds share a restart's stream (with ``seed + 1 + restart``, seed 0's second run was
    seed 1's first)."""
    if restart == 0:
        return seed + 1
    return 1 + int(np.random.SeedSequence([seed, restart]).generate_state(1)[0] % (2**31 - 2))


def run_one(algorithm: str, fname: str, dim: int, budget: int, seed: int) -> dict:
    warnings.simplefilter("ignore")
    f = get_function(fname, dim)
    lo, hi = f.lower, f.upper
    t = time.perf_counter()
    final_population = None
    if algorithm in SELF_ADAPTIVE:
        res = minimize(f, f.bounds, budget=budget, seed=seed, vectorized=True, record_pairs=False, **minimize_options(algorithm, dim, budget))
        best = res.fun
        if algorithm in POPULATION_ADAPTIVE:  # its population changes within a run: where it ended
            final_population = res.strategy.population_size
    elif algorithm in ("edamcc", "umdac", "eeda", "emna-global", "mimic"):
        m = 200 if algorithm == "edamcc" else 2000 if dim >= 500 or algorithm in ("umdac", "mimic") else 1000
        c = None if "c" in VARIANTS[algorithm].unused_settings else 100 if dim >= 500 else 20  # the baselines have no groups
        best = minimize(f, f.bounds, budget=budget, seed=seed, vectorized=True, variant=algorithm, population_size=m, c=c,
                        record_pairs=False).fun  # fmt: skip
    elif algorithm in PYCMA:
        import cma
        from cma.restricted_gaussian_sampler import GaussVDSampler

        ipop = algorithm == "sep-cma-ipop"  # pycma's own tolerances, then IPOP restarts from a random point
        opts = {"bounds": [lo, hi], "verbose": -9, "CMA_diagonal": algorithm in ("sep-cma", "sep-cma-ipop")}
        if not ipop:
            opts |= {"tolfun": 0, "tolfunhist": 0, "tolx": 0, "tolstagnation": budget, "tolflatfitness": budget}
        if algorithm == "vd-cma":
            opts = GaussVDSampler.extend_cma_options(opts)
        best, used, restart = np.inf, 0, 0
        while used < budget:  # pycma may stop early (e.g. noeffectcoord): restart with the budget left, its own seed
            x0 = np.full(dim, (lo + hi) / 2)  # the first run from the centre, as sep-cma
            if ipop:
                opts["popsize"] = (4 + int(3 * np.log(dim))) * 2**restart
                if restart:
                    x0 = np.random.default_rng(cma_seed(seed, restart)).uniform(lo, hi, dim)
            es = cma.CMAEvolutionStrategy(x0, (hi - lo) / 3, opts | {"maxfevals": budget - used, "seed": cma_seed(seed, restart)})
            while not es.stop():
                x = np.asarray(es.ask())
                v = f(x)
                es.tell(list(x), v.tolist())
                best = min(best, float(v.min()))
            used += es.countevals
            restart += 1
    elif algorithm in ("ng-emna", "ng-ngopt"):
        import nevergrad as ng

        param = ng.p.Array(shape=(dim,), lower=lo, upper=hi)
        param.random_state.seed(seed)
        name = "NaiveIsoEMNA" if algorithm == "ng-emna" else "NGOpt"
        opt = ng.optimizers.registry[name](parametrization=param, budget=budget)
        best = np.inf
        for _ in range(budget):
            cand = opt.ask()
            v = float(f(cand.value))
            opt.tell(cand, v)
            best = min(best, v)
    elif algorithm == "rpeda":
        from pypop7.optimizers.eda.rpeda import RPEDA

        problem = {"fitness_function": lambda x: float(f(x)), "ndim_problem": dim,
                   "lower_boundary": np.full(dim, lo), "upper_boundary": np.full(dim, hi)}  # fmt: skip
        res = RPEDA(problem, {"max_function_evaluations": budget, "seed_rng": seed, "verbose": False}).optimize()
        best = float(res["best_so_far_y"])
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    out = {"algorithm": algorithm, "function": fname, "dim": dim, "budget": budget, "seed": seed,
           "error": float(f.error(best)), "wall_seconds": time.perf_counter() - t}  # fmt: skip
    if final_population is not None:
        out["final_population"] = final_population
    if algorithm in PYCMA:
        out["restarts"] = restart - 1  # pycma runs after the first (each stopped early, e.g. noeffectcoord)
    return out


def run_job(job: tuple) -> dict:
    """``run_one`` on a job tuple (algorithm, function, dim, budget, seed)."""
    return run_one(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", nargs="+", type=int, default=[100, 500])
    parser.add_argument("--functions", nargs="+", default=FUNCTIONS)
    parser.add_argument("--algorithms", nargs="+", default=ALGORITHMS)
    parser.add_argument("--budget-factor", type=int, default=None, help="budget = factor * n (default: the paper's)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "peers"))
    parser.add_argument("--report", action="store_true", help="only rewrite report.md from the run files")
    args = parser.parse_args()
    out = Path(args.out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    if args.report:
        write_report(out / "report.md", report(out))
        return
    jobs = []
    have_pypop7 = importlib.util.find_spec("pypop7") is not None
    if "rpeda" in args.algorithms and not have_pypop7:
        print("rpeda skipped: pypop7 is not installed (pip install 'edamcc[bench]')", flush=True)
    for dim in args.dims:
        for fname in args.functions:
            for alg in args.algorithms:
                if dim >= 500 and alg in EXPENSIVE_AT_500:
                    continue
                if alg == "rpeda" and not have_pypop7:
                    continue
                for seed in range(args.runs):
                    jobs.append((alg, fname, dim, _budget(dim, args.budget_factor), seed))
    path = lambda j: out / "runs" / f"{j[0]}__{j[1]}__{j[2]}__b{j[3]}__s{j[4]}.json"  # noqa: E731
    run_missing(jobs, run_job, path, args.workers, lambda j, r: f"{j[0]} {j[1]} {j[2]}D: error {r['error']:.3e} ({r['wall_seconds']:.0f} s)")
    write_report(out / "report.md", report(out))


def report(out: Path) -> str:
    """One table per (dimension, budget) over every run file of F1-F13 under ``out``, not only this
    call's (``partition_bench.py`` keeps its block-rotated ellipsoids in the same folder)."""
    order = {f: i for i, f in enumerate(FUNCTIONS, 1)}
    results = [r for r in load_runs(out / "runs") if r["function"] in order]
    lines = []
    for dim, budget in sorted({(r["dim"], r["budget"]) for r in results}):
        rows = [r for r in results if r["dim"] == dim and r["budget"] == budget]
        algs = [a for a in ALGORITHMS if any(r["algorithm"] == a for r in rows)]
        runs = sorted({len([r for r in rows if r["algorithm"] == a and r["function"] == f]) for a in algs for f in order} - {0})
        lines += [f"\n{dim}D, {budget} evaluations, {'/'.join(map(str, runs))} run(s): mean F(x) - F(x*) (mean wall seconds per run)\n",
                  "| function | " + " | ".join(algs) + " |", "|---|" + "---|" * len(algs)]  # fmt: skip
        for fname in sorted({r["function"] for r in rows}, key=order.__getitem__):
            cells = []
            for a in algs:
                rs = [r for r in rows if r["algorithm"] == a and r["function"] == fname]
                if not rs:
                    cells.append("–")
                    continue
                err = np.mean([r["error"] for r in rs])
                wall = float(np.mean([r["wall_seconds"] for r in rs]))
                cells.append(f"{0 if err < ZERO else err:.2e} ({wall:.1f})" if wall < 10 else f"{0 if err < ZERO else err:.2e} ({wall:.0f})")
            lines.append(f"| {fname} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
