"""Population size adaptation within a run (edamcc.population_size)."""

import copy
import pickle
from dataclasses import replace

import numpy as np
import pytest

from edamcc import VARIANTS, EDAMCCStrategy
from edamcc.population_size import ALPHA, MAX_GROWTH, PopulationSize, expected_change, sigma_hat, step_size_factor
from edamcc.step_size import effective_mu, shape_rates


PSA = replace(VARIANTS["edamcc-sep-cc"], name="sep-cc-psa", population_adaptation="psa")  # as benchmarks/peers.py's experiments
PATH = replace(PSA, name="sep-cc-psa-path", population_adaptation="path")


def _drive(state: PopulationSize, steps: np.ndarray, n: int, mu_eff: float) -> PopulationSize:
    c1, c_mu = shape_rates(n, mu_eff)
    for step in steps:
        state = state.update(step, np.ones(n), np.ones(n), mu_eff, c1, c_mu)
    return state


def test_noise_grows_the_population_and_agreeing_steps_shrink_it_within_its_bounds():
    n, mu_eff = 40, effective_mu(8)
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((60, n)) / np.sqrt(mu_eff)  # a step under random selection: E|step|^2 = n / mu_eff
    grown = _drive(PopulationSize(16.0, 16), noise, n, mu_eff)
    assert grown.lam > 100 and grown.population_size == round(grown.lam)
    assert grown.gamma == pytest.approx(1.0, abs=1e-9)  # (1 - beta)^(2t) has vanished
    agreeing = np.tile(2.0 * np.sqrt(ALPHA * n / mu_eff) * np.eye(n)[0], (60, 1))  # the same long step every time
    assert _drive(grown, agreeing, n, mu_eff).population_size == 16  # back to the run's first population, not below
    assert _drive(PopulationSize(16.0, 16), np.tile(noise, (20, 1)), n, mu_eff).lam == MAX_GROWTH * 16  # capped


def test_a_non_finite_change_leaves_the_state_alone_and_sigma_grows_with_the_selection():
    state = PopulationSize(16.0, 16)
    assert state.update(np.array([np.nan, 0.0]), np.ones(2), np.ones(2), 4.0, 0.1, 0.1) is state
    assert expected_change(10, 4.0, 0.1, 0.2) == pytest.approx(10 / 4 + 10 * (0.04 / 4 + 0.01))
    assert sigma_hat(10, 4.0) == pytest.approx(40 / 13)
    assert step_size_factor(10, 8, 8) == 1.0 and step_size_factor(10, 8, 16) > 1.0 > step_size_factor(10, 16, 8)


def test_the_path_rule_reads_at_the_step_size_paths_rate_and_leaves_sigma_alone():
    mu_eff = effective_mu(8)
    path = PopulationSize.start("path", 100, 17, 8)
    assert path.rate == pytest.approx((mu_eff + 2.0) / (100 + mu_eff + 5.0)) and path.lam == 17.0 and path.smallest == 17
    assert not path.corrects and path.step_size_factor(100, 8, 16) == 1.0
    psa = PopulationSize.start("psa", 100, 17, 8)
    assert psa.rate == 0.4 and psa.corrects and psa.step_size_factor(100, 8, 16) == step_size_factor(100, 8, 16)
    with pytest.raises(ValueError, match="^population_adaptation: expected one of"):
        PopulationSize.start("fast", 100, 17, 8)


def _noise_run(seed: int = 3, variant=PSA, generations: int = 12) -> EDAMCCStrategy:
    """A run with population size adaptation on values that carry no information: its population grows."""
    es = EDAMCCStrategy(bounds=[(-1e6, 1e6)] * 20, variant=variant, seed=seed, record_pairs=False)
    values = np.random.default_rng(seed)
    while es.generation < generations:
        x = es.ask()
        es.tell(x, values.random(len(x)))
    return es


@pytest.mark.parametrize("variant", [PSA, PATH], ids=["psa", "path"])
def test_a_run_on_noise_grows_its_population_without_a_restart_and_each_generation_has_its_size(variant):
    es = _noise_run(variant=variant, generations=40)
    first = EDAMCCStrategy(bounds=[(-1.0, 1.0)] * 20, variant="edamcc-sep-cc").population_size
    assert es.restarts == [] and es.population_size > 2 * first
    assert es.ask().shape == (es.population_size, 20)  # the open generation: a block of the new size
    assert es.n_selected == es.population_size // 2


def test_rows_asked_beyond_a_generation_keep_their_place_when_the_population_changes():
    es = _noise_run()
    values = np.random.default_rng(9)
    x = es.ask()
    extra = es.ask_extra(3)
    before, generation, told = es.population_size, es.generation, es.evaluations
    es.tell(x, values.random(len(x)))  # closes the generation; the extras are in flight
    assert es.generation == generation + 1 and es.n_in_flight == 3
    assert es.population_size != before  # the population changed at this close
    nxt = es.ask()
    assert nxt.shape[0] == es.population_size - 3  # the extras are the new generation's first rows
    es.tell(extra, values.random(3))
    es.tell(nxt, values.random(len(nxt)))
    assert es.generation == generation + 2 and es.evaluations == told + len(x) + 3 + len(nxt)
    assert es.n_in_flight == 0  # nothing orphaned: every row told joined a generation


@pytest.mark.parametrize("clone", [lambda es: pickle.loads(pickle.dumps(es)), copy.deepcopy], ids=["pickle", "deepcopy"])
def test_a_copied_run_changes_its_population_as_the_original_does_with_rows_in_flight(clone):
    es = _noise_run()
    start = es.population_size
    x = es.ask(5)
    extra = es.ask_extra(2)
    twin = clone(es)
    values, twin_values = np.random.default_rng(5), np.random.default_rng(5)
    sizes = []
    for run in (es, twin):
        rng = values if run is es else twin_values
        run.tell(np.concatenate([extra, x]), rng.random(7))
        for _ in range(6):
            rows = run.ask()
            run.tell(rows, rng.random(len(rows)))
        sizes.append((run.population_size, run.step_size, run.generation, run.evaluations))
    assert sizes[0] == sizes[1] and sizes[0][0] != start  # the population changed on the way, alike in both
    np.testing.assert_array_equal(es.ask(), twin.ask())


def test_the_optuna_sampler_refuses_a_population_that_changes():
    optuna_sampler = pytest.importorskip("edamcc.adapters.optuna_sampler")
    with pytest.raises(ValueError, match="^variant: 'sep-cc-psa' changes its population within a run"):
        optuna_sampler.EDAMCCSampler(variant=PSA)
