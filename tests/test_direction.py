"""One learned direction beyond the diagonal (edamcc.direction)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from edamcc import EDAMCCStrategy
from edamcc.direction import DirectedGaussian, direction_rates, marginal_scale, update_direction
from edamcc.models import FactorizedGaussian, GaussianBlocks


def _model(n: int = 7, seed: int = 0) -> FactorizedGaussian:
    """Weak variables 0, 3, 5, 6 and one group of (1, 2, 4) with a full factor."""
    rng = np.random.default_rng(seed)
    factor = rng.standard_normal((1, 3, 3)) + 2.0 * np.eye(3)
    weak = np.array([0, 3, 5, 6])
    return FactorizedGaussian(rng.standard_normal(n), weak, rng.uniform(0.5, 2.0, weak.size), (GaussianBlocks(np.array([[1, 2, 4]]), factor),))


def _covariance(model: DirectedGaussian) -> np.ndarray:
    n = model.mean.size
    cov = np.zeros((n, n))
    inner = model.model
    cov[inner.weak, inner.weak] = inner.weak_std**2
    for b in inner.blocks:
        for index, factor in zip(b.index, b.factor):
            cov[np.ix_(index, index)] = factor.T @ factor
    return cov + np.outer(model.direction, model.direction)


def test_samples_have_the_factorized_covariance_plus_the_direction() -> None:
    model = DirectedGaussian(_model(), np.array([0.5, -1.0, 0.3, 1.5, 0.0, -0.7, 0.2]))
    x = model.sample(np.random.default_rng(1), 200_000)
    assert x.shape == (200_000, 7)
    np.testing.assert_allclose(np.cov(x.T), _covariance(model), atol=0.05)
    np.testing.assert_allclose(x.mean(axis=0), model.mean, atol=0.02)
    np.testing.assert_allclose(model.stds(), np.sqrt(np.diag(_covariance(model))))
    assert model.max_std == pytest.approx(np.sqrt(np.diag(_covariance(model))).max())


def test_whitening_takes_the_whole_covariance_to_the_identity() -> None:
    model = DirectedGaussian(_model(), np.array([0.5, -1.0, 0.3, 1.5, 0.0, -0.7, 0.2]))
    w = np.stack([model.whiten(e) for e in np.eye(7)], axis=1)  # the whitening matrix, column by column
    np.testing.assert_allclose(w @ _covariance(model) @ w.T, np.eye(7), atol=1e-10)
    without = np.stack([model.model.whiten(e) for e in np.eye(7)], axis=1)  # the factorized model's alone: not the identity
    assert not np.allclose(without @ _covariance(model) @ without.T, np.eye(7), atol=1e-3)


def test_squared_lengths_are_the_whole_models_mahalanobis_lengths() -> None:
    model = DirectedGaussian(_model(), np.array([0.5, -1.0, 0.3, 1.5, 0.0, -0.7, 0.2]))
    steps = np.random.default_rng(5).standard_normal((4, 7))
    expected = np.einsum("ij,ij->i", steps, np.linalg.solve(_covariance(model), steps.T).T)
    np.testing.assert_allclose(model.squared_lengths(steps), expected, rtol=1e-10)
    lengths = np.stack([np.sum(model.whiten(s) ** 2) for s in steps])  # the same as whitening one row at a time
    np.testing.assert_allclose(model.squared_lengths(steps), lengths, rtol=1e-10)
    assert np.all(model.squared_lengths(steps) < model.model.squared_lengths(steps))  # the direction widens the model


def test_without_direction_whitens_by_the_whole_model_and_colors_by_the_factorized_part() -> None:
    direction = np.array([0.5, -1.0, 0.3, 1.5, 0.0, -0.7, 0.2])
    model = DirectedGaussian(_model(), direction)
    rows = model.sample(np.random.default_rng(2), 5)
    inner = model.model
    factor = np.zeros((7, 7))  # B, with samples m + B z: weak variables' stds and each group's F^T
    factor[inner.weak, inner.weak] = inner.weak_std
    for index, f in zip(inner.blocks[0].index, inner.blocks[0].factor):
        factor[np.ix_(index, index)] = f.T
    expected = model.mean + np.stack([factor @ model.whiten(r - model.mean) for r in rows])
    np.testing.assert_allclose(model.without_direction(rows), expected, rtol=1e-10, atol=1e-12)


def test_without_direction_leaves_the_factorized_parts_correlations_alone() -> None:
    # on a diagonal model with a long direction, rows as drawn are correlated along it; without its share they are not
    rng = np.random.default_rng(4)
    n = 6
    inner = FactorizedGaussian(np.zeros(n), np.arange(n), np.ones(n), ())
    model = DirectedGaussian(inner, np.array([3.0, 3.0, -3.0, 0.0, 0.0, 0.0]))
    rows = model.sample(rng, 20_000)
    drawn = np.corrcoef(rows.T)
    assert drawn[0, 1] > 0.8 and drawn[0, 2] < -0.8
    cleaned = model.without_direction(rows)
    np.testing.assert_allclose(np.cov(cleaned.T), np.eye(n), atol=0.05)  # the factorized part's N(0, I)


def test_scaled_multiplies_the_whole_covariance() -> None:
    model = DirectedGaussian(_model(), np.arange(7.0) / 7.0)
    np.testing.assert_allclose(_covariance(model.scaled(2.5)), 2.5 * _covariance(model))


def test_marginal_scale_keeps_each_variance() -> None:
    """Spreads sigma D s and the direction sigma D s v: variances sigma^2 D^2, whatever v."""
    rng = np.random.default_rng(2)
    d, v = rng.uniform(0.5, 2.0, 9), 5.0 * rng.standard_normal(9)
    s = marginal_scale(v)
    np.testing.assert_allclose((d * s) ** 2 + (d * s * v) ** 2, d**2, rtol=1e-12)
    assert marginal_scale(None) == 1.0


def _vd_update_for_unit_diagonal(v: np.ndarray, y: np.ndarray, weights: np.ndarray, mu_eff: float) -> np.ndarray:
    """pycma's GaussVDSampler with D = 1 and no rank-one term: its v after one update."""
    cma_sampler = pytest.importorskip("cma.restricted_gaussian_sampler")
    sampler = cma_sampler.GaussVDSampler(v.size)
    sampler.dvec = np.ones(v.size)
    sampler.vvec = v.copy()
    sampler.norm_v2 = float(v @ v)
    sampler.norm_v = math.sqrt(sampler.norm_v2)
    sampler.vn = v / sampler.norm_v
    sampler.vnn = sampler.vn**2
    sampler.update([np.zeros(v.size), *y], [0.0, *weights], hsig=False)  # hsig False: no rank-one term
    return sampler.vvec


def test_update_is_vd_cmas_natural_gradient_step() -> None:
    rng = np.random.default_rng(3)
    n, mu = 30, 8
    v = rng.standard_normal(n) / math.sqrt(n)
    y = rng.standard_normal((mu, n)) * 1.3
    w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    w /= w.sum()
    mu_eff = 1.0 / float(w @ w)
    np.testing.assert_allclose(update_direction(v, y, w, None, mu_eff), _vd_update_for_unit_diagonal(v, y, w, mu_eff), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_direction_learns_the_selected_axis(seed: int) -> None:
    """Rows of N(0, I + v v^T), selected by their position along e: v turns towards e and grows
    (with D held at 1 the other components keep some noise: cosines 0.64 to 0.82 over 5 seeds when written)."""
    rng = np.random.default_rng(seed)
    n, lam, mu = 20, 12, 6
    target = np.ones(n) / math.sqrt(n)
    v = rng.standard_normal(n) / math.sqrt(n)
    w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    w /= w.sum()
    mu_eff = 1.0 / float(w @ w)
    start = abs(v @ target) / np.linalg.norm(v)
    for _ in range(300):
        z = rng.standard_normal((lam, n))
        y = z + (math.sqrt(1.0 + v @ v) - 1.0) * np.outer(z @ v, v) / (v @ v)
        best = np.argsort(-(y @ target))[:mu]
        v = update_direction(v, y[best], w, None, mu_eff)
    assert abs(v @ target) / np.linalg.norm(v) > 0.6 > 0.25 > start
    assert np.linalg.norm(v) > 3.0


def test_rates_are_vd_cmas() -> None:
    c1, c_mu = direction_rates(100, 10.0)
    factor = (100 - 5.0) / 6.0
    assert c1 == pytest.approx(factor * 2.0 / (101.3**2 + 10.0))
    assert c_mu == pytest.approx(factor * 2.0 * (10.0 - 2.0 + 0.1) / (102.0**2 + 10.0))
    assert direction_rates(6, 3.0)[0] == pytest.approx(0.5 * 2.0 / (7.3**2 + 3.0))  # c' at least 0.5


def _max_run(variant: str, seed: int, generations: int) -> EDAMCCStrategy:
    es = EDAMCCStrategy(bounds=[(-100.0, 100.0)] * 30, variant=variant, seed=seed, record_structure=False)
    for _ in range(generations):
        x = es.ask()
        es.tell(x, np.max(np.abs(x), axis=1))
    return es


def test_edamcc_vd_samples_from_its_direction_from_the_second_generation_on() -> None:
    es = _max_run("edamcc-vd", 0, 1)
    assert es._run.adaptation.direction is None and isinstance(es._run.adaptation.model, FactorizedGaussian)  # the first fit: no step yet
    es = _max_run("edamcc-vd", 0, 6)
    state = es._run.adaptation
    assert isinstance(state.model, DirectedGaussian)
    spread = state.sigma * np.sqrt(state.shape)
    np.testing.assert_allclose(state.model.direction, spread * marginal_scale(state.direction) * state.direction, rtol=1e-14)
    np.testing.assert_allclose(state.model.stds(), spread, rtol=1e-12)  # each variance stays sigma^2 D_i^2
    assert es.model.model is state.model  # the mean-shift samples wrap it
    assert not isinstance(_max_run("edamcc-sep-cc", 0, 6)._run.adaptation.model, DirectedGaussian)


@pytest.mark.parametrize("seed", [0, 1])
def test_edamcc_vd_goes_on_where_the_diagonal_stalls_on_a_max_function(seed: int) -> None:
    """max_i |x_i| at n = 30: edamcc-sep-cc ends above 1e-3 (test_step_size), edamcc-vd below 1e-4
    (6.8e-6 and 1.3e-9 when written)."""
    assert _max_run("edamcc-vd", seed, 1500).best_f < 1e-4


def test_next_direction_keeps_v_finite_and_within_its_bound() -> None:
    """A v along one coordinate changes nothing in the model, so nothing holds it: v_i stays within
    MAX_COMPONENT, and a step that is not finite (here a collapsed spread) leaves v as it was."""
    from edamcc.direction import MAX_COMPONENT, next_direction

    rng = np.random.default_rng(5)
    n, mu = 12, 6
    w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    w /= w.sum()
    rows, mean, spread = rng.standard_normal((mu, n)), np.zeros(n), np.ones(n)
    for first_component in (MAX_COMPONENT, 3.0):  # all on one coordinate, at the bound and below it
        v = np.zeros(n)
        v[0] = first_component
        for _ in range(50):
            v = next_direction(v, np.ones(n), rows * rng.uniform(0.5, 2.0), w, mean, spread, None, 4.0)
            assert np.all(np.isfinite(v)) and np.max(np.abs(v)) <= MAX_COMPONENT
    collapsed = spread.copy()
    collapsed[3] = 0.0
    v = rng.standard_normal(n)
    assert next_direction(v, np.ones(n), rows, w, mean, collapsed, None, 4.0) is v
    first = next_direction(None, 2.0 * spread, rows, w, mean, spread, None, 4.0)  # the first: the step, at START_LENGTH
    np.testing.assert_allclose(first, np.ones(n) / np.sqrt(n))


def test_a_zero_direction_is_kept_without_an_exception() -> None:
    from edamcc.direction import next_direction

    rows, w = np.random.default_rng(6).standard_normal((4, 5)), np.full(4, 0.25)
    v = np.zeros(5)
    assert next_direction(v, np.ones(5), rows, w, np.zeros(5), np.ones(5), None, 4.0) is v
