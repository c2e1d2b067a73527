"""``minimize``: run the strategy to a budget, SciPy style."""

from __future__ import annotations

import functools
import multiprocessing.pool
import os
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult

from . import checkpoint as ckpt
from .bounds import parse_bounds
from .checks import check_flag, is_int
from .evaluation import Failure, check_on_error, check_picklable, evaluate_batch, evaluate_vectorized
from .progress import Progress
from .settings import check_count, check_seconds, default_budget
from .steady_state import SteadyState, infer_workers, queue_limit
from .strategy import EDAMCCStrategy

Objective = Callable[[NDArray[np.float64]], Any]
MapLike = Callable[[Objective, Iterable[NDArray[np.float64]]], Iterable[Any]]


def minimize(
    fun: Objective,
    bounds: Any,
    *,
    budget: int | None = None,
    seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    workers: int | MapLike | None = None,
    vectorized: bool = False,
    callback: Callable[[OptimizeResult], Any] | None = None,
    target: float | None = None,
    disp: bool = False,
    executor: Executor | Any | None = None,
    max_in_flight: int | None = None,
    on_error: str = "raise",
    timeout: float | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float | None = None,
    **options: Any,
) -> OptimizeResult:
    """Minimize ``fun`` over the box ``bounds`` with EDA-MCC (or another variant).

    Args:
        fun: ``fun(x) -> float`` for ``x`` of shape ``(n,)``, or with ``vectorized=True``
            ``fun(X) -> (k,)`` for ``X`` of shape ``(k, n)``. It gets its own copy, which it may
            change in place (as with SciPy): the rows told are the ones asked.
        bounds: as for :class:`EDAMCCStrategy` (pairs, :class:`scipy.optimize.Bounds`, ...).
        budget: maximum number of evaluations; default ``10000 * n`` (the paper's and
            CEC2005's budget).
        seed: seeds the strategy's single random generator.
        workers: evaluate each batch in parallel, as SciPy's ``differential_evolution`` does:
            a map-like callable (``executor.map``, ``pool.map``, a Dask or Ray map) called as
            ``workers(fun, rows)``, or an int: that many processes (-1: all cores; ``fun`` must
            then be picklable). Each worker gets ONE chunk of rows per generation
            (``np.array_split`` into as many chunks as workers; an int or the size of the
            pool whose ``map`` it is sets how many, 4 chunks for any other map). Not with
            ``vectorized=True`` (``ValueError``).
        vectorized: ``fun`` takes the whole ``(k, n)`` batch.
        callback: called after every generation with an :class:`~scipy.optimize.OptimizeResult`
            (``x``, ``fun``, ``nfev``, ``nit``, and ``strategy`` to read the learned structure);
            returning True or raising StopIteration stops.
        target: stop once a value ``<= target`` is found.
        disp: print progress lines (evaluations done, in flight, failed, best value, ETA) every
            10 generations or 2 seconds, and the final line once.
        executor: steady-state evaluation on any ``concurrent.futures.Executor``-like object
            (``ProcessPoolExecutor``, ``dask.distributed.Client``, ``client.get_executor()``):
            every worker is kept busy and each result is told at once; a free worker gets the
            next candidate of the generation, or one drawn from the current model once the
            generation is all handed out. ``fun`` must be picklable for process workers. When the
            executor's round trip (a result travelling back, the next candidate travelling out)
            exceeds 5% of a typical evaluation's time inside the worker, candidates are kept
            queued beyond the workers so no worker waits for the driver: at most one in total for
            a ``concurrent.futures`` pool, at most one per worker thread for Dask. They count
            against the budget like any other. Off with ``timeout`` or ``max_in_flight``.
        max_in_flight: evaluations kept running on ``executor``; default ``executor._max_workers``
            or, for a Dask client, ``sum(client.nthreads().values())``. When given, exactly this
            many (no automatic queueing beyond it). Without ``executor``: ``ValueError``.
        on_error: ``"raise"`` (default): an exception in ``fun`` raises
            :class:`~edamcc.evaluation.EvaluationError` naming the point, chained to the
            original; ``"nan"``: the point is told as NaN (ranks worst) and listed in
            ``result.failures``. ``sys.exit`` in ``fun``, a dead worker process and a timeout
            count as failures; with ``workers=`` a dead process breaks the pool, so every point
            it had not returned fails and the run ends (under ``"nan"``, with a message). A
            value that is not one real number (None, a string, complex, a wrong shape) raises
            ``TypeError`` under both policies: that is a bug in ``fun``.
        timeout: with ``executor``: seconds an evaluation may take, counted from when a
            ``concurrent.futures`` pool starts it (for a process pool: when it enters the
            workers' call queue; from the submit for other executors); later
            it is a failure and its future is cancelled (abandoned if already running).
            Without ``executor``: ``ValueError``, as nothing else could honour it.
        checkpoint: a file path; the run's state is written there atomically and a call with
            the file present resumes from it (same dimension, bounds, seed and options, else
            ``ValueError``; the budget may differ). Candidates in flight when it was written
            are evaluated again. The final checkpoint is kept. With serial evaluation a resumed
            run ends bit-identical to an uninterrupted one (pass ``population_size``
            explicitly if the budget changes between the runs). A directory, or a path whose
            directory is missing or not writable, is refused (``ValueError``) before the run.
        checkpoint_every: seconds between checkpoints; None (default): after every generation.
            Without ``checkpoint``: ``ValueError``.
        **options: any keyword of :class:`EDAMCCStrategy` (``population_size``, ``theta``,
            ``c``, ``m_corr``, ``selection_ratio``, ``variant``, ``repair``, ...).

    Returns:
        An :class:`~scipy.optimize.OptimizeResult` with ``x``, ``fun``, ``nfev`` (the values
        told; with ``executor=``, evaluations still running when a callback or the target stops
        the run are left pending and not counted), ``nit``
        (completed generations), ``success`` (False when no evaluation returned a finite
        value: then ``x`` is None, ``fun`` is inf and ``message`` says so), ``message``, ``failures`` (a list of
        :class:`~edamcc.evaluation.Failure` with ``x`` and ``error``), ``structure`` (the
        :class:`~edamcc.StructureRecord`) and ``strategy`` (to inspect or continue).
    """
    if not callable(fun):
        raise TypeError(f"fun: expected a callable; got {fun!r}")
    if "x0" in options:  # SciPy's local minimizers take one; EDA-MCC samples its first generation from the box
        raise TypeError("x0: minimize has no starting point (the first generation is drawn from the box); to start "
                        "from known points, tell them to an EDAMCCStrategy with inject(x, f) and run its ask/tell loop")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback: expected a callable or None; got {callback!r}")
    if budget is None:
        lower, _ = parse_bounds(bounds, options.get("dimension"))
        budget = default_budget(lower.size)
    check_on_error(on_error)
    timeout = check_seconds(timeout, "timeout")
    checkpoint_every = check_seconds(checkpoint_every, "checkpoint_every")
    if max_in_flight is not None:
        check_count(max_in_flight, "max_in_flight")
    check_workers(workers)
    vectorized, disp = check_flag(vectorized, "vectorized"), check_flag(disp, "disp")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor: expected an object with submit(fn, *args) (a concurrent.futures executor, a Dask "
                        f"Client or client.get_executor()); got {executor!r}")
    if executor is not None and (workers is not None or vectorized):
        raise ValueError("executor: use either executor= or workers=/vectorized=, not both")
    if vectorized and workers is not None:  # one call takes the whole batch: nothing to split
        raise ValueError("workers: a vectorized fun takes each generation in one call; use either workers= or vectorized=True, not both")
    if (is_int(workers) and workers != 1) or _process_pool_map(workers):
        check_picklable(fun, workers)  # a process pool: fun travels pickled
    for name, value in (("timeout", timeout), ("max_in_flight", max_in_flight)):
        if executor is None and value is not None:
            raise ValueError(f"{name}: applies to steady-state evaluation only; pass executor= too, or leave {name}=None")
    if checkpoint is not None:
        ckpt.check_path(checkpoint, optional=True)
        # resolved once: an objective that changes directory must not move the run's checkpoint
        checkpoint = os.path.abspath(os.fspath(checkpoint))
    elif checkpoint_every is not None:
        raise ValueError("checkpoint_every: applies only with checkpoint=; pass a checkpoint path too, or leave it None")
    saver: ckpt.Checkpointer | None = None
    if checkpoint is None:
        es, failures = EDAMCCStrategy(bounds=bounds, seed=seed, budget=budget, target=target, **options), []
    else:
        es, failures, key = ckpt.open_run(checkpoint, bounds, seed, budget, target, options, fun)
        saver = ckpt.Checkpointer(checkpoint, checkpoint_every, key)
    progress = Progress(disp)

    def after_tell(last_generation: int, batch: bool = False) -> str | None:
        closed = es.generation != last_generation
        if saver is not None:
            saver.maybe_save(es, failures, closed)
        progress.update(es, len(failures))
        if (closed or batch) and callback is not None:
            try:
                stop = callback(OptimizeResult(x=es.best_x, fun=es.best_f, nfev=es.evaluations, nit=es.generation, strategy=es))
            except StopIteration:
                stop = True
            if stop:
                return "stopped by the callback"
        return None

    if executor is not None:
        driver = SteadyState(es, fun, executor, infer_workers(executor, max_in_flight), on_error, timeout,
                             queue_limit(executor, max_in_flight, timeout))
        driver.failures = failures
        gen = [es.generation]

        def steady_after_tell() -> str | None:
            message = after_tell(gen[0])
            gen[0] = es.generation
            return message

        message = driver.run(steady_after_tell)
    else:
        message = _run_batches(es, fun, workers, vectorized, on_error, failures, after_tell)
    if es.best_x is None:  # success is False: say why, beside the reason the run stopped
        message += "; no evaluation returned a finite value"
    if saver is not None:
        ckpt.save(checkpoint, es, failures, saver.key)  # the final state, kept
    progress.final(es, len(failures), message)
    return OptimizeResult(
        x=es.best_x,
        fun=es.best_f,
        nfev=es.evaluations,
        nit=es.generation,
        success=es.best_x is not None,  # a finite value was found
        message=message,
        failures=failures,
        structure=es.structure,
        strategy=es,
    )


def _map_owner(workers: Any) -> Any:
    """The object whose bound ``map`` a map-like ``workers`` is, also inside ``functools.partial``
    (None for a plain function)."""
    while isinstance(workers, functools.partial):
        workers = workers.func
    return getattr(workers, "__self__", None)


def _process_pool_map(workers: Any) -> bool:
    """Whether ``workers`` is the map of a process pool (``concurrent.futures`` or
    ``multiprocessing``): it sends ``fun`` to other processes."""
    return isinstance(_map_owner(workers), (ProcessPoolExecutor, multiprocessing.pool.Pool))


def _map_size(workers: Any) -> int:
    """How many chunks a map-like ``workers`` gets: its pool's size for a ``concurrent.futures``
    pool (``_max_workers``) or a ``multiprocessing`` pool (``_processes``); 4 for any other map."""
    owner = _map_owner(workers)
    if isinstance(owner, multiprocessing.pool.Pool):
        return int(owner._processes)  # type: ignore[attr-defined]
    return int(getattr(owner, "_max_workers", 0) or 4)


def check_workers(workers: Any) -> None:
    """``workers``: None, a map-like callable, a positive int or -1 (one process per CPU)."""
    if workers is None or callable(workers):
        return
    if not is_int(workers) or workers == 0 or workers < -1:
        raise ValueError(f"workers: expected a map-like callable, a positive int or -1; got {workers!r}")


def _run_batches(es: EDAMCCStrategy, fun: Objective, workers: int | MapLike | None, vectorized: bool, on_error: str,
                 failures: list[Failure], after_tell: Callable[[int, bool], str | None]) -> str:
    """Generational evaluation: serial, vectorized, or one chunk of rows per worker."""
    pool: ProcessPoolExecutor | None = None
    mapper: MapLike | None = None
    n_chunks = 1
    if workers is not None and not callable(workers):
        if workers != 1:
            n_chunks = (os.cpu_count() or 1) if workers == -1 else int(workers)
            pool = ProcessPoolExecutor(max_workers=n_chunks)
            mapper = pool.map  # type: ignore[assignment]
    elif callable(workers):
        mapper = workers
        n_chunks = _map_size(workers)
    try:
        x = ckpt.rerun_rows(es)  # rows in flight when a checkpoint was written: evaluate them again
        while True:
            if x.shape[0] == 0:
                reason = es.stop_reason
                if reason is not None:
                    return reason
                x = es.ask()
                if x.shape[0] == 0:  # pragma: no cover - ask always has work unless stopped
                    return "no candidates left to evaluate"
            broken = None
            if vectorized:
                values, new_failures = evaluate_vectorized(fun, x, on_error)
            else:
                values, new_failures, broken = evaluate_batch(fun, x, mapper, n_chunks, on_error)
            failures.extend(new_failures)
            last = es.generation
            es.tell(x, values)
            x = x[:0]
            message = after_tell(last, True)
            if message is not None or broken is not None:
                return message or broken
    finally:
        if pool is not None:
            pool.shutdown()
