"""Stopping criteria (edamcc.stopping), and the strategy's should_stop on a constant objective."""

import numpy as np
import pytest

from edamcc import EDAMCCStrategy
from edamcc.stopping import FLAT_GENERATIONS, Progress, no_progress_window, stop_reason


def reason(**kw):
    base = dict(evaluations=10, budget=None, best_f=1.0, target=None, max_std=1.0, best_history=[], spreads=[], window=5)
    return stop_reason(**(base | kw))


def test_each_criterion_in_order():
    assert reason() is None
    assert "budget" in reason(budget=10)
    assert "target" in reason(target=1.0)
    assert "collapsed" in reason(max_std=0.0)
    assert "no progress" in reason(best_history=[1.0] * 5, spreads=[1.0] * 4 + [0.0])
    assert reason(best_history=[1.5] + [1.0] * 4, spreads=[1.0] * 4 + [0.0]) is None  # moved in the window
    assert reason(best_history=[1.0] * 5, spreads=[0.0] * 4 + [1e-13]) is None  # the last values still differ
    assert "flat fitness" in reason(spreads=[0.0] * FLAT_GENERATIONS)
    assert reason(spreads=[0.0] * (FLAT_GENERATIONS - 1)) is None


def test_the_window_follows_pycmas_tolfun_history():
    assert no_progress_window(100, 200) == 25 and no_progress_window(10, 10) == 40


def test_an_ask_tell_loop_on_a_constant_objective_stops():
    es = EDAMCCStrategy(bounds=[(-1, 1)] * 5, population_size=10, seed=0, variant="edamcc")
    while not es.should_stop():
        x = es.ask()
        es.tell(x, np.full(len(x), 3.0))
        assert es.generation < 100
    assert "flat fitness" in es.stop_reason or "no progress" in es.stop_reason


def test_a_generation_with_one_finite_value_has_no_spread():
    progress = Progress()
    progress.add(1.0, np.array([1.0, np.nan, np.inf]))
    progress.add(0.5, np.array([np.nan, np.nan]))
    progress.add(0.5, np.array([2.0, 2.0, np.nan]))
    assert np.isnan(progress.spreads[0]) and np.isnan(progress.spreads[1]) and progress.spreads[2] == 0.0


def test_mostly_failing_generations_with_new_values_are_not_flat():
    es = EDAMCCStrategy(bounds=[(-1, 1)] * 3, variant="edamcc", population_size=10, seed=0)
    for g in range(3 * FLAT_GENERATIONS):
        x = es.ask()
        f = np.full(len(x), np.nan)
        f[0] = 100.0 - g  # one evaluation succeeds per generation, each with a new value
        es.tell(x, f)
    assert es.stop_reason is None


def test_values_spanning_more_than_the_doubles_give_an_infinite_spread_without_a_warning():
    import warnings

    progress = Progress()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # np.ptp warned on overflow, and under -W error tell failed after the ledger closed
        progress.add(-1.7e308, np.array([-1.7e308, 1.7e308, 0.0]))
    assert progress.spreads == [np.inf]


@pytest.mark.parametrize("variant", ["edamcc-sep-cc", "edamcc-adaptive", "edamcc-vd"])
def test_a_model_that_diverges_without_repair_stops_before_it_asks_a_point_that_is_not_finite(variant):
    # f = sum(x) has no minimum once the box is not enforced: the step size grew until its draws
    # overflowed, and the run asked inf and NaN points to the end of the budget (edamcc-vd raised LinAlgError)
    import warnings

    es = EDAMCCStrategy(bounds=[(-1, 1)] * 3, seed=0, budget=30_000, variant=variant, repair="none")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        while not es.should_stop():
            x = es.ask()
            assert np.isfinite(x).all()
            es.tell(x, x.sum(axis=1))
    assert es.stop_reason.startswith("the model diverged: a standard deviation") and es.evaluations < 30_000
    assert not es.restarts  # a restart would diverge again
