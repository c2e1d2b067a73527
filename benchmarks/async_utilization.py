"""Worker utilization: steady-state ``executor=`` against generational ``workers=`` map.

Objective of uneven cost (0.02-0.2 s: a sleep plus arithmetic, seeded per point), 8 workers,
population 12. Utilization = sum of evaluation times / (wall time x workers), the sum of
evaluation times estimated as nfev x 0.11 s (the mean cost), since costs are uniform per point.

    python benchmarks/async_utilization.py [--budget 400] [--seeds 0 1 2] [--no-dask]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import zlib
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from edamcc import minimize

WORKERS = 8
BOUNDS = [(-5.0, 5.0)] * 6


class Timed:
    """Sphere plus a cost of 0.02-0.2 s drawn from the point's bytes; sums the cost spent."""

    def __call__(self, x: np.ndarray) -> float:
        cost = 0.02 + 0.18 * np.random.default_rng(zlib.crc32(x.tobytes())).random()
        time.sleep(cost)
        return float(np.sum(x**2))


def run(mode: str, seed: int, budget: int, executor=None) -> dict:
    t0 = time.perf_counter()
    kw = dict(budget=budget, seed=seed, population_size=12)
    if mode == "generational":
        res = minimize(Timed(), BOUNDS, workers=WORKERS, **kw)
    else:
        res = minimize(Timed(), BOUNDS, executor=executor, max_in_flight=WORKERS, **kw)
    wall = time.perf_counter() - t0
    busy = res.nfev * 0.11  # the mean cost of an evaluation
    return {"mode": mode, "seed": seed, "budget": budget, "wall_s": wall, "nfev": res.nfev,
            "expected_busy_s": busy, "utilization": busy / (wall * WORKERS), "best": float(res.fun)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    rows = []
    for seed in args.seeds:
        rows.append(run("generational", seed, args.budget) | {"backend": "ProcessPool map"})
        with ProcessPoolExecutor(WORKERS) as ex:
            rows.append(run("steady", seed, args.budget, ex) | {"backend": "ProcessPoolExecutor"})
        print(rows[-2], rows[-1], flush=True)
    if not args.no_dask:
        import distributed

        with distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
                distributed.Client(c) as client:
            for seed in args.seeds:
                rows.append(run("steady", seed, args.budget, client) | {"backend": "Dask LocalCluster"})
                print(rows[-1], flush=True)
    out = os.path.join(os.path.dirname(__file__), "results", "async_utilization.json")
    with open(out, "w") as fh:
        json.dump(rows, fh, indent=1)
    print("| backend | mode | seed | wall s | utilization | best |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['backend']} | {r['mode']} | {r['seed']} | {r['wall_s']:.1f} | {100 * r['utilization']:.0f}% | {r['best']:.3g} |")


if __name__ == "__main__":
    main()
