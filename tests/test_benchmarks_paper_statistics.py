"""benchmarks/paper/statistics.py: best M, the paper's markers, reproduction verdicts."""

import pytest

pytest.importorskip("scipy")
from paper import statistics as stats  # noqa: E402


def test_verdict_uses_a_factor_three_band_and_the_zero_cut():
    assert stats.verdict(2.0, (1.0, 0.1)) == "yes"
    assert stats.verdict(4.0, (1.0, 0.1)) == "worse (4x)"
    assert stats.verdict(1e-13, (0.0, 0.0)) == "yes"
    assert stats.verdict(0.5, (0.0, 0.0)).startswith("no")
    assert stats.verdict(1e-8, (1.3e5, 2.7e5)) == "better (1e+13x)"
    assert stats.verdict(1.0, None) == ""


def test_markers_follow_the_papers_thresholds():
    assert stats.marker([1.0, 1.1, 1.2, 1.3, 1.4], [5.0, 5.1, 5.2, 5.3, 5.4]) == "†"  # p = 0.008
    assert stats.marker([0.0] * 5, [1e-13] * 5) == ""  # both 0 after the cut
    assert stats.marker([1.0], [2.0]) == ""  # one run: no test


def test_best_population_size_is_the_lowest_mean_error():
    per_m = {200: [{"error": 3.0}], 500: [{"error": 1.0}], 1000: [{"error": 1.0}]}
    assert stats.best_of_sizes(per_m)[0] == 500


def test_rows_are_compared_with_edamcc_on_the_same_instance():
    assert stats.reference(("solution", "F10", 50, "umdac (cec2005)", 0.3, 20))[3] == "edamcc (cec2005)"
    assert stats.reference(("additional", "F5", 10, "edamcc-c20", 0.3, 20))[3] == "umdac"
    assert stats.paper_cell("solution", "edamcc", "F10", 50, 0.3, 20) == (3.1e3, 3.4e2)
