"""minimize(): SciPy-style driver, parallel workers, callbacks, vectorized objectives."""

import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from edamcc import minimize
from edamcc.evaluation import EvaluationError


def sphere(x):
    return float(np.sum(np.asarray(x) ** 2))


def vsphere(x):
    return np.sum(x**2, axis=1)


def test_minimize_returns_an_optimize_result_with_structure():
    res = minimize(sphere, [(-5, 5)] * 5, budget=2000, seed=1, population_size=40)
    assert res.nfev == 2000
    assert res.fun < 1e-3 and res.x.shape == (5,)
    assert res.success and "budget" in res.message
    assert res.nit == res.strategy.generation
    assert res.structure.n_strong.size > 0


def test_default_budget_is_ten_thousand_times_n():
    res = minimize(vsphere, [(-5, 5)] * 2, seed=1, vectorized=True, population_size=20)
    assert res.strategy.budget == 20_000
    assert res.nfev <= 20_000


def test_vectorized_and_workers_give_the_same_run_as_serial():
    serial = minimize(sphere, [(-5, 5)] * 6, budget=1500, seed=3, population_size=30)
    vec = minimize(vsphere, [(-5, 5)] * 6, budget=1500, seed=3, population_size=30, vectorized=True)
    with ThreadPoolExecutor(2) as pool:
        par = minimize(sphere, [(-5, 5)] * 6, budget=1500, seed=3, population_size=30, workers=pool.map)
    assert serial.fun == vec.fun == par.fun
    np.testing.assert_array_equal(serial.x, par.x)


def test_integer_workers_use_processes():
    res = minimize(sphere, [(-5, 5)] * 3, budget=120, seed=0, population_size=20, workers=2)
    ref = minimize(sphere, [(-5, 5)] * 3, budget=120, seed=0, population_size=20)
    assert res.fun == ref.fun


def exits_on_some(x):  # a simulator wrapper that calls sys.exit on part of the box
    if x[0] > 3.0:
        sys.exit(3)
    return float(np.sum(x**2))


def dies_on_some(x):  # a worker process that dies on part of the box
    if x[0] > 3.0:
        os._exit(3)
    return float(np.sum(x**2))


def test_a_worker_process_that_exits_or_dies_fails_its_points_under_the_failure_policy():
    kw = dict(budget=120, seed=0, population_size=20, workers=2)
    res = minimize(exits_on_some, [(-5, 5)] * 3, on_error="nan", **kw)  # sys.exit: the point fails, the run goes on
    assert res.nfev == 120 and res.failures and all(f.error == "SystemExit: 3" for f in res.failures)
    assert all(f.x[0] > 3.0 for f in res.failures)
    with pytest.raises(EvaluationError, match="SystemExit"):
        minimize(exits_on_some, [(-5, 5)] * 3, **kw)
    res = minimize(dies_on_some, [(-5, 5)] * 3, on_error="nan", **kw)  # a dead process breaks the pool: the run ends
    assert res.message.startswith("stopped: the worker pool broke") and res.nfev == 20
    assert res.failures and all("BrokenProcessPool" in f.error for f in res.failures)
    with pytest.raises(EvaluationError, match="the worker pool broke"):
        minimize(dies_on_some, [(-5, 5)] * 3, **kw)


def test_callback_can_stop_the_run():
    seen = []

    def callback(intermediate):
        seen.append(intermediate.nfev)
        return intermediate.nit >= 3

    res = minimize(sphere, [(-5, 5)] * 3, budget=10_000, seed=0, population_size=20, callback=callback)
    assert res.nit == 3 and "callback" in res.message
    assert seen == [20, 39, 58]

    def raising(intermediate):
        raise StopIteration

    assert minimize(sphere, [(-5, 5)] * 3, budget=10_000, seed=0, population_size=20, callback=raising).nit == 1


def test_target_and_variant_and_options_pass_through():
    res = minimize(vsphere, [(-5, 5)] * 4, budget=50_000, seed=0, vectorized=True, target=1e-2, variant="umdac", population_size=20)
    assert res.fun <= 1e-2 and res.nfev < 50_000 and "target" in res.message and res.strategy.variant.name == "umdac"


def test_bad_arguments_raise():
    with pytest.raises(TypeError, match="fun"):
        minimize(3, [(-1, 1)])
    with pytest.raises(ValueError, match="budget"):
        minimize(sphere, [(-1, 1)], budget=0)
    with pytest.raises(ValueError, match="workers"):
        minimize(sphere, [(-1, 1)], budget=10, workers=0)
    with pytest.raises(TypeError, match="max_evaluations"):
        minimize(sphere, [(-1, 1)], max_evaluations=10)
    with pytest.raises(TypeError, match="fun: with vectorized=True"):
        minimize(lambda x: np.zeros(3), [(-1, 1)] * 2, budget=100, vectorized=True, population_size=10)
    with pytest.raises(TypeError, match="expected one real number"):
        minimize(lambda x: np.zeros(2), [(-1, 1)] * 2, budget=100, population_size=10)
    with pytest.raises(ValueError, match="workers: a vectorized fun"):  # not ignored: one of the two
        minimize(vsphere, [(-1, 1)] * 2, budget=100, vectorized=True, workers=2)
    for name in ("vectorized", "disp"):  # a flag, not a truth value: "no" would switch it on
        with pytest.raises(TypeError, match=f"{name}: expected True or False"):
            minimize(sphere, [(-1, 1)], budget=10, **{name: "no"})


def test_a_process_pool_refuses_an_unpicklable_fun_before_any_evaluation():
    calls = []

    def local(x):  # a local function: pickle cannot send it to a worker process
        calls.append(1)
        return float(np.sum(x**2))

    with pytest.raises(TypeError, match=r"fun: workers=2 sends it to worker processes.*module level"):
        minimize(local, [(-1, 1)] * 2, budget=20, population_size=10, workers=2)
    assert calls == []
    from concurrent.futures import ProcessPoolExecutor

    import functools
    import multiprocessing

    with ProcessPoolExecutor(2) as pool, multiprocessing.get_context("fork").Pool(2) as mp_pool:
        # their maps, also in a partial (a raw PicklingError came from the pool before)
        for workers in (pool.map, functools.partial(pool.map, chunksize=1), mp_pool.map):
            with pytest.raises(TypeError, match=r"fun: workers=.*map.* sends it to worker processes.*module level"):
                minimize(local, [(-1, 1)] * 2, budget=20, population_size=10, workers=workers)
    assert calls == []


def test_nan_objective_values_are_survived():
    def sometimes_nan(x):
        return np.nan if x[0] > 0.5 else sphere(x)

    res = minimize(sometimes_nan, [(-1, 1)] * 3, budget=3000, seed=0, population_size=30)
    assert np.isfinite(res.fun) and res.fun < 1e-3


def test_a_run_without_a_finite_value_is_no_success_and_says_so():
    res = minimize(lambda x: np.nan, [(-1, 1)] * 3, budget=200, seed=0, population_size=20)
    assert not res.success and res.x is None and res.fun == np.inf and res.nfev == 200
    assert res.message == "budget of 200 evaluations spent; no evaluation returned a finite value"


def test_options_that_need_another_are_refused_before_the_run():
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    cases = [({"timeout": 10}, "^timeout: applies to steady-state"), ({"max_in_flight": 2}, "^max_in_flight: applies"),
             ({"checkpoint_every": 5}, "^checkpoint_every: applies only with checkpoint"),
             ({"max_in_flight": -3}, "^max_in_flight: expected a positive int"), ({"timeout": 0}, "^timeout: expected positive"),
             ({"checkpoint_every": -1}, "^checkpoint_every: expected positive"), ({"workers": 0}, "^workers:")]  # fmt: skip
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            minimize(sphere, [(-1, 1)] * 2, budget=20, seed=gen, **kwargs)
    assert gen.bit_generator.state == state  # refused before the strategy drew from the user's generator


LOST_BOX = [(-1.0, 1.0)] * 3


def _first_generation():
    from edamcc import EDAMCCStrategy

    return EDAMCCStrategy(bounds=LOST_BOX, seed=1, population_size=10, budget=40).ask()


FIRST_GENERATION = _first_generation()  # two chunks of 5 rows with workers=2
OTHER_CHUNK_DONE = {"marker": None}  # a file the other chunk's last row writes; set by the test before the pool forks


def dies_after_the_other_chunk(x):  # the first row's worker dies once the other worker's chunk has finished
    import time

    marker = OTHER_CHUNK_DONE["marker"]
    if np.array_equal(x, FIRST_GENERATION[-1]):
        open(marker, "w").close()
    if np.array_equal(x, FIRST_GENERATION[0]):
        for _ in range(600):  # at most a minute on a loaded machine
            if os.path.exists(marker):
                break
            time.sleep(0.1)
        time.sleep(0.2)  # its value is on its way back
        os._exit(1)
    return float(np.sum(x**2))


def test_a_dead_worker_fails_its_own_chunk_only_and_the_finished_chunk_is_kept(tmp_path):
    OTHER_CHUNK_DONE["marker"] = str(tmp_path / "other-chunk-done")
    res = minimize(dies_after_the_other_chunk, LOST_BOX, budget=40, seed=1, population_size=10, workers=2, on_error="nan")
    assert res.message.startswith("stopped: the worker pool broke (BrokenProcessPool") and res.nfev == 10
    assert len(res.failures) == 5 and np.array_equal(res.failures[0].x, FIRST_GENERATION[0])  # the first chunk, 5 of 10 rows
    assert np.isfinite(res.fun)  # the other chunk's values were told, not failed as NaN


def test_a_dask_client_map_is_refused_by_name_with_the_map_to_use():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:  # fmt: skip
        with pytest.raises(TypeError, match=r"^workers: the map returned a Future .*client.get_executor\(\).map, not client.map"):
            minimize(sphere, LOST_BOX, budget=20, seed=1, population_size=10, workers=client.map)
        res = minimize(sphere, LOST_BOX, budget=20, seed=1, population_size=10, workers=client.get_executor().map)
        assert res.nfev == 20 and not res.failures


def test_x0_is_refused_with_what_to_do_instead():
    with pytest.raises(TypeError, match="^x0: minimize has no starting point .* inject"):
        minimize(sphere, [(-1, 1)] * 2, budget=20, x0=[0.5, 0.5])


def test_a_multiprocessing_pools_map_gets_one_chunk_per_worker():
    import functools
    import multiprocessing.pool

    class Counted(multiprocessing.pool.ThreadPool):
        def map(self, func, iterable, chunksize=None):
            items = list(iterable)
            self.tasks.append(len(items))
            return super().map(func, items, chunksize)

    with Counted(6) as pool:
        pool.tasks = []
        serial = minimize(sphere, [(-1, 1)] * 2, budget=24, population_size=12, seed=1)
        for mapper in (pool.map, functools.partial(pool.map, chunksize=1)):
            res = minimize(sphere, [(-1, 1)] * 2, budget=24, population_size=12, workers=mapper, seed=1)
            assert res.nfev == 24 and res.fun == serial.fun
        assert max(pool.tasks) == 6  # one chunk per worker of the pool (it was 4 whatever its size)
