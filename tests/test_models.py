"""The Gaussian models (edamcc.models): fits recover what they should, samples stay finite."""

import numpy as np

from edamcc.models import FactorizedGaussian, GaussianBlocks, fit_chain, fit_factorized, fit_univariate


def test_factorized_gaussian_recovers_block_covariances():
    rng = np.random.default_rng(0)
    cov = np.array([[2.0, 0.8], [0.8, 1.0]])
    data = rng.multivariate_normal([1.0, -1.0], cov, size=200_000)
    data = np.column_stack([data, rng.normal(3.0, 0.5, size=200_000)])
    model = fit_factorized(data, np.array([2]), [np.array([[0, 1]])], "emna")
    sample = model.sample(np.random.default_rng(1), 200_000)
    np.testing.assert_allclose(sample.mean(axis=0), [1.0, -1.0, 3.0], atol=0.02)
    np.testing.assert_allclose(np.cov(sample[:, :2], rowvar=False), cov, atol=0.03)
    assert abs(sample[:, 2].std() - 0.5) < 0.01
    assert abs(np.corrcoef(sample[:, 1], sample[:, 2])[0, 1]) < 0.01  # groups independent


def test_weighted_fit_is_the_weighted_mean_and_covariance_of_weak_and_grouped_variables():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(12, 7)) * np.arange(1, 8) + np.arange(7)
    w = np.log(12.5) - np.log(np.arange(1, 13))
    w /= w.sum()
    weak = np.array([0, 3, 6])
    groups = [np.array([[1, 5], [2, 4]])]
    model = fit_factorized(x, weak, groups, "emna", w)
    mean = w @ x
    cov = (x - mean).T @ ((x - mean) * w[:, None])  # sum_k w_k d_k d_k^T
    np.testing.assert_allclose(model.mean, mean, rtol=1e-13)
    np.testing.assert_allclose(model.weak_std, np.sqrt(np.diag(cov)[weak]), rtol=1e-13)
    for g, index in enumerate(groups[0]):
        factor = model.blocks[0].factor[g]
        np.testing.assert_allclose(factor.T @ factor, cov[np.ix_(index, index)], rtol=1e-12, atol=1e-12)


def test_rank_deficient_groups_sample_finite_values():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(10, 30))  # m = 10 rows, one group of 30: rank <= 9
    for scaling in ("eeda", "emna"):
        model = fit_factorized(data, np.array([], dtype=np.intp), [np.arange(30)[None, :]], scaling)
        out = model.sample(rng, 50)
        assert np.all(np.isfinite(out))
        f = model.blocks[0].factor[0]
        eig = np.linalg.eigvalsh(f.T @ f)
        assert eig.min() > -1e-12
        if scaling == "eeda":  # the largest eigenvalue twice: the reset lifted a zero eigenvalue
            np.testing.assert_allclose(eig[-2], eig[-1], rtol=1e-9)


def test_single_variable_group_is_univariate_under_eeda():
    data = np.random.default_rng(0).normal(2.0, 3.0, size=(500, 1))
    eeda = fit_factorized(data, np.array([], dtype=np.intp), [np.array([[0]])], "eeda")
    umda = fit_univariate(data)
    np.testing.assert_allclose(abs(eeda.blocks[0].factor[0, 0, 0]), umda.weak_std[0])


def test_mimic_chain_follows_the_strongest_conditional_dependencies():
    rng = np.random.default_rng(0)
    a = rng.normal(size=5000)
    b = a + 0.1 * rng.normal(size=5000)
    c = b + 0.1 * rng.normal(size=5000)
    data = np.column_stack([c, rng.normal(size=5000) * 3, a * 0.1])
    model = fit_chain(data)
    assert model.order[0] == 2  # least variance first
    assert model.order.tolist() == [2, 0, 1]
    sample = model.sample(np.random.default_rng(1), 50_000)
    np.testing.assert_allclose(np.corrcoef(sample[:, 0], sample[:, 2])[0, 1], np.corrcoef(data[:, 0], data[:, 2])[0, 1], atol=0.01)


def test_line_samples_put_the_mean_shift_points_first_in_a_generation():
    from edamcc.models import LineSamples

    rng = np.random.default_rng(0)
    base = fit_univariate(rng.normal(size=(30, 5)))
    line = np.arange(1.0, 6.0)
    model = LineSamples(base, line)
    x = model.sample(np.random.default_rng(1), 6, 0)
    np.testing.assert_array_equal(x[0], base.mean + line)
    np.testing.assert_array_equal(x[1], base.mean - line)
    np.testing.assert_array_equal(x[2:], base.sample(np.random.default_rng(1), 4))  # the rest: the model's draws
    np.testing.assert_array_equal(model.sample(rng, 3, 1)[0], base.mean - line)  # the block's second row first
    np.testing.assert_array_equal(model.sample(rng, 1, 0), (base.mean + line)[None, :])
    for first in (2, 5, None):  # later rows of the block, and extras beyond it: the model's draws only
        np.testing.assert_array_equal(model.sample(np.random.default_rng(2), 4, first), base.sample(np.random.default_rng(2), 4))
    assert model.max_std == base.max_std and np.array_equal(model.stds(), base.stds()) and model.mean is base.mean


def _grouped_model(seed: int) -> tuple[FactorizedGaussian, np.ndarray]:
    """Weak variables 0 and 5, groups (1, 4) and (2, 3) with full factors; and its covariance."""
    rng = np.random.default_rng(seed)
    factor = rng.standard_normal((2, 2, 2)) + 2.0 * np.eye(2)
    weak = np.array([0, 5])
    model = FactorizedGaussian(rng.standard_normal(6), weak, np.array([0.5, 3.0]), (GaussianBlocks(np.array([[1, 4], [2, 3]]), factor),))
    cov = np.zeros((6, 6))
    cov[weak, weak] = model.weak_std**2
    for index, f in zip(model.blocks[0].index, factor):
        cov[np.ix_(index, index)] = f.T @ f  # a group's covariance, as its samples z @ factor have it
    return model, cov


def test_squared_lengths_are_the_mahalanobis_lengths_and_whiten_rows_whitens_each_row():
    model, cov = _grouped_model(4)
    steps = np.random.default_rng(5).standard_normal((5, 6))
    np.testing.assert_allclose(model.squared_lengths(steps), np.einsum("ij,ij->i", steps, np.linalg.solve(cov, steps.T).T), rtol=1e-10)
    rows = model.whiten_rows(steps)
    for step, row in zip(steps, rows):
        np.testing.assert_allclose(model.whiten(step), row, rtol=1e-12)  # each row as whiten gives it (to rounding)
    w = model.whiten_rows(np.eye(6)).T  # the whitening matrix, column by column
    np.testing.assert_allclose(w @ cov @ w.T, np.eye(6), atol=1e-10)


def test_precision_dot_is_the_inverse_covariance_times_the_vector():
    model, cov = _grouped_model(3)
    u = np.random.default_rng(3).standard_normal(6)
    np.testing.assert_allclose(model.precision_dot(u), np.linalg.solve(cov, u), rtol=1e-10)
