"""One run between restarts (edamcc.run)."""

import copy
from dataclasses import replace

import numpy as np
import pytest

from edamcc import VARIANTS, Settings
from edamcc.generation import close_generation
from edamcc.models import FactorizedGaussian, UniformModel
from edamcc.population_size import step_size_factor
from edamcc.run import Run
from edamcc.step_size import StepSize

N = 6
LOWER, UPPER = np.full(N, -5.0), np.full(N, 5.0)


def _run(variant="edamcc-sep-cc", population_size=12):
    return Run(Settings(population_size=population_size, variant=variant).resolve(N), LOWER, UPPER)


def _close(run, rng, values=None):
    rows = run.model.sample(rng, run.rules.population_size, 0)
    return rows, run.close(rows, np.sum(rows**2, axis=1) if values is None else values, rng, None)


def test_a_run_starts_uniform_in_the_box_with_no_elite_and_the_variants_scale_state():
    run = _run()
    assert isinstance(run.model, UniformModel) and run.fit is run.model
    assert isinstance(run.adaptation, StepSize) and run.adaptation.model is None
    assert run.elite_x is None and run.elite_f == np.inf and run.progress.best == []
    assert run.population is None  # no population_adaptation
    assert _run("edamcc").adaptation is None  # the paper's variant: the ML fit, no scale state
    assert run.window == 10 + int(np.ceil(30 * N / 12))


def test_closing_a_generation_keeps_its_best_row_and_samples_next_from_its_fit():
    run, rng = _run(), np.random.default_rng(0)
    rows, (fitted, resized) = _close(run, rng)
    best = int(np.argmin(np.sum(rows**2, axis=1)))
    assert resized is None
    np.testing.assert_array_equal(run.elite_x, rows[best])
    assert run.fit is fitted.model and isinstance(run.fit, FactorizedGaussian)
    assert run.model is run.adaptation.model  # the step size's model (the mean-shift samples come from the second fit on)


def test_a_generation_with_one_finite_value_changes_neither_model_nor_fit():
    run, rng = _run(), np.random.default_rng(1)
    _close(run, rng)
    model, fit = run.model, run.fit
    values = np.full(run.rules.population_size, np.nan)
    values[3] = 1e9
    _, (fitted, resized) = _close(run, rng, values)
    assert fitted is None and resized is None
    assert run.model is model and run.fit is fit


def test_a_population_rule_on_noise_changes_the_rules_and_the_step_size_together():
    variant = replace(VARIANTS["edamcc-sep-cc"], name="sep-cc-psa", population_adaptation="psa")
    run, rng = _run(variant), np.random.default_rng(2)
    first = run.rules.population_size
    for _ in range(60):
        rows = run.model.sample(rng, run.rules.population_size, 0)
        values = rng.random(rows.shape[0])  # values that ignore the rows: noise
        twin, twin_rng = copy.deepcopy(run), copy.deepcopy(rng)
        twin.population = None  # the same generation without the population rule
        selected = run.rules.n_selected
        _, resized = run.close(rows, values, rng, None)
        twin.close(rows, values, twin_rng, None)
        if resized is not None:
            break
    assert resized is not None and resized > first
    assert run.rules.population_size == resized and run.rules.n_selected == resized // 2
    factor = step_size_factor(N, selected, run.rules.n_selected)  # "psa" corrects sigma for the larger selection
    assert factor > 1.0 and run.adaptation.sigma == pytest.approx(twin.adaptation.sigma * factor, rel=1e-12)
    assert run.model.model is run.adaptation.model  # the rescaled model, with its mean-shift samples
    np.testing.assert_array_equal(run.model.line, run.adaptation.line)


def test_restart_and_stop_reasons_read_the_runs_model_and_progress():
    run, rng = _run(), np.random.default_rng(3)
    assert run.restart_reason() is None
    assert run.stop_reason(evaluations=5, budget=5, best_f=1.0, target=None).startswith("budget")
    assert run.stop_reason(evaluations=5, budget=None, best_f=1.0, target=2.0).startswith("target")
    assert run.stop_reason(evaluations=5, budget=None, best_f=1.0, target=None) is None
    for _ in range(run.window - 1):  # a best that does not move, generations that still spread
        run.progress.add(1.0, np.array([1.0, 2.0]))
    assert run.restart_reason() is None and run.stop_reason(evaluations=5, budget=None, best_f=1.0, target=None) is None
    run.progress.add(1.0, np.ones(4))  # and then a flat one: pycma's tolfun over the whole window
    assert run.restart_reason().startswith("no progress")
    assert run.stop_reason(evaluations=5, budget=None, best_f=1.0, target=None).startswith("no progress")
    adaptive = _run("edamcc-adaptive")  # no step size: no tolfun, its own tests only
    for _ in range(adaptive.window):
        adaptive.progress.add(1.0, np.ones(4))
    assert adaptive.restart_reason() is None


@pytest.mark.parametrize("variant", ["edamcc", "edamcc-adaptive", "edamcc-sep-cc"])
def test_close_is_the_generation_rule_on_the_runs_state(variant):
    run, rng = _run(variant), np.random.default_rng(4)
    for _ in range(5):
        rows = run.model.sample(rng, run.rules.population_size, 0)
        values = np.sum(rows**2, axis=1)
        expected = close_generation(run.elite_x, run.elite_f, rows, values, run.rules, copy.deepcopy(rng), adaptation=run.adaptation,
                                    fit_before=run.fit)  # fmt: skip
        fitted, _ = run.close(rows, values, rng, None)
        np.testing.assert_array_equal(run.elite_x, expected.elite_x)
        np.testing.assert_array_equal(fitted.model.mean, expected.fitted.model.mean)
        np.testing.assert_array_equal(fitted.weak, expected.fitted.weak)
        np.testing.assert_array_equal(run.model.sample(copy.deepcopy(rng), 3), expected.model.sample(copy.deepcopy(rng), 3))
        assert getattr(run.adaptation, "sigma", None) == getattr(expected.adaptation, "sigma", None)
        assert getattr(run.adaptation, "multiplier", None) == getattr(expected.adaptation, "multiplier", None)
