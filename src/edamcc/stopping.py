"""When a run should stop, and why: the stopping criteria of :meth:`EDAMCCStrategy.should_stop`.

In the order they are checked:

* **budget**: the evaluations told reach the budget;
* **target**: the best value is at most the target;
* **collapsed model**: every standard deviation of the model is 0;
* **diverged model** (pycma's ``tolupsigma``, 1e20): a standard deviation is not finite or
  exceeds ``DIVERGED`` = 1e20 times the box's widest variable. Only a run without repair
  (``repair="none"``) can get there, on an objective that decreases without bound; it stops
  before the model's draws overflow to inf or NaN;
* **no progress** (after pycma's ``tolfun``, with tolerance ``TOL_FUN`` = 0): over the last
  ``10 + ceil(30 n / M)`` generations the best value did not change at all, and every finite
  value of the last generation was the same. The tolerance is exactly zero because any
  positive one stops real runs early: near the optimum of the paper's functions successive
  values differ by 1e-13 while the error still falls below the paper's 1e-12;
* **flat fitness** (pycma's ``tolflatfitness``, with a longer patience): in each of the last
  ``FLAT_GENERATIONS`` = 10 generations, every finite value was the same.

The last two are what stops an ask/tell loop of the paper's variants on a constant objective.
The self-adaptive variants do not stop on the last three: they restart on their own criteria
(:mod:`edamcc.restarts`) and stop once their restarts are used, so on a constant objective
they run much longer (or to the budget).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

TOL_FUN = 0.0
DIVERGED = 1e20
DIVERGED_REASON = "the model diverged"
FLAT_GENERATIONS = 10


def no_progress_window(dimension: int, population_size: int) -> int:
    """Generations looked back by the no-progress stop: ``10 + ceil(30 n / M)``, as pycma's tolfun."""
    return 10 + math.ceil(30 * dimension / population_size)


def no_progress(best_history: Sequence[float], spreads: Sequence[float], window: int, tolerance: float) -> bool:
    """pycma's ``tolfun`` rule: over the last ``window`` generations the best value moved by at
    most ``tolerance``, and so did the values of the last generation (False for NaN spreads)."""
    if len(best_history) < window or not spreads or not spreads[-1] <= tolerance:  # the cheap test first
        return False
    recent = best_history[-window:]
    return max(recent) - min(recent) <= tolerance


def stop_reason(
    *,
    evaluations: int,
    budget: int | None,
    best_f: float,
    target: float | None,
    max_std: float,
    best_history: Sequence[float],
    spreads: Sequence[float],
    window: int,
    widest: float = math.inf,
) -> str | None:
    """The first criterion that holds, as a sentence, or None.

    ``best_history[g]`` is the best value after the g-th closed generation and ``spreads[g]``
    the range (max - min) of that generation's finite values (NaN if it had fewer than two).
    ``widest``: the box's widest variable, the scale of the diverged-model test.
    """
    if budget is not None and evaluations >= budget:
        return f"budget of {budget} evaluations spent"
    if target is not None and best_f <= target:
        return f"target {target} reached"
    if max_std == 0.0:
        return "the model has collapsed to a point (every standard deviation is 0)"
    if not max_std <= DIVERGED * widest:  # NaN too
        return (f"{DIVERGED_REASON}: a standard deviation ({max_std:.3g}) is beyond {DIVERGED:g} times the box's widest "
                "variable (without repair, the objective may decrease without bound)")
    if math.isfinite(best_f) and no_progress(best_history, spreads, window, TOL_FUN):
        return (
            f"no progress: the best value did not change in {window} generations "
            "and every value of the last generation was the same"
        )
    if len(spreads) >= FLAT_GENERATIONS and all(s == 0.0 for s in spreads[-FLAT_GENERATIONS:]):
        return f"flat fitness: every value of each of the last {FLAT_GENERATIONS} generations was equal"
    return None


class Progress:
    """What the stopping criteria read, generation by generation since the last restart (each
    run has its own, :class:`edamcc.run.Run`): the best value after each closed generation, and
    the range of its finite values."""

    def __init__(self) -> None:
        self.best: list[float] = []
        self.spreads: list[float] = []

    def add(self, best_f: float, values: NDArray[np.float64]) -> None:
        finite = values[np.isfinite(values)]
        self.best.append(float(best_f))
        # one value has no spread; in Python floats, values from -1.7e308 to 1.7e308 span inf, not an overflow warning
        self.spreads.append(float(finite.max()) - float(finite.min()) if finite.size >= 2 else math.nan)

    def reason(self, *, evaluations: int, budget: int | None, best_f: float, target: float | None, max_std: float, window: int,
               widest: float = math.inf) -> str | None:
        """:func:`stop_reason` on this history."""
        return stop_reason(evaluations=evaluations, budget=budget, best_f=best_f, target=target, max_std=max_std,
                           best_history=self.best, spreads=self.spreads, window=window, widest=widest)  # fmt: skip
