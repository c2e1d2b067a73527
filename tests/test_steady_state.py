import faulthandler
import os
import pickle
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, minimize
from edamcc.checkpoint import load, open_run, save
from edamcc.evaluation import EvaluationError
from edamcc.steady_state import SteadyState, infer_workers, queue_limit

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


class _BreaksAfter(ThreadPoolExecutor):
    """A thread pool that refuses new work after ``n`` tasks, as a broken process pool does."""

    def __init__(self, n):
        super().__init__(4)
        self.left = n

    def submit(self, *args, **kwargs):
        if self.left == 0:
            from concurrent.futures import BrokenExecutor

            raise BrokenExecutor("refuses new work")
        self.left -= 1
        return super().submit(*args, **kwargs)


def slow_sphere(x):
    time.sleep(0.2)
    return float(np.sum(x**2))


def test_a_broken_executor_leaves_no_asked_row_untold():
    with _BreaksAfter(6) as ex:
        res = minimize(slow_sphere, BOUNDS, budget=300, population_size=20, seed=3, executor=ex, on_error="nan")
    assert "stopped: the executor" in res.message
    # six rows submitted and a seventh refused: all seven are told, the refused one and any
    # still running as failures
    assert res.nfev == 7
    assert any("cannot run tasks" in f.error for f in res.failures)


def test_timeout_counts_as_failure():
    with ThreadPoolExecutor(4) as ex:
        res = minimize(slow_on_some, BOUNDS, budget=60, population_size=20, seed=5, executor=ex, on_error="nan", timeout=0.3)
        assert res.nfev == 60 and any("TimeoutError" in f.error for f in res.failures)


@contextmanager
def _one_task_per_worker_client(n_workers):
    """A Dask client on a local cluster of one-thread process workers, each holding only the task it
    runs. Dask blames every task a dying worker holds, and with its default worker-saturation (1.1)
    a one-thread worker holds two: the point beside a killer could then end as KilledWorker too.
    With 1.0 it holds one (the README's advice)."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle
    import dask

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}), \
            distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def test_dask_local_cluster(hang_guard):
    t0 = time.monotonic()
    with _one_task_per_worker_client(2) as client:
        assert infer_workers(client, None) == 2
        res = minimize(sphere, BOUNDS, budget=120, population_size=20, seed=1, executor=client)
        assert res.nfev == 120
        res = minimize(flaky, BOUNDS, budget=120, population_size=40, seed=2, executor=client, on_error="nan")
        assert res.nfev == 120 and res.failures and all(f.x[0] > 0.9 for f in res.failures)
        with pytest.raises(EvaluationError, match="diverged"):
            minimize(flaky, BOUNDS, budget=200, population_size=40, seed=2, executor=client)
        res = minimize(dies_rarely, BOUNDS, budget=120, population_size=20, seed=3, executor=client, on_error="nan", timeout=10)
        assert res.nfev == 120 and res.failures and all(f.x[0] > 0.9 for f in res.failures)  # the dead worker's point
        res = minimize(sphere, BOUNDS, budget=60, population_size=20, seed=1, executor=client.get_executor(), max_in_flight=2)
        assert res.nfev == 60
    assert time.monotonic() - t0 < 90


def test_dask_worker_saturation_one_loses_only_the_killing_point(hang_guard):
    """The README's advice, on one worker so the killer's neighbour is always there: with Dask's
    default worker-saturation (1.1) the innocent point queued beside it also ends KilledWorker."""
    with _one_task_per_worker_client(1) as client:
        res = minimize(dies_rarely, BOUNDS, budget=120, population_size=20, seed=3, executor=client, on_error="nan",
                       timeout=60, max_in_flight=2)
    assert res.nfev == 120 and len(res.failures) == 2
    # both lost points are killers (x[0] > 0.9) and end KilledWorker, no innocent one; the timeout leaves room
    # for Dask's four restarts of the worker (on a 2-core machine a killer needed more than 10 s for them)
    assert all(f.x[0] > 0.9 and "KilledWorker" in f.error for f in res.failures), [(f.x[0], f.error) for f in res.failures]


def sleepy(x):
    time.sleep(0.05)
    return float(np.sum(x**2))


class Logged:
    """Sphere after ``seconds`` of sleep; appends each point (hex of its bytes) to ``log_dir/<pid>.txt``."""

    def __init__(self, log_dir, seconds=0.02):
        self.log_dir = str(log_dir)
        self.seconds = seconds

    def __call__(self, x):
        time.sleep(self.seconds)
        with open(os.path.join(self.log_dir, f"{os.getpid()}.txt"), "a") as fh:
            fh.write(x.tobytes().hex() + "\n")
        return float(np.sum(x**2))


def _logged_points(log_dir):
    points = []
    for name in os.listdir(log_dir):
        with open(os.path.join(log_dir, name)) as fh:
            points.extend(line.strip() for line in fh if line.strip())
    return points


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        yield client


def _drive(executor, max_in_flight=None, timeout=None, budget=60):
    """Run the driver as ``minimize`` builds it; the strategy and the driver."""
    es = EDAMCCStrategy(bounds=BOUNDS, seed=4, budget=budget, population_size=12)
    driver = SteadyState(es, sleepy, executor, infer_workers(executor, max_in_flight), "raise", timeout,
                         queue_limit(executor, max_in_flight, timeout))
    assert driver.run(lambda: None).startswith("budget")
    return es, driver


def test_dask_queues_beyond_the_workers_within_the_budget(dask_client, hang_guard):
    assert queue_limit(dask_client, None, None) == 2 and queue_limit(dask_client.get_executor(), None, None) == 2
    es, driver = _drive(dask_client)
    assert driver.round_trip is not None and driver.round_trip > 0
    assert 2 < driver.max_in_flight_seen <= 4 and es.evaluations == 60 and not es.pending().size
    most = [0]

    def note(r):
        most[0] = max(most[0], r.strategy.n_in_flight)

    res = minimize(sleepy, BOUNDS, budget=61, population_size=12, seed=4, executor=dask_client, callback=note)
    assert res.nfev == 61 and most[0] >= 2  # after a tell: one less than in flight, so 3 were out at once


def test_no_queueing_with_max_in_flight_or_timeout(dask_client, hang_guard):
    for kw in (dict(max_in_flight=2), dict(timeout=5.0)):
        assert queue_limit(dask_client, kw.get("max_in_flight"), kw.get("timeout")) == 0
        es, driver = _drive(dask_client, budget=40, **kw)
        assert driver.max_in_flight_seen == 2 and es.evaluations == 40
    with ProcessPoolExecutor(2) as ex:
        assert queue_limit(ex, None, None) == 1 and queue_limit(ex, 2, None) == 0
        _, driver = _drive(ex, budget=40)
        assert driver.max_in_flight_seen <= 3
        _, driver = _drive(ex, max_in_flight=2, budget=40)
        assert driver.max_in_flight_seen == 2


def test_queue_limit_validated():
    es = EDAMCCStrategy(bounds=BOUNDS, seed=4, budget=40)
    with ThreadPoolExecutor(2) as ex, pytest.raises(ValueError, match="max_queued"):
        SteadyState(es, sphere, ex, 2, "raise", None, -1)


def _interrupt_and_resume(executor, tmp_path):
    path = tmp_path / "run.ckpt"
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    kw = dict(budget=96, population_size=12, seed=6, executor=executor, checkpoint=path)

    def interrupt(r):
        if r.nit == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        minimize(Logged(log_dir), BOUNDS, callback=interrupt, **kw)
    with open(path, "rb") as fh:
        key = pickle.load(fh)["key"]
    es, _ = load(path, key)
    in_flight = {row.tobytes().hex() for row in es.pending()}
    assert es.generation == 3 and in_flight and es.evaluations < 96
    res = minimize(Logged(log_dir), BOUNDS, **kw)
    assert res.nfev == 96
    final, _ = load(path, key)
    assert final.evaluations == 96 and final.pending().shape == (0, len(BOUNDS))
    return _logged_points(log_dir), in_flight


def test_process_pool_checkpoint_interrupt_and_resume(tmp_path, hang_guard):
    with ProcessPoolExecutor(2) as ex:
        points, in_flight = _interrupt_and_resume(ex, tmp_path)
    twice = {p for p, k in Counter(points).items() if k > 1}
    assert twice <= in_flight and max(Counter(points).values()) <= 2
    assert len(set(points)) == 96  # every told point was evaluated, the re-asked ones too


def test_dask_checkpoint_interrupt_and_resume(dask_client, tmp_path, hang_guard):
    points, in_flight = _interrupt_and_resume(dask_client, tmp_path)
    time.sleep(0.2)  # a task of the interrupted run still running on a worker finishes its log line
    points = _logged_points(tmp_path / "log")
    twice = {p for p, k in Counter(points).items() if k > 1}
    assert twice <= in_flight and max(Counter(points).values()) <= 2
    assert len(set(points)) == 96


def sleepy_sphere(x):
    time.sleep(0.3)
    return float(np.sum(x**2))


def test_a_task_waiting_for_a_worker_does_not_time_out():
    # one worker, two in flight: the second waits 0.3 s for the worker, then runs 0.3 s; the
    # clock starts when the pool starts it, so no evaluation takes the 0.5 s timeout
    with ThreadPoolExecutor(1) as ex:
        res = minimize(sleepy_sphere, BOUNDS, budget=6, population_size=6, seed=1, executor=ex, max_in_flight=2,
                       on_error="nan", timeout=0.5)  # fmt: skip
    assert res.nfev == 6 and res.failures == []


def test_results_that_arrived_are_told_when_the_run_stops():
    calls = []

    def counted(x):
        calls.append(1)
        return sleepy_sphere(x)

    def stop_slowly(r):  # by the time the run stops, the evaluations still in flight have finished
        time.sleep(0.5)
        return True

    with ThreadPoolExecutor(3) as ex:
        res = minimize(counted, BOUNDS, budget=60, population_size=10, seed=2, executor=ex, callback=stop_slowly)
    # the callback stops at the close of generation 0 (10 rows), with extra rows in flight: all are told
    assert res.message == "stopped by the callback" and res.nfev == len(calls) > 10 and res.strategy.n_in_flight == 0


def test_a_resumed_run_reevaluates_in_flight_rows_only_within_its_limits(tmp_path):
    calls = []

    def counted(x):
        calls.append(1)
        return float(np.sum(x**2))

    path = tmp_path / "run.ckpt"
    # a checkpoint written with 7 of 10 rows told and 3 in flight
    es, _, key = open_run(path, BOUNDS, 4, 100, None, {"population_size": 10})
    x = es.ask()
    es.tell(x[:7], np.sum(x[:7] ** 2, axis=1))
    save(path, es, [], key)
    for executor in (ThreadPoolExecutor(3), None):  # steady state, then serial
        with open(path, "rb") as fh:
            saved = fh.read()
        calls.clear()  # a budget that leaves one evaluation: one of the three is re-run
        resumed = minimize(counted, BOUNDS, budget=8, population_size=10, seed=4, executor=executor, checkpoint=path)
        assert resumed.nfev == 8 and len(calls) == 1 and resumed.message == "budget of 8 evaluations spent"
        calls.clear()  # the run is over: nothing is evaluated again
        again = minimize(counted, BOUNDS, budget=8, population_size=10, seed=4, executor=executor, checkpoint=path)
        assert again.nfev == 8 and calls == []
        path.write_bytes(saved)
        if executor is not None:
            executor.shutdown()


def test_a_resumed_run_reevaluates_in_flight_rows_within_max_in_flight(tmp_path):
    running, most = [0], [0]
    lock = threading.Lock()

    def watched(x):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return float(np.sum(x**2))

    path = tmp_path / "run.ckpt"
    es, _, key = open_run(path, BOUNDS, 4, 100, None, {"population_size": 10})
    x = es.ask()
    es.tell(x[:4], np.sum(x[:4] ** 2, axis=1))  # 6 rows in flight when it was written
    save(path, es, [], key)
    with ThreadPoolExecutor(6) as ex:
        res = minimize(watched, BOUNDS, budget=100, population_size=10, seed=4, executor=ex, max_in_flight=1, checkpoint=path)
    assert res.nfev == 100 and most[0] == 1


def test_an_executor_that_is_no_executor_or_refuses_work_is_named_before_any_evaluation():
    with pytest.raises(TypeError, match="^executor: expected an object with submit"):
        minimize(sphere, BOUNDS, budget=10, executor=4)
    ex = ThreadPoolExecutor(2)
    ex.shutdown()
    for policy in ("raise", "nan"):
        with pytest.raises(ValueError, match="^executor: it refused the first task"):
            minimize(sphere, BOUNDS, budget=10, executor=ex, on_error=policy)
    with ProcessPoolExecutor(2) as pool, pytest.raises(TypeError, match="^fun: the executor cannot send it to its workers"):
        minimize(lambda x: float(np.sum(x**2)), BOUNDS, budget=10, executor=pool, on_error="nan")


class _Locked:  # a callable that cannot be pickled: it holds a lock
    def __init__(self):
        self.lock = threading.Lock()

    def __call__(self, x):
        return float(np.sum(x**2))


def test_a_fun_that_cannot_be_pickled_is_named_whatever_pickle_raises():
    with ProcessPoolExecutor(2) as pool:
        for policy in ("raise", "nan"):
            with pytest.raises(TypeError, match="^fun: the executor cannot send it to its workers"):
                minimize(_Locked(), BOUNDS, budget=10, executor=pool, on_error=policy)
