"""Cumulative step-size adaptation for EDA-MCC's models (``variant="edamcc-csa"``).

The maximum-likelihood fit is unstable as a step-size rule: its variances shrink by a factor
that depends on the selection, so a run either collapses or, with any fixed multiplier above
about 1.3, diverges (measured on the sphere at n = 100, 40 rows per generation). AMaLGaM's
variance scaling (:mod:`edamcc.adaptation`) steers the multiplier between the two in steps of
1/0.9 and reaches a third of the progress rate a well-scaled Gaussian allows. This module
separates the model's *shape* from its *scale*:

* **Shape**: the maximum-likelihood estimates of the selected rows, weighted by rank
  (w_i proportional to ln(mu + 1/2) - ln i, the best mu = floor(M/2) rows), as in the paper's
  Fig. 6 otherwise: WI picks the weak variables, SM groups the strong ones. Each variable's
  variance, relative to the scale, is remembered across generations,
  D_i^2 <- (1 - eta) D_i^2 + eta s_i^2 / sigma^2 with eta = 0.3 (mu_eff + 2) / (n + 5), and
  normalized to mean 1 (an arithmetic mean: a variable pinned to a bound by the repair has a
  vanishing variance that a geometric mean would turn into a huge scale for all others); a group's correlations come from the generation's fit,
  shrunk towards the identity by s / (s + mu_eff) for a group of s variables, since a group
  larger than the selection has a singular sample correlation.
* **Scale**: one step size sigma, adapted from the length of the mean's path in the model's
  own coordinates (cumulative step-size adaptation: Hansen and Ostermeier, "Completely
  derandomized self-adaptation in evolution strategies", Evolutionary Computation 9(2), 2001;
  constants from Hansen, "The CMA evolution strategy: a tutorial", 2016):
  p <- (1 - c) p + sqrt(c (2 - c) mu_eff) y,  sigma <- sigma exp(min(1, (c / d)(|p| / E|N(0, I)| - 1))),
  with y the mean's step whitened by the model it was sampled from,
  c = (mu_eff + 2) / (n + mu_eff + 5) and d = 1 + c + 2 max(0, sqrt((mu_eff - 1) / (n + 1)) - 1).

The sampling model is the factorized Gaussian of Eq. (8) with variances sigma^2 D_i^2 and, in a
group, covariance sigma^2 D R D. The state is small and plain, so a strategy with it pickles
and resumes bit for bit, and the Optuna sampler replays it from the trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .models import FactorizedGaussian, GaussianBlocks

SHAPE_RATE = 0.3  # eta = SHAPE_RATE * (mu_eff + 2) / (n + 5): the diagonal learning rate of sep-CMA-ES
MAX_LOG_STEP = 1.0  # sigma changes by at most a factor e per generation


def recombination_weights(mu: int) -> NDArray[np.float64]:
    """Rank weights of the ``mu`` selected rows, best first: ln(mu + 1/2) - ln i, summing to 1."""
    w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    return w / w.sum()


def expected_norm(n: int) -> float:
    """E|N(0, I_n)|, to within 1e-4 relative (Hansen's tutorial)."""
    return math.sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n))


def whiten(model: FactorizedGaussian, step: NDArray[np.float64]) -> NDArray[np.float64]:
    """``step`` (``(n,)``) in the coordinates where ``model``'s covariance is the identity."""
    y = np.empty_like(step)
    y[model.weak] = step[model.weak] / model.weak_std
    for b in model.blocks:  # a sample is mean + z @ factor, so z = step @ inv(factor)
        z = np.linalg.solve(b.factor.transpose(0, 2, 1), step[b.index][:, :, None])[:, :, 0]
        y[b.index.ravel()] = z.ravel()
    return y


@dataclass(frozen=True)
class StepSize:
    """The step-size state after a generation (None fields: no model fitted yet)."""

    sigma: float | None = None
    path: NDArray[np.float64] | None = None
    shape: NDArray[np.float64] | None = None  # D_i^2, mean 1
    model: FactorizedGaussian | None = None  # the model the next generation samples from
    best_f: float = math.inf

    @property
    def multiplier(self) -> None:
        """No variance multiplier: the scale is ``sigma``."""
        return None

    def update(self, rows: NDArray[np.float64], values: NDArray[np.float64], before: Any, fitted: Any, mu_eff: float) -> StepSize:
        """The state after a closed generation: its ``rows`` and ``values``, sampled from
        ``self.model`` (the uniform box at first), and the weighted maximum-likelihood fit
        ``fitted`` of its selected rows (None: fewer than two finite values, nothing learned)."""
        finite = np.isfinite(values)
        best = min(self.best_f, float(np.min(values[finite]))) if finite.any() else self.best_f
        if fitted is None:
            return replace(self, best_f=best)
        n = fitted.mean.size
        variances = fitted.stds() ** 2
        if self.model is None:  # the first fit: the scale and the shape of the selected rows
            positive = variances[variances > 0]
            if positive.size == 0:
                return replace(self, best_f=best)
            sigma = float(np.exp(0.5 * np.mean(np.log(positive))))
            shape, path = np.where(variances > 0, variances, positive.min()) / sigma**2, np.zeros(n)
        else:
            c = (mu_eff + 2.0) / (n + mu_eff + 5.0)
            d = 1.0 + c + 2.0 * max(0.0, math.sqrt((mu_eff - 1.0) / (n + 1.0)) - 1.0)
            y = whiten(self.model, fitted.mean - self.model.mean)  # the mean's step, in the model's units
            path = (1.0 - c) * self.path + math.sqrt(c * (2.0 - c) * mu_eff) * y  # type: ignore[operator]
            log_step = min(MAX_LOG_STEP, (c / d) * (float(np.linalg.norm(path)) / expected_norm(n) - 1.0))
            eta = min(1.0, SHAPE_RATE * (mu_eff + 2.0) / (n + 5.0))
            shape = (1.0 - eta) * self.shape + eta * variances / self.sigma**2  # type: ignore[operator]
            shape = np.maximum(shape, np.finfo(float).tiny)
            sigma = self.sigma * math.exp(log_step)  # type: ignore[operator]
        shape = shape / np.mean(shape)
        return StepSize(sigma, path, shape, sampling_model(fitted, sigma, shape, mu_eff), best)


def sampling_model(fitted: FactorizedGaussian, sigma: float, shape: NDArray[np.float64], mu_eff: float) -> FactorizedGaussian:
    """``fitted``'s mean and group correlations with the variances sigma^2 D_i^2."""
    std = sigma * np.sqrt(shape)
    blocks = []
    for b in fitted.blocks:
        cov = b.factor.transpose(0, 2, 1) @ b.factor  # (G, s, s), the fit's covariance
        s = np.sqrt(np.einsum("gii->gi", cov))
        safe = np.where(s > 0, s, 1.0)
        corr = cov / safe[:, :, None] / safe[:, None, :]
        size = b.index.shape[1]
        alpha = size / (size + mu_eff)  # shrinkage towards independence
        eye = np.eye(size)
        corr = (1.0 - alpha) * np.where(s[:, :, None] * s[:, None, :] > 0, corr, eye) + alpha * eye
        lower = np.linalg.cholesky(corr)  # corr = L L^T, positive definite after the shrinkage
        factor = np.ascontiguousarray(lower.transpose(0, 2, 1) * std[b.index][:, None, :])
        blocks.append(GaussianBlocks(b.index, factor))
    return FactorizedGaussian(fitted.mean, fitted.weak, std[fitted.weak], tuple(blocks))
