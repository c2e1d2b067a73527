import os
import pickle

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, minimize
from edamcc.benchmark_functions import get_function
from edamcc.checkpoint import FORMAT, load, save

BOUNDS = [(-2.0, 2.0)] * 4
KW = dict(population_size=20, seed=7)


def sphere(x):
    return float(np.sum(x**2))


def test_interrupted_run_resumes_bit_identical(tmp_path):
    path = tmp_path / "run.ckpt"
    full = minimize(sphere, BOUNDS, budget=400, **KW)

    def interrupt(r):
        if r.nit == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        minimize(sphere, BOUNDS, budget=400, checkpoint=path, callback=interrupt, **KW)
    assert path.exists() and not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    resumed = minimize(sphere, BOUNDS, budget=400, checkpoint=path, **KW)
    assert np.array_equal(resumed.x, full.x) and resumed.fun == full.fun and resumed.nfev == full.nfev
    assert path.exists()  # the final checkpoint is kept


def test_budget_limited_run_resumed_with_more_budget(tmp_path):
    path = tmp_path / "run.ckpt"
    full = minimize(sphere, BOUNDS, budget=400, **KW)
    first = minimize(sphere, BOUNDS, budget=200, checkpoint=path, **KW)
    assert first.nfev == 200
    resumed = minimize(sphere, BOUNDS, budget=400, checkpoint=path, **KW)
    assert np.array_equal(resumed.x, full.x) and resumed.fun == full.fun and resumed.nfev == 400


def test_checkpoint_of_another_problem_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    minimize(sphere, BOUNDS, budget=60, checkpoint=path, **KW)
    with pytest.raises(ValueError, match="another problem.*seed"):
        minimize(sphere, BOUNDS, budget=60, checkpoint=path, population_size=20, seed=8)
    with pytest.raises(ValueError, match="dimension"):
        minimize(sphere, BOUNDS[:3], budget=60, checkpoint=path, **KW)
    strategy, failures = load(path, _key_of(path))
    assert strategy.evaluations == 60 and failures == []


def test_learned_partition_resumes_bit_identical_and_is_part_of_the_fingerprint(tmp_path):
    path = tmp_path / "run.ckpt"
    kw = dict(KW, variant="edamcc-adaptive", partition="learned")
    bounds = [(-2.0, 2.0)] * 8
    full = minimize(sphere, bounds, budget=600, **kw)
    assert not np.array_equal(full.x, minimize(sphere, bounds, budget=600, **dict(kw, partition="random")).x)

    def interrupt(r):
        if r.nit == 8:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        minimize(sphere, bounds, budget=600, checkpoint=path, callback=interrupt, **kw)
    assert load(path, _key_of(path))[0].settings.partition == "learned"
    resumed = minimize(sphere, bounds, budget=600, checkpoint=path, **kw)
    assert np.array_equal(resumed.x, full.x) and resumed.fun == full.fun and resumed.nfev == full.nfev
    with pytest.raises(ValueError, match="another problem.*settings"):
        minimize(sphere, bounds, budget=600, checkpoint=path, **dict(kw, partition="random"))


def _key_of(path):
    with open(path, "rb") as fh:
        return pickle.load(fh)["key"]


def test_checkpoint_every_seconds_validated(tmp_path):
    with pytest.raises(ValueError, match="checkpoint_every"):
        minimize(sphere, BOUNDS, budget=60, checkpoint=tmp_path / "c", checkpoint_every=-1, **KW)


@pytest.mark.parametrize("where, error, message", [
    ("no-such-dir/run.ckpt", ValueError, "checkpoint: directory .* does not exist"),
    ("", ValueError, "checkpoint: .* is a directory"),
    ("run.ckpt/", ValueError, "checkpoint: .* names a directory, not a file"),
    ("run.ckpt/.", ValueError, "checkpoint: .* names a directory, not a file"),
    ("no-such-dir/../run.ckpt", ValueError, "checkpoint: directory .*no-such-dir/..' does not exist"),  # as the system resolves it
    (3, TypeError, "checkpoint: expected a file path or None"),
])  # fmt: skip
def test_a_checkpoint_that_cannot_be_written_is_refused_before_any_evaluation(tmp_path, where, error, message):
    calls = []

    def counted(x):
        calls.append(1)
        return sphere(x)

    path = where if isinstance(where, int) else str(tmp_path) + os.sep + where  # as given: pathlib drops a trailing "/"
    with pytest.raises(error, match=message):
        minimize(counted, BOUNDS, budget=60, checkpoint=path, **KW)
    assert calls == [] and os.listdir(tmp_path) == []


def test_equal_arguments_resume_however_they_are_spelled(tmp_path):
    bounds = [(-2.0, 2.0)] * 4

    def interrupt(r):
        if r.nit == 3:
            raise KeyboardInterrupt

    full = minimize(sphere, bounds, budget=300, population_size=20, seed=np.random.default_rng(11))
    path = tmp_path / "run.ckpt"
    with pytest.raises(KeyboardInterrupt):
        minimize(sphere, bounds, budget=300, population_size=20, seed=np.random.default_rng(11), checkpoint=path, callback=interrupt)
    # a generator made the same way, a NumPy integer, the default variant and record named, the box as one pair: the same run
    resumed = minimize(sphere, (-2.0, 2.0), dimension=4, budget=300, population_size=np.int64(20), variant="edamcc-sep-cc",
                       record_structure=True, record_every=1, record_pairs="auto", seed=np.random.default_rng(11), checkpoint=path)  # fmt: skip
    assert np.array_equal(resumed.x, full.x) and resumed.nfev == full.nfev
    with pytest.raises(ValueError, match="another problem .differs in: record"):  # another record is another run's
        minimize(sphere, bounds, budget=300, population_size=20, seed=np.random.default_rng(11), checkpoint=path, record_every=2)
    with pytest.raises(ValueError, match="another problem.*seed"):
        minimize(sphere, bounds, budget=300, population_size=20, seed=np.random.default_rng(12), checkpoint=path)


@pytest.mark.parametrize("content", [b"", b"{}", b"not a pickle at all", None])
def test_a_file_that_is_not_a_checkpoint_is_refused_by_name(tmp_path, content):
    path = tmp_path / "other.json"
    path.write_bytes(pickle.dumps({"format": 1, "key": {}}) if content is None else content)
    with pytest.raises(ValueError, match="checkpoint '.*other.json': not an edamcc checkpoint"):
        minimize(sphere, BOUNDS, budget=60, checkpoint=path, **KW)
    path.write_bytes(pickle.dumps({"format": 1, "key": {}, "strategy": make_strategy(), "failures": []}))
    with pytest.raises(ValueError, match="written by another version of edamcc .format 1"):
        minimize(sphere, BOUNDS, budget=60, checkpoint=path, **KW)


@pytest.mark.parametrize("content", [b"\x80\x04\x8d" + (2**63 + 5).to_bytes(8, "little"),  # OverflowError inside pickle
                                     pickle.dumps({"format": FORMAT, "key": [], "strategy": None, "failures": []})])
def test_a_damaged_checkpoint_is_refused_by_name_whatever_pickle_raises(tmp_path, content):
    path = tmp_path / "run.ckpt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not an edamcc checkpoint"):
        minimize(sphere, BOUNDS, budget=60, checkpoint=path, **KW)


def test_a_checkpoint_of_another_benchmark_instance_on_the_same_box_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    f2 = get_function("F2", 4)  # shifted: another instance seed is another problem
    minimize(f2, f2.bounds, budget=60, checkpoint=path, vectorized=True, **KW)
    for other in (get_function("F1", 4), get_function("F2", 4, seed=7)):  # the same box [-100, 100]^4
        with pytest.raises(ValueError, match="another problem .differs in: objective"):
            minimize(other, other.bounds, budget=120, checkpoint=path, vectorized=True, **KW)
    assert minimize(get_function("F2", 4), f2.bounds, budget=120, checkpoint=path, vectorized=True, **KW).nfev == 120


def test_a_resume_with_a_budget_below_the_evaluations_spent_is_refused_and_set_limits_changes_nothing_then(tmp_path):
    path = tmp_path / "run.ckpt"
    minimize(sphere, BOUNDS, budget=200, checkpoint=path, **KW)
    with pytest.raises(ValueError, match="budget: 200 evaluations are spent already"):
        minimize(sphere, BOUNDS, budget=100, checkpoint=path, **KW)
    es = make_strategy()
    es.set_limits(budget=20, target=0.5)
    with pytest.raises(ValueError, match="target"):
        es.set_limits(budget=1000, target=float("nan"))
    assert es.budget == 20  # the failed call changed nothing (the budget was set before the target's check)


def make_strategy():
    return EDAMCCStrategy(bounds=BOUNDS, population_size=20, seed=7)


@pytest.mark.parametrize("variant", ["edamcc", "edamcc-adaptive", "edamcc-sep-cc"])
def test_a_generator_seed_resumes_with_a_larger_budget_when_the_population_follows_the_budget(tmp_path, variant):
    # the first generation's size follows the budget for edamcc and edamcc-adaptive, so the
    # strategy draws more or less from the generator before the fingerprint reads it
    path = tmp_path / "run.ckpt"
    bounds = [(-1.0, 1.0)] * 3
    first = minimize(sphere, bounds, budget=600, seed=np.random.default_rng(1), variant=variant, checkpoint=path)
    resumed = minimize(sphere, bounds, budget=900, seed=np.random.default_rng(1), variant=variant, checkpoint=path)
    assert first.nfev == 600 and resumed.nfev == 900 and resumed.fun <= first.fun
    with pytest.raises(ValueError, match=r"differs in: seed"):
        minimize(sphere, bounds, budget=900, seed=np.random.default_rng(2), variant=variant, checkpoint=path)


def test_an_empty_checkpoint_path_is_refused_before_any_evaluation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="^checkpoint: expected a file path; got an empty one"):
        minimize(sphere, BOUNDS, budget=60, checkpoint="", **KW)
    assert os.listdir(tmp_path) == [] and not [name for name in os.listdir(tmp_path.parent) if name.endswith(".tmp")]


def test_a_relative_checkpoint_stays_where_the_call_started_when_fun_changes_directory(tmp_path, monkeypatch):
    start, scratch = tmp_path / "start", tmp_path / "scratch"
    start.mkdir(), scratch.mkdir()
    monkeypatch.chdir(start)
    calls = []

    def simulator(x):  # a wrapper that runs its simulator in a scratch directory
        calls.append(1)
        os.chdir(scratch)
        return sphere(x)

    first = minimize(simulator, BOUNDS, budget=60, checkpoint="run.ckpt", **KW)
    assert os.listdir(start) == ["run.ckpt"] and os.listdir(scratch) == []
    os.chdir(start)
    calls.clear()
    again = minimize(simulator, BOUNDS, budget=80, checkpoint="run.ckpt", **KW)  # resumes: only the 20 new evaluations run
    assert len(calls) == 20 and again.nfev == 80 and again.fun <= first.fun


def test_a_saved_checkpoint_keeps_the_files_permissions_and_a_new_one_follows_the_umask(tmp_path):
    path = tmp_path / "run.ckpt"
    old = os.umask(0o022)
    try:
        minimize(sphere, BOUNDS, budget=40, checkpoint=path, **KW)
    finally:
        os.umask(old)
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o644)  # as any file the process creates, not mkstemp's 0o600
    os.chmod(path, 0o640)
    minimize(sphere, BOUNDS, budget=80, checkpoint=path, **KW)  # resumed and saved again
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o640) and os.listdir(tmp_path) == ["run.ckpt"]


def test_an_interrupt_right_after_the_move_into_place_is_raised_as_itself_and_the_checkpoint_kept(tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"
    es = EDAMCCStrategy(bounds=BOUNDS, **KW)
    replace = os.replace

    def replaced_then_interrupted(src, dst):
        replace(src, dst)
        raise KeyboardInterrupt  # Ctrl-C between os.replace and the end of save

    monkeypatch.setattr(os, "replace", replaced_then_interrupted)
    with pytest.raises(KeyboardInterrupt):  # not FileNotFoundError from removing the moved temporary file
        save(path, es, [], {"k": 1})
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["run.ckpt"] and load(path, {"k": 1})[0].population_size == es.population_size


def test_a_path_object_that_gives_bytes_is_refused_before_any_evaluation(tmp_path):
    class BytesPath:
        def __fspath__(self):
            return os.fsencode(str(tmp_path / "run.ckpt"))

    with pytest.raises(TypeError, match="^checkpoint: expected a str path; got bytes"):
        minimize(sphere, BOUNDS, budget=60, checkpoint=BytesPath(), **KW)
    assert os.listdir(tmp_path) == []
