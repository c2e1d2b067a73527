"""Fake run files for the tests of the benchmark reports (the paper runner's, and the issue-bound reports of
``component_ablation.py`` and ``line_free_weight.py``)."""

import json
from dataclasses import asdict
from pathlib import Path

from paper.registry import Job


def write_runs(directory: Path, column: str, errors: list[float], instance: str = "generated", population_size: int = 200) -> None:
    runs = directory / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for seed, err in enumerate(errors):
        job = Job("solution", column, column, "F10", 50, population_size, 20, 0.3, seed, 500_000, instance)
        (runs / f"{job.key}.json").write_text(json.dumps({**asdict(job), "error": err, "wall_seconds": 1.0}))


def write_json(folder: Path, name: str, run: dict) -> None:
    """One run file ``name`` in ``folder`` (made if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(run))


def write_issue_peers(peers: Path) -> None:
    """``peers.py`` runs of the paper's variant and sep-CMA-ES at n = 100 in ``peers``: F3 and F4 at
    1000 n, the sphere F1 at 100 n; the issue's bounds are then 0.15 (F3), 0.3 (F4) and 3e-3 (F1)."""
    for alg, errors in (("edamcc", {"F3": 0.05, "F4": 0.1, "F1": 1e3}), ("sep-cma", {"F3": 13.0, "F4": 5.0, "F1": 3e-4})):
        for fname, error in errors.items():
            budget = 10_000 if fname == "F1" else 100_000
            write_json(peers, f"{alg}__{fname}__b{budget}.json", {"algorithm": alg, "function": fname, "dim": 100, "budget": budget, "seed": 0, "error": error})
