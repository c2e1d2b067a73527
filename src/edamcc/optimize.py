"""``minimize``: run the strategy to a budget, SciPy style."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult

from .bounds import parse_bounds
from .strategy import EDAMCCStrategy

Objective = Callable[[NDArray[np.float64]], Any]
MapLike = Callable[[Objective, Iterable[NDArray[np.float64]]], Iterable[Any]]


def _evaluator(fun: Objective, vectorized: bool, mapper: MapLike | None) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    def evaluate(x: NDArray[np.float64]) -> NDArray[np.float64]:
        if vectorized:
            values = np.asarray(fun(x), dtype=np.float64)
            if values.shape != (x.shape[0],):
                raise ValueError(
                    f"fun: with vectorized=True it must map a ({x.shape[0]}, {x.shape[1]}) array to shape "
                    f"({x.shape[0]},); it returned shape {values.shape}"
                )
            return values
        rows = list(x)
        results = list(mapper(fun, rows)) if mapper is not None else [fun(r) for r in rows]
        values = np.asarray(results, dtype=np.float64)
        if values.shape != (x.shape[0],):
            raise ValueError(f"fun: must return one scalar per point; got values of shape {values.shape} for {x.shape[0]} points")
        return values

    return evaluate


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
    **options: Any,
) -> OptimizeResult:
    """Minimize ``fun`` over the box ``bounds`` with EDA-MCC (or another variant).

    Args:
        fun: ``fun(x) -> float`` for ``x`` of shape ``(n,)``, or with ``vectorized=True``
            ``fun(X) -> (k,)`` for ``X`` of shape ``(k, n)``.
        bounds: as for :class:`EDAMCCStrategy` (pairs, :class:`scipy.optimize.Bounds`, ...).
        budget: maximum number of evaluations; default ``10000 * n`` (the paper's and
            CEC2005's budget).
        seed: seeds the strategy's single random generator.
        workers: evaluate each batch in parallel, as SciPy's ``differential_evolution`` does:
            a map-like callable (``executor.map``, ``pool.map``, a Dask or Ray map) called as
            ``workers(fun, rows)``, or an int: that many processes (-1: all cores; ``fun`` must
            then be picklable). Ignored with ``vectorized=True``.
        vectorized: ``fun`` takes the whole ``(k, n)`` batch.
        callback: called after every generation with an :class:`~scipy.optimize.OptimizeResult`
            (``x``, ``fun``, ``nfev``, ``nit``, and ``strategy`` to read the learned structure);
            returning True or raising StopIteration stops.
        target: stop once a value ``<= target`` is found.
        disp: print one progress line per 10 generations.
        **options: any keyword of :class:`EDAMCCStrategy` (``population_size``, ``theta``,
            ``c``, ``m_corr``, ``selection_ratio``, ``variant``, ``repair``, ...).

    Returns:
        An :class:`~scipy.optimize.OptimizeResult` with ``x``, ``fun``, ``nfev``, ``nit``
        (completed generations), ``success``, ``message``, ``structure`` (the
        :class:`~edamcc.StructureRecord`) and ``strategy`` (to inspect or continue).
    """
    if not callable(fun):
        raise TypeError(f"fun: expected a callable; got {fun!r}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback: expected a callable or None; got {callback!r}")
    if budget is None:
        lower, _ = parse_bounds(bounds, options.get("dimension"))
        budget = 10_000 * lower.size
    es = EDAMCCStrategy(bounds=bounds, seed=seed, budget=budget, target=target, **options)

    pool: ProcessPoolExecutor | None = None
    mapper: MapLike | None = None
    if workers is not None and not callable(workers):
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers == 0 or workers < -1:
            raise ValueError(f"workers: expected a map-like callable, a positive int or -1; got {workers!r}")
        if workers != 1:
            pool = ProcessPoolExecutor(max_workers=os.cpu_count() if workers == -1 else int(workers))
            mapper = pool.map  # type: ignore[assignment]
    elif callable(workers):
        mapper = workers
    evaluate = _evaluator(fun, vectorized, mapper)

    message = ""
    try:
        while True:
            reason = es.stop_reason
            if reason is not None:
                message = reason
                break
            x = es.ask()
            if x.shape[0] == 0:  # pragma: no cover - ask always has work unless stopped
                message = "no candidates left to evaluate"
                break
            es.tell(x, evaluate(x))
            if disp and es.generation % 10 == 0:
                strong = es.strong_variables
                n_strong = "-" if strong is None else f"{strong.size}/{es.dimension}"
                print(f"gen {es.generation:6d}  nfev {es.evaluations:9d}  best {es.best_f: .6e}  #strong {n_strong}", flush=True)
            if callback is not None:
                try:
                    stop = callback(OptimizeResult(x=es.best_x, fun=es.best_f, nfev=es.evaluations, nit=es.generation, strategy=es))
                except StopIteration:
                    stop = True
                if stop:
                    message = "stopped by the callback"
                    break
    finally:
        if pool is not None:
            pool.shutdown()
    return OptimizeResult(
        x=es.best_x,
        fun=es.best_f,
        nfev=es.evaluations,
        nit=es.generation,
        success=es.best_x is not None,  # a finite value was found
        message=message,
        structure=es.structure,
        strategy=es,
    )
