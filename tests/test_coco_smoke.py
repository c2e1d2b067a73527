"""COCO benchmarking smoke test: every registered optimizer on 2 bbob functions, 1 instance,
n = 20, budget 100 n; COCO data folders are written and cocopp post-processes them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cocoex")
pytest.importorskip("cocopp")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.coco import optimizers, report, runner  # noqa: E402
from benchmarks.coco.problem import BatchProblem, ProblemDone  # noqa: E402

NAMES = [n for n in optimizers.REGISTRY if optimizers.available(n)]


def test_batch_problem_stops_at_the_budget():
    import cocoex
    import numpy as np

    problem = cocoex.Suite("bbob", "instances: 1", "dimensions: 2 function_indices: 1").get_problem(0)
    wrapped = BatchProblem(problem, budget=5)
    assert wrapped(np.zeros((3, 2))).shape == (3,)
    with pytest.raises(ProblemDone):
        wrapped(np.zeros((4, 2)))
    assert problem.evaluations == 5 and wrapped.done
    problem.free()


def test_every_optimizer_writes_coco_data_that_cocopp_reads(tmp_path):
    assert {"edamcc-paper", "edamcc-default", "sep-cma"} <= set(NAMES)
    root = tmp_path / "bbob_100n"
    entry = runner.run(root, "bbob", [20], [1, 8], [1], 100, NAMES, campaign_seed=1, workers=1, log=lambda s: None)
    assert entry["ran"] == 2 * len(NAMES) and not entry["failed"]
    for name in NAMES:
        for fid in (1, 8):
            key = f"bbob_f{fid:03d}_i01_d0020"
            marker = json.loads((root / "markers" / name / f"{key}.json").read_text())
            assert 0 < marker["evaluations"] <= 2000 and marker["cpu_seconds_per_evaluation"] > 0
            assert marker["blas"] == runner.blas_kernels()
            assert list((root / "exdata" / name / key).glob("*.info")), name
    again = runner.run(root, "bbob", [20], [1, 8], [1], 100, NAMES, campaign_seed=1, workers=1, log=lambda s: None)
    assert again["ran"] == 0  # resumed: nothing left to do

    results = tmp_path / "results"
    summary = report.write(root, results, log=lambda s: None)
    assert (results / "bbob_100n" / "pprldmany_20D_noiselessall.png").stat().st_size > 0
    table = (results / "bbob_100n.md").read_text()
    assert all(name in table for name in NAMES)
    assert set(summary["dims"]["20"]["optimizers"]) == set(NAMES)
    assert set(summary["versions"]) >= {"edamcc", "cma", "coco-experiment"}
    assert "ECDF area" in table
    assert summary["blas"] == [runner.blas_kernels()] and f"BLAS kernels of the runs: {runner.blas_kernels()}" in table
    for name in NAMES:  # f1 at 20-D: every optimizer hits some of the 51 targets within 100 n
        ecdf = summary["dims"]["20"]["optimizers"][name]["ecdf_100n"]
        assert 0 < ecdf["solved"] <= 1 and 0 < ecdf["area"] <= ecdf["solved"], name


def test_the_blas_kernels_are_named():
    import numpy as np  # noqa: F401  (loads the BLAS that threadpoolctl reports)

    name = runner.blas_kernels()
    assert name != "none found" and name.split()[0] in {"openblas", "mkl", "blis", "flexiblas", "accelerate"}, name


def test_seeds_are_fixed_per_function_and_instance():
    # the same seed in another process (no hash randomization, no global state): a campaign resumes with it
    code = "from benchmarks.coco import runner; print(runner.seed_for(1, 3, 2))"
    root = Path(__file__).resolve().parents[1]
    other = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert int(other.stdout) == runner.seed_for(1, 3, 2) and 1 <= runner.seed_for(1, 3, 2) < 2**31 - 1
    assert len({runner.seed_for(1, f, i) for f in range(1, 25) for i in range(1, 6)}) == 120
    assert runner.seed_for(1, 3, 2) != runner.seed_for(2, 3, 2)


def test_the_recorded_command_names_no_data_folder_of_this_machine():
    argv = ["--data", "/scratch/run7", "--results", "out", "campaign", "bbob-1e3", "--workers", "2"]
    assert runner.command_line(argv) == "python -m benchmarks.coco --data DATA --results out campaign bbob-1e3 --workers 2"
    assert runner.command_line(["--data=/scratch/run7", "list"]) == "python -m benchmarks.coco --data=DATA list"
    assert runner.command_line(["report", "bbob_1000n"]) == "python -m benchmarks.coco report bbob_1000n"
    absolute = ["--data", "/scratch/d", "--results", "/scratch/r", "campaign", "largescale-1e4", "--no-report"]
    assert runner.command_line(absolute) == "python -m benchmarks.coco --data DATA --results RESULTS campaign largescale-1e4 --no-report"
    assert runner.command_line(["--results=/scratch/r", "report", "x"]) == "python -m benchmarks.coco --results=RESULTS report x"


def test_the_low_tolfun_entry_lowers_the_restart_test_for_its_run_only(monkeypatch):
    import edamcc.restarts as restarts

    seen = []

    def fake_run(*args, **options):
        seen.append((restarts.RESTART_TOL_FUN, options))
        raise RuntimeError("stopped")  # the constant is put back even when the run fails

    monkeypatch.setattr(optimizers, "_edamcc", fake_run)
    shipped = restarts.RESTART_TOL_FUN
    with pytest.raises(RuntimeError, match="stopped"):
        optimizers.REGISTRY["edamcc-tolfun-1e-13"].run(None, None, None, 100, 1)
    assert seen == [(optimizers.LOW_RESTART_TOL_FUN, {"repair": "none"})] and optimizers.LOW_RESTART_TOL_FUN == 1e-13
    assert restarts.RESTART_TOL_FUN == shipped == 1e-11
