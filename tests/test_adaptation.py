"""Adaptive variance scaling and anticipated mean shift (edamcc.adaptation)."""

import math

import numpy as np

from edamcc import EDAMCCStrategy
from edamcc.adaptation import AMS_DELTA, AMS_FRACTION, ETA_DEC, Adaptation, stall_limit
from edamcc.models import FactorizedGaussian, ShiftedModel


def gaussian(mean, std):
    mean = np.asarray(mean, dtype=float)
    return FactorizedGaussian(mean, np.arange(mean.size), np.full(mean.size, float(std)), ())


def test_improvements_far_from_the_mean_grow_the_multiplier():
    state = Adaptation(best_f=10.0)
    before = gaussian([0.0, 0.0], 1.0)
    rows = np.array([[3.0, 0.0], [0.1, 0.1]])
    grown = state.update(rows, np.array([1.0, 20.0]), before, np.array([1.5, 0.0]))
    assert grown.multiplier == 1.0 / ETA_DEC and grown.stalled == 0 and grown.best_f == 1.0
    near = state.update(np.array([[0.5, 0.0]]), np.array([1.0]), before, None)
    assert near.multiplier == 1.0  # SDR 0.5 <= 1: improvement near the mean, no growth


def test_generations_without_improvement_shrink_it_to_one_then_below_after_the_stall_limit():
    before = gaussian([0.0], 1.0)
    state = Adaptation(multiplier=2.0, best_f=0.0)
    state = state.update(np.array([[1.0]]), np.array([5.0]), before, None)
    assert state.multiplier == 2.0 * ETA_DEC and state.stalled == 1
    state = Adaptation(multiplier=1.0, stalled=0, best_f=0.0)
    for _ in range(stall_limit(1) - 1):
        state = state.update(np.array([[1.0]]), np.array([5.0]), before, None)
    assert state.multiplier == 1.0
    state = state.update(np.array([[1.0]]), np.array([5.0]), before, None)
    assert state.multiplier == ETA_DEC


def test_the_mean_shift_moves_a_fraction_of_the_samples_along_the_last_step():
    state = Adaptation(multiplier=4.0, best_f=1.0, shift=np.array([1.0, -1.0]))
    model = state.sampling_model(gaussian([0.0, 0.0], 1.0))
    assert isinstance(model, ShiftedModel)
    np.testing.assert_allclose(model.model.stds(), [2.0, 2.0])  # covariance times 4
    x = model.sample(np.random.default_rng(0), 8)
    y = model.model.sample(np.random.default_rng(0), 8)
    k = math.floor(AMS_FRACTION * 8)
    np.testing.assert_allclose(x[:k] - y[:k], np.tile(AMS_DELTA * 4.0 * np.array([1.0, -1.0]), (k, 1)))
    np.testing.assert_array_equal(x[k:], y[k:])


def test_on_a_linear_slope_the_multiplier_grows():
    es = EDAMCCStrategy(bounds=[(-1, 1)] * 10, variant="edamcc-adaptive", seed=0, population_size=30, repair="none")
    while es.generation < 40:
        x = es.ask()
        es.tell(x, x.sum(axis=1))
    assert es.multiplier > 5  # the paper's ML fit alone shrinks its variances on a slope
    assert es.best_f < -100
