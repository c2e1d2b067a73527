"""Steady-state evaluation on an executor: every worker busy, each result told at once.

Whenever a result arrives it is told to the strategy and the next candidate is submitted:
the current generation's (``ask(1)``) or, once all of it is handed out, one drawn from the
current model (``ask_extra(1)``). Works with any object whose ``submit`` returns futures with
``result()``/``exception()``: :class:`concurrent.futures.ProcessPoolExecutor`,
:class:`~concurrent.futures.ThreadPoolExecutor`, a ``dask.distributed.Client`` or
``client.get_executor()``. Dask is imported only when the futures are Dask's.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .evaluation import EvaluationError, Failure, evaluate_rows, format_error
from .strategy import EDAMCCStrategy


def infer_workers(executor: Any, max_in_flight: int | None) -> int:
    """``max_in_flight`` if given, else ``executor._max_workers`` (stdlib pools), else the
    total number of worker threads of a Dask client (``sum(client.nthreads().values())``)."""
    if max_in_flight is not None:
        if isinstance(max_in_flight, bool) or not isinstance(max_in_flight, (int, np.integer)) or max_in_flight < 1:
            raise ValueError(f"max_in_flight: expected a positive int; got {max_in_flight!r}")
        return int(max_in_flight)
    n = getattr(executor, "_max_workers", None)
    if isinstance(n, int) and n > 0:
        return n
    client = executor if hasattr(executor, "nthreads") else getattr(executor, "_client", None)
    if client is not None and hasattr(client, "nthreads"):
        total = sum(client.nthreads().values())
        if total > 0:
            return int(total)
    raise ValueError("max_in_flight: cannot infer the number of workers of this executor; pass max_in_flight=")


def _is_dask(future: Any) -> bool:
    return type(future).__module__.split(".")[0] == "distributed"


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
    """

    def __init__(self, strategy: EDAMCCStrategy, fun: Callable[[NDArray[np.float64]], Any], executor: Any,
                 n_workers: int, on_error: str, timeout: float | None) -> None:
        self.es = strategy
        self.fun = fun
        self.executor = executor
        self.n_workers = n_workers
        self.on_error = on_error
        self.timeout = timeout
        self.failures: list[Failure] = []
        self.busy_seconds = 0.0
        self._flight: dict[Any, tuple[NDArray[np.float64], float]] = {}
        self._submit_kwargs = {"pure": False} if hasattr(executor, "nthreads") else {}

    @property
    def n_in_flight(self) -> int:
        return len(self._flight)

    def _submit(self, x: NDArray[np.float64]) -> None:
        fut = self.executor.submit(evaluate_rows, self.fun, x, self.on_error, **self._submit_kwargs)
        self._flight[fut] = (x, time.monotonic())

    def _next_candidate(self) -> NDArray[np.float64]:
        x = self.es.ask(1)
        return x if x.shape[0] else self.es.ask_extra(1)

    def _fail(self, x: NDArray[np.float64], text: str, exc: BaseException | None) -> None:
        if self.on_error == "raise":
            raise EvaluationError(f"evaluation failed at x={x[0].tolist()}: {text}", x[0]) from exc
        self.failures.append(Failure(x[0].copy(), text))
        self.es.tell(x, np.array([np.nan]))

    def _collect(self, fut: Any) -> None:
        x, _ = self._flight.pop(fut)
        try:
            pairs = fut.result()
        except (EvaluationError, TypeError):
            raise
        except Exception as exc:  # the worker died (BrokenProcessPool, KilledWorker, ...)
            self._fail(x, format_error(exc), exc)
            return
        value, error = pairs[0]
        if error is not None:
            self.failures.append(Failure(x[0].copy(), error))
        self.es.tell(x, np.array([value]))

    def run(self, after_tell: Callable[[], str | None]) -> str:
        """Run until the strategy stops or ``after_tell`` returns a message; that message."""
        es = self.es
        for row in es.pending():  # in flight when a checkpoint was written: ask again
            self._submit(row[None, :])
        try:
            while True:
                reason = es.stop_reason
                if reason is not None:
                    return reason
                while len(self._flight) < self.n_workers:
                    x = self._next_candidate()
                    if x.shape[0] == 0:
                        break
                    try:
                        self._submit(x)
                    except Exception as exc:  # a broken pool refuses new work
                        if self.on_error == "raise":
                            raise EvaluationError(f"the executor cannot run tasks any more: {format_error(exc)}", x[0]) from exc
                        return f"stopped: the executor cannot run tasks any more ({format_error(exc)})"
                if not self._flight:
                    return "no candidates left to evaluate"
                wait_for = None
                if self.timeout is not None:
                    oldest = min(t for _, t in self._flight.values())
                    wait_for = max(0.0, oldest + self.timeout - time.monotonic())
                done = _wait_first(list(self._flight), wait_for)
                now = time.monotonic()
                for fut in done:
                    self.busy_seconds += now - self._flight[fut][1]
                    self._collect(fut)
                    message = after_tell()
                    if message is not None:
                        return message
                if self.timeout is not None:
                    for fut, (x, t0) in list(self._flight.items()):
                        if fut not in done and now - t0 >= self.timeout:
                            fut.cancel()
                            del self._flight[fut]
                            self._fail(x, f"TimeoutError: no result after {self.timeout} s", None)
                            message = after_tell()
                            if message is not None:
                                return message
        finally:
            for fut in self._flight:
                fut.cancel()
