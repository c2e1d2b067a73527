"""Evaluating candidates: value checks, the failure policy, and chunked maps.

Failure policy (``on_error``):

* ``"raise"`` (default): an exception from ``fun`` (``sys.exit`` included) is re-raised as
  :class:`EvaluationError` naming the point, chained to the original (``raise ... from exc``).
* ``"nan"``: the point is told as NaN (ranks worst) and recorded as a :class:`Failure`.

A pool of worker processes that breaks (a worker died) fails every point it had not returned
yet, under either policy, and the run ends: nothing more can run on it.

A value of the wrong type (``None``, a string, a complex number, an array that is not one
number) raises ``TypeError`` under either policy: it is a bug in the objective, not a
failure of the simulator. NaN and inf are allowed.
"""

from __future__ import annotations

import concurrent.futures as cf
import numbers
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

ON_ERROR = ("raise", "nan")
REAL_KINDS = "iuf"  # numpy kinds of real values: integers and floats; a boolean is not a value


class EvaluationError(RuntimeError):
    """``fun`` raised (or its worker died, or it timed out) at a point; ``x`` is that point."""

    def __init__(self, message: str, x: NDArray[np.float64] | None = None) -> None:
        super().__init__(message)
        self.x = x


@dataclass(frozen=True)
class Failure:
    """A failed evaluation told as NaN: the point and the error's text."""

    x: NDArray[np.float64]
    error: str


def check_on_error(on_error: str) -> str:
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error: expected one of {ON_ERROR}; got {on_error!r}")
    return on_error


def as_value(value: Any, x: NDArray[np.float64]) -> float:
    """``value`` as a float, or ``TypeError`` naming what was returned and for which point."""
    v = value
    if isinstance(v, np.ndarray):
        if v.size != 1 or v.dtype.kind not in REAL_KINDS:
            raise TypeError(f"fun returned {value!r} (shape {v.shape}, dtype {v.dtype}) at x={x.tolist()}; expected one real number")
        v = v.reshape(()).item()
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise TypeError(f"fun returned {value!r} of type {type(value).__name__} at x={x.tolist()}; expected one real number")
    try:
        return float(v)
    except OverflowError:  # an exact number beyond float64's range (an int such as 10**400, a Fraction): not read as inf
        raise TypeError(f"fun returned a {type(value).__name__} beyond float64's range at x={x.tolist()}; expected one real "
                        "number within it (up to about 1.8e308)") from None


def format_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def check_picklable(fun: Callable[..., Any], workers: Any) -> None:
    """``fun`` for ``workers`` processes, which receive it pickled with every chunk of rows: a
    lambda or a local function is refused before the pool starts, with the fix."""
    try:
        pickle.dumps(fun)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise TypeError(f"fun: workers={workers!r} sends it to worker processes, which needs pickle ({format_error(exc)}); "
                        "pass a picklable function, defined at module level") from exc


def evaluate_rows(fun: Callable[[NDArray[np.float64]], Any], rows: Sequence[NDArray[np.float64]] | NDArray[np.float64],
                  on_error: str = "raise") -> list[tuple[float, str | None]]:
    """Evaluate each row in turn: ``(value, None)`` or, under ``"nan"``, ``(nan, error_text)``.

    Top level and picklable: it is the task a worker runs for one chunk of rows.
    """
    out: list[tuple[float, str | None]] = []
    for row in rows:
        x = np.asarray(row, dtype=np.float64)
        try:
            raw = fun(x.copy())  # its own copy: a fun that changes its argument cannot change the row told
        except (Exception, SystemExit) as exc:  # sys.exit in a simulator wrapper fails the point, not the run
            if on_error == "nan":
                out.append((float("nan"), format_error(exc)))
                continue
            raise EvaluationError(f"fun raised at x={x.tolist()}: {format_error(exc)}", x) from exc
        out.append((as_value(raw, x), None))
    return out


def evaluate_rows_timed(fun: Callable[[NDArray[np.float64]], Any], rows: Sequence[NDArray[np.float64]] | NDArray[np.float64],
                        on_error: str = "raise") -> tuple[list[tuple[float, str | None]], float]:
    """:func:`evaluate_rows` and the seconds it took inside the worker (``time.perf_counter``).

    The task of steady-state evaluation: the driver compares that duration with the time
    from submitting the task to collecting its result to learn the executor's round trip.
    """
    start = time.perf_counter()
    pairs = evaluate_rows(fun, rows, on_error)
    return pairs, time.perf_counter() - start


def evaluate_vectorized(fun: Callable[[NDArray[np.float64]], Any], x: NDArray[np.float64],
                        on_error: str = "raise") -> tuple[NDArray[np.float64], list[Failure]]:
    """``fun(X)`` for the whole batch, checked to be ``(k,)`` real numbers, and the failures.

    If ``fun`` raises, the whole batch has failed: ``on_error="raise"`` raises
    :class:`EvaluationError` (its ``x`` the batch), ``"nan"`` tells every row as NaN, each
    recorded as a :class:`Failure` with the error's text.
    """
    try:
        raw = fun(x.copy())  # its own copy, as evaluate_rows gives
    except (Exception, SystemExit) as exc:
        if on_error == "nan":
            error = format_error(exc)
            return np.full(x.shape[0], np.nan), [Failure(row.copy(), error) for row in x]
        raise EvaluationError(f"fun raised on the batch of {x.shape[0]} rows starting x={x[0].tolist()}: {format_error(exc)}", x) from exc
    values = np.asarray(raw) if raw is not None else None
    if values is None or values.dtype.kind not in REAL_KINDS or values.shape != (x.shape[0],):
        shape, dtype = (None, None) if values is None else (values.shape, values.dtype)
        raise TypeError(
            f"fun: with vectorized=True it must map a ({x.shape[0]}, {x.shape[1]}) array to ({x.shape[0]},) real numbers; "
            f"it returned {type(raw).__name__} of shape {shape} and dtype {dtype} for the batch starting x={x[0].tolist()}"
        )
    return values.astype(np.float64), []


def evaluate_batch(fun: Callable[[NDArray[np.float64]], Any], x: NDArray[np.float64], mapper: Callable[..., Any] | None,
                   n_chunks: int, on_error: str) -> tuple[NDArray[np.float64], list[Failure], str | None]:
    """Evaluate a batch serially or as ``n_chunks`` chunks through ``mapper`` (one task per chunk).

    The values, the failures, and None or, when the workers broke, why the run must end: under
    ``"nan"`` the rows of every chunk whose result was lost fail with the error's text; under
    ``"raise"`` it is an :class:`EvaluationError` naming the first such chunk's first row. The
    workers broke when a process died and broke its pool (``concurrent.futures.BrokenExecutor``)
    or, for the ``map`` of a ``concurrent.futures`` executor (the pool of ``workers=N``, Dask's
    ``client.get_executor()``), when a chunk's task failed in the executor itself (Dask's
    ``KilledWorker``). Such a map runs as one submitted task per chunk, so the chunks that finished
    before the pool broke keep their values; a plain map's results after the break are lost.
    ``fun``'s own errors follow ``on_error`` inside the task; anything else (a pickling error, an
    executor shut down, a map's own bug) is raised as it is."""
    if mapper is None or n_chunks <= 1:
        pairs = evaluate_rows(fun, x, on_error)
        return np.array([v for v, _ in pairs], dtype=np.float64), _failures(x, pairs), None
    chunks = [c for c in np.array_split(x, min(n_chunks, x.shape[0])) if c.shape[0]]
    task = _ChunkTask(fun, on_error)
    owner = getattr(mapper, "__self__", None)
    if isinstance(owner, cf.Executor) and getattr(mapper, "__name__", None) == "map":
        outcomes = _submitted(owner, task, chunks)
    else:
        outcomes = _mapped(mapper, task, chunks)
    pairs = []
    broken = None
    for chunk, outcome in zip(chunks, outcomes):
        if isinstance(outcome, list):
            pairs.extend(outcome)
            continue
        text = format_error(outcome)
        if on_error == "raise":
            raise EvaluationError(f"the worker pool broke while evaluating the chunk starting x={chunk[0].tolist()}: {text}",
                                  chunk[0]) from outcome  # fmt: skip
        pairs.extend([(float("nan"), text)] * chunk.shape[0])
        broken = broken or f"stopped: the worker pool broke ({text})"
    return np.array([v for v, _ in pairs], dtype=np.float64), _failures(x, pairs), broken


def _failures(x: NDArray[np.float64], pairs: list[tuple[float, str | None]]) -> list[Failure]:
    return [Failure(x[i].copy(), err) for i, (_, err) in enumerate(pairs) if err is not None]


# Raised as they are, never read as a broken pool: fun's error under "raise", a value that is
# not a number (the chunk's task), and fun or a row that cannot travel to a worker process
_RAISED = (EvaluationError, TypeError, pickle.PicklingError)


def _chunk_pairs(item: Any) -> list[tuple[float, str | None]]:
    """One chunk's result as the map returned it: the task's list of (value, error) pairs."""
    if not isinstance(item, list):
        raise TypeError(f"workers: the map returned a {type(item).__name__} for a chunk, not its values; pass a map that "
                        "returns the results, such as an executor's map (Dask: client.get_executor().map, not client.map)")
    return item


def _submitted(executor: cf.Executor, task: _ChunkTask, chunks: list[NDArray[np.float64]]) -> list[Any]:
    """Each chunk's pairs, or the exception that lost them, from one submitted task per chunk.
    A task that fails in the executor (a dead worker) loses its chunk; the others are read on.
    When this raises, the chunks not started yet are cancelled, as ``Executor.map`` does."""
    futures: list[cf.Future[Any]] = []
    try:
        try:
            futures = [executor.submit(task, chunk) for chunk in chunks]
        except cf.BrokenExecutor as exc:  # a pool broken by an earlier run
            return [exc] * len(chunks)
        outcomes: list[Any] = []
        for future in futures:
            try:
                outcomes.append(future.result())
            except _RAISED:
                raise
            except Exception as exc:  # BrokenProcessPool, Dask's KilledWorker: the task's worker was lost
                outcomes.append(exc)
        return outcomes
    finally:
        for future in futures:
            future.cancel()  # no-op for the finished ones


def _mapped(mapper: Callable[..., Any], task: _ChunkTask, chunks: list[NDArray[np.float64]]) -> list[Any]:
    """Each chunk's pairs from a map-like in order; from a broken pool on, its exception."""
    outcomes: list[Any] = []
    try:
        for item in mapper(task, chunks):  # a map may raise when called (a pool broken before) or while iterated
            outcomes.append(_chunk_pairs(item))
    except cf.BrokenExecutor as exc:
        outcomes.extend([exc] * (len(chunks) - len(outcomes)))
    if len(outcomes) != len(chunks):
        raise ValueError(f"workers: the map returned {len(outcomes)} results for {len(chunks)} chunks; expected one per chunk, in order")
    return outcomes


class _ChunkTask:
    """Picklable ``chunk -> evaluate_rows(fun, chunk, on_error)`` for map-like workers."""

    def __init__(self, fun: Callable[[NDArray[np.float64]], Any], on_error: str) -> None:
        self.fun = fun
        self.on_error = on_error

    def __call__(self, chunk: NDArray[np.float64]) -> list[tuple[float, str | None]]:
        return evaluate_rows(self.fun, chunk, self.on_error)
