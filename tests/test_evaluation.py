import sys
from concurrent.futures import BrokenExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, minimize
from edamcc.evaluation import EvaluationError, Failure, as_value, evaluate_batch, evaluate_rows


def sphere(x):
    return float(np.sum(x**2))


def flaky(x):
    if x[0] > 0.9:
        raise RuntimeError("simulator diverged")
    return float(np.sum(x**2))


@pytest.mark.parametrize("bad", [None, "1.0", 1 + 2j, np.zeros(2), [1.0, 2.0], True])
def test_bad_return_values_raise_type_error_naming_value_and_point(bad):
    with pytest.raises(TypeError, match="at x=") as exc:
        minimize(lambda x: bad, [(-1, 1)] * 2, budget=20, population_size=10, seed=0)
    assert repr(bad)[:3] in str(exc.value)


@pytest.mark.parametrize(
    "good, expected",
    [(np.nan, np.nan), (np.inf, np.inf), (-np.inf, -np.inf), (3, 3.0), (np.float32(2.5), 2.5), (np.array(1.0), 1.0),
     (np.array([4.0]), 4.0), (np.int64(-7), -7.0)],
)  # fmt: skip
def test_nan_inf_and_numeric_scalars_are_accepted_as_the_same_number(good, expected):
    value = as_value(good, np.zeros(2))
    assert type(value) is float
    assert value == expected or (np.isnan(expected) and np.isnan(value))


def test_bad_value_raises_even_under_nan_policy():
    with pytest.raises(TypeError, match=r"fun returned '1.0' of type str at x="):
        minimize(lambda x: "1.0", [(-1, 1)] * 2, budget=20, population_size=10, seed=0, on_error="nan")


def test_raise_policy_chains_the_objective_error_with_the_point():
    with pytest.raises(EvaluationError, match=r"fun raised at x=\[") as exc:
        minimize(flaky, [(-1, 1)] * 2, budget=200, population_size=20, seed=0)
    assert isinstance(exc.value.__cause__, RuntimeError)
    assert exc.value.x[0] > 0.9


def test_the_failure_error_is_public_so_callers_can_catch_it():
    import edamcc

    assert edamcc.EvaluationError is EvaluationError and "EvaluationError" in edamcc.__all__
    with pytest.raises(edamcc.EvaluationError):
        minimize(flaky, [(-1, 1)] * 2, budget=200, population_size=20, seed=0)


def test_nan_policy_records_failures_and_completes():
    res = minimize(flaky, [(-1, 1)] * 2, budget=200, population_size=20, seed=0, on_error="nan")
    assert res.nfev == 200 and res.failures
    assert all(isinstance(f, Failure) and f.x[0] > 0.9 and "diverged" in f.error for f in res.failures)
    assert res.fun < 0.1


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="on_error"):
        minimize(sphere, [(-1, 1)] * 2, budget=20, on_error="ignore")


def test_chunked_map_sends_one_task_per_chunk_and_keeps_order():
    calls = []

    def mapper(task, chunks):
        calls.append(len(chunks))
        return [task(c) for c in chunks]

    x = np.arange(20.0).reshape(10, 2)
    values, failures, broken = evaluate_batch(sphere, x, mapper, 3, "raise")
    assert calls == [3] and not failures and broken is None
    np.testing.assert_array_equal(values, np.sum(x**2, axis=1))


def test_a_pool_that_breaks_fails_the_rows_it_had_not_returned_and_ends_the_run():
    def breaks_at_the_second_chunk(task, chunks):
        yield task(chunks[0])
        raise BrokenExecutor("a worker died")

    x = np.arange(20.0).reshape(10, 2)
    values, failures, broken = evaluate_batch(sphere, x, breaks_at_the_second_chunk, 3, "nan")
    np.testing.assert_array_equal(values[:4], np.sum(x[:4] ** 2, axis=1))  # the first chunk's results are kept
    assert np.isnan(values[4:]).all() and [f.error for f in failures] == ["BrokenExecutor: a worker died"] * 6
    assert broken == "stopped: the worker pool broke (BrokenExecutor: a worker died)"
    with pytest.raises(EvaluationError, match=r"the worker pool broke while evaluating the chunk starting x=\[8.0, 9.0\]"):
        evaluate_batch(sphere, x, breaks_at_the_second_chunk, 3, "raise")


def test_a_map_that_raises_when_called_breaks_at_the_first_chunk():
    def broken_before(task, chunks):
        raise BrokenExecutor("a pool broken by an earlier run")

    x = np.arange(20.0).reshape(10, 2)
    values, failures, broken = evaluate_batch(sphere, x, broken_before, 3, "nan")
    assert np.isnan(values).all() and len(failures) == 10 and broken.startswith("stopped: the worker pool broke")
    with pytest.raises(EvaluationError, match=r"chunk starting x=\[0.0, 1.0\]"):
        evaluate_batch(sphere, x, broken_before, 3, "raise")


def test_sys_exit_in_fun_fails_the_point_under_either_policy():
    def exits(x):
        sys.exit(2)

    assert evaluate_rows(exits, np.zeros((1, 2)), "nan")[0][1] == "SystemExit: 2"
    with pytest.raises(EvaluationError, match="SystemExit: 2"):
        evaluate_rows(exits, np.zeros((1, 2)), "raise")


def test_workers_int_matches_serial_and_checks_values():
    a = minimize(sphere, [(-1, 1)] * 3, budget=300, population_size=20, seed=4)
    b = minimize(sphere, [(-1, 1)] * 3, budget=300, population_size=20, seed=4, workers=2)
    assert (a.fun, a.nfev) == (b.fun, b.nfev) and np.array_equal(a.x, b.x)
    with pytest.raises(TypeError, match="at x="):
        minimize(_returns_string, [(-1, 1)] * 2, budget=40, population_size=10, seed=0, workers=2)


def _returns_string(x):
    return "1.0"


def test_evaluate_rows_nan_policy():
    pairs = evaluate_rows(flaky, np.array([[0.0, 0.0], [1.0, 0.0]]), "nan")
    assert pairs[0] == (0.0, None) and np.isnan(pairs[1][0]) and "RuntimeError" in pairs[1][1]


def test_a_vectorized_objective_follows_the_failure_policy():
    def batch_flaky(x):
        if (x[:, 0] > 0.9).any():
            raise RuntimeError("cluster job lost")
        return np.sum(x**2, axis=1)

    with pytest.raises(EvaluationError, match=r"fun raised on the batch of 20 rows starting x=\[") as exc:
        minimize(batch_flaky, [(-1, 1)] * 2, budget=200, population_size=20, seed=0, vectorized=True)
    assert isinstance(exc.value.__cause__, RuntimeError) and exc.value.x.shape == (20, 2)
    res = minimize(batch_flaky, [(-1, 1)] * 2, budget=200, population_size=20, seed=0, vectorized=True, on_error="nan")
    assert res.nfev == 200 and len(res.failures) % 20 == 0 and res.failures  # whole batches fail
    assert all("cluster job lost" in f.error for f in res.failures) and np.isfinite(res.fun)
    with pytest.raises(TypeError, match="fun: with vectorized=True"):  # a bad value is a bug under either policy
        minimize(lambda x: np.zeros(len(x), dtype=bool), [(-1, 1)] * 2, budget=20, population_size=10, vectorized=True, on_error="nan")


def test_booleans_are_not_values_on_any_path():
    es = EDAMCCStrategy(bounds=[(0, 1)] * 2, seed=0, population_size=10)
    x = es.ask()
    with pytest.raises(ValueError, match="^f: expected real numbers"):
        es.tell(x, np.ones(len(x), dtype=bool))
    with pytest.raises(ValueError, match="^x: expected the rows ask"):
        es.tell([["a", "b"]], [1.0])
    assert es.evaluations == 0
    with pytest.raises(TypeError, match="expected one real number"):
        as_value(np.array(True), np.zeros(2))


@pytest.mark.parametrize("mode", ["serial", "vectorized", "thread map", "steady state"])
def test_a_fun_that_changes_its_argument_in_place_changes_no_row(mode):
    def shifting(x):  # changes what it is given, as some simulators' wrappers do
        x -= 0.5
        return np.sum(x**2, axis=-1) if x.ndim == 2 else float(np.sum(x**2))

    def plain(x):
        return np.sum((x - 0.5) ** 2, axis=-1) if x.ndim == 2 else float(np.sum((x - 0.5) ** 2))

    with ThreadPoolExecutor(2) as pool:
        options = {"budget": 300, "population_size": 20, "seed": 4}
        options |= {"serial": {}, "vectorized": {"vectorized": True}, "thread map": {"workers": pool.map},
                    "steady state": {"executor": pool, "max_in_flight": 1}}[mode]  # fmt: skip
        ours, reference = minimize(shifting, [(-1, 1)] * 3, **options), minimize(plain, [(-1, 1)] * 3, **options)
    assert ours.nfev == 300 and ours.fun == reference.fun and ours.x.tolist() == reference.x.tolist()  # rows told as asked


class _LosesATask(ThreadPoolExecutor):
    """An executor whose ``lost``-th submitted task fails in the executor itself with ``error``
    (a dead worker of a pool, or Dask's KilledWorker); the others run."""

    class KilledWorker(Exception):
        pass

    def __init__(self, lost=1, error=None):
        super().__init__(max_workers=1)
        self.lost, self.error, self.submitted = lost, error or BrokenExecutor("a worker died"), 0

    def submit(self, fn, /, *args, **kwargs):
        self.submitted += 1
        if self.submitted == self.lost:
            from concurrent.futures import Future

            lost = Future()
            lost.set_exception(self.error)
            return lost
        return super().submit(fn, *args, **kwargs)


def test_an_executors_map_keeps_the_chunks_that_finished_before_its_pool_broke():
    # read chunk by chunk: the map of the pool of workers=N lost every later chunk's values with the first
    x = np.arange(20.0).reshape(10, 2)
    with _LosesATask() as pool:
        values, failures, broken = evaluate_batch(sphere, x, pool.map, 3, "nan")
    assert np.isnan(values[:4]).all() and [f.error for f in failures] == ["BrokenExecutor: a worker died"] * 4
    np.testing.assert_array_equal(values[4:], np.sum(x[4:] ** 2, axis=1))
    assert broken == "stopped: the worker pool broke (BrokenExecutor: a worker died)"
    with _LosesATask() as pool, pytest.raises(EvaluationError, match=r"chunk starting x=\[0.0, 1.0\]"):
        evaluate_batch(sphere, x, pool.map, 3, "raise")


def test_a_task_lost_in_an_executor_fails_its_chunk_and_a_plain_maps_own_errors_are_raised_as_they_are():
    import pickle

    x = np.arange(20.0).reshape(10, 2)
    with _LosesATask(2, _LosesATask.KilledWorker("task on 1 worker, all died")) as pool:
        values, failures, broken = evaluate_batch(sphere, x, pool.map, 3, "nan")
    assert np.isfinite(values[:4]).all() and np.isnan(values[4:7]).all() and np.isfinite(values[7:]).all() and len(failures) == 3
    assert broken == "stopped: the worker pool broke (KilledWorker: task on 1 worker, all died)"
    with _LosesATask(2, _LosesATask.KilledWorker("task on 1 worker, all died")) as pool, pytest.raises(EvaluationError, match="the worker pool broke"):
        evaluate_batch(sphere, x, pool.map, 3, "raise")
    with _LosesATask(2, pickle.PicklingError("cannot pickle fun")) as pool, pytest.raises(pickle.PicklingError):
        evaluate_batch(sphere, x, pool.map, 3, "nan")  # a usage error, not a dead worker

    def buggy_map(task, chunks):  # a bug of the user's own map is theirs to see, under either policy
        yield task(chunks[0])
        raise ValueError("my map's bug")

    with pytest.raises(ValueError, match="my map's bug"):
        evaluate_batch(sphere, x, buggy_map, 3, "nan")
    with ThreadPoolExecutor(1) as shut:
        pass
    with pytest.raises(RuntimeError, match="shutdown"):  # an executor shut down before: raised, not a broken pool
        evaluate_batch(sphere, x, shut.map, 3, "nan")
    with pytest.raises(TypeError, match=r"^workers: the map returned a object for a chunk, not its values"):
        evaluate_batch(sphere, x, lambda task, chunks: [object() for _ in chunks], 3, "nan")
    with pytest.raises(ValueError, match=r"^workers: the map returned 2 results for 3 chunks"):
        evaluate_batch(sphere, x, lambda task, chunks: [task(c) for c in chunks[:2]], 3, "nan")
    # fun's own errors are not a broken map: they follow on_error inside the task
    values, failures, broken = evaluate_batch(flaky, np.full((4, 2), 0.95), lambda t, c: map(t, c), 2, "nan")
    assert broken is None and len(failures) == 4


def test_when_a_chunk_raises_the_chunks_not_started_are_cancelled_as_executor_map_does():
    calls = []

    def first_raises(x):  # slow enough that the driver cancels while the next chunk runs
        import time

        calls.append(1)
        time.sleep(0.2)
        raise RuntimeError("simulator diverged")

    x = np.arange(20.0).reshape(10, 2)
    with ThreadPoolExecutor(1) as pool, pytest.raises(EvaluationError, match="simulator diverged"):
        evaluate_batch(first_raises, x, pool.map, 3, "raise")
    assert len(calls) <= 2  # the first chunk's first row, and at most the chunk already running beside it


def test_a_number_beyond_float64_is_refused_naming_the_point_and_a_vectorized_dtype_is_named():
    from fractions import Fraction

    for huge in (10**400, 10**5000, Fraction(10**401, 3)):  # 10**5000 has more digits than Python turns into a string
        with pytest.raises(TypeError, match=rf"fun returned a {type(huge).__name__} beyond float64's range at x=\[1.0, 2.0\]"):
            as_value(huge, np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="of shape \\(10,\\) and dtype bool"):
        minimize(lambda x: np.ones(x.shape[0], dtype=bool), [(-1, 1)] * 2, budget=20, vectorized=True, population_size=10)
