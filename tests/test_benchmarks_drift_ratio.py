"""benchmarks/drift_ratio.py: the drift ratio's arithmetic, what it reads from a run, its report."""

import json
import math

import drift_ratio
import numpy as np
import pytest


def test_the_meter_gives_one_ratio_per_window_against_a_random_walk_at_the_step_size():
    n, window, sigma, mu_eff = 4, 5, 0.5, 3.0
    meter = drift_ratio.DriftMeter(window)
    step = np.array([1.0, -2.0, 0.0, 2.0])  # |step| = 3
    out = [meter.add(k * step, sigma, mu_eff) for k in range(2 * window + 1)]
    expected = window * 3.0 / (sigma * math.sqrt(n * window / mu_eff))
    assert out[:window] == [None] * window and out[window + 1 : 2 * window] == [None] * (window - 1)
    assert out[window] == pytest.approx(expected) and out[2 * window] == pytest.approx(expected)
    still = drift_ratio.DriftMeter(2)
    assert [still.add(np.ones(3), s, 1.0) for s in (1.0, 2.0, 4.0)] == [None, None, 0.0]  # a mean that stays: 0


def test_random_selection_walks_and_a_slope_drifts():
    rng = np.random.default_rng(0)
    noise = drift_ratio.first_run(lambda x: rng.random(x.shape[0]), [(-1e6, 1e6)] * 30, 12, 0, 7200)
    slope = drift_ratio.first_run(lambda x: x.sum(axis=1), [(-1e9, 1e9)] * 30, 12, 0, 7200)
    walk = np.median([w["ratio"] for w in noise["windows"]])
    drift = np.median([w["ratio"] for w in slope["windows"]])
    assert len(noise["windows"]) >= 5 and noise["end"] == "budget" == slope["end"]
    assert 0.6 < walk < 1.2  # selection at random: about a random walk's reach
    assert drift > 1.2 and drift > walk  # a slope: the mean goes somewhere
    for rule in ("psa", "path"):  # population size adaptation's |p|^2 / gamma under random selection: about 1
        assert 0.6 < np.median([w[rule] for w in noise["windows"]]) < 1.3


def test_a_run_ends_at_its_first_restart_and_reports_its_error():
    run = drift_ratio.run_one(("F1", 10, 0, 20_000))
    assert run["end"].startswith("no progress") and run["error"] < 1e-12 and run["evaluations"] < 20_000
    assert all(w["error"] >= run["error"] and w["ratio"] > 0 for w in run["windows"])


def test_the_report_pools_the_windows_of_the_seeds(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for seed, ratios, end in [(0, [1.0, 2.0], "budget"), (1, [3.0], "no progress: flat")]:
        run = {"function": "F3", "dim": 100, "population": 17, "seed": seed, "budget": 100000, "end": end, "evaluations": 100000,
               "error": 30.0 + seed, "windows": [{"evaluations": 1, "error": 1.0, "ratio": r, "psa": r / 2, "path": r} for r in ratios], "wall_seconds": 1.0}  # fmt: skip
        (runs / f"F3__100__p17__b100000__s{seed}.json").write_text(json.dumps(run))
    text = drift_ratio.report(tmp_path)
    assert "| F3 | 17 | 2 | 3 | 1.20 | 2.00 | 2.80 | 1.00 [0.60, 1.40] | 2.00 [1.20, 2.80] | 3.0e+01 3.1e+01 | budget, restart: no progress |" in text
    assert f"Regenerate: `python benchmarks/drift_ratio.py --out {tmp_path.resolve()}`." in text
