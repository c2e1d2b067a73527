"""Run registered optimizers on COCO problems, one process per problem, resumable.

Layout of a campaign folder (``<data>/<suite>_<factor>n/``)::

    campaign.json                     suite, budget factor, campaign seed, versions
    runs.jsonl                        one line per invocation: wall time, problems done
    exdata/<optimizer>/<problem>/     a standard COCO data folder (cocoex.Observer "bbob")
    markers/<optimizer>/<problem>.json  written after the problem finished

Each problem gets its own observer, writing below ``running/exdata/``; once the problem is
finished its folder moves to ``exdata/<optimizer>/<problem>/`` and the marker is written. An
interrupted campaign thus leaves only complete folders in ``exdata/``; leftovers are deleted
and rerun. ``cocopp`` reads all folders below ``exdata/<optimizer>/`` as one algorithm.
"""

from __future__ import annotations

import fcntl
import importlib
import json
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import optimizers
from .problem import BatchProblem

SUITES = ("bbob", "bbob-largescale")


@dataclass(frozen=True)
class Job:
    optimizer: str
    suite: str
    dim: int
    function: int
    instance: int
    budget_factor: int
    seed: int

    @property
    def key(self) -> str:
        return f"{self.suite}_f{self.function:03d}_i{self.instance:02d}_d{self.dim:04d}"

    @property
    def budget(self) -> int:
        return self.budget_factor * self.dim


PATH_OPTIONS = ("--data", "--results")  # folders of the machine that ran: see command_line


def command_line(argv: list[str]) -> str:
    """The command that ran, for ``runs.jsonl``, with the data folder written as ``DATA`` and an
    absolute results folder as ``RESULTS``: the summaries are committed, and a folder of the
    machine that ran them means nothing elsewhere (a results folder inside the repository does)."""
    words, hidden = [], None
    for word in argv:
        option, _, value = word.partition("=")
        if hidden is not None:
            words.append(_placeholder(hidden, word))
        elif option in PATH_OPTIONS and value:
            words.append(f"{option}={_placeholder(option, value)}")
        else:
            words.append(word)
        hidden = word if word in PATH_OPTIONS else None
    return "python -m benchmarks.coco " + " ".join(words)


def _placeholder(option: str, path: str) -> str:
    """``path`` as :func:`command_line` writes it after ``option``."""
    if option == "--data":
        return "DATA"
    return "RESULTS" if Path(path).is_absolute() else path


def blas_kernels() -> str:
    """The BLAS library of this process and the CPU kernels it dispatched to, e.g. "openblas 0.3.31 SkylakeX".

    Runs that use BLAS are bit-reproducible only on the same kernels: OpenBLAS picks them by CPU (or by
    ``OPENBLAS_CORETYPE``), and their different rounding sends a seeded run of full CMA-ES or EDA-MCC on
    another path after a few generations.
    """
    from threadpoolctl import threadpool_info

    libraries = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    return "; ".join(" ".join(str(lib[k]) for k in ("internal_api", "version", "architecture") if lib.get(k))
                     for lib in libraries) or "none found"


def campaign_name(suite: str, budget_factor: int) -> str:
    return f"{suite}_{budget_factor}n"


def seed_for(campaign_seed: int, function: int, instance: int) -> int:
    """One seed per (function, instance), fixed by the campaign seed, in [1, 2**31 - 1)."""
    state = np.random.SeedSequence([campaign_seed, function, instance]).generate_state(1)[0]
    return int(state) % (2**31 - 2) + 1


def marker_path(root: Path, job: Job) -> Path:
    return root / "markers" / job.optimizer / f"{job.key}.json"


def jobs_for(suite, dims, functions, instances, budget_factor, names, campaign_seed):
    """All jobs in the order they run: dimension, function, instance, then optimizer, so a
    partial campaign covers every optimizer on the same problems."""
    for dim in dims:
        for fid in functions:
            for inst in instances:
                for name in names:
                    if optimizers.applies(name, dim):
                        yield Job(name, suite, dim, fid, inst, budget_factor, seed_for(campaign_seed, fid, inst))


def problems_in_error(root: Path) -> list[str]:
    """Markers whose COCO folder is not exactly one finished run (one .info entry whose evaluation
    count equals the marker's, one .dat block, no nested folder); they are deleted, with their
    folders, so that the next run redoes them."""
    bad = []
    for path in sorted((root / "markers").glob("*/*.json")):
        marker = json.loads(path.read_text())
        folder = root / marker["data_folder"]
        infos = sorted(folder.glob("*.info"))
        dats = sorted(folder.glob("data_f*/*.dat"))
        nested = [d for d in folder.iterdir() if d.is_dir() and not d.name.startswith("data_f")] if folder.exists() else []
        ok = len(infos) == 1 and len(dats) == 1 and not nested
        if ok:
            runs = [e for line in infos[0].read_text().splitlines() if line.startswith("data_f")
                    for e in line.split(",")[1:]]
            blocks = sum(line.startswith("%") for line in dats[0].read_text().splitlines())
            ok = len(runs) == 1 and int(runs[0].split(":")[1].split("|")[0]) == marker["evaluations"] and blocks == 1
        if not ok:
            bad.append(f"{marker['optimizer']}/{marker['problem']}")
            path.unlink()
            if folder.exists():
                shutil.rmtree(folder)
    return bad


def run_job(job: Job, root: str) -> dict:
    """Run one optimizer on one COCO problem with its own observer; write the marker."""
    import cocoex

    cocoex.log_level("warning")
    root_path = Path(root).resolve()
    folder = root_path / "exdata" / job.optimizer / job.key
    staging = root_path / "running"
    for stale in (folder, staging / "exdata" / job.optimizer / job.key):
        if stale.exists():  # a run that died before its marker: start it again
            shutil.rmtree(stale)
    staging.mkdir(parents=True, exist_ok=True)
    cwd = os.getcwd()
    os.chdir(staging)  # cocoex writes below ./exdata/
    try:
        suite = cocoex.Suite(job.suite, f"instances: {job.instance}",
                             f"dimensions: {job.dim} function_indices: {job.function}")
        problem = suite.get_problem(0)
        observer = cocoex.Observer("bbob", f"result_folder: {job.optimizer}/{job.key} algorithm_name: {job.optimizer}")
        problem.observe_with(observer)
        wrapped = BatchProblem(problem, job.budget)
        entry = optimizers.REGISTRY[job.optimizer]
        for module in entry.modules:
            importlib.import_module(module)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        entry.run(wrapped, wrapped.lower, wrapped.upper, job.budget, job.seed)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        evaluations, hit = int(problem.evaluations), bool(problem.final_target_hit)
        problem.free()
        del observer, suite
    finally:
        os.chdir(cwd)
    folder.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(staging / "exdata" / job.optimizer / job.key, folder)
    record = asdict(job) | {"problem": job.key, "budget": job.budget, "evaluations": evaluations,
                            "final_target_hit": hit, "cpu_seconds": cpu, "wall_seconds": wall,
                            "cpu_seconds_per_evaluation": cpu / max(evaluations, 1),
                            "data_folder": f"exdata/{job.optimizer}/{job.key}", "blas": blas_kernels()}
    path = marker_path(root_path, job)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(path)
    return record


def run(root: Path, suite: str, dims, functions, instances, budget_factor: int, names, campaign_seed: int,
        workers: int, log=print) -> dict:
    """Run every job of the campaign whose marker is missing; return counts and wall time."""
    if suite not in SUITES:
        raise ValueError(f"suite: expected one of {SUITES}; got {suite!r}")
    unknown = [n for n in names if n not in optimizers.REGISTRY]
    if unknown:
        raise ValueError(f"unknown optimizers {unknown}; registered: {sorted(optimizers.REGISTRY)}")
    root.mkdir(parents=True, exist_ok=True)
    info_path = root / "campaign.json"
    info = json.loads(info_path.read_text()) if info_path.exists() else {}
    if info and (info["suite"], info["budget_factor"], info["campaign_seed"]) != (suite, budget_factor, campaign_seed):
        raise ValueError(f"{root} holds a campaign with other settings: {info}")
    info = {"suite": suite, "budget_factor": budget_factor, "campaign_seed": campaign_seed,
            "versions": optimizers.versions(optimizers.REGISTRY) | info.get("versions", {}) | optimizers.versions(names),
            "optimizers": {n: optimizers.REGISTRY[n].description for n in optimizers.REGISTRY}}
    info_path.write_text(json.dumps(info, indent=1))

    lock = open(root / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RuntimeError(f"another process is running the campaign in {root}") from None
    bad = problems_in_error(root)
    if bad:
        log(f"{len(bad)} finished problems had inconsistent COCO folders; they run again: {bad}")
    jobs = list(jobs_for(suite, dims, functions, instances, budget_factor, names, campaign_seed))
    todo = [j for j in jobs if not marker_path(root, j).exists()]
    log(f"{root.name}: {len(jobs)} problems, {len(jobs) - len(todo)} already done, {len(todo)} to run, {workers} workers")
    start = time.time()
    done, failed = 0, []

    def report(job, record):
        log(f"[{done + len(failed)}/{len(todo)}] {job.optimizer:15s} {job.key} evals={record['evaluations']} "
            f"hit={record['final_target_hit']} cpu/eval={record['cpu_seconds_per_evaluation'] * 1e6:.1f}us "
            f"elapsed={time.time() - start:.0f}s")

    if workers <= 1:
        for job in todo:
            record = run_job(job, str(root))
            done += 1
            report(job, record)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(run_job, job, str(root)): job for job in todo}
            for future in as_completed(futures):
                job = futures[future]
                try:
                    record = future.result()
                except Exception as exc:  # one failing problem must not stop the campaign; it is rerun next time
                    failed.append(job.key + "/" + job.optimizer)
                    log(f"FAILED {job.optimizer} {job.key}: {exc!r}")
                    continue
                done += 1
                report(job, record)
    wall = time.time() - start
    entry = {"finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "wall_seconds": round(wall, 1),
             "dims": list(dims), "functions": list(functions), "instances": list(instances), "optimizers": list(names),
             "workers": workers, "problems": len(jobs), "ran": done, "failed": failed, "command": command_line(sys.argv[1:]),
             "blas": blas_kernels()}
    with open(root / "runs.jsonl", "a") as fh:
        fh.write(json.dumps(entry) + "\n")
    log(f"{root.name}: ran {done} problems in {wall:.0f}s wall, {len(failed)} failed")
    return entry
