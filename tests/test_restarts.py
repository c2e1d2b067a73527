"""Restarts of the self-adaptive variant (edamcc.restarts)."""

import numpy as np

from edamcc import EDAMCCStrategy
from edamcc.models import FactorizedGaussian
from edamcc.restarts import RESTART_TOL_FUN, TOL_MULTIPLIER, next_population_size, restart_reason
from edamcc.stopping import Progress


def test_restart_reasons():
    lo, hi = np.zeros(2), np.ones(2)
    wide = FactorizedGaussian(np.zeros(2), np.arange(2), np.ones(2), ())
    tiny = FactorizedGaussian(np.zeros(2), np.arange(2), np.full(2, 1e-13), ())
    assert restart_reason(wide, 1.0, lo, hi) is None
    assert "below" in restart_reason(tiny, 1.0, lo, hi)
    assert "multiplier" in restart_reason(wide, TOL_MULTIPLIER / 2, lo, hi)
    assert next_population_size(34) == 68


def test_tolfun_restarts_only_with_a_progress_record_that_stopped_moving():
    lo, hi = np.zeros(2), np.ones(2)
    wide = FactorizedGaussian(np.zeros(2), np.arange(2), np.ones(2), ())
    progress = Progress()
    for _ in range(5):
        progress.add(1.0, np.array([1.0, 1.0 + RESTART_TOL_FUN / 2]))
    assert restart_reason(wide, None, lo, hi) is None  # no record given (edamcc-adaptive): no tolfun
    assert restart_reason(wide, None, lo, hi, progress, window=6) is None  # too short a record
    assert "no progress" in restart_reason(wide, None, lo, hi, progress, window=5)
    progress.add(1.0, np.array([1.0, 1.0 + 2 * RESTART_TOL_FUN]))  # the last generation still spreads
    assert restart_reason(wide, None, lo, hi, progress, window=5) is None
    progress.add(1.0 - 2 * RESTART_TOL_FUN, np.array([1.0 - 2 * RESTART_TOL_FUN] * 2))  # the best value still moves
    assert restart_reason(wide, None, lo, hi, progress, window=5) is None


def test_a_csa_run_on_a_plateau_restarts_long_before_its_model_collapses():
    # a quantized sphere: inside the unit ball every value is 0, selection is random there and
    # the step size stops shrinking, so only tolfun can end the run
    es = EDAMCCStrategy(bounds=[(-5, 5)] * 6, variant="edamcc-csa", seed=1, record_structure=False)
    for _ in range(2000):
        x = es.ask()
        es.tell(x, np.floor(np.sum(x**2, axis=1)))
        if es.restarts:
            break
    assert es.restarts and es.restarts[0]["reason"].startswith("no progress")
    assert es.model.max_std > 1e-6  # the new run's model, and the old one was far from collapsing too


def test_a_stuck_run_restarts_with_twice_the_population_and_keeps_best_evaluations_and_record():
    es = EDAMCCStrategy(bounds=[(-1, 1)] * 4, variant="edamcc-adaptive", population_size=10, seed=0)
    x = es.ask()
    es.tell(x, np.where(np.arange(10) == 3, -1.0, 0.0))  # one good point, then a flat plateau
    for _ in range(400):
        x = es.ask()
        extra = es.ask_extra(1)  # the next generation's first row, still running when this one closes
        es.tell(x, np.zeros(len(x)))
        if es.restarts:
            break
        es.tell(extra, [0.0])
    # on the plateau the model shrinks until the run is stuck
    assert es.restarts and ("below" in es.restarts[0]["reason"] or "multiplier" in es.restarts[0]["reason"])
    assert es.population_size == 20 and es.restarts[0]["population_size"] == 20
    assert es.best_f == -1.0 and not es.should_stop()
    np.testing.assert_array_equal(es.pending(), extra)
    es.tell(extra, [5.0])  # accepted after the restart, used by no generation
    assert es.evaluations == es.restarts[0]["evaluations"] + 1 and es.n_in_flight == 0
    assert es.ask().shape == (20, 4)  # the new run: M uniform rows


def test_a_stuck_run_stops_for_good_once_its_restarts_are_used(monkeypatch):
    # a quantized sphere with noise below tolfun: each run is stuck once inside the unit ball,
    # but no value ever repeats, so only the restart rule can end it
    import edamcc.strategy

    monkeypatch.setattr(edamcc.strategy, "MAX_RESTARTS", 1)  # the same rule as with 9, sooner
    rng = np.random.default_rng(0)
    es = EDAMCCStrategy(bounds=[(-5, 5)] * 4, variant="edamcc-csa", seed=1, record_structure=False)
    for _ in range(5000):
        if es.should_stop():
            break
        x = es.ask()
        assert np.isfinite(x).all()
        es.tell(x, np.floor(np.sum(x**2, axis=1)) + 1e-13 * rng.random(len(x)))
    assert len(es.restarts) == 1 and es.stop_reason.endswith("after 1 restarts")
    assert es.stop_reason.startswith(("no progress", "every standard deviation"))
    sigma, mean = es.step_size, es.model.mean.copy()
    for k in range(300):  # a user who goes on anyway: the run stays stopped, its last model stays
        x = es.ask()
        assert np.isfinite(x).all()
        es.tell(x, np.arange(len(x), dtype=float) if k == 0 else rng.random(len(x)))
    assert es.should_stop() and es.stop_reason.endswith("after 1 restarts")
    assert es.step_size == sigma and np.array_equal(es.model.mean, mean)
