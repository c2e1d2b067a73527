"""benchmarks/restart_tolerance.py: its ask/tell loop is minimize's run, its settings do not leak, its report."""

import json

import pytest
import restart_tolerance

import edamcc.restarts as restarts
from edamcc import minimize
from edamcc.benchmark_functions import get_function


@pytest.mark.parametrize("variant", ["edamcc-sep-cc", "edamcc-csa"])
def test_shipped_setting_is_the_variants_run_and_constants_are_restored(variant):
    f = get_function("F3", 10)
    run = restart_tolerance.run_one((variant, "shipped", "F3", 10, 3000, 2))
    assert run["variant"] == variant
    assert run["error"] == f.error(minimize(f, f.bounds, budget=3000, seed=2, vectorized=True, record_pairs=False, variant=variant).fun)
    lowered = restart_tolerance.run_one((variant, "both-lower", "F3", 10, 3000, 2))
    assert (restarts.TOL_STD, restarts.RESTART_TOL_FUN) == restart_tolerance.SETTINGS["shipped"]
    assert lowered["setting"] == "both-lower" and 0 <= lowered["last_gain_before_first_restart"] <= 3000


def _write_runs(folder, variant, cells):
    runs = folder / "runs"
    runs.mkdir(parents=True)
    for setting, seed, error, events, gain in cells:
        run = {"variant": variant, "setting": setting, "function": "F3", "dim": 100, "budget": 100000, "seed": seed, "error": error,
               "restarts": events, "last_gain_before_first_restart": gain, "wall_seconds": 1.0}  # fmt: skip
        (runs / f"{setting}__F3__100__b100000__s{seed}.json").write_text(json.dumps(run))


def _write_peer(folder, function, budget, seed, error, algorithm="sep-cma", dim=100):
    folder.mkdir(parents=True, exist_ok=True)
    run = {"algorithm": algorithm, "function": function, "dim": dim, "budget": budget, "seed": seed, "error": error}
    (folder / f"{algorithm}__{function}__{dim}__b{budget}__s{seed}.json").write_text(json.dumps(run))


def test_report_counts_early_stalls_and_runs_that_never_restart(tmp_path):
    late = {"evaluations": 95000, "reason": "std", "best_error": 2.0}
    cells = [("shipped", 0, 3.0, [{"evaluations": 70000, "reason": "std", "best_error": 30.0}, late], 25000),
             ("shipped", 1, 5.0, [{"evaluations": 80000, "reason": "std", "best_error": 40.0}], 27000),
             ("shipped", 2, 1e-13, [{"evaluations": 60000, "reason": "std", "best_error": 1e-9}], 50000),
             ("tol-std-1e-15", 0, 30.0, [], 25000)]  # fmt: skip
    _write_runs(tmp_path, "edamcc-sep-cc", cells)
    text = restart_tolerance.report(tmp_path, peers=tmp_path / "no-peers")
    assert text.startswith("# Restart tolerances of edamcc-sep-cc on F3 (n = 100)")
    assert f"--out {tmp_path}" in text  # not the variant's own folder: the command names it
    # medians 3.0 and 1 restart; two of three restarted at an error above 1e-6: stalled at 26000, restarted at 75000;
    # the runs' last restarts at 95000, 80000 and 60000; no sep-CMA-ES runs to set them against
    assert "| F3 | 1000 n | shipped | 3 | 3.00e+00 | 1.0e-13 3.0e+00 5.0e+00 | 1 | 2 | 26000 | 75000 | 80000 | – | – |" in text
    assert "| F3 | 1000 n | tol-std-1e-15 | 1 | 3.00e+01 | 3.0e+01 | 0 | 1 | 25000 | never | – | – | – |" in text
    assert "functions, tied" not in text


def test_report_sets_each_median_against_sep_cma_and_counts_per_budget_and_setting(tmp_path):
    _write_runs(tmp_path, "edamcc-sep-cc", [("shipped", 0, 3.0, [], 25000), ("tolfun-1e-13", 0, 5e-13, [], 25000)])
    peers = tmp_path / "peers"
    for seed, error in enumerate([4.0, 5.0, 9.0]):  # median 5.0
        _write_peer(peers, "F3", 100000, seed, error)
    _write_peer(peers, "F3", 100000, 0, 1e-20, algorithm="edamcc-sep-cc")  # another algorithm: not read
    _write_peer(peers, "F3", 100000, 0, 1e-20, dim=500)  # another dimension: not read
    text = restart_tolerance.report(tmp_path, peers=peers)
    assert "| F3 | 1000 n | shipped | 1 | 3.00e+00 | 3.0e+00 | 0 | 1 | 25000 | never | – | 5.00e+00 | ahead |" in text
    assert "| F3 | 1000 n | tolfun-1e-13 | 1 | 0.00e+00 | 5.0e-13 | 0 | 0 | – | – | – | 5.00e+00 | ahead |" in text
    assert "1000 n, shipped: median ahead of sep-CMA-ES on 1 of 1 functions, tied on 0, behind on 0." in text
    for seed in range(3):  # below 1e-12 both: a tie
        _write_peer(peers, "F3", 100000, seed, 1e-13)
    text = restart_tolerance.report(tmp_path, peers=peers)
    assert "1000 n, tolfun-1e-13: median ahead of sep-CMA-ES on 0 of 1 functions, tied on 1, behind on 0." in text
    assert "1000 n, shipped: median ahead of sep-CMA-ES on 0 of 1 functions, tied on 0, behind on 1." in text


def test_report_refuses_a_folder_that_mixes_variants(tmp_path):
    _write_runs(tmp_path, "edamcc-sep-cc", [("shipped", 0, 3.0, [], 25000)])
    run = json.loads((tmp_path / "runs" / "shipped__F3__100__b100000__s0.json").read_text())
    (tmp_path / "runs" / "shipped__F3__100__b100000__s1.json").write_text(json.dumps(run | {"variant": "edamcc-csa", "seed": 1}))
    with pytest.raises(ValueError, match="one variant"):
        restart_tolerance.report(tmp_path)


def test_a_folder_of_another_variants_runs_is_refused_before_any_run(tmp_path, monkeypatch, capsys):
    _write_runs(tmp_path, "edamcc-sep-cc", [("shipped", 0, 3.0, [], 25000)])
    monkeypatch.setattr("sys.argv", ["restart_tolerance.py", "--variant", "edamcc-csa", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        restart_tolerance.main()
    assert "--out" in capsys.readouterr().err and len(list((tmp_path / "runs").iterdir())) == 1
