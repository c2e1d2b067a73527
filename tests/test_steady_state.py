import faulthandler
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from edamcc import minimize
from edamcc.evaluation import EvaluationError
from edamcc.steady_state import infer_workers

BOUNDS = [(-1.0, 1.0)] * 3


def sphere(x):
    return float(np.sum(x**2))


def flaky(x):  # fails on about 5% of the box
    if x[0] > 0.9:
        raise RuntimeError("simulator diverged")
    return float(np.sum(x**2))


def dies(x):
    if x[0] > 0.6:  # some points of the first generation
        os._exit(1)
    return float(np.sum(x**2))


def dies_rarely(x):  # one point of the first generation with seed 3
    if x[0] > 0.9:
        os._exit(1)
    return float(np.sum(x**2))


def slow_on_some(x):
    if x[1] > 0.9:
        time.sleep(5)
    return float(np.sum(x**2))


def test_infer_workers():
    with ThreadPoolExecutor(3) as ex:
        assert infer_workers(ex, None) == 3 and infer_workers(ex, 5) == 5
    with pytest.raises(ValueError, match="max_in_flight"):
        infer_workers(object(), None)


def test_process_pool_steady_state_counts_and_quality():
    with ProcessPoolExecutor(2) as ex:
        res = minimize(sphere, BOUNDS, budget=300, population_size=20, seed=1, executor=ex)
    assert res.nfev == 300 and res.fun < 0.05 and res.message


def test_process_pool_failure_policies():
    with ProcessPoolExecutor(2) as ex:
        res = minimize(flaky, BOUNDS, budget=200, population_size=40, seed=2, executor=ex, on_error="nan")
        assert res.nfev == 200 and res.failures and all(f.x[0] > 0.9 for f in res.failures)
        with pytest.raises(EvaluationError, match="at x=") as exc:
            minimize(flaky, BOUNDS, budget=200, population_size=40, seed=2, executor=ex)
        assert "diverged" in str(exc.value)
        with pytest.raises(TypeError, match="at x="):
            minimize(_returns_none, BOUNDS, budget=40, population_size=40, seed=2, executor=ex, on_error="nan")


def _returns_none(x):
    return None


@pytest.fixture
def hang_guard():
    """Ends the test process with a traceback if a run hangs (no plugin needed)."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def test_process_pool_killed_worker_does_not_hang(hang_guard):
    t0 = time.monotonic()
    with ProcessPoolExecutor(2) as ex:
        res = minimize(dies, BOUNDS, budget=300, population_size=20, seed=3, executor=ex, on_error="nan")
    assert res.failures and "stopped: the executor" in res.message
    with ProcessPoolExecutor(2) as ex, pytest.raises(EvaluationError):
        minimize(dies, BOUNDS, budget=300, population_size=20, seed=3, executor=ex)
    assert time.monotonic() - t0 < 30


def test_timeout_counts_as_failure():
    with ThreadPoolExecutor(4) as ex:
        res = minimize(slow_on_some, BOUNDS, budget=60, population_size=20, seed=5, executor=ex, on_error="nan", timeout=0.3)
        assert res.nfev == 60 and any("TimeoutError" in f.error for f in res.failures)


def test_dask_local_cluster(hang_guard):
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    t0 = time.monotonic()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert infer_workers(client, None) == 2
        res = minimize(sphere, BOUNDS, budget=120, population_size=20, seed=1, executor=client)
        assert res.nfev == 120
        res = minimize(flaky, BOUNDS, budget=120, population_size=40, seed=2, executor=client, on_error="nan")
        assert res.nfev == 120 and all(f.x[0] > 0.9 for f in res.failures)
        with pytest.raises(EvaluationError, match="diverged"):
            minimize(flaky, BOUNDS, budget=200, population_size=40, seed=2, executor=client)
        res = minimize(dies_rarely, BOUNDS, budget=120, population_size=20, seed=3, executor=client, on_error="nan", timeout=10)
        assert res.nfev == 120
        res = minimize(sphere, BOUNDS, budget=60, population_size=20, seed=1, executor=client.get_executor(), max_in_flight=2)
        assert res.nfev == 60
    assert time.monotonic() - t0 < 90
