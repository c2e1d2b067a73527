"""Fake run files for the tests of the paper runner's report."""

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
