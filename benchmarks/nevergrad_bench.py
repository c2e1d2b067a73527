"""EDAMCC against Nevergrad's own optimizers on Nevergrad's ArtificialFunctions.

    python benchmarks/nevergrad_bench.py                      # 100D rotated and 1000D block-rotated
    python benchmarks/nevergrad_bench.py --dims 100 --budget-factor 20 --seeds 0 1

Functions: sphere, ellipsoid, rosenbrock, rastrigin, rotated, at 100 dimensions and as 10
rotated blocks of 100 (1000 dimensions). Budget: ``budget_factor * n`` evaluations for every
optimizer. Overhead per ask: (wall time of the run - the same number of function evaluations)
divided by the budget, so the cost of the function is excluded.

Seeds: the function's blocks and rotations are drawn from its random state seeded with the
run's seed, before any optimizer runs; then every optimizer's parametrization (a copy, which
shares that random state) is seeded with the same seed again. So every optimizer of a run
sees the same function and starts from the same random state, whatever its place in
``--optimizers``, and a row is reproduced by any command that runs it.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

warnings.simplefilter("ignore")
import nevergrad as ng  # noqa: E402
from nevergrad.functions import ArtificialFunction  # noqa: E402

import edamcc.adapters.nevergrad_optimizer  # noqa: E402,F401  (registers EDAMCC)
from common import RESULTS  # noqa: E402

OPTIMIZERS = ["EDAMCC", "EDAMCC-CSA", "EDAMCC-Paper", "CMA", "DiagonalCMA", "NaiveIsoEMNA", "NGOpt"]


def make(name: str, dim: int, seed: int) -> ArtificialFunction:
    """One instance, built once and shared by every optimizer of a comparison. Its first call
    draws the blocks and rotations (Nevergrad draws them lazily, from the parametrization's
    random state): made here, from ``seed``, so that no optimizer's random draws follow it."""
    blocks = max(1, dim // 100)
    f = ArtificialFunction(name, block_dimension=dim // blocks, num_blocks=blocks, rotation=True)
    f.parametrization.random_state.seed(seed)
    f(np.zeros(dim))
    return f


def run(opt_name: str, f: ArtificialFunction, fname: str, dim: int, budget: int, seed: int) -> dict:
    param = f.parametrization.copy()
    param.random_state.seed(seed)
    x = np.random.default_rng(seed).normal(size=(200, dim))
    t = time.perf_counter()
    for row in x:
        f(row)
    per_eval = (time.perf_counter() - t) / len(x)
    opt = ng.optimizers.registry[opt_name](parametrization=param, budget=budget)
    t = time.perf_counter()
    try:
        rec = opt.minimize(f)
        loss = float(f.evaluation_function(rec))  # noise-free value of the recommendation
        error = None
    except Exception as exc:  # a peer failing is a result to report, not to hide
        loss, error = float("nan"), f"{type(exc).__name__}: {str(exc)[:120]}"
    wall = time.perf_counter() - t
    return {"optimizer": opt_name, "function": fname, "dim": dim, "budget": budget, "seed": seed, "loss": loss,
            "wall_seconds": wall, "overhead_ms_per_ask": max(0.0, (wall - budget * per_eval) / budget * 1e3), "error": error}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", nargs="+", type=int, default=[100, 1000])
    parser.add_argument("--functions", nargs="+", default=["sphere", "ellipsoid", "rosenbrock", "rastrigin"])
    parser.add_argument("--optimizers", nargs="+", default=OPTIMIZERS)
    parser.add_argument("--budget-factor", type=int, default=50)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--out", default=str(RESULTS / "nevergrad.json"))
    args = parser.parse_args()
    results = []
    for dim in args.dims:
        for fname in args.functions:
            for seed in args.seeds:
                f = make(fname, dim, seed)
                for opt in args.optimizers:
                    r = run(opt, f, fname, dim, args.budget_factor * dim, seed)
                    results.append(r)
                    note = f"  FAILED {r['error']}" if r["error"] else ""
                    print(f"{dim:5d}D {fname:10s} {opt:13s} loss {r['loss']:.4e}  {r['wall_seconds']:7.1f} s  "
                          f"overhead {r['overhead_ms_per_ask']:.3f} ms/ask{note}", flush=True)  # fmt: skip
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print("\n| dim | function | " + " | ".join(args.optimizers) + " |")
    print("|---|---|" + "---|" * len(args.optimizers))
    for dim in args.dims:
        for fname in args.functions:
            cells = []
            for opt in args.optimizers:
                rs = [r for r in results if r["dim"] == dim and r["function"] == fname and r["optimizer"] == opt]
                cells.append("failed" if any(r["error"] for r in rs) else f"{np.mean([r['loss'] for r in rs]):.3g}")
            print(f"| {dim} | {fname} | " + " | ".join(cells) + " |")
    print("\nmean overhead per ask (ms), function cost excluded:")
    for opt in args.optimizers:
        for dim in args.dims:
            rs = [r["overhead_ms_per_ask"] for r in results if r["optimizer"] == opt and r["dim"] == dim and not r["error"]]
            if rs:
                print(f"  {opt:13s} {dim:5d}D {np.mean(rs):.3f}")
    base = {d: np.mean([r["overhead_ms_per_ask"] for r in results if r["optimizer"] == "NaiveIsoEMNA" and r["dim"] == d] or [np.nan]) for d in args.dims}
    for dim in args.dims:
        ours = np.mean([r["overhead_ms_per_ask"] for r in results if r["optimizer"] == "EDAMCC" and r["dim"] == dim] or [np.nan])
        print(f"EDAMCC / NaiveIsoEMNA overhead per ask at {dim}D: {ours / base[dim]:.2f}")


if __name__ == "__main__":
    main()
