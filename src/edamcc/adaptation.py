"""Adaptive variance scaling and anticipated mean shift, for the self-adaptive variant.

Maximum-likelihood Gaussians shrink their variances faster than their mean moves on slopes
and in valleys, and stall before the optimum (README, "Measured results": the paper's variant
on F4 at 50-D ends with standard deviations of 1e-9 while a coordinate sits 0.239 from the
optimum). AMaLGaM (Bosman, Grahl, Thierens,
"Enhancing the performance of maximum-likelihood Gaussian EDAs using anticipated mean shift",
PPSN 2008; "Benchmarking parameter-free AMaLGaM on functions with and without noise",
Evolutionary Computation 21(3), 2013) fixes this with two mechanisms, applied here to the
univariate and the group models alike:

* **Adaptive variance scaling (AVS)**: every covariance is multiplied by ``multiplier``
  (c_mult). After a generation that improved on the best value, the multiplier is at least 1,
  and it grows by ``1 / ETA_DEC`` when the improvements lie far from the mean: when the
  standard-deviation ratio (SDR, the largest |mean of the improving rows - model mean| in
  model standard deviations) exceeds ``THETA_SDR``. After a generation without improvement it
  shrinks by ``ETA_DEC`` while above 1, and below 1 only after ``stall_limit(n)`` such
  generations in a row.
* **Anticipated mean shift (AMS)**: the mean's last step is the shift; a fraction
  ``AMS_FRACTION`` of each generation's new rows is moved by ``AMS_DELTA * multiplier * shift``.

The state is small and plain (floats and one array), so a strategy with it pickles and
resumes bit for bit, and the Optuna sampler replays it from the trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .models import ShiftedModel

ETA_DEC = 0.9  # AMaLGaM's eta_DEC; eta_INC = 1 / eta_DEC
THETA_SDR = 1.0  # AMaLGaM's SDR threshold
AMS_DELTA = 2.0  # AMaLGaM's delta_AMS
AMS_FRACTION = 0.25  # AMaLGaM's alpha_AMS = tau / 2 at tau = 0.5, kept at edamcc-adaptive's tau = 0.35


def stall_limit(dimension: int) -> int:
    """Generations without improvement before the multiplier may fall below 1: 25 + n (AMaLGaM's NIS_MAX)."""
    return 25 + dimension


@dataclass(frozen=True)
class Adaptation:
    """The AVS/AMS state after a generation."""

    multiplier: float = 1.0
    stalled: int = 0  # generations in a row without improvement
    best_f: float = math.inf  # best value of the closed generations
    shift: NDArray[np.float64] | None = None  # the mean's last step

    def update(self, rows: NDArray[np.float64], values: NDArray[np.float64], before: Any, after_mean: NDArray[np.float64] | None) -> Adaptation:
        """The state after a closed generation: its ``rows`` and ``values`` (sampled from the
        model ``before``) and the mean of the model fitted on them (None: model kept)."""
        n = rows.shape[1]
        finite = np.isfinite(values)
        improved = finite & (values < self.best_f)
        multiplier, stalled = self.multiplier, self.stalled
        if improved.any() and math.isfinite(self.best_f):
            stalled = 0
            multiplier = max(multiplier, 1.0)
            std = before.stds()
            moved = np.abs(rows[improved].mean(axis=0) - before.mean)
            ok = std > 0
            sdr = float(np.max(moved[ok] / std[ok])) if ok.any() else 0.0
            if sdr > THETA_SDR:
                multiplier /= ETA_DEC
        elif math.isfinite(self.best_f):
            stalled += 1
            if multiplier > 1.0 or stalled >= stall_limit(n):
                multiplier *= ETA_DEC
            if multiplier < 1.0 and stalled < stall_limit(n):
                multiplier = 1.0
        best = float(np.min(values[finite])) if finite.any() else math.inf
        shift = self.shift
        if after_mean is not None and hasattr(before, "mean") and math.isfinite(self.best_f):
            shift = after_mean - before.mean
        return replace(self, multiplier=multiplier, stalled=stalled, best_f=min(self.best_f, best), shift=shift)

    def sampling_model(self, fitted: Any) -> Any:
        """The model to sample from: the ML fit scaled by the multiplier, with the mean shift."""
        model = fitted.scaled(self.multiplier) if self.multiplier != 1.0 else fitted
        if self.shift is None or not np.any(self.shift):
            return model
        return ShiftedModel(model, AMS_DELTA * self.multiplier * self.shift, AMS_FRACTION)
