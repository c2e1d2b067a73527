"""Running the jobs: one JSON run file per job in ``<out>/runs/``, written as soon as the run
ends; a job whose file exists is skipped, so an interrupted campaign resumes where it stopped.
Runs are independent and spread over worker processes, the most expensive first."""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from common import load_runs, run_jobs
from edamcc import get_variant, minimize
from edamcc.benchmark_functions import cec2005_instance, get_function

from .registry import Job

_CEC2005_DIR: str | None = None  # set in each worker by --cec2005-data (never written into results)


def _set_cec2005_dir(directory: str | None) -> None:
    global _CEC2005_DIR
    _CEC2005_DIR = directory


def run_job(job: Job) -> dict:
    """One run: final error, evaluations, CPU and wall time, a 120-point curve, mean #strong."""
    data = {} if job.instance == "generated" else cec2005_instance(job.function, job.dim, _CEC2005_DIR)  # type: ignore[arg-type]
    f = get_function(job.function, job.dim, seed=0, **data)  # one fixed instance, as CEC2005's data files
    curve: list[tuple[int, float]] = []

    def callback(r) -> bool:
        curve.append((r.nfev, r.fun))
        return False

    start = time.process_time()
    wall = time.perf_counter()
    variant = get_variant(job.variant)  # a job's c and theta are its table's; a baseline without WI or SM uses neither
    options = {name: value for name, value in (("c", job.c), ("theta", job.theta)) if name not in variant.unused_settings}
    res = minimize(f, f.bounds, budget=job.budget, seed=job.seed, vectorized=True, callback=callback,
                   variant=variant, population_size=job.population_size, record_pairs=False, **options)  # fmt: skip
    cpu, wall = time.process_time() - start, time.perf_counter() - wall
    idx = np.unique(np.geomspace(1, len(curve), 120).astype(int) - 1)
    rec = res.structure
    return {
        **asdict(job),
        "error": float(f.error(res.fun)),
        "nfev": int(res.nfev),
        "generations": int(res.nit),
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "curve": [(curve[i][0], float(f.error(curve[i][1]))) for i in idx],
        "mean_n_strong": None if rec is None or rec.n_strong.size == 0 else float(rec.n_strong.mean()),
    }


def run_file(out: Path, job: Job) -> Path:
    return Path(out) / "runs" / f"{job.key}.json"


def pending(out: Path, jobs: list[Job]) -> list[Job]:
    """The jobs without a run file, the most expensive first so that the pool drains evenly."""
    todo = [j for j in jobs if not run_file(out, j).exists()]
    todo.sort(key=lambda j: -j.budget * (1 + j.dim / 100))
    return todo


def run_campaign(out: Path, jobs: list[Job], workers: int, cec2005_dir: str | None = None) -> None:
    (Path(out) / "runs").mkdir(parents=True, exist_ok=True)
    todo = pending(out, jobs)
    print(f"{len(jobs)} runs, {len(jobs) - len(todo)} already done, {len(todo)} to do, {workers} workers", flush=True)

    def progress(j: Job, r: dict) -> str:
        return (f"{j.table} {j.column} {j.function} {j.dim}D M={j.population_size} seed {j.seed}: "
                f"error {r['error']:.3e} ({r['wall_seconds']:.1f} s)")  # fmt: skip

    run_jobs(todo, run_job, lambda j: run_file(out, j), workers, progress, _set_cec2005_dir, (cec2005_dir,))


def load(out: Path) -> list[dict]:
    """Every run file of the campaign folder ``out``."""
    return load_runs(Path(out) / "runs")
