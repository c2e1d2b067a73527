"""What the Optuna sampler reads of a study (edamcc.adapters.optuna_study): trials, space, closed blocks, seed."""

import pytest

optuna = pytest.importorskip("optuna")
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution  # noqa: E402

from edamcc.adapters.optuna_study import SEED_KEY, StudyCache, numeric_space  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


def study_with(values, params=None):
    study = optuna.create_study()
    for i, value in enumerate(values):
        trial = study.ask()
        for name, dist in (params or {"x": FloatDistribution(0, 1)}).items():
            trial._suggest(name, dist)
        if value is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, value)
    return study


def test_numeric_space_keeps_float_and_int_parameters_with_more_than_one_value_by_name():
    space = {"b": FloatDistribution(0, 1), "a": IntDistribution(1, 5), "c": CategoricalDistribution(["u", "v"]),
             "d": IntDistribution(3, 3)}  # fmt: skip
    assert list(numeric_space(space)) == ["a", "b"]


def test_refresh_reads_each_finished_trial_once_with_the_minimization_sign():
    study = study_with([3.0, None, 1.0])
    cache = StudyCache().refresh(study)
    assert cache.values == {0: 3.0, 1: None, 2: 1.0} and set(cache.params) == {0, 2}
    maximized = optuna.create_study(direction="maximize")
    maximized.add_trials(study.trials)
    assert StudyCache().refresh(maximized).values[0] == -3.0


def test_generations_close_when_every_trial_of_their_block_has_finished():
    cache = StudyCache().refresh(study_with([1.0] * 7))
    assert cache.count_closed(4) == 2  # trials 0-3, then 4-6 (M - 1 = 3 after the first block)
    assert cache.count_closed(5) == 1  # trials 0-4; the block 5-8 lacks two
    assert cache.usable(numeric_space(cache.space), range(7)) == list(range(7))


def test_the_space_narrows_to_the_parameters_every_complete_trial_set():
    study = study_with([1.0], {"x": FloatDistribution(0, 1), "y": FloatDistribution(0, 1)})
    trial = study.ask()
    trial._suggest("x", FloatDistribution(0, 1))
    study.tell(trial, 2.0)
    cache = StudyCache().refresh(study)
    assert list(cache.relative_space()) == ["x"]
    assert cache.usable({"x": None, "y": None}, range(2)) == [0]  # trial 1 never set y


def test_a_parameter_the_model_cannot_hold_is_left_out_of_the_modelled_space_with_a_warning():
    study = study_with([1.0], {"w": FloatDistribution(0, 1e-160), "z": FloatDistribution(0, 1)})
    cache = StudyCache().refresh(study)
    with pytest.warns(UserWarning, match=r"parameters \['w'\] span a range"):
        assert list(cache.relative_space()) == ["z"]
    assert cache.transform.bounds.shape == (1, 2)


def test_the_first_stored_seed_wins_and_is_kept_once_final():
    study = optuna.create_study()
    cache = StudyCache()
    assert cache.study_seed(study, 7, final=False) == 7 and cache.seed is None
    assert StudyCache().study_seed(study, 9, final=True) == 7  # another worker reads the stored one
    assert study._storage.get_study_system_attrs(study._study_id)[SEED_KEY] == 7
