"""WI's threshold (edamcc.wi_threshold): the noise floor of theta = 0.3, and theta='auto'."""

import numpy as np
import pytest

from edamcc.structure_learning import max_abs_correlation
from edamcc.wi_threshold import auto_theta, chance_strong, resolve_theta, weak_probability


def simulated_weak_fraction(n, m_corr, theta, reps=20, seed=0):
    rng = np.random.default_rng(seed)
    return float(np.mean([np.mean(max_abs_correlation(rng.normal(size=(m_corr, n))) <= theta) for _ in range(reps)]))


@pytest.mark.parametrize("n", [50, 200, 600])
def test_the_fisher_z_formula_matches_simulated_independent_variables(n):
    for theta in (0.3, auto_theta(n, 100)):
        assert simulated_weak_fraction(n, 100, theta) == pytest.approx(weak_probability(n, 100, theta), abs=0.04)


def test_auto_keeps_independent_variables_weak_at_the_stated_rate_whatever_n():
    for n in (100, 500, 1000):
        theta = auto_theta(n, 100)
        assert weak_probability(n, 100, theta) >= 0.94  # Bonferroni on Fisher's z; exactly: 94.6-95%
        assert simulated_weak_fraction(n, 100, theta, reps=5) >= 0.93
    # the paper's fixed 0.3 does not: 80% / 32% / 10% / 0% at n = 100 / 500 / 1000 / 10000
    assert [round(weak_probability(n, 100, 0.3), 2) for n in (100, 500, 1000, 10_000)] == [0.79, 0.3, 0.09, 0.0]


def test_with_the_defaults_few_rows_fishers_z_keeps_fewer_weak_as_the_readme_says():
    # the default's own m_corr (8, 11, 12, 15 rows at these n): 86.6 / 83.8 / 82.0 / 74.3%
    got = [round(100 * weak_probability(n, m, auto_theta(n, m)), 1) for n, m in ((100, 8), (500, 11), (1000, 12), (10_000, 15))]
    assert got == [86.6, 83.8, 82.0, 74.3]
    for alpha in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"^alpha: expected a number in \(0, 1\)"):
            auto_theta(100, 100, alpha)


def test_the_threshold_grows_with_n_and_falls_with_more_rows():
    assert auto_theta(100, 100) < auto_theta(1000, 100) < auto_theta(10_000, 100)
    assert auto_theta(1000, 400) < auto_theta(1000, 100)
    assert auto_theta(1, 100) == 1.0 and auto_theta(10, 3) == 1.0


def test_chance_strong_and_resolve():
    assert chance_strong(1000, 100, 0.3) == pytest.approx(1000 * (1 - weak_probability(1000, 100, 0.3)))
    assert resolve_theta(0.3, 100, 100) == 0.3 and resolve_theta("auto", 100, 100) == auto_theta(100, 100)


@pytest.mark.parametrize("n, m_corr, theta", [(100, 100, 0.3), (30, 60, 0.3), (200, 100, 0.35)])
def test_chance_strong_matches_a_simulation_of_wi_on_independent_variables(n, m_corr, theta):
    from edamcc.structure_learning import max_abs_correlation
    from edamcc.wi_threshold import chance_strong

    rng = np.random.default_rng(0)
    counts = [int(np.sum(max_abs_correlation(rng.standard_normal((m_corr, n))) > theta)) for _ in range(400)]
    expected = chance_strong(n, m_corr, theta)
    assert 0.05 * n < expected < 0.95 * n  # a case where the count is informative
    assert abs(np.mean(counts) - expected) < 0.03 * expected


def test_chance_strong_edge_cases_and_the_fisher_approximation():
    from scipy.stats import norm

    from edamcc.wi_threshold import chance_strong
    from edamcc.wi_threshold import pair_exceeds

    for m_corr in (20, 50, 100):
        fisher = 2 * (1 - norm.cdf(np.arctanh(0.3) * np.sqrt(m_corr - 3)))
        assert pair_exceeds(0.3, m_corr) == pytest.approx(fisher, rel=0.1)
    assert chance_strong(1, 100, 0.3) == 0.0  # no partner, never strong
    assert chance_strong(10, 100, 1.0) == 0.0
    assert chance_strong(10, 100, 0.0) == 10.0
    assert chance_strong(100, 100, 0.3) < chance_strong(100, 50, 0.3)  # fewer rows, more noise
    assert chance_strong(10, 2, 0.3) == 10.0 and pair_exceeds(0.3, 2) == 1.0  # two rows: every |r| is 1
    assert pair_exceeds(1.0, 2) == 0.0
    with pytest.raises(ValueError, match="m_corr"):
        chance_strong(10, 1, 0.3)
    with pytest.raises(ValueError, match="^dimension:"):
        chance_strong(0, 100, 0.3)


def test_exact_keeps_independent_variables_weak_at_one_minus_alpha_at_the_defaults_few_rows():
    from edamcc.wi_threshold import exact_theta

    for n, m_corr in ((100, 8), (500, 11), (1000, 12), (10_000, 15), (100, 100)):
        theta = exact_theta(n, m_corr)
        assert weak_probability(n, m_corr, theta) == pytest.approx(0.95, abs=1e-9)
        assert theta > auto_theta(n, m_corr)  # Fisher's z puts it lower, so fewer stay weak
    assert simulated_weak_fraction(100, 8, exact_theta(100, 8), reps=200) == pytest.approx(0.95, abs=0.01)
    assert exact_theta(1, 100) == 1.0 and exact_theta(10, 3) == 1.0
    assert resolve_theta("exact", 500, 11) == exact_theta(500, 11)
    with pytest.raises(ValueError, match=r"^alpha: expected a number in \(0, 1\)"):
        exact_theta(100, 100, 1.0)
