"""edamcc.step_size: rank weights, whitening, the sampling model and the step size's behaviour."""

from __future__ import annotations

import pickle
from dataclasses import replace

import numpy as np
import pytest

from edamcc import VARIANTS, EDAMCCStrategy, Settings
from edamcc.models import fit_factorized
from edamcc.step_size import (
    StepSize,
    effective_mu,
    expected_norm,
    mean_shift_line,
    negative_weights,
    path_rate,
    recombination_weights,
    sampling_model,
    shape_rates,
    two_point_damping,
)

# edamcc-tpa switches at n = 300, as pycma; the mechanism is tested at small n with the switch at 1
TPA_EVERYWHERE = replace(VARIANTS["edamcc-tpa"], name="tpa-everywhere", two_point_from=1)


def test_recombination_weights_are_positive_decreasing_and_sum_to_one():
    for mu in (2, 5, 8, 50):
        w = recombination_weights(mu)
        assert w.shape == (mu,)
        assert np.all(w > 0) and np.all(np.diff(w) < 0)
        assert w.sum() == pytest.approx(1.0)


def test_recombination_weights_are_shared_read_only_and_give_mu_eff():
    """One array per mu, shared by every generation: nobody may change it in place."""
    w = recombination_weights(10)
    assert recombination_weights(10) is w
    with pytest.raises(ValueError):
        w[0] = 1.0
    raw = np.log(10.5) - np.log(np.arange(1, 11))
    np.testing.assert_array_equal(w, raw / raw.sum())
    assert effective_mu(10) == pytest.approx(1.0 / np.sum((raw / raw.sum()) ** 2), rel=1e-15)
    assert 1.0 < effective_mu(10) < 10.0


def test_expected_norm_matches_sampled_norms():
    rng = np.random.default_rng(0)
    for n in (2, 10, 100):
        sampled = np.linalg.norm(rng.standard_normal((20000, n)), axis=1).mean()
        assert expected_norm(n) == pytest.approx(sampled, rel=0.01)


def _model(rng, n=7, shape=None):
    shape = np.exp(rng.standard_normal(n)) if shape is None else shape
    selected = rng.standard_normal((12, n)) @ rng.standard_normal((n, n))
    partition = [np.array([[1, 4, 6]]), np.array([[2, 3], [0, 5]])]
    fitted = fit_factorized(selected, np.array([], dtype=np.intp), partition, "emna", recombination_weights(12))
    return fitted, sampling_model(fitted, 0.5, shape, mu_eff=6.0)


def test_whiten_inverts_sampling():
    rng = np.random.default_rng(1)
    _, model = _model(rng)
    x = model.sample(np.random.default_rng(2), 1)[0]
    z = model.whiten(x - model.mean)
    # rebuild the draw from z: mean + z @ factor per group
    back = model.mean.copy()
    for b in model.blocks:
        back[b.index.ravel()] = (model.mean[b.index] + np.einsum("gi,gij->gj", z[b.index], b.factor)).ravel()
    np.testing.assert_allclose(back, x, rtol=1e-10, atol=1e-12)


def test_sampling_model_has_the_scaled_variances_and_shrunk_correlations():
    rng = np.random.default_rng(3)
    n = 7
    shape = np.exp(rng.standard_normal(n))
    fitted, model = _model(rng, n, shape)
    np.testing.assert_allclose(model.stds(), 0.5 * np.sqrt(shape), rtol=1e-12)
    for fb, mb in zip(fitted.blocks, model.blocks):
        fit_cov = fb.factor.transpose(0, 2, 1) @ fb.factor
        cov = mb.factor.transpose(0, 2, 1) @ mb.factor
        s = np.sqrt(np.einsum("gii->gi", cov))
        corr = cov / s[:, :, None] / s[:, None, :]
        fs = np.sqrt(np.einsum("gii->gi", fit_cov))
        fit_corr = fit_cov / fs[:, :, None] / fs[:, None, :]
        size = fb.index.shape[1]
        alpha = size / (size + 6.0)
        np.testing.assert_allclose(corr, (1 - alpha) * fit_corr + alpha * np.eye(size), atol=1e-12)


def _run(f, n, generations, seed=0, repair="clip", variant="edamcc-csa"):
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * n, variant=variant, seed=seed, record_structure=False, repair=repair)
    sigmas = []
    for _ in range(generations):
        x = es.ask()
        es.tell(x, f(x))
        sigmas.append(es.step_size)
    return es, sigmas


def test_the_step_size_grows_on_a_linear_slope():
    # f = x_0 with samples free to leave the box: every step goes the same way
    es, sigmas = _run(lambda x: x[:, 0], 10, 40, repair="none")
    assert sigmas[10] is not None
    assert sigmas[-1] > 3 * sigmas[10]
    assert es.restarts == []


def test_the_step_size_shrinks_as_the_sphere_converges():
    es, sigmas = _run(lambda x: np.sum(x**2, axis=1), 10, 250)
    assert es.best_f < 1e-8
    assert min(s for s in sigmas[5:] if s is not None) < 1e-3 * sigmas[5]  # a converged run restarts (tolfun) afresh


def test_the_shape_learns_a_separable_ellipsoid():
    n = 6
    scales = 10.0 ** np.arange(n)  # curvatures 1 ... 1e10: ideal D_i proportional to 1 / sqrt(curvature)
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * n, seed=0, record_structure=False)
    while es.best_f > 1e-8 and es.generation < 400:  # read the shape as the first run solves it, before any restart
        x = es.ask()
        es.tell(x, np.sum(scales * x**2, axis=1))
    assert es.best_f <= 1e-8 and es.restarts == []
    stds = es.model.stds()
    ratios = stds[:-1] / stds[1:]  # ideal: sqrt(10) = 3.16 between neighbours; the first shape is flat
    assert np.all(ratios > 1.5) and np.all(ratios < 7.0), ratios


@pytest.mark.parametrize("variant", ["edamcc-csa", TPA_EVERYWHERE, "edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd"], ids=["csa", "tpa", "sep-cc", "sep-cc-lf", "vd"])
def test_a_csa_or_tpa_run_resumes_bit_identically_after_pickle(variant):
    def sphere(x):
        return np.sum(x**2, axis=1)

    es, _ = _run(sphere, 5, 6, variant=variant)
    twin = pickle.loads(pickle.dumps(es))
    for _ in range(5):
        a, b = es.ask(), twin.ask()
        np.testing.assert_array_equal(a, b)
        es.tell(a, sphere(a))
        twin.tell(b, sphere(b))
    assert es.step_size == twin.step_size and es._run.adaptation.tpa == twin._run.adaptation.tpa
    assert twin._run.adaptation.rank_one_path == es._run.adaptation.rank_one_path == es.variant.rank_one_path
    assert twin._run.adaptation.active is es._run.adaptation.active is es.variant.active is True


def test_csa_defaults_follow_the_one_population_rule():
    rules = Settings(variant="edamcc-csa").resolve(100, budget=10_000)
    assert rules.population_size == int(4 + 3 * np.log(100))
    assert rules.n_selected == rules.population_size // 2
    assert Settings(variant="edamcc-csa").theta == "auto"


def test_nothing_fitted_keeps_the_state():
    state = StepSize()
    after = state.update(np.array([np.nan, np.nan]), None, 0.0)
    assert after.model is None and after.sigma is None


def _univariate(mean, std):
    """A factorized model of independent Gaussians (every variable weak)."""
    from edamcc.models import FactorizedGaussian

    mean = np.asarray(mean, dtype=float)
    return FactorizedGaussian(mean, np.ones(mean.size, dtype=bool), np.full(mean.size, float(std)), ())


def _started(n=4, sigma=1.0):
    """A state after its first fit: sigma, a flat shape, a model at the origin."""
    state = StepSize(sigma=sigma, path=np.zeros(n), shape=np.ones(n), model=_univariate(np.zeros(n), sigma),
                     evolution=np.zeros(n), generations=1)  # fmt: skip
    return state


def test_the_first_shape_is_the_boxs_at_the_scale_of_the_selected_rows():
    # the selected rows' variances differ by chance; the first shape does not follow them
    n, mu = 3, 6
    w = recombination_weights(mu)
    selected = np.random.default_rng(0).normal(0.0, [1.0, 2.0, 0.5], (mu, n))
    fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
    variances = fitted.stds() ** 2
    box = np.array([4.0, 4.0, 400.0]) / 12.0  # widths 2, 2 and 20
    first = StepSize().update(np.arange(mu, dtype=float), fitted, 1.0 / np.sum(w**2), None, box)
    np.testing.assert_allclose(first.shape, box / box.mean(), rtol=1e-12)
    np.testing.assert_allclose(first.sigma, np.exp(0.5 * np.mean(np.log(variances / first.shape))), rtol=1e-12)
    flat = StepSize().update(np.arange(mu, dtype=float), fitted, 1.0 / np.sum(w**2))  # no box: a cube
    np.testing.assert_array_equal(flat.shape, np.ones(n))
    np.testing.assert_allclose(flat.sigma, np.exp(0.5 * np.mean(np.log(variances))), rtol=1e-12)


def test_a_run_starts_from_its_boxs_shape_and_again_after_a_restart():
    box_shape = np.array([1.0, 100.0, 100.0]) / (201.0 / 3.0)  # widths 2, 20, 20, normalized to mean 1
    es = EDAMCCStrategy(bounds=[(-1.0, 1.0), (-10.0, 10.0), (-10.0, 10.0)], seed=3, record_structure=False)
    firsts = []
    while len(firsts) < 2 and es.generation < 5000:
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
        if es._run.adaptation.model is not None and es._run.adaptation.generations == 0:  # just after a run's first fit
            firsts.append(es._run.adaptation.shape)
    assert len(firsts) == 2 and len(es.restarts) == 1
    for shape in firsts:
        np.testing.assert_allclose(shape, box_shape, rtol=1e-12)


def test_the_shape_is_learned_around_the_mean_the_rows_came_from():
    # the selected rows all moved by +1 along variable 0, with no spread among themselves: a fit
    # around their own mean sees zero variance everywhere, the rank-mu term around the old mean
    # sees the step, so variable 0's share of the shape grows
    n, mu = 4, 6
    selected = np.zeros((mu, n))
    selected[:, 0] = 1.0
    w = recombination_weights(mu)
    fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
    after = _started(n).update(np.arange(mu, dtype=float), fitted, 1.0 / np.sum(w**2))
    assert after.shape[0] > 1.5 * after.shape[1]
    np.testing.assert_allclose(after.shape[1:], after.shape[1], rtol=1e-12)
    assert after.evolution[0] > 0 and np.all(after.evolution[1:] == 0)


def test_the_rank_one_path_accumulates_steps_in_one_direction():
    n, mu = 20, 6
    w = recombination_weights(mu)
    mu_eff = 1.0 / np.sum(w**2)
    state = _started(n, sigma=1.0)
    firsts = []
    for k in range(3):
        selected = np.tile(state.model.mean, (mu, 1)) + np.random.default_rng(k).normal(0.0, 0.5, (mu, n))
        selected[:, 0] += 0.3  # a small, steady step along variable 0
        fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
        state = state.update(np.arange(mu, dtype=float), fitted, mu_eff)
        firsts.append(state.evolution[0])
    assert firsts[0] > 0 and firsts[2] > firsts[1] > firsts[0]


def test_path_rate_is_the_tutorials_rate_or_pycmas_separable_one():
    n, mu_eff = 100, 5.9
    assert path_rate(n, mu_eff) == path_rate(n, mu_eff, "cma") == (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n)
    assert path_rate(n, mu_eff, "separable") == (1.0 + 1.0 / n + mu_eff / n) / (10.0 + 1.0 / n + 2.0 * mu_eff / n)
    # about 4 / n against about 1 / sqrt(n): at n = 10,000 the separable path forgets 25 times sooner
    assert path_rate(10_000, mu_eff) == pytest.approx(4e-4, rel=0.01)
    assert path_rate(10_000, mu_eff, "separable") == pytest.approx(1e-2, rel=0.01)
    with pytest.raises(ValueError, match="^rank_one_path: expected one of \\('cma', 'separable'\\)"):
        path_rate(n, mu_eff, "sep")


@pytest.mark.parametrize("kind", ["cma", "separable"])
def test_the_rank_one_path_decays_at_the_variants_rate(kind):
    """p_c <- (1 - c_c) p_c + sqrt(c_c (2 - c_c) mu_eff) (m' - m) / sigma, with c_c = path_rate(n, mu_eff, kind)."""
    n, mu = 50, 6
    w = recombination_weights(mu)
    mu_eff = 1.0 / np.sum(w**2)
    state = replace(_started(n, sigma=1.0), rank_one_path=kind)
    cc = path_rate(n, mu_eff, kind)
    for k in range(3):
        selected = np.tile(state.model.mean, (mu, 1)) + np.random.default_rng(k).normal(0.0, 0.1, (mu, n))
        fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
        after = state.update(np.arange(mu, dtype=float), fitted, mu_eff)
        step = fitted.mean - state.model.mean
        expected = (1.0 - cc) * state.evolution + np.sqrt(cc * (2.0 - cc) * mu_eff) * step / state.sigma
        np.testing.assert_allclose(after.evolution, expected, rtol=1e-12, atol=1e-15)
        assert after.rank_one_path == kind
        state = after


def test_the_mean_shift_line_is_the_step_at_a_typical_sample_length():
    rng = np.random.default_rng(3)
    n = 12
    model = _univariate(np.zeros(n), 1.0)
    model = type(model)(model.mean, model.weak, rng.uniform(0.5, 2.0, n), ())  # unequal standard deviations
    step = rng.normal(size=n)
    line = mean_shift_line(model, step)
    ratio = line / step
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)  # along the step
    assert ratio[0] > 0
    assert np.linalg.norm(model.whiten(line)) == pytest.approx(expected_norm(n), rel=1e-12)
    assert mean_shift_line(model, np.zeros(n)) is None


def test_csa_generations_start_with_the_mean_shift_points_and_extras_do_not():
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * 10, seed=1, repair="none")  # the default: edamcc-sep-cc
    assert es.variant.name == "edamcc-sep-cc"
    x = es.ask()
    es.tell(x, np.sum(x**2, axis=1))  # the first fit: no step to follow yet
    assert not hasattr(es.model, "line")
    for _ in range(3):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
        model = es.model
        x = es.ask(2)
        np.testing.assert_array_equal(x[0], model.mean + model.line)
        np.testing.assert_array_equal(x[1], model.mean - model.line)
        extra = es.ask_extra(2)
        assert not np.any(np.all(np.isin(extra, x), axis=1))
        rest = es.ask()
        es.tell(np.concatenate([x, rest, extra]), np.sum(np.concatenate([x, rest, extra]) ** 2, axis=1))


# ----------------------------------------------------------------------------- two-point rule (edamcc-tpa)


def _asked(variant, n, generations=6):
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * n, variant=variant, seed=3, record_structure=False, repair="none")
    rows = []
    for _ in range(generations):
        x = es.ask()
        es.tell(x, np.sum((x - 1.0) ** 2, axis=1))
        rows.append(x)
    return np.concatenate(rows)


def test_edamcc_tpa_is_edamcc_csa_below_300_variables_and_two_point_from_300_on():
    np.testing.assert_array_equal(_asked("edamcc-tpa", 299), _asked("edamcc-csa", 299))
    tpa, csa = _asked("edamcc-tpa", 300), _asked("edamcc-csa", 300)
    assert tpa.shape == csa.shape and not np.array_equal(tpa, csa)
    np.testing.assert_array_equal(_asked(TPA_EVERYWHERE, 300), tpa)


def test_the_two_point_step_size_grows_on_a_linear_slope_and_shrinks_on_the_sphere():
    es, sigmas = _run(lambda x: x[:, 0], 10, 40, repair="none", variant=TPA_EVERYWHERE)
    assert sigmas[-1] > 3 * sigmas[10]
    assert es._run.adaptation.tpa > 0  # the point ahead ranked better, generation after generation
    es, sigmas = _run(lambda x: np.sum(x**2, axis=1), 10, 250, repair="none", variant=TPA_EVERYWHERE)
    assert es.best_f < 1e-8
    assert min(s for s in sigmas[5:] if s is not None) < 1e-3 * sigmas[5]


def _tpa_state(n=6):
    """An edamcc-tpa state with a mean-shift line, and the rows its sampler draws."""
    es, _ = _run(lambda x: np.sum(x**2, axis=1), n, 4, repair="none", variant=TPA_EVERYWHERE)
    state = es._run.adaptation
    assert state.two_point_from == 1 and state.line is not None
    rows = state.sampler.sample(np.random.default_rng(0), 9, 0)
    return state, rows


def test_the_two_point_rule_reads_the_ranks_of_the_two_points():
    state, rows = _tpa_state()
    values = np.array([0.0, 5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0])  # m' + l best, m' - l sixth of 9
    np.testing.assert_array_equal(state.line_values(rows, values), [0.0, 5.0])
    fitted = state.model  # any fit: sigma's change depends on the ranks alone
    after = state.update(values, fitted, 3.0, state.line_values(rows, values))
    z = (5 - 0) / 8  # (#f < f_-) - (#f < f_+), over lambda - 1
    s = 0.7 * state.tpa + 0.3 * np.sqrt(z)
    assert after.tpa == pytest.approx(s, rel=1e-15)
    assert after.sigma == pytest.approx(state.sigma * np.exp(s / two_point_damping(6, 9)), rel=1e-14)
    assert two_point_damping(6, 9) == pytest.approx(0.7 + 2 * np.log(6) + 2 * np.log(3))
    behind = state.update(values[[1, 0, 2, 3, 4, 5, 6, 7, 8]], fitted, 3.0, np.array([5.0, 0.0]))  # swapped: shrink
    assert behind.tpa == pytest.approx(0.7 * state.tpa - 0.3 * np.sqrt(z), rel=1e-15)


def test_without_the_two_points_the_step_size_follows_the_path():
    """Rows that are not exactly the mean-shift points (moved by a repair, replaced by an extra
    or an injected point, a failed trial) or without finite values: the cumulative rule."""
    state, rows = _tpa_state()
    values = np.arange(9.0)
    assert state.line_values(rows[1:], values[1:]) is None  # the first row is missing
    moved = rows.copy()
    moved[0, 3] = np.nextafter(moved[0, 3], np.inf)
    assert state.line_values(moved, values) is None
    assert state.line_values(rows, np.r_[np.nan, values[1:]]) is None
    assert replace(state, two_point_from=None).line_values(rows, values) is None  # edamcc-csa never reads them
    assert replace(state, two_point_from=7).line_values(rows, values) is None  # 6 variables: below the switch
    csa = replace(state, two_point_from=None).update(values, state.model, 3.0)
    tpa = state.update(values, state.model, 3.0, None)
    assert tpa.sigma == csa.sigma and tpa.tpa == state.tpa


def test_negative_weights_fall_with_rank_sum_to_minus_one_and_give_mu_eff_minus():
    for mu, count in ((2, 1), (5, 6), (8, 9), (50, 50)):
        w, mu_minus = negative_weights(mu, count)
        assert w.shape == (count,) and not w.flags.writeable
        assert np.all(w < 0) and np.all(np.diff(w) < 0)  # the worst row weighs most
        assert w.sum() == pytest.approx(-1.0)
        raw = np.log(mu + 0.5) - np.log(np.arange(mu + 1, mu + count + 1))
        np.testing.assert_allclose(w, raw / np.abs(raw).sum(), rtol=1e-15)
        assert mu_minus == pytest.approx(1.0 / np.sum(w**2))
    assert negative_weights(5, 6)[0] is negative_weights(5, 6)[0]


def _one_active_update(active, worst):
    n, mu = 4, 5
    w = recombination_weights(mu)
    mu_eff = 1.0 / np.sum(w**2)
    state = replace(_started(n, sigma=1.0), shape=np.array([0.5, 1.0, 1.5, 1.0]), active=active)
    selected = np.random.default_rng(3).normal(0.0, 1.0, (mu, n))
    fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
    values = np.arange(mu + (0 if worst is None else worst.shape[0]), dtype=float)
    return state, state.update(values, fitted, mu_eff, None, None, worst), fitted, mu_eff


def test_the_active_shape_update_is_the_tutorials_on_the_diagonal():
    """D^2 <- (1 - c1 - c_mu (1 - alpha)) D^2 + c1 p_c^2 + c_mu (sum_k w_k y_k^2 + sum_i w_i n / |y_i / D|^2 y_i^2)."""
    worst = np.random.default_rng(4).normal(0.0, 2.0, (6, 4))
    state, after, fitted, mu_eff = _one_active_update(True, worst)
    passive = _one_active_update(False, worst)[1]
    n, mu = 4, 5
    c1 = (n + 2.0) / 3.0 * 2.0 / ((n + 1.3) ** 2 + mu_eff)
    c_mu = min(1.0 - c1, 0.3 * (mu_eff + 2.0) / (n + 5.0))
    w, mu_minus = negative_weights(mu, 6)
    alpha = min(1.0 + c1 / c_mu, 1.0 + 2.0 * mu_minus / (mu_eff + 2.0), (1.0 - c1 - c_mu) / (n * c_mu))
    y = worst - state.model.mean  # sigma = 1
    rank_one = after.evolution**2
    positive = fitted.stds() ** 2 + (fitted.mean - state.model.mean) ** 2
    negative = (alpha * w * n / np.sum(y**2 / state.shape, axis=1)) @ y**2
    expected = (1.0 - c1 - c_mu + c_mu * alpha) * state.shape + c1 * rank_one + c_mu * (positive + negative)
    np.testing.assert_allclose(after.shape, expected / expected.mean(), rtol=1e-12)
    assert not np.allclose(after.shape, passive.shape)
    assert after.active and not passive.active


def test_without_worse_rows_the_active_update_is_the_passive_one():
    state, after, _, _ = _one_active_update(True, None)
    passive = _one_active_update(False, None)[1]
    np.testing.assert_array_equal(after.shape, passive.shape)
    np.testing.assert_array_equal(_one_active_update(True, np.empty((0, 4)))[1].shape, passive.shape)


def test_the_active_terms_model_metric_is_the_diagonals_for_a_diagonal_model():
    """With every variable weak and the model's variances sigma^2 D^2, the sampling model's metric
    is the diagonal's: active_metric="model" gives the same update up to rounding."""
    worst = np.random.default_rng(4).normal(0.0, 2.0, (6, 4))
    shape = np.array([0.5, 1.0, 1.5, 1.0])
    n, mu = 4, 5
    w = recombination_weights(mu)
    mu_eff = 1.0 / np.sum(w**2)
    selected = np.random.default_rng(3).normal(0.0, 1.0, (mu, n))
    fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
    values = np.arange(mu + 6, dtype=float)
    after = {}
    for metric in ("diagonal", "model"):
        state = replace(_started(n, sigma=2.0), shape=shape, active=True, active_metric=metric)
        state = replace(state, model=replace(state.model, weak_std=2.0 * np.sqrt(shape)))  # sigma D
        after[metric] = state.update(values, fitted, mu_eff, None, None, worst).shape
    np.testing.assert_allclose(after["model"], after["diagonal"], rtol=1e-12)


def test_the_active_terms_model_metric_reads_the_direction_and_keeps_the_shape_positive():
    """Beside a learned direction on variables 0-2, bad rows along it are shorter in the model's
    metric than in the diagonal's (1.5 t^2 against 3 t^2 here), so they take more variance from
    those variables, relative to the others, and the shape stays positive."""
    from edamcc.direction import DirectedGaussian

    n, mu = 6, 5
    w = recombination_weights(mu)
    mu_eff = 1.0 / np.sum(w**2)
    v = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    base = _started(n, sigma=1.0)
    scale = 1.0 / np.sqrt(1.0 + v * v)  # S: each variance stays sigma^2 D_i^2 = 1
    model = DirectedGaussian(replace(base.model, weak_std=scale), scale * v)  # sigma S D and u = sigma S D v, D = 1
    worst = np.outer(np.linspace(2.0, 4.0, 6), v)  # bad rows along the direction, t v
    np.testing.assert_allclose(model.squared_lengths(worst), 1.5 * np.linspace(2.0, 4.0, 6) ** 2, rtol=1e-12)
    selected = np.random.default_rng(3).normal(0.0, 1.0, (mu, n))
    fitted = fit_factorized(selected, np.arange(n), [], "emna", w)
    values = np.arange(mu + 6, dtype=float)
    ratio = {}
    for metric in ("diagonal", "model"):
        shape = replace(base, model=model, active=True, active_metric=metric).update(values, fitted, mu_eff, None, None, worst).shape
        assert np.all(shape > 0) and np.all(np.isfinite(shape))
        ratio[metric] = shape[:3].mean() / shape[3:].mean()
    assert ratio["model"] < ratio["diagonal"] < 1.0


def test_bad_rows_far_out_along_a_variable_shrink_its_variance():
    """The worst rows all stepped far along variable 0: the active update takes variance from it."""
    worst = np.zeros((6, 4))
    worst[:, 0] = 3.0
    active = _one_active_update(True, worst)[1]
    passive = _one_active_update(False, worst)[1]
    assert active.shape[0] / active.shape[1] < 0.8 * passive.shape[0] / passive.shape[1]
    assert np.all(active.shape > 0)


def test_close_generation_hands_the_step_size_the_finite_rows_below_the_selection():
    """Only the finite rows below the selection get negative weights; NaN and inf rows none."""
    from edamcc.generation import close_generation

    n = 3
    rules = Settings(variant="edamcc-csa", population_size=8).resolve(n, budget=1000)
    state = replace(_started(n, sigma=1.0), active=True)
    rows = np.random.default_rng(0).normal(size=(8, n))
    values = np.array([5.0, 1.0, np.nan, 3.0, 2.0, np.inf, 4.0, 0.5])
    seen = {}

    class Spy(StepSize):
        def update(self, *args, **kwargs):
            seen["worst"] = args[5]
            return super().update(*args, **kwargs)

    close_generation(None, np.inf, rows, values, rules, np.random.default_rng(1), adaptation=Spy(**vars(state)), fit_before=state.model)
    # finite ranks: 7, 1, 4, 3 selected (m = 4), then 6 and 0
    np.testing.assert_array_equal(seen["worst"], rows[[6, 0]])


# ----------------------------------------------------------------------------- line-free path (edamcc-sep-cc-lf)


def test_the_line_free_path_takes_the_two_points_share_out_of_the_step():
    """step = w_+ (x_+ - m) + w_- (x_- - m) + sum' w_k d_k: the path reads sum' w_k d_k / sqrt(mu_eff sum' w_k^2)."""
    n, mu = 5, 6
    rng = np.random.default_rng(0)
    w = recombination_weights(mu)
    mu_eff = effective_mu(mu)
    state = replace(_started(n), line=rng.normal(size=n), line_free_path=True)
    d = rng.normal(size=(mu, n))  # the selected rows' steps from the mean, best first
    for plus, minus in ((0, 3), (4, None), (None, 1), (None, None)):  # the ranks of the first two rows (None: not selected)
        first_two = [k for k in (plus, minus) if k is not None]
        others = [k for k in range(mu) if k not in first_two]
        share = w[first_two] @ d[first_two]
        step = share + w[others] @ d[others]
        expected = w[others] @ d[others] / np.sqrt(mu_eff * np.sum(w[others] ** 2))
        got = state.path_step(step, mu_eff, (share, float(np.sum(w[first_two] ** 2))))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    step = rng.normal(size=n)
    assert state.path_step(step, mu_eff, None) is step  # no share given: the step as it is
    two = recombination_weights(2)  # both selected rows are the two points: nothing else to read
    assert state.path_step(step, effective_mu(2), (step, float(np.sum(two**2)))) is step


def test_a_line_free_weight_mixes_the_two_readings():
    """line_free_path = a: (1 - a) step + a (the line-free step); True is a = 1, bit for bit."""
    n, mu = 5, 6
    rng = np.random.default_rng(1)
    mu_eff = effective_mu(mu)
    state = replace(_started(n), line=rng.normal(size=n))
    step, share = rng.normal(size=n), rng.normal(size=n)
    squares = float(np.sum(recombination_weights(mu)[:2] ** 2))
    free = replace(state, line_free_path=True).path_step(step, mu_eff, (share, squares))
    np.testing.assert_array_equal(replace(state, line_free_path=1.0).path_step(step, mu_eff, (share, squares)), free)
    for a in (0.25, 0.75):
        np.testing.assert_allclose(replace(state, line_free_path=a).path_step(step, mu_eff, (share, squares)), (1 - a) * step + a * free, rtol=1e-14)


def test_close_generation_hands_the_line_free_path_the_first_two_rows_share():
    """sum_k w_k (x_k - m) and sum_k w_k^2 over the block's first two rows (w_k = 0: not selected),
    whenever the state has a line (also for rows a repair moved), and only for a line-free path."""
    from edamcc.generation import close_generation

    state, rows = _tpa_state()
    state = replace(state, two_point_from=None, line_free_path=True)
    rules = Settings(variant="edamcc-sep-cc-lf", population_size=9).resolve(6, budget=1000)
    w = recombination_weights(rules.n_selected)
    seen = {}

    class Spy(StepSize):
        def update(self, *args, **kwargs):
            seen["line_share"] = args[6]
            return super().update(*args, **kwargs)

    def share_of(values, rows=rows, state=state):
        close_generation(None, np.inf, rows, values, rules, np.random.default_rng(1), adaptation=Spy(**vars(state)), fit_before=state.model)
        return seen["line_share"]

    moved = rows.copy()
    moved[0] = np.clip(moved[0], -0.01, 0.01)  # as a repair would move it
    for first, second, values in ((w[0], 0.0, [0.0, 5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]),  # m' - l ranks sixth: not selected
                                  (0.0, w[1], [8.0, 1.0, 0.0, 2.0, 3.0, 4.0, 6.0, 7.0, 5.0]),
                                  (0.0, w[1], [np.nan, 1.0, 0.0, 2.0, 3.0, 4.0, 6.0, 7.0, 5.0])):  # a failed point: not selected
        for block in (rows, moved):
            share, squares = share_of(np.array(values), rows=block)
            np.testing.assert_allclose(share, first * (block[0] - state.model.mean) + second * (block[1] - state.model.mean), rtol=1e-14)
            assert squares == pytest.approx(first**2 + second**2, rel=1e-15)
    assert share_of(np.arange(9.0), state=replace(state, line_free_path=False)) is None  # edamcc-sep-cc: never
    assert share_of(np.arange(9.0), state=replace(state, line=None)) is None  # no line yet (a run's second generation)


def test_the_line_free_path_is_edamcc_sep_cc_at_first_and_does_not_stall_on_a_max_function():
    """The same first generations (the path sets sigma from the second fit on). On max_i |x_i|
    at n = 30, edamcc-sep-cc stalls away from the optimum and the line-free path goes on."""

    def run(variant, seed, generations):
        es = EDAMCCStrategy(bounds=[(-100.0, 100.0)] * 30, variant=variant, seed=seed, record_structure=False)
        for _ in range(generations):
            x = es.ask()
            es.tell(x, np.max(np.abs(x), axis=1))
        return es

    base, free = run("edamcc-sep-cc", 0, 2), run("edamcc-sep-cc-lf", 0, 2)
    np.testing.assert_array_equal(base.model.mean, free.model.mean)
    assert base.step_size == free.step_size
    for seed in (0, 1):
        assert run("edamcc-sep-cc", seed, 1500).best_f > 1e-3  # 0.073 and 0.69 when written
        assert run("edamcc-sep-cc-lf", seed, 1500).best_f < 1e-5  # 1.1e-7 and below when written


def test_rescaled_multiplies_the_step_size_the_model_and_the_line_alike():
    es, _ = _run(lambda x: np.sum(x**2, axis=1), 12, 6, variant="edamcc-sep-cc")
    state = es._run.adaptation
    scaled = state.rescaled(1.5)
    assert scaled.sigma == pytest.approx(1.5 * state.sigma) and scaled.best_f == state.best_f
    np.testing.assert_allclose(scaled.model.stds(), 1.5 * state.model.stds())
    np.testing.assert_allclose(scaled.line, 1.5 * state.line)
    np.testing.assert_array_equal(scaled.shape, state.shape)  # the shape is the scale's, untouched
    assert (scaled.rank_one_path, scaled.active) == (state.rank_one_path, state.active)


def test_shape_rates_are_the_documented_ones():
    c1, c_mu = shape_rates(100, 5.0)
    assert c1 == pytest.approx(102 / 3 * 2 / (101.3**2 + 5.0))
    assert c_mu == pytest.approx(0.3 * 7.0 / 105.0)
    assert sum(shape_rates(1, 1.0)) <= 1.0  # c_mu at most 1 - c_1
