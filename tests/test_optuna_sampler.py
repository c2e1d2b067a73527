"""EDAMCCSampler: Optuna's own sampler suites, seeds, generations across workers and processes."""

import gc
import multiprocessing
import pickle
import time
import warnings
from dataclasses import replace
from unittest.mock import patch

import numpy as np
import pytest

optuna = pytest.importorskip("optuna")
from optuna.testing.pytest_samplers import (  # noqa: E402
    BasicSamplerTestCase,
    RelativeSamplerTestCase,
    SingleOnlySamplerTestCase,
)
from optuna.trial import TrialState  # noqa: E402

from edamcc import VARIANTS, EDAMCCStrategy, block_of, close_generation  # noqa: E402
from edamcc.adapters.optuna_sampler import GENERATION_KEY, SEED_KEY, EDAMCCSampler  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        yield


class TestBasic(BasicSamplerTestCase):
    @pytest.fixture
    def sampler(self):
        return lambda: EDAMCCSampler(population_size=10)


class TestRelative(RelativeSamplerTestCase):
    @pytest.fixture
    def sampler(self):
        return lambda: EDAMCCSampler(population_size=10)


class TestSingleOnly(SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self):
        return lambda: EDAMCCSampler(population_size=10)


def objective(trial, n=6):
    return sum((trial.suggest_float(f"x{i}", -5, 5) - 1.0) ** 2 for i in range(n))


def run(sampler, n_trials=120, **kw):
    study = optuna.create_study(sampler=sampler, **kw)
    study.optimize(objective, n_trials=n_trials)
    return study


# ------------------------------------------------------------------ seeds (as optuna's test_samplers.py)
def test_same_seed_same_params_different_seed_different_params():
    a = run(EDAMCCSampler(seed=1, population_size=12))
    b = run(EDAMCCSampler(seed=1, population_size=12))
    c = run(EDAMCCSampler(seed=2, population_size=12))
    assert [t.params for t in a.trials] == [t.params for t in b.trials]
    assert [t.params for t in a.trials] != [t.params for t in c.trials]


def test_reseed_rng_reseeds_a_given_independent_sampler_but_keeps_the_studys_seed():
    sampler = EDAMCCSampler(seed=1, independent_sampler=optuna.samplers.RandomSampler(seed=3))
    study = run(sampler, n_trials=30)
    with patch.object(sampler._independent_sampler, "reseed_rng", wraps=sampler._independent_sampler.reseed_rng) as mock:
        sampler.reseed_rng()
        assert mock.call_count == 1
    assert study._storage.get_study_system_attrs(study._study_id)[SEED_KEY] == 1
    EDAMCCSampler(seed=1).reseed_rng()  # the default draws are functions of the study: nothing to reseed


def mixed(trial):
    return trial.suggest_float("x", -5, 5) ** 2 + "abcdefgh".index(trial.suggest_categorical("c", list("abcdefgh")))


def test_default_independent_draws_are_a_function_of_the_study_not_of_a_process(tmp_path):
    url = f"sqlite:///{tmp_path / 'study.db'}"
    optuna.create_study(study_name="s", storage=url)
    workers = [optuna.load_study(study_name="s", storage=url, sampler=EDAMCCSampler(seed=1)) for _ in range(3)]
    trials = [w.ask() for w in workers]  # three workers with the same seed start together
    first = [(t.suggest_float("x", -5, 5), t.suggest_categorical("c", list("abcdefgh"))) for t in trials]
    assert len(set(first)) == 3  # each trial its own draw
    for w, t in zip(workers, trials):
        w.tell(t, 1.0)
    # a study resumed by a new sampler in a new process draws what the uninterrupted one drew
    whole = optuna.create_study(sampler=EDAMCCSampler(seed=5, population_size=10))
    whole.optimize(mixed, n_trials=40)
    part = optuna.create_study(sampler=EDAMCCSampler(seed=5, population_size=10))
    part.optimize(mixed, n_trials=25)
    resumed = optuna.create_study(sampler=EDAMCCSampler(population_size=10))
    resumed.add_trials(part.trials)
    resumed._storage.set_study_system_attr(resumed._study_id, SEED_KEY, 5)  # as a shared storage keeps it
    resumed.optimize(mixed, n_trials=15)
    assert [t.params for t in resumed.trials] == [t.params for t in whole.trials]


def test_a_parameter_range_the_model_cannot_hold_is_sampled_independently_with_a_warning_naming_it():
    study = optuna.create_study(sampler=EDAMCCSampler(seed=1, population_size=4))
    with pytest.warns(UserWarning, match=r"parameters \['x'\] span a range the model cannot hold"):
        study.optimize(lambda t: t.suggest_float("x", -1e155, 1e155) / 1e155 + t.suggest_float("y", 0, 1), n_trials=12)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)  # the study goes on (it crashed on NaN)
    assert all(GENERATION_KEY in t.system_attrs for t in study.trials[4:])  # y is still modelled
    study.optimize(lambda t: t.suggest_float("x", -1.0, 1.0) + t.suggest_float("y", 0, 1), n_trials=12)  # rescaled: modelled again
    assert all(t.state == TrialState.COMPLETE for t in study.trials)


def test_threads_without_a_seed_share_one_study_seed_and_one_model_per_generation():
    sampler = EDAMCCSampler(population_size=12)
    study = optuna.create_study(sampler=sampler)
    seeds = set()
    original = sampler._study_seed

    def spy(*args, **kwargs):
        seed = original(*args, **kwargs)
        seeds.add(seed)
        return seed

    sampler._study_seed = spy
    study.optimize(objective, n_trials=120, n_jobs=2)  # optuna reseeds the sampler in each thread
    assert seeds == {study._storage.get_study_system_attrs(study._study_id)[SEED_KEY]}


def test_one_unseeded_sampler_gives_each_new_study_its_own_seed():
    sampler = EDAMCCSampler(population_size=12)
    studies = [run(sampler, n_trials=30) for _ in range(3)]
    seeds = {s._storage.get_study_system_attrs(s._study_id)[SEED_KEY] for s in studies}
    assert len(seeds) == 3 and len({s.best_value for s in studies}) == 3  # it gave one seed to all


def test_partial_fixed_sampler_fixes_a_parameter_and_the_model_covers_the_others():
    """Optuna's PartialFixedSampler removes the fixed parameter from the relative search space it
    was given: that must not change the sampler's own (it crashed at the first closed generation)."""
    sampler = EDAMCCSampler(seed=0, population_size=8)
    study = optuna.create_study(sampler=optuna.samplers.PartialFixedSampler({"x0": 0.5}, sampler))
    study.optimize(lambda t: objective(t, n=4), n_trials=60)
    assert all(t.state == TrialState.COMPLETE and t.params["x0"] == 0.5 for t in study.trials)
    assert study.trials[-1].system_attrs[GENERATION_KEY] > 0  # drawn from a fitted model
    assert list(sampler.infer_relative_search_space(study, None)) == ["x0", "x1", "x2", "x3"]


# ------------------------------------------------------------------ distributions and directions
def test_values_are_plain_python_types_inside_the_distribution_and_on_the_step_grid():
    def obj(trial):
        a = trial.suggest_float("a", 1e-4, 1.0, log=True)
        b = trial.suggest_float("b", -2.0, 2.0, step=0.25)
        c = trial.suggest_int("c", -3, 9)
        d = trial.suggest_int("d", 1, 1000, log=True)
        e = trial.suggest_int("e", 0, 20, step=4)
        f = trial.suggest_categorical("f", ["u", "v"])
        return (np.log10(a) + 2) ** 2 + (b - 0.5) ** 2 + (c - 4) ** 2 + (np.log10(d) - 2) ** 2 + (e - 8) ** 2 + (f == "u")

    study = optuna.create_study(sampler=EDAMCCSampler(seed=0, population_size=20))
    study.optimize(obj, n_trials=300)
    for t in study.trials:
        p = t.params
        assert type(p["a"]) is float and 1e-4 <= p["a"] <= 1.0
        assert type(p["b"]) is float and -2 <= p["b"] <= 2 and (p["b"] / 0.25).is_integer()
        assert type(p["c"]) is int and -3 <= p["c"] <= 9
        assert type(p["d"]) is int and 1 <= p["d"] <= 1000
        assert type(p["e"]) is int and p["e"] % 4 == 0 and 0 <= p["e"] <= 20
    best = study.best_params
    assert best["c"] == 4 and best["e"] == 8 and best["f"] == "v"


def test_maximization_flips_the_sign():
    mini = run(EDAMCCSampler(seed=3, population_size=12))
    maxi = optuna.create_study(sampler=EDAMCCSampler(seed=3, population_size=12), direction="maximize")
    maxi.optimize(lambda t: -objective(t), n_trials=120)
    assert [t.params for t in mini.trials] == [t.params for t in maxi.trials]
    assert maxi.best_value == -mini.best_value


def test_multi_objective_raises():
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=EDAMCCSampler())
    with pytest.raises(ValueError, match="single-objective"):
        study.optimize(lambda t: (t.suggest_float("x", 0, 1), 1.0), n_trials=3)


def test_bad_arguments_raise():
    for kwargs, name in [({"theta": 2}, "theta"), ({"c": 0}, "c"), ({"population_size": 2}, "population_size"), ({"population_size": 0}, "population_size"),
                         ({"variant": "x"}, "variant"), ({"repair": "none"}, "repair"), ({"seed": 1.5}, "seed")]:  # fmt: skip
        with pytest.raises(ValueError, match=name):
            EDAMCCSampler(**kwargs)
    for bad in ("random", 0, optuna.samplers.RandomSampler):  # not a sampler instance: refused, never replaced
        with pytest.raises(TypeError, match="independent_sampler"):
            EDAMCCSampler(independent_sampler=bad)


# ------------------------------------------------------------------ generations
def test_generations_are_blocks_of_trial_numbers_and_each_trial_records_its_model():
    study = run(EDAMCCSampler(seed=0, population_size=10), n_trials=100)
    gens = [t.system_attrs.get(GENERATION_KEY, 0) for t in study.trials]
    # one process, one trial at a time: every trial is drawn from its own block's model
    assert gens == [block_of(t.number, 10) for t in study.trials]
    assert gens[:10] == [0] * 10 and gens[10:19] == [1] * 9 and max(gens) == 10
    # nothing large in storage: one small integer per trial, the seed per study
    assert all(set(t.system_attrs) <= {GENERATION_KEY} for t in study.trials)
    assert set(study._storage.get_study_system_attrs(study._study_id)) == {SEED_KEY}


def test_optimizes_better_than_random_search():
    ours = run(EDAMCCSampler(seed=0), n_trials=400)
    rand = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    rand.optimize(objective, n_trials=400)
    assert ours.best_value < rand.best_value / 10


def test_any_sampler_instance_rebuilds_the_same_model_from_the_same_trials(tmp_path):
    storage = f"sqlite:///{tmp_path / 'db.sqlite'}"
    first = EDAMCCSampler(seed=5, population_size=10)
    study = optuna.create_study(sampler=first, storage=storage, study_name="s")
    study.optimize(objective, n_trials=55)
    other = optuna.load_study(study_name="s", storage=storage, sampler=EDAMCCSampler(seed=999, population_size=10))
    trial = study.ask()  # fixes the new trial's generation
    space = first.infer_relative_search_space(study, study._storage.get_trial(trial._trial_id))
    frozen = study._storage.get_trial(trial._trial_id)
    with pytest.warns(UserWarning, match="this sampler's seed=999 is not used"):  # the stored seed, 5, wins
        assert first.sample_relative(study, frozen, space) == other.sampler.sample_relative(other, frozen, space)


def test_fail_and_pruned_trials_never_reach_the_model_and_do_not_block():
    def obj(trial):
        x = [trial.suggest_float(f"x{i}", -5, 5) for i in range(4)]
        if x[0] > 2:
            raise optuna.TrialPruned()
        if x[1] > 2:
            raise RuntimeError("simulator crashed")
        return float(np.sum(np.square(x)))

    sampler = EDAMCCSampler(seed=0, population_size=10)
    study = optuna.create_study(sampler=sampler)
    study.optimize(obj, n_trials=150, catch=(RuntimeError,))
    states = {t.state for t in study.trials}
    assert {TrialState.FAIL, TrialState.PRUNED, TrialState.COMPLETE} <= states
    assert sampler.closed_generations(study) == block_of(150, 10)  # every complete block closed
    complete = {t.number: t for t in study.trials if t.state == TrialState.COMPLETE}
    for g in range(1, sampler.closed_generations(study) + 1):
        _, closed = sampler.closed_generation(study, g)
        if closed.selected is None:
            continue
        for row in closed.selected:  # only COMPLETE trials' params reach a model
            assert any(np.allclose(row, list(t.params.values())) for t in complete.values())


def test_a_trial_still_running_holds_its_generation_open_and_later_trials_use_the_newest_model():
    sampler = EDAMCCSampler(seed=0, population_size=6)
    study = optuna.create_study(sampler=sampler)
    dists = {f"x{i}": optuna.distributions.FloatDistribution(-5, 5) for i in range(3)}
    block0 = [study.ask(dists) for _ in range(6)]
    for t in block0[1:]:
        study.tell(t, float(t.number))
    later = study.ask(dists)  # block 1, but block 0 has a running trial: drawn from model 0
    assert study._storage.get_trial(later._trial_id).system_attrs[GENERATION_KEY] == 0
    assert sampler.closed_generations(study) == 0
    study.tell(block0[0], -100.0)  # the straggler finishes: generation 0 closes with it
    assert sampler.closed_generations(study) == 1
    _, closed = sampler.closed_generation(study, 1)
    assert closed.elite_f == -100.0  # the straggler is the elite and was selected
    for bad in (True, 1.0, "1", 0, 2):  # True read as 1, and 1.0 or "1" raised a TypeError naming nothing
        with pytest.raises(ValueError, match=r"generation: expected an integer, 1 <= generation <= 1"):
            sampler.closed_generation(study, bad)
    nxt = study.ask(dists)
    assert study._storage.get_trial(nxt._trial_id).system_attrs[GENERATION_KEY] == 1


def test_a_trial_left_running_warns_once_when_trials_are_drawn_fifty_generations_behind():
    sampler = EDAMCCSampler(seed=0, population_size=4)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: objective(t, n=3), n_trials=6)
    lost = study.ask()  # generation 1's block: 4, 5, 6; trial 6 is never told (its process died)
    objective(lost, n=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study.optimize(lambda t: objective(t, n=3), n_trials=160)  # blocks up to generation 53
    held = [str(w.message) for w in caught if "behind its own" in str(w.message)]
    assert len(held) == 1 and "trials [6] of that generation's block have not finished" in held[0]
    assert "generation 1, 50 generations behind" in held[0]
    study.tell(lost.number, state=TrialState.FAIL)  # the remedy the warning names
    assert sampler.closed_generations(study) == block_of(166, 4)


# edamcc-tpa's two-point rule starts at n = 300; these small spaces get it with the switch at 1
TPA_EVERYWHERE = replace(VARIANTS["edamcc-tpa"], name="tpa-everywhere", two_point_from=1)


@pytest.mark.parametrize("variant", [TPA_EVERYWHERE, "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-sep-cc"])
@pytest.mark.parametrize("position", [0, 1, 2])
def test_a_failed_trial_keeps_its_place_in_the_block_as_the_strategys_nan_row(variant, position):
    """A FAIL trial at the block's first positions (the mean-shift line's two rows, then the
    first sample) closes as the strategy's NaN row there: the line's share, the two-point rule
    and its count of rows agree (they were up to 22% apart in sigma). Every other block's
    failed trial set no parameter at all. The strategy's rows are replayed with the sampler's
    random generator of each generation, which draws WI's rows and SM's groups."""
    from edamcc import Settings, block_size, block_start
    from edamcc.generation import start_adaptation
    from edamcc.models import UniformModel

    n, big_m = 3, 8
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * n, population_size=big_m, seed=11, record_structure=False, variant=variant)
    sampler = EDAMCCSampler(seed=11, population_size=big_m, variant=variant)
    study = optuna.create_study(sampler=sampler)
    dists = {f"x{i}": optuna.distributions.FloatDistribution(-5.0, 5.0) for i in range(n)}
    rows, values = [], []
    for g in range(6):
        x = es.ask()
        f = np.sum(x**2, axis=1)
        f[position] = np.nan if g >= 1 else f[position]
        es.tell(x, f)
        rows.extend(x)
        values.extend(f)
        for r, v in zip(x, f):
            params = {} if np.isnan(v) and g % 2 else {f"x{k}": float(r[k]) for k in range(n)}
            study.add_trial(optuna.trial.create_trial(
                params=params, distributions={k: dists[k] for k in params},
                value=None if np.isnan(v) else float(v), state=TrialState.FAIL if np.isnan(v) else TrialState.COMPLETE,
            ))  # fmt: skip
    assert sampler.closed_generations(study) == es.generation == 6
    rules = Settings(population_size=big_m, variant=variant).resolve(n)
    rows, values = np.array(rows), np.array(values)
    elite_x, elite_f, state, fit = None, np.inf, start_adaptation(rules.variant), UniformModel(np.full(n, -5.0), np.full(n, 5.0))
    for g in range(1, 7):
        block = slice(block_start(g - 1, big_m), block_start(g - 1, big_m) + block_size(g - 1, big_m))
        rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(1, g)))
        ours = close_generation(elite_x, elite_f, rows[block], values[block], rules, rng, adaptation=state, fit_before=fit)
        model, theirs = sampler.closed_generation(study, g)
        assert ours.adaptation.sigma == theirs.adaptation.sigma, g
        np.testing.assert_array_equal(ours.model.mean, model.mean)
        np.testing.assert_array_equal(ours.model.stds(), model.stds())
        elite_x, elite_f, state, fit = ours.elite_x, ours.elite_f, ours.adaptation, ours.fitted.model


@pytest.mark.parametrize("variant", ["edamcc-csa", TPA_EVERYWHERE, "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-wi", "edamcc-adaptive", "edamcc"])
def test_the_sampler_and_the_strategy_close_the_same_history_the_same_way(variant):
    """One told history, with NaN rows, an all-NaN generation, extra and late rows, through
    both: the strategy (ask/tell/ask_extra) and the sampler (the same rows as finished trials
    in the same numbers). Every generation's selection and elite agree, and so does the model
    fitted from them with the same random generator. The self-adaptive variants' scale state
    goes from generation to generation (``edamcc-csa`` selects from the new rows alone)."""
    n, big_m = 3, 8
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * n, population_size=big_m, seed=11, record_structure=False, variant=variant)
    rows: list[np.ndarray] = []  # in number order
    values: dict[int, float] = {}
    rng = np.random.default_rng(0)

    def value(x, number):
        if number % 7 == 3 or 8 <= number < 15:  # NaN rows, and generation 1 all NaN
            return np.nan
        return float(np.sum(x**2))

    for _ in range(6):
        before = es.generation
        x = es.ask()
        numbers = list(range(len(rows), len(rows) + len(x)))
        rows.extend(x)
        extra = es.ask_extra(3)  # extra rows: the next block's first numbers
        extra_numbers = list(range(len(rows), len(rows) + len(extra)))
        rows.extend(extra)
        order = rng.permutation(len(x))  # out of order, and the extras before the generation
        es.tell(extra, [value(r, k) for r, k in zip(extra, extra_numbers)])
        for i in order:
            es.tell(x[i], value(x[i], numbers[i]))
        for k in numbers + extra_numbers:
            values[k] = value(rows[k], k)
        assert es.generation > before

    sampler = EDAMCCSampler(seed=11, population_size=big_m, variant=variant)
    study = optuna.create_study(sampler=sampler)
    dists = {f"x{i}": optuna.distributions.FloatDistribution(-5.0, 5.0) for i in range(n)}
    for k, r in enumerate(rows):
        v = values[k]
        trial = optuna.trial.create_trial(
            params={f"x{i}": float(r[i]) for i in range(n)}, distributions=dists,
            value=None if np.isnan(v) else v, state=TrialState.FAIL if np.isnan(v) else TrialState.COMPLETE,
        )  # fmt: skip
        study.add_trial(trial)
    closed = sampler.closed_generations(study)
    assert closed == es.generation

    # replay the strategy's rule on its own rows, generation by generation
    from edamcc import Settings, block_size, block_start
    from edamcc.generation import start_adaptation
    from edamcc.models import UniformModel

    rules = Settings(population_size=big_m, variant=variant).resolve(n)
    all_rows = np.array(rows)
    all_values = np.array([values[k] for k in range(len(rows))])
    elite_x, elite_f = None, np.inf
    state, fit_before = start_adaptation(rules.variant), UniformModel(np.full(n, -5.0), np.full(n, 5.0))
    for g in range(1, closed + 1):
        start, size = block_start(g - 1, big_m), block_size(g - 1, big_m)
        # the sampler draws generation g's fit from SeedSequence(seed, spawn_key=(1, g)): the same draws here
        rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(1, g)))
        ours = close_generation(elite_x, elite_f, all_rows[start : start + size], all_values[start : start + size],
                                rules, rng, adaptation=state, fit_before=fit_before)  # fmt: skip
        _, theirs = sampler.closed_generation(study, g)
        if state is not None:  # the scale state, replayed here on our own, equals the sampler's
            assert ours.adaptation.multiplier == theirs.adaptation.multiplier, g
            assert getattr(ours.adaptation, "sigma", None) == getattr(theirs.adaptation, "sigma", None), g
            np.testing.assert_array_equal(ours.model.mean, theirs.model.mean)
            np.testing.assert_array_equal(ours.model.stds(), theirs.model.stds())
            state = ours.adaptation
            fit_before = ours.fitted.model if ours.fitted is not None else fit_before
        assert (ours.selected is None) == (theirs.selected is None), g
        if ours.selected is not None:
            np.testing.assert_array_equal(ours.selected, theirs.selected)
        assert ours.elite_f == theirs.elite_f
        if ours.elite_x is not None:
            np.testing.assert_array_equal(ours.elite_x, theirs.elite_x)
        if ours.selected is not None:
            same_rng = [close_generation(None, np.inf, sel, np.arange(len(sel), dtype=float), rules, np.random.default_rng(99))
                        for sel in (ours.selected, theirs.selected)]  # fmt: skip
            np.testing.assert_array_equal(same_rng[0].fitted.model.mean, same_rng[1].fitted.model.mean)
            np.testing.assert_array_equal(same_rng[0].fitted.weak, same_rng[1].fitted.weak)
        elite_x, elite_f = ours.elite_x, ours.elite_f
    assert es.best_f == np.nanmin(all_values)


def test_threads_share_one_sampler():
    study = optuna.create_study(sampler=EDAMCCSampler(seed=0, population_size=12))
    study.optimize(objective, n_trials=200, n_jobs=2)
    assert len(study.trials) == 200 and all(t.state == TrialState.COMPLETE for t in study.trials)
    params = [tuple(t.params.values()) for t in study.trials]
    assert len(set(params)) == len(params)


def test_structure_is_available_from_the_study():
    def rosen(trial):
        x = [trial.suggest_float(f"x{i}", -2, 2) for i in range(8)]
        return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(7))

    sampler = EDAMCCSampler(seed=0, population_size=60)
    study = optuna.create_study(sampler=sampler)
    study.optimize(rosen, n_trials=600)
    rec = sampler.structure(study)
    assert rec.n_strong.size == sampler.closed_generations(study)
    assert rec.q_matrix().shape == (8, rec.n_strong.size)
    assert rec.pair_frequency().shape == (8, 8)
    values = [t.value for t in study.trials]
    assert rec.best_f.tolist() == [min(values[:e]) for e in rec.evaluations]  # the best before each WI call
    flipped = optuna.create_study(sampler=EDAMCCSampler(seed=0, population_size=60), direction="maximize")
    flipped.add_trials([optuna.trial.create_trial(params=t.params, distributions=t.distributions, value=-t.value) for t in study.trials])
    assert flipped.sampler.structure(flipped).best_f.tolist() == [-b for b in rec.best_f]  # in the study's own terms


# ------------------------------------------------------------------ several processes
def _worker(storage_url, study_name, n_trials, journal):
    import optuna

    from edamcc.adapters.optuna_sampler import EDAMCCSampler

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if journal:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        storage = JournalStorage(JournalFileBackend(storage_url))
    else:
        storage = storage_url
    study = optuna.load_study(study_name=study_name, storage=storage, sampler=EDAMCCSampler(population_size=20, variant="edamcc"))
    study.optimize(lambda t: _timed_objective(t, n=10), n_trials=n_trials)


def _timed_objective(trial, n):
    # 20 ms of work per trial. With pure arithmetic (well under 1 ms) three processes hammer the
    # journal file's lock, whose back-off sleeps a losing worker up to 1 s; its open trial then
    # holds its generation open while the others draw from an older model, which is the
    # behaviour documented (and measured by benchmarks/optuna_workers.py), not what this tests.
    time.sleep(0.02)
    return objective(trial, n=n)


@pytest.mark.parametrize("journal", [True, False], ids=["journal-file", "rdb-sqlite"])
def test_several_processes_share_one_study(tmp_path, journal):
    if journal:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        url = str(tmp_path / "journal.log")
        storage = JournalStorage(JournalFileBackend(url))
    else:
        url = f"sqlite:///{tmp_path / 'db.sqlite'}"
        storage = url
    study = optuna.create_study(study_name="shared", storage=storage, sampler=EDAMCCSampler(seed=7, population_size=20, variant="edamcc"))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(url, "shared", 150, journal)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    trials = study.get_trials()
    assert len(trials) == 450 and all(t.state == TrialState.COMPLETE for t in trials)
    gens = [t.system_attrs.get(GENERATION_KEY, 0) for t in trials]
    assert max(gens) >= 15 and EDAMCCSampler(population_size=20).closed_generations(study) == block_of(450, 20)
    params = [tuple(t.params.values()) for t in trials]
    assert len(set(params)) == len(params)  # no proposal repeats
    lagged = sum(g < block_of(t.number, 20) for t, g in zip(trials, gens))
    # Three workers, blocks of 19: on an idle machine at most the first two trials of a block wait
    # (under 25%); a loaded machine delays some workers' tells, and 31% was measured with two other
    # busy processes. A sampler that missed the other workers' trials would close a generation
    # only every three blocks, so (by that count, not measured) most trials would lag.
    assert lagged < 0.5 * len(trials)
    single = optuna.create_study(sampler=EDAMCCSampler(seed=7, population_size=20, variant="edamcc"))
    single.optimize(lambda t: objective(t, n=10), n_trials=450)
    rand = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=7))
    rand.optimize(lambda t: objective(t, n=10), n_trials=450)
    assert study.best_value < 10 * single.best_value + 0.1  # loose: like a single process
    assert study.best_value < rand.best_value / 5


# ------------------------------------------------------------------ workers that read at different times
class DelayedWrites(optuna.storages.InMemoryStorage):
    """A storage whose finishing writes of chosen trials land late, as when a worker's result is
    stamped before its write reaches a shared storage."""

    def __init__(self):
        super().__init__()
        self.delayed: set[int] = set()
        self.held: list[tuple] = []

    def set_trial_state_values(self, trial_id, state, values=None):
        if trial_id in self.delayed and state.is_finished():
            self.held.append((trial_id, state, values))
            return True
        return super().set_trial_state_values(trial_id, state, values)

    def release(self):
        for trial_id, state, values in self.held:
            super().set_trial_state_values(trial_id, state, values)
        self.held.clear()


def test_two_workers_build_identical_models_although_a_write_lands_late():
    storage = DelayedWrites()
    optuna.create_study(storage=storage, study_name="s")
    worker_a = optuna.load_study(study_name="s", storage=storage, sampler=EDAMCCSampler(seed=3, population_size=6))
    worker_b = optuna.load_study(study_name="s", storage=storage, sampler=EDAMCCSampler(seed=3, population_size=6))
    dists = {f"x{i}": optuna.distributions.FloatDistribution(-5, 5) for i in range(3)}
    trials = [worker_a.ask(dists) for _ in range(8)]  # generation 0 is trials 0-5; 6 and 7 belong to 1
    storage.delayed.add(trials[2]._trial_id)
    for t in trials:  # trial 2 finishes first and is the best, but its write lands last
        worker_a.tell(t, -50.0 if t.number == 2 else float(t.number))
    early = worker_a.ask(dists)  # worker A reads before the write: generation 0 is still open
    assert storage.get_trial(early._trial_id).system_attrs[GENERATION_KEY] == 0
    assert worker_a.sampler.closed_generations(worker_a) == 0  # A never closes without trial 2
    storage.release()
    late = worker_b.ask(dists)
    assert storage.get_trial(late._trial_id).system_attrs[GENERATION_KEY] == 1
    model_a, closed_a = worker_a.sampler.closed_generation(worker_a, 1)
    model_b, closed_b = worker_b.sampler.closed_generation(worker_b, 1)
    assert closed_a.elite_f == closed_b.elite_f == -50.0  # the late write is a member
    np.testing.assert_array_equal(closed_a.selected, closed_b.selected)
    np.testing.assert_array_equal(model_a.mean, model_b.mean)
    np.testing.assert_array_equal(model_a.weak_std, model_b.weak_std)


def test_three_processes_on_one_journal_build_identical_models_per_generation():
    """The statistical check of benchmarks/optuna_workers.py (20 runs of 600 trials), once."""
    import optuna_workers  # a program of this repository: a failing import is a failure, not a skip

    run = optuna_workers.one_run(seed=7, n_trials=240, processes=3)
    assert run["exit_codes"] == [0, 0, 0]
    assert run["trials"] == run["complete"] == run["unique_proposals"] == 240  # nothing lost, nothing repeated
    assert run["fingerprints_checked"] > 0 and run["fingerprints_different"] == 0
    assert 0 <= run["lagged_trials"] < 240 and run["max_lag"] >= 0 and np.isfinite(run["best_value"])


def test_the_workers_fingerprint_covers_the_mean_shift_line_of_the_default():
    """The default samples from LineSamples (a wrapper of the fitted Gaussian): the benchmark's
    fingerprint must read the wrapper's line and the wrapped model's arrays, not the mean alone."""
    import optuna_workers

    study = optuna.create_study(sampler=EDAMCCSampler(seed=0, population_size=8))
    study.optimize(lambda t: sum((t.suggest_float(f"x{i}", -5, 5) - 1) ** 2 for i in range(4)), n_trials=40)
    model = study.sampler.closed_generation(study, 3)[0]
    assert hasattr(model, "line") and hasattr(model, "model")
    same = optuna_workers.fingerprint(study.sampler.closed_generation(study, 3)[0])
    assert optuna_workers.fingerprint(model) == same
    assert optuna_workers.fingerprint(replace(model, line=model.line * 1.5)) != same
    inner = replace(model.model, weak_std=model.model.weak_std * 1.5)
    assert optuna_workers.fingerprint(replace(model, model=inner)) != same


def test_without_optuna_the_import_error_gives_an_install_hint_that_works_from_a_clone_and_an_index():
    import subprocess
    import sys

    code = "import sys; sys.modules['optuna'] = None\nimport edamcc.adapters.optuna_sampler"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "pip install optuna" in proc.stderr and "pip install '.[optuna]'" in proc.stderr


@pytest.mark.parametrize("variant", ["edamcc-adaptive", "edamcc-csa", TPA_EVERYWHERE, "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-wi"])
def test_the_self_adaptive_variants_replay_their_scale_from_the_trials(variant):
    sampler = EDAMCCSampler(seed=2, variant=variant)
    study = run(sampler, n_trials=300)
    g = sampler.closed_generations(study)
    assert g >= 10
    model, closed = sampler.closed_generation(study, g)
    assert closed.adaptation is not None
    other = EDAMCCSampler(seed=2, variant=variant)
    model_again, closed_again = other.closed_generation(study, g)  # rebuilt from scratch, generation by generation
    assert closed_again.adaptation.multiplier == closed.adaptation.multiplier
    assert getattr(closed_again.adaptation, "sigma", None) == getattr(closed.adaptation, "sigma", None)
    np.testing.assert_array_equal(model_again.mean, model.mean)
    np.testing.assert_array_equal(model_again.stds(), model.stds())
    rand = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    rand.optimize(objective, n_trials=300)
    assert study.best_value < rand.best_value / 10


@pytest.mark.parametrize("partition", ["random", "learned"])
def test_the_partition_option_reaches_every_replayed_fit(partition, monkeypatch):
    from edamcc import generation

    calls = []
    learned = generation.learned_partition
    monkeypatch.setattr(generation, "learned_partition", lambda *a: calls.append(a) or learned(*a))
    sampler = EDAMCCSampler(seed=2, variant="edamcc-adaptive", partition=partition)
    study = run(sampler, n_trials=150)
    g = sampler.closed_generations(study)
    model, _ = sampler.closed_generation(study, g)
    assert (len(calls) >= g) == (partition == "learned") and (not calls) == (partition == "random")
    model_again, _ = EDAMCCSampler(seed=2, variant="edamcc-adaptive", partition=partition).closed_generation(study, g)
    np.testing.assert_array_equal(model_again.mean, model.mean)


def test_csa_draws_the_first_two_trials_of_a_generation_on_its_mean_shift_line():
    sampler = EDAMCCSampler(seed=4, population_size=10)  # the default: edamcc-sep-cc, a step-size variant
    study = run(sampler, n_trials=60)
    names = [f"x{i}" for i in range(6)]
    for g in range(2, sampler.closed_generations(study)):  # generation 1 follows the first fit: no step yet
        model, _ = sampler.closed_generation(study, g)
        start = 10 + 9 * (g - 1)  # block_start(g) for M = 10
        first, second = (np.array([study.trials[start + k].params[v] for v in names]) for k in (0, 1))
        np.testing.assert_allclose(first, model.mean + model.line, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(second, model.mean - model.line, rtol=1e-12, atol=1e-12)
        third = np.array([study.trials[start + 2].params[v] for v in names])
        assert not np.allclose(third - model.mean, model.line) and not np.allclose(third - model.mean, -model.line)


def test_a_sampler_keeps_one_cache_per_live_study_and_forgets_dropped_ones():
    sampler = EDAMCCSampler(seed=1, population_size=10)
    a, b = run(sampler, n_trials=25), run(sampler, n_trials=25)  # two in-memory storages, both with study id 0
    assert a._study_id == b._study_id and len(sampler._studies) == 2
    for study in (a, b):
        cache = sampler._studies[study._storage][study._study_id]
        values = {t.number: t.value for t in study.trials}
        assert len(cache.values) >= 24 and all(values[k] == v for k, v in cache.values.items())  # its own trials
    del a, b, study
    gc.collect()
    assert len(sampler._studies) == 0  # a new storage at a freed address cannot pick up an old study's values


def test_a_study_with_the_sampler_pickles_and_goes_on_as_the_original():
    study = run(EDAMCCSampler(seed=4, population_size=10), n_trials=30)
    copy = pickle.loads(pickle.dumps(study))
    study.optimize(objective, n_trials=15)
    copy.optimize(objective, n_trials=15)
    assert [t.params for t in copy.trials] == [t.params for t in study.trials]


def test_seed_accepts_numpy_integers_and_refuses_what_a_study_cannot_store():
    assert EDAMCCSampler(seed=np.int64(3))._seed == 3
    for bad in (-1, True, 1.5, np.random.SeedSequence(1), 2**32):
        with pytest.raises(ValueError, match=r"^seed: expected an integer in \[0, 2\*\*32\) or None"):
            EDAMCCSampler(seed=bad)


def test_a_seed_a_racing_worker_overwrote_is_not_kept():
    # a warm-started study: its generations closed before any edamcc seed was stored
    warm = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    warm.optimize(objective, n_trials=40)
    study = optuna.create_study()
    study.add_trials(warm.trials)
    sampler = EDAMCCSampler(population_size=12)
    seeds = []
    original = sampler._study_seed

    def spy(*args, **kwargs):
        seeds.append(original(*args, **kwargs))
        return seeds[-1]

    sampler._study_seed = spy
    study.sampler = sampler
    study.optimize(objective, n_trials=1)  # this worker stores its seed, and reads it back
    other = seeds[-1] + 1
    study._storage.set_study_system_attr(study._study_id, SEED_KEY, other)  # a racing worker's write lands after that read
    study.optimize(objective, n_trials=3)
    assert seeds[-1] == other  # the stored seed, the one every other worker builds its models from


def test_a_sampler_whose_seed_the_study_does_not_use_says_so_once():
    study = run(EDAMCCSampler(seed=1, population_size=10), n_trials=30)
    study.sampler = EDAMCCSampler(seed=2, population_size=10)
    with pytest.warns(UserWarning, match=r"was seeded 1 by the sampler that sampled it first; this sampler's seed=2 is not used"):
        study.optimize(objective, n_trials=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        study.optimize(objective, n_trials=5)


def test_structure_checks_pairs_and_a_population_checks_m_corr_at_construction():
    sampler = EDAMCCSampler(seed=1, population_size=10)
    study = run(sampler, n_trials=30)
    for bad in ("no", 2, 1.0):
        with pytest.raises(TypeError, match="pairs: expected True, False or None"):
            sampler.structure(study, pairs=bad)
    assert sampler.structure(study, pairs=np.bool_(False)).pair_counts is None
    with pytest.raises(ValueError, match=r"m_corr: expected an integer in \[2, m=5\]"):
        EDAMCCSampler(population_size=10, m_corr=500)
    with pytest.raises(ValueError, match="population_size"):
        EDAMCCSampler(population_size=3)
