"""Steady-state evaluation on an executor: every worker busy, each result told at once.

Whenever a result arrives it is told to the strategy and the next candidate is submitted:
the current generation's (``ask(1)``) or, once all of it is handed out, one drawn from the
current model (``ask_extra(1)``). Works with any object whose ``submit`` returns
:class:`concurrent.futures.Future` objects or Dask futures: :class:`concurrent.futures.ProcessPoolExecutor`,
:class:`~concurrent.futures.ThreadPoolExecutor`, a ``dask.distributed.Client`` or
``client.get_executor()``. Dask is imported only when the futures are Dask's.

Automatic queueing: each task reports the seconds it spent inside the worker, and the time from
submitting it to collecting its result minus those seconds is the executor's round trip (the
worker waits that long between two tasks: the result travels back, is told, the next candidate
is asked and travels out). While the round trip (median of the last 16 tasks that found a free
worker) exceeds 5% of a typical evaluation (median of the last 16 durations), candidates are
kept queued beyond the number of workers: at most one in total for a ``concurrent.futures``
pool, at most one per worker thread for Dask. Off with ``timeout=`` or an explicit
``max_in_flight=``.

Timeouts: a ``concurrent.futures`` pool reports when it starts a task, and the clock of
``timeout`` starts then, so on a thread pool a task waiting for a worker (also behind an
abandoned one that still holds its thread) does not time out. A process pool reports a task
as started when it enters the workers' call queue (max_workers + 1 tasks), so there a task
queued behind an abandoned, still running evaluation can time out. Other executors, Dask's
included, are timed from the submit.

When the run stops (budget, target, callback), results that have already arrived are told
before it returns; rows still running stay pending (a checkpoint resume evaluates them again).
"""

from __future__ import annotations

import concurrent.futures as cf
import pickle
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .checkpoint import rerun_rows
from .checks import is_int
from .evaluation import EvaluationError, Failure, evaluate_rows_timed, format_error
from .settings import check_count
from .strategy import EDAMCCStrategy

START_POLL = 1.0  # at most this many seconds between looks at whether queued tasks have started
QUEUE_THRESHOLD = 0.05  # queue beyond the workers while the round trip exceeds this fraction of an evaluation
WINDOW = 16  # tasks in the running medians of the round trip and of the evaluation time


def _dask_client(executor: Any) -> Any:
    """The Dask client behind ``executor`` (a client or ``client.get_executor()``), else None."""
    client = executor if hasattr(executor, "nthreads") else getattr(executor, "_client", None)
    return client if client is not None and hasattr(client, "nthreads") else None


def infer_workers(executor: Any, max_in_flight: int | None) -> int:
    """``max_in_flight`` if given, else ``executor._max_workers`` (stdlib pools), else the
    total number of worker threads of a Dask client (``sum(client.nthreads().values())``)."""
    if max_in_flight is not None:
        return check_count(max_in_flight, "max_in_flight")
    n = getattr(executor, "_max_workers", None)
    if isinstance(n, int) and n > 0:
        return n
    client = _dask_client(executor)
    if client is not None:
        total = sum(client.nthreads().values())
        if total > 0:
            return int(total)
    raise ValueError("max_in_flight: cannot infer the number of workers of this executor; pass max_in_flight=")


def queue_limit(executor: Any, max_in_flight: int | None, timeout: float | None) -> int:
    """Most candidates automatic queueing may keep beyond the workers: 0 with ``timeout`` (a queued
    task would time out while it waits) or an explicit ``max_in_flight`` (obeyed exactly), the
    number of worker threads for a Dask client, 1 for any other executor."""
    if timeout is not None or max_in_flight is not None:
        return 0
    if _dask_client(executor) is not None:
        return infer_workers(executor, None)
    return 1


def _is_dask(obj: Any) -> bool:
    """A Dask object (a future, a Client, client.get_executor())."""
    return type(obj).__module__.split(".")[0] == "distributed"


def _wait_first(futures: list[Any], timeout: float | None) -> set[Any]:
    """The futures done when the first completes (or when ``timeout`` seconds pass: maybe none)."""
    if futures and _is_dask(futures[0]):
        import distributed

        try:
            done, _ = distributed.wait(futures, timeout=timeout, return_when="FIRST_COMPLETED")
        except (TimeoutError, distributed.TimeoutError):
            return set()
        return set(done)
    done, _ = cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)
    return set(done)


class SteadyState:
    """Drive ``strategy`` with ``fun`` evaluated on ``executor``, ``n_workers`` at a time.

    ``after_tell()`` is called after every tell and returns a stop message or None.
    Failures told as NaN go to ``failures``.

    ``max_queued`` (see :func:`queue_limit`; 0: off) bounds the candidates kept queued beyond
    ``n_workers`` while the executor's round trip, measured on tasks that found a free worker,
    exceeds ``QUEUE_THRESHOLD`` (5%) of a typical evaluation's duration inside the worker: the
    worker then starts a queued task instead of waiting for the driver. Queued candidates are
    ordinary asked candidates: they count against the budget, which is never exceeded. They are
    asked earlier, so on a fixed budget more of them come from an older model.
    ``max_in_flight_seen`` is the most evaluations that were in flight at once.
    """

    def __init__(self, strategy: EDAMCCStrategy, fun: Callable[[NDArray[np.float64]], Any], executor: Any,
                 n_workers: int, on_error: str, timeout: float | None, max_queued: int = 0) -> None:
        if not is_int(max_queued) or max_queued < 0:
            raise ValueError(f"max_queued: expected a non-negative int; got {max_queued!r}")
        self.es = strategy
        self.fun = fun
        self.executor = executor
        self.n_workers = n_workers
        self.on_error = on_error
        self.timeout = timeout
        self.max_queued = int(max_queued)
        self.failures: list[Failure] = []
        self._flight: dict[Any, tuple[NDArray[np.float64], float, bool]] = {}  # x, submit time, queued
        self._started: dict[Any, float] = {}  # when each task in flight was seen running (the timeout's clock)
        self._reports_start = isinstance(executor, (cf.ThreadPoolExecutor, cf.ProcessPoolExecutor))
        self._round_trips: deque[float] = deque(maxlen=WINDOW)
        self._durations: deque[float] = deque(maxlen=WINDOW)
        self._max_seen = 0
        self._rerun: deque[NDArray[np.float64]] = deque()  # rows in flight when a checkpoint was written, first in line
        # Dask (a Client or client.get_executor()) would merge equal submissions of a pure task
        self._submit_kwargs = {"pure": False} if _is_dask(executor) else {}

    @property
    def n_in_flight(self) -> int:
        return len(self._flight)

    @property
    def max_in_flight_seen(self) -> int:
        """The most evaluations in flight at once so far (more than ``n_workers`` when queueing)."""
        return self._max_seen

    @property
    def round_trip(self) -> float | None:
        """Median seconds between a task's end in the worker and its result being told, plus the
        way out of the next one, over recent tasks that found a free worker; None before any."""
        return float(np.median(self._round_trips)) if self._round_trips else None

    def n_queued_allowed(self) -> int:
        """Candidates to keep queued beyond the workers now: ``max_queued`` while the round trip
        exceeds ``QUEUE_THRESHOLD`` of the median evaluation time (3 samples of each needed), else 0."""
        if self.max_queued == 0 or len(self._round_trips) < 3 or len(self._durations) < 3:
            return 0
        trip = float(self.round_trip)  # type: ignore[arg-type]  # not None: 3 round trips above
        return self.max_queued if trip > QUEUE_THRESHOLD * float(np.median(self._durations)) else 0

    def _submit(self, x: NDArray[np.float64]) -> None:
        queued = len(self._flight) >= self.n_workers  # no worker free when it was submitted
        fut = self.executor.submit(evaluate_rows_timed, self.fun, x, self.on_error, **self._submit_kwargs)
        now = time.monotonic()
        self._flight[fut] = (x, now, queued)
        if not self._reports_start:
            self._started[fut] = now
        self._max_seen = max(self._max_seen, len(self._flight))

    def _note_starts(self, now: float) -> None:
        """Start the timeout clock of the tasks the pool has started since the last look."""
        for fut in self._flight:
            if fut not in self._started and (fut.running() or fut.done()):
                self._started[fut] = now

    def _next_candidate(self) -> NDArray[np.float64]:
        if self._rerun:  # a checkpoint's rows in flight go first, within the same limit on the flight
            return self._rerun.popleft()[None, :]
        x = self.es.ask(1)
        return x if x.shape[0] else self.es.ask_extra(1)

    def _fail(self, x: NDArray[np.float64], text: str, exc: BaseException | None) -> None:
        if self.on_error == "raise":
            raise EvaluationError(f"evaluation failed at x={x[0].tolist()}: {text}", x[0]) from exc
        self.failures.append(Failure(x[0].copy(), text))
        self.es.tell(x, np.array([np.nan]))

    def _collect(self, fut: Any, now: float) -> None:
        x, submitted, queued = self._flight.pop(fut)
        self._started.pop(fut, None)
        try:
            pairs, seconds = fut.result()
        except EvaluationError:
            raise
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            if isinstance(exc, pickle.PicklingError) or "pickle" in str(exc).lower():  # a setup error, not a failure
                raise TypeError(f"fun: the executor cannot send it to its workers ({format_error(exc)}); "
                                "pass a picklable function, defined at module level") from exc
            if isinstance(exc, TypeError):  # a value that is not one real number: a bug in fun
                raise
            self._fail(x, format_error(exc), exc)
            return
        except (Exception, SystemExit) as exc:  # the worker died (BrokenProcessPool, KilledWorker, sys.exit, ...)
            self._fail(x, format_error(exc), exc)
            exc.__traceback__ = None  # else its frames keep this future (and a Dask task) alive
            return
        self._durations.append(seconds)
        if not queued:  # a queued task's wait for a worker is not the round trip
            self._round_trips.append(max(0.0, now - submitted - seconds))
        value, error = pairs[0]
        if error is not None:
            self.failures.append(Failure(x[0].copy(), error))
        self.es.tell(x, np.array([value]))

    def _settle_flight(self, text: str) -> None:
        """The executor broke: rows in flight keep a result they already have, the others fail
        with ``text`` (none is dropped untold)."""
        now = time.monotonic()
        for fut in list(self._flight):
            if fut.done():
                self._collect(fut, now)
            else:
                x = self._flight.pop(fut)[0]
                self._started.pop(fut, None)
                fut.cancel()
                self._fail(x, text, None)

    def run(self, after_tell: Callable[[], str | None]) -> str:
        """Run until the strategy stops or ``after_tell`` returns a message; that message.
        Results already arrived when it stops are told; the rows still running stay pending."""
        try:
            message = self._loop(after_tell)
            self._tell_arrived()
            return message
        finally:
            for fut in self._flight:
                fut.cancel()

    def _tell_arrived(self) -> None:
        """Tell the results that arrived but were not collected when the run stopped (a failed
        evaluation among them is left pending: the run has ended, a resume retries it)."""
        now = time.monotonic()
        for fut in [f for f in self._flight if f.done() and not f.cancelled()]:
            try:
                pairs = fut.result()[0]
            except (Exception, SystemExit):  # not told: stays pending
                continue
            if pairs[0][1] is None or self.on_error == "nan":
                self._collect(fut, now)

    def _loop(self, after_tell: Callable[[], str | None]) -> str:
        es = self.es
        self._rerun.extend(rerun_rows(es))  # in flight when a checkpoint was written, within the budget: again
        while True:
            reason = es.stop_reason
            if reason is not None:
                return reason
            while len(self._flight) < self.n_workers + self.n_queued_allowed():
                x = self._next_candidate()
                if x.shape[0] == 0:
                    break
                message = self._submit_or_stop(x)
                if message is not None:
                    return message
            if not self._flight:
                return "no candidates left to evaluate"
            wait_for = None
            if self.timeout is not None:
                now = time.monotonic()
                self._note_starts(now)
                clocks = [t + self.timeout - now for t in self._started.values()]
                waiting = len(self._started) < len(self._flight)  # queued tasks: look again soon
                wait_for = max(0.0, min(clocks + ([min(START_POLL, self.timeout / 10)] if waiting else [])))
            done = _wait_first(list(self._flight), wait_for)
            now = time.monotonic()
            for fut in done:
                self._collect(fut, now)
                message = after_tell()
                if message is not None:
                    return message
            if self.timeout is not None:
                self._note_starts(now)
                for fut, t0 in list(self._started.items()):
                    if fut not in done and now - t0 >= self.timeout:
                        x = self._flight.pop(fut)[0]
                        del self._started[fut]
                        fut.cancel()
                        self._fail(x, f"TimeoutError: no result after {self.timeout} s", None)
                        message = after_tell()
                        if message is not None:
                            return message

    def _submit_or_stop(self, x: NDArray[np.float64]) -> str | None:
        """Submit ``x``; if the executor refuses work, end the run: a message, or an error if
        it refused the very first task (then nothing was ever evaluated on it)."""
        try:
            self._submit(x)
        except Exception as exc:  # a shut-down or broken pool refuses new work
            if self._max_seen == 0:
                raise ValueError(f"executor: it refused the first task ({format_error(exc)}); is it shut down?") from exc
            text = f"the executor cannot run tasks any more: {format_error(exc)}"
            if self.on_error == "raise":
                raise EvaluationError(text, x[0]) from exc
            self._fail(x, text, exc)  # asked and never run
            self._settle_flight(text)
            return f"stopped: the executor cannot run tasks any more ({format_error(exc)})"
        return None
