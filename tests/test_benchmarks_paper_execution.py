"""benchmarks/paper/execution.py: run files, resuming, one real (short) run."""

import json

from paper import execution
from paper.registry import Job


def _job(seed: int, dim: int = 10, budget: int = 2_000) -> Job:
    return Job("solution", "edamcc", "edamcc", "F1", dim, 200, 5, 0.3, seed, budget)


def test_pending_skips_finished_runs_and_puts_the_most_expensive_first(tmp_path):
    jobs = [_job(0), _job(1, dim=50, budget=5_000), _job(2)]
    (tmp_path / "runs").mkdir()
    execution.run_file(tmp_path, jobs[2]).write_text("{}")
    assert execution.pending(tmp_path, jobs) == [jobs[1], jobs[0]]


def test_a_campaign_writes_one_run_file_per_job_and_resumes(tmp_path, capsys):
    jobs = [_job(0), _job(1)]
    execution.run_campaign(tmp_path, jobs, workers=1)
    runs = execution.load(tmp_path)
    assert [r["seed"] for r in runs] == [0, 1]
    assert all(r["nfev"] <= 2_000 and r["curve"] and r["instance"] == "generated" for r in runs)
    assert json.loads(execution.run_file(tmp_path, jobs[0]).read_text())["error"] == runs[0]["error"]
    execution.run_campaign(tmp_path, jobs, workers=1)
    assert "2 runs, 2 already done, 0 to do" in capsys.readouterr().out
