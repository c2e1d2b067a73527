"""When the self-adaptive variant restarts, and with what population (IPOP).

A restart begins a fresh run from the uniform box with a population twice as large (IPOP:
Auger and Hansen, "A restart CMA evolution strategy with increasing population size", CEC
2005), keeping the best point found, the evaluation count and the structure record. It
happens when the current run can no longer make progress:

* the model has shrunk below ``TOL_STD`` = 1e-12 of the box's widest side in every variable.
  This is also what ends a run that has stalled away from the optimum: on Schwefel 2.21 at
  n = 100 the first run stalls after 23,000 to 33,000 evaluations and restarts only after
  66,000 or more; set lower, it leaves most such runs stalled to the budget
  (``benchmarks/restart_tolerance.py``);
* the variance multiplier fell below ``TOL_MULTIPLIER`` = 1e-10 (AMaLGaM's own restart
  condition: it shrinks by 0.9 per generation only after 25 + n generations in a row
  without improvement, so about 25 + n + 219 generations on a plateau);
* the step-size variants only (``scale="csa"``, :attr:`edamcc.variants.Variant.uses_step_size`: the
  default ``edamcc-sep-cc`` and its relatives), pycma's ``tolfun`` (``RESTART_TOL_FUN`` = 1e-11; the stop of
  :mod:`edamcc.stopping` uses 0): over the last ``10 + ceil(30 n / M)`` generations the best
  value moved by at most 1e-11, and so did the values of the last generation. Without it a
  converged run of theirs never restarts: once the values of a generation are equal to
  the last bit, selection is random, the step size stops shrinking and the standard
  deviations stay far above ``TOL_STD`` (measured on bbob Rastrigin f3 and f15 at 20-D: no
  restart in 200,000 evaluations).

Flat fitness alone is not a reason: samples clipped to the box make equal values early on (on
max|x_i| every sample with a coordinate on a bound scores the bound), and restarting then only
throws the run away (``tolfun`` needs the best value flat over its whole window too). That
best value is the whole run's, not the current restart's: after a restart it stays flat until
the new run beats it, and only the last generation's spread then holds a restart back. The
budget and the target end the whole run; after ``MAX_RESTARTS`` = 9 restarts (a population
512 times the first) the next reason to restart stops the run instead, and it stays stopped:
candidates asked after that come from its last model, which no longer changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .stopping import Progress, no_progress

MAX_RESTARTS = 9
TOL_STD = 1e-12
TOL_MULTIPLIER = 1e-10
RESTART_TOL_FUN = 1e-11  # pycma's tolfun
GROWTH = 2


def restart_reason(model: Any, multiplier: float | None, lower: NDArray[np.float64], upper: NDArray[np.float64],
                   progress: Progress | None = None, window: int = 0) -> str | None:  # fmt: skip
    """Why the current run should restart, or None. ``progress`` (one entry per generation since
    the last restart: the whole run's best value and that generation's spread, looked back
    ``window`` generations) is given for the step-size variants (``scale="csa"``) only."""
    if model.max_std <= TOL_STD * float(np.max(upper - lower)):
        return f"every standard deviation is below {TOL_STD:g} of the box"
    if multiplier is not None and multiplier < TOL_MULTIPLIER:
        return f"the variance multiplier fell below {TOL_MULTIPLIER:g}"
    if progress is not None and no_progress(progress.best, progress.spreads, window, RESTART_TOL_FUN):
        return f"no progress: the best value and the last generation's values moved by at most {RESTART_TOL_FUN:g} in {window} generations"
    return None


def next_population_size(population_size: int) -> int:
    """IPOP: the next run's population."""
    return GROWTH * population_size
