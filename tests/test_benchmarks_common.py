"""benchmarks/common.py: the pieces the benchmark programs share."""

import argparse
import json
from pathlib import Path

import common


def test_paper_budget():
    assert common.paper_budget(50) == 500_000 and common.paper_budget(500) == 2_500_000


def test_run_files_load_in_name_order(tmp_path):
    for name in ("b", "a", "c"):
        (tmp_path / f"{name}.json").write_text(json.dumps({"name": name}))
    (tmp_path / "notes.txt").write_text("not a run")
    assert [r["name"] for r in common.load_runs(tmp_path)] == ["a", "b", "c"]


def test_run_jobs_writes_each_result_and_a_progress_line(tmp_path, capsys):
    jobs = [(("x", 1),), (("x", 2),)]  # dict(job) is the work: picklable, no objective to run
    common.run_jobs(jobs, dict, lambda j: tmp_path / f"{j[0][1]}.json", 1, lambda j, r: f"x = {r['x']}")
    assert [r["x"] for r in common.load_runs(tmp_path)] == [1, 2]
    out = capsys.readouterr().out
    assert "[1/2] x = " in out and "[2/2] x = " in out


def test_run_missing_runs_only_the_jobs_without_a_run_file(tmp_path, capsys):
    jobs = [(("x", 1),), (("x", 2),), (("x", 3),)]
    path = lambda j: tmp_path / f"{j[0][1]}.json"  # noqa: E731
    path(jobs[1]).write_text(json.dumps({"x": "kept"}))
    common.run_missing(jobs, dict, path, 1, lambda j, r: f"x = {r['x']}")
    assert [r["x"] for r in common.load_runs(tmp_path)] == [1, "kept", 3]  # the cached run is not redone
    out = capsys.readouterr().out
    assert out.startswith("3 runs, 2 to do\n") and "[2/2] x = " in out and "[3/" not in out


def test_verdict_of_compares_medians_lower_is_better():
    assert common.verdict_of(1e-3, 2e-3) == "ahead"
    assert common.verdict_of(2e-3, 1e-3) == "behind"
    assert common.verdict_of(0.0, 0.0) == "tied"


def test_rerun_command_lists_the_options_that_differ_from_the_defaults_and_the_out_file(monkeypatch):
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--dims", nargs="+", type=int, default=[80])
    parser.add_argument("--budget-factor", type=int, default=10)
    parser.add_argument("--out", default=str(common.RESULTS / "x.json"))
    monkeypatch.chdir(common.RESULTS.parent.parent)
    same = parser.parse_args([])
    assert common.rerun_command("s.py", parser, same, ["dims", "budget_factor"]) == "python benchmarks/s.py"
    other = parser.parse_args(["--budget-factor", "3", "--dims", "1", "2", "--out", "benchmarks/results/y.json"])
    assert common.rerun_command("s.py", parser, other, ["dims", "budget_factor"]) == (
        "python benchmarks/s.py --dims 1 2 --budget-factor 3 --out benchmarks/results/y.json")


def test_shown_path_is_relative_inside_the_repository_and_absolute_outside(tmp_path):
    root = common.RESULTS.resolve().parent.parent
    assert common.shown_path(root / "benchmarks" / "results" / "a.json") == Path("benchmarks/results/a.json")
    outside = tmp_path / "a.json"
    assert not outside.resolve().is_relative_to(root)
    assert common.shown_path(outside) == outside.resolve()


def test_campaign_options_give_the_runs_folder_and_its_defaults(tmp_path):
    parser = argparse.ArgumentParser()
    common.add_campaign_options(parser, tmp_path / "default", runs=4)
    args = parser.parse_args([])
    assert (args.runs, args.workers, args.report) == (4, 1, False) and args.out == str(tmp_path / "default")
    args = parser.parse_args(["--out", str(tmp_path / "other"), "--runs", "2", "--workers", "3", "--report"])
    assert common.runs_folder(args) == tmp_path / "other" and (tmp_path / "other" / "runs").is_dir()
    assert (args.runs, args.workers, args.report) == (2, 3, True)
