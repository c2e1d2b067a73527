"""benchmarks/restart_tolerance.py: its ask/tell loop is minimize's run, its settings do not leak, its report."""

import json

import restart_tolerance

import edamcc.restarts as restarts
from edamcc import minimize
from edamcc.benchmark_functions import get_function


def test_shipped_setting_is_the_edamcc_csa_run_and_constants_are_restored():
    f = get_function("F3", 10)
    run = restart_tolerance.run_one(("shipped", "F3", 10, 3000, 2))  # edamcc-csa, the default of 0.3 to 0.6, named
    assert run["error"] == f.error(minimize(f, f.bounds, budget=3000, seed=2, vectorized=True, record_pairs=False, variant="edamcc-csa").fun)
    lowered = restart_tolerance.run_one(("both-lower", "F3", 10, 3000, 2))
    assert (restarts.TOL_STD, restarts.RESTART_TOL_FUN) == restart_tolerance.SETTINGS["shipped"]
    assert lowered["setting"] == "both-lower" and 0 <= lowered["last_gain_before_first_restart"] <= 3000


def test_report_counts_early_stalls_and_runs_that_never_restart(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    cells = [("shipped", 0, 3.0, [{"evaluations": 70000, "reason": "std", "best_error": 30.0}], 25000),
             ("shipped", 1, 5.0, [{"evaluations": 80000, "reason": "std", "best_error": 40.0}], 27000),
             ("shipped", 2, 1e-13, [{"evaluations": 60000, "reason": "std", "best_error": 1e-9}], 50000),
             ("tol-std-1e-15", 0, 30.0, [], 25000)]  # fmt: skip
    for setting, seed, error, events, gain in cells:
        run = {"setting": setting, "function": "F3", "dim": 100, "budget": 100000, "seed": seed, "error": error,
               "restarts": events, "last_gain_before_first_restart": gain, "wall_seconds": 1.0}  # fmt: skip
        (runs / f"{setting}__F3__100__b100000__s{seed}.json").write_text(json.dumps(run))
    text = restart_tolerance.report(tmp_path)
    # medians 3.0; two of three restarted at an error above 1e-6: stalled at 26000, restarted at 75000
    assert "| F3 | 1000 n | shipped | 3 | 3.00e+00 | 1.0e-13 3.0e+00 5.0e+00 | 1 | 2 | 26000 | 75000 |" in text
    assert "| F3 | 1000 n | tol-std-1e-15 | 1 | 3.00e+01 | 3.0e+01 | 0 | 1 | 25000 | never |" in text
