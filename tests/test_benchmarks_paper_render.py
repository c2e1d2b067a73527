"""benchmarks/paper/render.py: the Markdown report from run files."""

import json
from dataclasses import asdict

import pytest

pytest.importorskip("scipy")
from benchmark_runs import write_runs  # noqa: E402
from paper import render  # noqa: E402
from paper.registry import Job  # noqa: E402


def test_report_marks_significant_differences_and_keeps_instances_apart(tmp_path):
    write_runs(tmp_path, "edamcc", [1.0, 1.1, 1.2, 1.3, 1.4])
    write_runs(tmp_path, "umdac", [5.0, 5.1, 5.2, 5.3, 5.4])  # all larger: p = 0.008 -> †
    write_runs(tmp_path, "eeda", [1.05, 1.15, 1.25, 1.35, 1.45])  # interleaved: no marker
    write_runs(tmp_path, "edamcc", [9.0, 9.0, 9.0, 9.0, 9.0], instance="cec2005")
    lines = {line.split(" | ")[2]: line for line in render.report(tmp_path).splitlines() if line.startswith("| F10")}
    assert set(lines) == {"edamcc", "umdac", "eeda", "edamcc (cec2005)"}
    assert " | † | " in lines["umdac"]
    assert " | † | " not in lines["eeda"] and " | * | " not in lines["eeda"]
    assert "9.00e+00" in lines["edamcc (cec2005)"] and "1.20e+00" in lines["edamcc"]  # never pooled
    assert "3.10e+03" in lines["edamcc (cec2005)"]  # the paper's cell beside the official instance


def test_report_keeps_the_best_population_size_of_a_cell(tmp_path):
    write_runs(tmp_path, "edamcc", [4.0, 4.0], population_size=200)
    write_runs(tmp_path, "edamcc", [2.0, 2.0], population_size=500)
    (row,) = [line for line in render.report(tmp_path).splitlines() if line.startswith("| F10")]
    assert "| 500 | 2 | 2.00e+00 ± 0.0e+00 |" in row


def test_numbers_below_the_zero_cut_print_as_zero():
    assert render.fmt(1e-13, 1e-14) == "0 ± 0" and render.fmt(1e-13) == "0"
    assert render.fmt(2.5, 0.25) == "2.50e+00 ± 2.5e-01" and render.paper_fmt(None) == "–"


def test_no_runs_no_report(tmp_path):
    assert render.report(tmp_path) == "no runs yet\n"


def test_figures_from_solution_runs(tmp_path):
    pytest.importorskip("matplotlib")
    assert render.plots(tmp_path) == []  # no runs, no figures
    runs = tmp_path / "runs"
    runs.mkdir()
    for dim in (50, 100):
        job = Job("solution", "edamcc", "edamcc", "F8", dim, 200, 20, 0.3, 0, 10_000 * dim)
        run = {**asdict(job), "error": 1.0, "cpu_seconds": dim / 10, "curve": [[200, 1e3], [10_000 * dim, 1.0]]}
        (runs / f"{job.key}.json").write_text(json.dumps(run))
    assert [p.name for p in render.plots(tmp_path)] == ["convergence_100D.png", "cpu_time.png"]
    assert all((tmp_path / name).stat().st_size > 0 for name in ("convergence_100D.png", "cpu_time.png"))
