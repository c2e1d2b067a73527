"""Worker utilization: steady-state ``executor=`` against generational ``workers=`` map, on a process pool and on Dask.

Objective of uneven cost: a sleep of 0.02-0.2 s drawn from the point's bytes, a little arithmetic, the sphere's value. Each
evaluation measures its own time inside the worker (``time.perf_counter``) and appends it to a file of its process in a
temporary folder; after the run the benchmark sums those times and checks that there is one per evaluation (``res.nfev``).

Utilization = summed in-worker time / (wall time x 8 workers). Wall time is the ``minimize`` call alone: the pool or the Dask
cluster is started and warmed (8 tasks, one per worker) before the clock starts. Population 12, dimension 6, 8 workers.
Rows: generational ``workers=`` with a ``ProcessPoolExecutor``'s map and with a map over a Dask client, steady-state
``executor=`` with the same ``ProcessPoolExecutor`` and with the Dask client (default ``max_in_flight``, so automatic
queueing is on). Also the best value each reaches on the same budget, and the best value steady state reaches in the
generational run's wall time: a further steady run with three times the budget, cut where that time has passed (each
evaluation logs the clock time it ends at and its value).

    python benchmarks/async_utilization.py [--budget 400] [--seeds 0 1 2] [--no-dask]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from edamcc import minimize

WORKERS = 8
TIMED = "steady, generational's wall time"
POPULATION = 12
BOUNDS = [(-5.0, 5.0)] * 6
HERE = os.path.dirname(os.path.abspath(__file__))


class Timed:
    """Sphere after a cost of 0.02-0.2 s drawn from the point's bytes; logs its in-worker seconds to ``log_dir/<pid>.txt``."""

    def __init__(self, log_dir: str) -> None:
        self.log_dir = log_dir

    def __call__(self, x: np.ndarray) -> float:
        start = time.perf_counter()
        cost = 0.02 + 0.18 * np.random.default_rng(zlib.crc32(x.tobytes())).random()
        time.sleep(cost)
        np.cos(np.outer(x, x)).sum()  # a little arithmetic besides the sleep
        value = float(np.sum(x**2))
        seconds = time.perf_counter() - start
        with open(os.path.join(self.log_dir, f"{os.getpid()}.txt"), "a") as fh:
            fh.write(f"{seconds!r} {time.time()!r} {value!r}\n")
        return value


def logged(log_dir: str) -> list[tuple[float, float, float]]:
    """Every evaluation the objective logged in ``log_dir`` (all processes): (in-worker seconds, clock time at its end,
    value)."""
    out: list[tuple[float, float, float]] = []
    for name in sorted(os.listdir(log_dir)):
        with open(os.path.join(log_dir, name)) as fh:
            out.extend(tuple(map(float, line.split())) for line in fh if line.strip())  # type: ignore[misc]
    return out


def warm(seconds: float) -> int:
    """A warm-up task: keeps its worker busy ``seconds`` (so all workers start) and imports the package."""
    import edamcc  # noqa: F401

    time.sleep(seconds)
    return os.getpid()


class DaskMap:
    """A map-like over a Dask client: ``map(fn, items)`` submits one task per item and gathers them in order.

    ``_max_workers`` tells ``minimize(workers=...)`` how many chunks a generation is split into.
    """

    def __init__(self, client: Any, n_workers: int) -> None:
        self.client = client
        self._max_workers = n_workers

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        return self.client.gather(self.client.map(fn, list(items), pure=False))


def run(backend: str, mode: str, seed: int, budget: int, parallel: Any, cut: float | None = None) -> dict[str, Any]:
    """One ``minimize`` call; ``parallel`` is the map-like (generational) or the executor (steady). With ``cut``
    (seconds), also the best value and the number of evaluations ended that long after the call started."""
    most_in_flight = [0]

    def note_in_flight(r: Any) -> None:
        most_in_flight[0] = max(most_in_flight[0], r.strategy.n_in_flight)

    with tempfile.TemporaryDirectory(prefix="edamcc-async-") as log_dir:
        kw: dict[str, Any] = dict(budget=budget, seed=seed, population_size=POPULATION, callback=note_in_flight)
        if mode == "generational":
            kw["workers"] = parallel
        else:
            kw["executor"] = parallel
        clock0 = time.time()
        t0 = time.perf_counter()
        res = minimize(Timed(log_dir), BOUNDS, **kw)
        wall = time.perf_counter() - t0
        evaluations = logged(log_dir)
    if len(evaluations) != res.nfev:
        raise RuntimeError(f"{backend} {mode} seed {seed}: {len(evaluations)} in-worker durations recorded for nfev={res.nfev}")
    busy = float(sum(e[0] for e in evaluations))
    row = {"backend": backend, "mode": mode, "seed": seed, "budget": budget, "nfev": int(res.nfev), "wall_s": wall,
           "busy_s": busy, "utilization": busy / (wall * WORKERS), "best": float(res.fun),
           "max_in_flight_at_generation_ends": most_in_flight[0], "message": res.message}
    if cut is not None:
        early = [e[2] for e in evaluations if e[1] <= clock0 + cut]
        row |= {"cut_s": cut, "nfev_at_cut": len(early), "best_at_cut": min(early, default=float("inf"))}
    print(f"{backend:20s} {mode:12s} seed {seed}  wall {wall:6.2f} s  busy {busy:6.2f} s  "
          f"utilization {100 * row['utilization']:5.1f}%  best {row['best']:.4g}", flush=True)
    return row


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Medians over seeds per backend and mode."""
    out = []
    for key in dict.fromkeys((r["backend"], r["mode"]) for r in rows):
        group = [r for r in rows if (r["backend"], r["mode"]) == key]
        out.append({"backend": key[0], "mode": key[1], "runs": len(group),
                    "median_utilization": statistics.median(r["utilization"] for r in group),
                    "median_wall_s": statistics.median(r["wall_s"] for r in group),
                    "median_best": statistics.median(r["best"] for r in group)})
    return out


def markdown(rows: list[dict[str, Any]], medians: list[dict[str, Any]], command: str, load: dict[str, Any],
             timed: list[dict[str, Any]]) -> str:
    lines = [
        f"Command: `{command}`",
        "",
        f"{WORKERS} workers, population {POPULATION}, dimension {len(BOUNDS)}, costs 0.02-0.2 s (sleep drawn from the point), "
        f"budget {rows[0]['budget']}. Utilization = in-worker seconds measured by the objective / (wall time x {WORKERS}); "
        "wall time is the `minimize` call with the pool or cluster already started and warmed. "
        f"CPU cores: {load['cpu_count']}; load average (1 min) {load['before']:.2f} before, {load['after']:.2f} after.",
        "",
        "Medians over seeds:",
        "",
        "| backend | mode | runs | utilization | wall s | best value |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {m['backend']} | {m['mode']} | {m['runs']} | {100 * m['median_utilization']:.1f}% | {m['median_wall_s']:.2f} "
              f"| {m['median_best']:.3g} |" for m in medians if m["mode"] != TIMED]
    gen = {(r["backend"], r["seed"]): r for r in rows if r["mode"] == "generational"}
    lines += ["", "In the generational run's wall time (steady state with three times the budget, cut there), per seed:", "",
              "| backend | seed | wall s | generational: evaluations, best value | steady: evaluations, best value |",
              "|---|---|---|---|---|"]
    lines += [f"| {r['backend']} | {r['seed']} | {r['cut_s']:.2f} | {gen[(r['backend'], r['seed'])]['nfev']}, "
              f"{gen[(r['backend'], r['seed'])]['best']:.3g} | {r['nfev_at_cut']}, {r['best_at_cut']:.3g} |" for r in timed]
    lines += [f"| {m['backend']} | median | | {statistics.median(g['nfev'] for k, g in gen.items() if k[0] == m['backend']):.0f}, "
              f"{statistics.median(g['best'] for k, g in gen.items() if k[0] == m['backend']):.3g} | "
              f"{m['median_nfev_at_cut']:.0f}, {m['median_best_at_cut']:.3g} |" for m in medians if m["mode"] == TIMED]
    lines += ["", "Every run (in flight: the most candidates out at a generation's end, a lower bound of the most at once):", "",
              "| backend | mode | seed | wall s | in-worker s | utilization | in flight | best value |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['backend']} | {r['mode']} | {r['seed']} | {r['wall_s']:.2f} | {r['busy_s']:.1f} | {100 * r['utilization']:.1f}% "
              f"| {r['max_in_flight_at_generation_ends']} | {r['best']:.3g} |" for r in rows]
    backends = list(dict.fromkeys(r["backend"] for r in rows))
    cols = [(b, m) for b in backends for m in ("generational", "steady")]
    lines += ["", "Best value on the same budget, per seed:", "",
              "| seed | " + " | ".join(f"{b} {m}" for b, m in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    by = {(r["backend"], r["mode"], r["seed"]): r["best"] for r in rows}
    for seed in dict.fromkeys(r["seed"] for r in rows):
        lines.append(f"| {seed} | " + " | ".join(f"{by[(b, m, seed)]:.3g}" if (b, m, seed) in by else "" for b, m in cols) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results"), help="folder of async_utilization.json and .md (default: the committed ones)")
    args = ap.parse_args()
    if args.budget < POPULATION:
        raise ValueError(f"--budget: expected at least the population ({POPULATION}); got {args.budget}")
    command = "python benchmarks/async_utilization.py " + " ".join(sys.argv[1:])
    load_before = os.getloadavg()[0]
    rows: list[dict[str, Any]] = []
    timed: list[dict[str, Any]] = []  # steady state with three times the budget, cut at the generational run's wall time
    with ProcessPoolExecutor(WORKERS) as ex:
        pids = set(ex.map(warm, [0.3] * WORKERS))
        print(f"process pool warmed: {len(pids)} processes", flush=True)
        for seed in args.seeds:
            rows.append(run("ProcessPoolExecutor", "generational", seed, args.budget, ex.map))
            rows.append(run("ProcessPoolExecutor", "steady", seed, args.budget, ex))
            timed.append(run("ProcessPoolExecutor", TIMED, seed, 3 * args.budget, ex, cut=rows[-2]["wall_s"]))
    if not args.no_dask:
        import distributed

        with distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            client.wait_for_workers(WORKERS)
            pids = set(client.gather(client.map(warm, [0.3] * WORKERS, pure=False)))
            print(f"Dask cluster warmed: {len(pids)} worker processes", flush=True)
            dask_map = DaskMap(client, WORKERS)
            for seed in args.seeds:
                rows.append(run("Dask LocalCluster", "generational", seed, args.budget, dask_map.map))
                rows.append(run("Dask LocalCluster", "steady", seed, args.budget, client))
                timed.append(run("Dask LocalCluster", TIMED, seed, 3 * args.budget, client, cut=rows[-2]["wall_s"]))
    load = {"cpu_count": os.cpu_count(), "before": load_before, "after": os.getloadavg()[0]}
    medians = summary(rows)
    medians += [{"backend": b, "mode": TIMED, "runs": len(g), "median_best_at_cut": statistics.median(r["best_at_cut"] for r in g),
                 "median_nfev_at_cut": statistics.median(r["nfev_at_cut"] for r in g)}
                for b in dict.fromkeys(r["backend"] for r in timed) for g in [[r for r in timed if r["backend"] == b]]]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "async_utilization.json"), "w") as fh:
        json.dump({"command": command, "workers": WORKERS, "population": POPULATION, "dimension": len(BOUNDS), "load": load,
                   "medians": medians, "runs": rows, "timed_runs": timed}, fh, indent=1)
    text = markdown(rows, medians, command, load, timed)
    with open(os.path.join(args.out, "async_utilization.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
