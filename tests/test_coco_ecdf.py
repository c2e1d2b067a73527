"""The aggregated ECDF numbers of the COCO report (benchmarks/coco/ecdf.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.coco.ecdf import TARGETS, ecdf_summary, hitting_evaluations  # noqa: E402


def test_targets_are_coco_s_51():
    assert TARGETS.size == 51 and TARGETS[0] == pytest.approx(100) and TARGETS[-1] == pytest.approx(1e-8)
    assert np.allclose(np.diff(np.log10(TARGETS)), -0.2)


def test_hitting_evaluations_first_log_line_at_or_below_each_target():
    evals = np.array([1, 10, 50, 400])
    best = np.array([500.0, 20.0, 20.0, 1e-3])
    hits = hitting_evaluations(evals, best, np.array([1000.0, 100.0, 20.0, 19.9, 1e-3, 1e-4]))
    assert hits.tolist() == [1, 10, 10, 400, 400, np.inf]


def test_hitting_evaluations_rejects_bad_input():
    with pytest.raises(ValueError, match="best"):
        hitting_evaluations(np.array([1, 2]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="evals, best"):
        hitting_evaluations(np.array([1, 2]), np.array([1.0]))


def test_ecdf_summary_area_and_solved_fraction():
    dim = 10
    # solved at n (x = 0: full area), at 10 n (x = 1: half of [0, 2]), never, and after the budget (x = 3)
    hits = np.array([10.0, 100.0, np.inf, 10_000.0])
    solved, area = ecdf_summary(hits, dim, 100)
    assert solved == pytest.approx(0.5)
    assert area == pytest.approx((1.0 + 0.5) / 4)
    # a hit before n evaluations counts as a hit at x = 0, not as more than full area
    assert ecdf_summary(np.array([1.0]), dim, 100) == (1.0, 1.0)
    # the same runs judged at a smaller budget: the hit at 10 n is now exactly at the budget
    assert ecdf_summary(hits, dim, 10) == (pytest.approx(0.5), pytest.approx(0.25))


def test_ecdf_summary_rejects_bad_input():
    with pytest.raises(ValueError, match="budget_factor"):
        ecdf_summary(np.array([1.0]), 10, 1)
    with pytest.raises(ValueError, match="hits"):
        ecdf_summary(np.array([]), 10, 100)


def test_per_function_areas_average_to_the_pooled_area_with_equal_runs_per_function():
    from benchmarks.coco.report import ecdf_by_function, ecdf_rows

    rng = np.random.default_rng(0)
    dim, factor = 10, 1000
    markers = []
    for f in (1, 2, 3):
        for _ in range(4):  # hitting evaluations of the 51 targets, inf where never reached
            hits = np.sort(rng.uniform(1, factor * dim * 2, size=TARGETS.size))
            markers.append({"optimizer": "a", "dim": dim, "function": f, "hits": hits})
    markers.append({"optimizer": "a", "dim": 20, "function": 1, "hits": np.zeros(TARGETS.size)})  # another dimension
    per_function = ecdf_by_function(markers, dim, factor)["a"]
    assert sorted(per_function) == [1, 2, 3]
    pooled = ecdf_rows(markers, dim, factor)["a"][1]
    assert np.mean(list(per_function.values())) == pytest.approx(pooled, rel=1e-12)
    assert per_function[1] == pytest.approx(ecdf_summary(np.stack([m["hits"] for m in markers[:4]]), dim, factor)[1])
