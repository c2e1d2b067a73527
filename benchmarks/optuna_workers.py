"""Several processes on one Optuna study: does every worker build the same model per generation?

Each run starts ``--processes`` worker processes on one ``JournalStorage`` file. Every worker
logs a fingerprint (SHA-256 of the model's arrays) of each generation's model it draws a trial
from, at the moment it draws it. After the run a fresh sampler rebuilds every generation from
the finished study; a run passes when every logged fingerprint equals the rebuilt one, no
trial is lost and no proposal repeats. Each run also reports how many trials were drawn from a
model older than their own block (a slow trial holds its generation open meanwhile), the
largest such lag in generations, and the best value.

    python benchmarks/optuna_workers.py --runs 20 --trials 600 --processes 3
    python benchmarks/optuna_workers.py --runs 20 --trials 600 --processes 3 --cost 0.02 --out optuna_workers_20ms.json

write ``results/optuna_workers.json`` (trials of 0 to 4 ms) and
``results/optuna_workers_20ms.json`` (20 ms more per trial).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import RESULTS

N_PARAMS = 10
POPULATION = 20


def fingerprint(model: Any) -> str:
    """SHA-256 of every array a model samples from, a wrapper's (mean-shift line, anticipated
    shift) and its wrapped model's alike."""
    digest = hashlib.sha256()
    _feed(digest, model)
    return digest.hexdigest()


def _feed(digest: Any, model: Any) -> None:
    digest.update(type(model).__name__.encode())
    fields = vars(model)
    for name in ("mean", "weak", "weak_std", "lower", "upper", "order", "coef", "cond_std", "line", "shift", "fraction"):
        if name in fields:
            digest.update(np.ascontiguousarray(fields[name]).tobytes())
    for block in fields.get("blocks", ()):
        digest.update(np.ascontiguousarray(block.index).tobytes())
        digest.update(np.ascontiguousarray(block.factor).tobytes())
    if "model" in fields:
        _feed(digest, fields["model"])


def objective(trial: Any, cost: float = 0.0) -> float:
    x = np.array([trial.suggest_float(f"x{i}", -5, 5) for i in range(N_PARAMS)])
    time.sleep(cost + 0.001 * (hash(trial.number) % 5))  # uneven durations, so finishes interleave
    return float(np.sum((x - 1.0) ** 2) + 10 * x[0] * x[1])


def worker(journal: str, log: str, n_trials: int, cost: float) -> None:
    """One process: optimize, logging the fingerprint of the model each trial was drawn from."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    from edamcc.adapters.optuna_sampler import EDAMCCSampler

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = EDAMCCSampler(population_size=POPULATION)
    seen: dict[int, str] = {}
    original = sampler._model

    def logged(cache: Any, space: Any, big_m: int, generation: int, seed: int) -> Any:
        entry = original(cache, space, big_m, generation, seed)
        seen.setdefault(generation, fingerprint(entry[0]))
        return entry

    sampler._model = logged  # type: ignore[method-assign]
    study = optuna.load_study(study_name="shared", storage=JournalStorage(JournalFileBackend(journal)), sampler=sampler)
    study.optimize(lambda trial: objective(trial, cost), n_trials=n_trials)
    Path(log).write_text(json.dumps({str(g): h for g, h in seen.items()}))


def one_run(seed: int, n_trials: int, processes: int, cost: float = 0.0) -> dict[str, Any]:
    """A run of ``processes`` workers sharing ``n_trials`` trials; the verdict and its counts."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState

    from edamcc import block_of
    from edamcc.adapters.optuna_sampler import GENERATION_KEY, EDAMCCSampler

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        journal = str(Path(tmp) / "journal.log")
        storage = JournalStorage(JournalFileBackend(journal))
        # this sampler never samples: the first worker that does stores the study's seed (`seed` numbers the run)
        optuna.create_study(study_name="shared", storage=storage, sampler=EDAMCCSampler(seed=seed, population_size=POPULATION))
        ctx = multiprocessing.get_context("spawn")
        share = [n_trials // processes + (k < n_trials % processes) for k in range(processes)]
        logs = [str(Path(tmp) / f"worker{k}.json") for k in range(processes)]
        procs = [ctx.Process(target=worker, args=(journal, logs[k], share[k], cost)) for k in range(processes)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=600)
        exit_codes = [p.exitcode for p in procs]
        study = optuna.load_study(study_name="shared", storage=storage)
        trials = study.get_trials()
        best_value = study.best_value
        fresh = EDAMCCSampler(population_size=POPULATION)  # unseeded, as the workers: it reads the seed they stored
        closed = fresh.closed_generations(study)
        rebuilt = {g: fingerprint(fresh.closed_generation(study, g)[0]) for g in range(1, closed + 1)}
        logged = [json.loads(Path(log).read_text()) if Path(log).exists() else {} for log in logs]
    checked = mismatched = 0
    for per_worker in logged:
        for g, h in per_worker.items():
            if int(g) >= 1:
                checked += 1
                mismatched += h != rebuilt[int(g)]
    params = [tuple(t.params.values()) for t in trials]
    lags = [block_of(t.number, POPULATION) - t.system_attrs[GENERATION_KEY] for t in trials if GENERATION_KEY in t.system_attrs]
    return {
        "seed": seed,
        "exit_codes": exit_codes,
        "trials": len(trials),
        "complete": sum(t.state == TrialState.COMPLETE for t in trials),
        "unique_proposals": len(set(params)),
        "generations_closed": closed,
        "fingerprints_checked": checked,
        "fingerprints_different": mismatched,
        "lagged_trials": sum(lag > 0 for lag in lags),
        "max_lag": max(lags, default=0),
        "best_value": best_value,
        "identical": mismatched == 0 and all(c == 0 for c in exit_codes) and len(trials) == n_trials,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--trials", type=int, default=600)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--cost", type=float, default=0.0, help="seconds added to every trial")
    parser.add_argument("--out", default="optuna_workers.json", help="file name under results/")
    args = parser.parse_args()
    if args.cost < 0:
        parser.error(f"--cost: expected seconds >= 0; got {args.cost}")
    runs = []
    start = time.perf_counter()
    for seed in range(args.runs):
        r = one_run(seed, args.trials, args.processes, args.cost)
        runs.append(r)
        print(f"run {seed:2d}: {r['trials']} trials, {r['unique_proposals']} distinct, {r['generations_closed']} generations, "
              f"{r['fingerprints_checked']} worker models checked, {r['fingerprints_different']} different, "
              f"{r['lagged_trials']} drawn from an older model (lag <= {r['max_lag']}), best {r['best_value']:.3g}", flush=True)  # fmt: skip
    passed = sum(r["identical"] for r in runs)
    command = f"python benchmarks/optuna_workers.py --runs {args.runs} --trials {args.trials} --processes {args.processes}"
    if args.cost or args.out != "optuna_workers.json":
        command += f" --cost {args.cost:g} --out {args.out}"
    best = sorted(r["best_value"] for r in runs)
    summary = {"command": command, "cost": args.cost, "median_best": float(np.median(best)),
               "median_lagged_trials": float(np.median([r["lagged_trials"] for r in runs])), "runs": runs, "passed": passed, "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
    (RESULTS / args.out).write_text(json.dumps(summary, indent=1) + "\n")
    print(f"identical models across workers in {passed} of {args.runs} runs ({summary['seconds']} s); "
          f"median best {summary['median_best']:.3g}, median trials drawn from an older model {summary['median_lagged_trials']:g}")


if __name__ == "__main__":
    main()
