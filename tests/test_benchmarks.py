"""The paper-reproduction runner's bookkeeping: jobs per table, run keys, the report's markers."""

import json
import sys
from dataclasses import asdict, replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
paper_runs = pytest.importorskip("paper_runs")


def test_solution_table_jobs_follow_the_paper_protocol():
    jobs = list(paper_runs.jobs_for("solution", 2, "paper", None, None))
    assert len(jobs) == 2 * 13 * 2 * 4  # runs x functions x {50, 100}D x 4 algorithms
    assert {j.budget for j in jobs if j.dim == 100} == {1_000_000}
    assert len({j.key for j in jobs}) == len(jobs)
    all_sizes = list(paper_runs.jobs_for("solution", 1, "all", ["F1"], [50]))
    assert sorted({j.population_size for j in all_sizes}) == [200, 500, 1000, 2000]
    assert {j.budget for j in paper_runs.jobs_for("500d", 1, "paper", ["F1"], None)} == {2_500_000}


def test_official_instances_get_their_own_keys_and_only_where_data_exist():
    job = next(paper_runs.jobs_for("solution", 1, "paper", ["F10"], [50]))
    official = replace(job, instance=paper_runs.instance_for("F10", 50, True))
    assert official.instance == "cec2005" and official.key == job.key + "__cec2005"
    assert paper_runs.instance_for("F11", 50, True) == "generated"  # not a CEC2005 function
    assert paper_runs.instance_for("F10", 500, True) == "generated"  # no data beyond 100D


def _write_runs(directory: Path, column: str, errors: list[float], instance: str = "generated") -> None:
    runs = directory / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for seed, err in enumerate(errors):
        job = paper_runs.Job("solution", column, column, "F10", 50, 200, 20, 0.3, seed, 500_000, instance)
        (runs / f"{job.key}.json").write_text(json.dumps({**asdict(job), "error": err, "wall_seconds": 1.0}))


def test_report_marks_significant_differences_and_keeps_instances_apart(tmp_path):
    _write_runs(tmp_path, "edamcc", [1.0, 1.1, 1.2, 1.3, 1.4])
    _write_runs(tmp_path, "umdac", [5.0, 5.1, 5.2, 5.3, 5.4])  # all larger: p = 0.008 -> †
    _write_runs(tmp_path, "eeda", [1.05, 1.15, 1.25, 1.35, 1.45])  # interleaved: no marker
    _write_runs(tmp_path, "edamcc", [9.0, 9.0, 9.0, 9.0, 9.0], instance="cec2005")
    lines = {line.split(" | ")[2]: line for line in paper_runs.report(tmp_path).splitlines() if line.startswith("| F10")}
    assert set(lines) == {"edamcc", "umdac", "eeda", "edamcc (cec2005)"}
    assert " | † | " in lines["umdac"]
    assert " | † | " not in lines["eeda"] and " | * | " not in lines["eeda"]
    assert "9.00e+00" in lines["edamcc (cec2005)"] and "1.20e+00" in lines["edamcc"]  # never pooled
    assert "3.10e+03" in lines["edamcc (cec2005)"]  # the paper's cell beside the official instance


def test_verdict_uses_a_factor_three_band_and_the_zero_cut():
    assert paper_runs._verdict(2.0, (1.0, 0.1)) == "yes"
    assert paper_runs._verdict(4.0, (1.0, 0.1)) == "worse (4x)"
    assert paper_runs._verdict(1e-13, (0.0, 0.0)) == "yes"
    assert paper_runs._verdict(0.5, (0.0, 0.0)).startswith("no")
    assert paper_runs._verdict(1e-8, (1.3e5, 2.7e5)) == "better (1e+13x)"
