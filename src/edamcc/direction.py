"""One learned direction beyond the model's diagonal (``Variant.learned_direction``).

A model whose variables' spreads are learned one by one cannot move along a direction that
needs all of them at once: on Schwefel 2.21 (F3, F4) the variables at the largest |x_i| have to
move inward together, selection shrinks their variances instead, and the default's run
stalls (README, "Which components cost Schwefel 2.21"). VD-CMA's model, a diagonal times one
learned direction, C = D (I + v v^T) D, leaves that stall (Akimoto, Auger and Hansen,
"Comparison-based natural gradient optimization in high dimension", GECCO 2014; measured as the
peer ``vd-cma``). This module gives EDA-MCC's step-size model the same extra direction:

* **Model** (:class:`DirectedGaussian`): the factorized model B B^T of WI and SM (Eq. (8), with
  the step size's variances sigma^2 D^2, each times s_i^2 = 1 / (1 + v_i^2)) plus one direction
  u = sigma S D v, S = diag(s): C = B B^T + u u^T = sigma^2 D S (R + v v^T) S D, with R the
  groups' correlations. A sample is the factorized model's sample plus xi u, xi ~ N(0, 1), and
  a step is whitened exactly as (I + v' v'^T)^(-1/2) B^-1, with v' = B^-1 u.
* **Each variable's variance stays the diagonal's** (:func:`marginal_scale`): C_ii = sigma^2 D_i^2,
  so v adds only the correlations along its direction, and the step size's shape D^2 keeps its
  own rule (:mod:`edamcc.step_size`) on the rows as drawn. (In VD-CMA's terms the model is
  D' (I + v v^T) D' with D' = sigma S D.) A first version kept the diagonal D' and read the
  shape on the rows with v's share taken out; C_ii = D'_i^2 (1 + v_i^2) then fixes only the
  product of D'_i and v_i, and the two drifted apart: on F10 at n = 100, after 160,000
  evaluations, |v| grew to 170, the smallest D_i^2 fell to 1e-27 and sigma rose to 1e6 within
  100 generations, until a group's factor was singular.
* **Update of v** (:func:`update_direction`): VD-CMA's natural gradient step for v (the paper
  above; the same step as pycma's ``GaussVDSampler`` for a unit diagonal), in the units
  y = (x - m) / (sigma S D) of the model's factorized part, with the rank-mu term of the
  selected rows and the rank-one term of the mean's path p_c. Its rates are VD-CMA's,
  c_1 = c' 2 / ((n + 1.3)^2 + mu_eff) and
  c_mu = min(1 - c_1, c' 2 (mu_eff - 2 + 1 / mu_eff) / ((n + 2)^2 + mu_eff)), c' = max((n - 5) / 6, 0.5),
  and the step is cut as VD-CMA cuts its joint step of v and D: |v| changes by at most 70%,
  and so would each D_i in the D part of that step (which D's own rule replaces here).

The groups' correlations R are fitted on the rows as drawn, v's share in them. WI reads them
as drawn too, unless ``Variant.direction_free_wi``: then it correlates the rows mapped to the
factorized part's distribution (:meth:`DirectedGaussian.without_direction`). As drawn, the
correlations along v make its variables strong: on the rotated elliptic F9 at n = 100 (seed 0,
``benchmarks/trace_model.py``) WI called 8 to 73 of the 100 variables weak with the direction,
against 72 to 94 without it (the default) and 83 to 86 with ``direction_free_wi``.

The first v is the first mean step's direction, at length :data:`START_LENGTH`, so that no
random draw is added to the run's stream before the model samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from .models import FactorizedGaussian

START_LENGTH = 1.0  # |v| of the first direction (pycma's VD-CMA starts at a random v of length about 1)
MAX_CHANGE = 0.7  # VD-CMA's truncation: v and D change by at most 70% in one step
MAX_COMPONENT = 10.0  # |v_i| at most this: correlations along v up to 100 / 101 (see next_direction)


@dataclass(frozen=True)
class DirectedGaussian:
    """``model`` (a :class:`~edamcc.models.FactorizedGaussian`) plus one direction ``direction``
    (``(n,)``, in the variables' units): covariance B B^T + u u^T."""

    model: FactorizedGaussian
    direction: NDArray[np.float64]

    @property
    def mean(self) -> NDArray[np.float64]:
        return self.model.mean

    @property
    def weak(self) -> NDArray[np.intp]:
        return self.model.weak

    @property
    def blocks(self) -> tuple:
        return self.model.blocks

    def stds(self) -> NDArray[np.float64]:
        """Each variable's marginal standard deviation, shape ``(n,)``."""
        return np.sqrt(self.model.stds() ** 2 + self.direction**2)

    @property
    def max_std(self) -> float:
        return float(np.max(self.stds(), initial=0.0))

    def scaled(self, multiplier: float) -> DirectedGaussian:
        """The same model with its covariance times ``multiplier``."""
        return DirectedGaussian(self.model.scaled(multiplier), self.direction * math.sqrt(multiplier))

    def sample(self, rng: np.random.Generator, k: int, first: int | None = None) -> NDArray[np.float64]:
        x = np.empty((k, self.mean.size))
        self.draw_into(rng, x)
        return x

    def draw_into(self, rng: np.random.Generator, x: NDArray[np.float64]) -> None:
        """The factorized model's draws, then one N(0, 1) per row along the direction."""
        self.model.draw_into(rng, x)
        x += rng.standard_normal(x.shape[0])[:, None] * self.direction

    @cached_property
    def _whitened_direction(self) -> NDArray[np.float64]:
        """v' = B^-1 u, once per model (the step-size path and the mean-shift line both read it)."""
        return self.model.whiten(self.direction)

    def whiten(self, step: NDArray[np.float64]) -> NDArray[np.float64]:
        """``step`` (``(n,)``) in the coordinates where this model's covariance is the identity:
        (I + v' v'^T)^(-1/2) B^-1 step = y - (1 - 1 / sqrt(1 + |v'|^2)) (v'^ . y) v'^, y = B^-1 step."""
        y = self.model.whiten(step)
        v = self._whitened_direction
        norm2 = float(v @ v)
        if not norm2 > 0.0:
            return y
        unit = v / math.sqrt(norm2)
        return y - (1.0 - 1.0 / math.sqrt(1.0 + norm2)) * ((y @ unit) * unit)

    def squared_lengths(self, steps: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each row of ``steps`` (``(k, n)``) as its squared length in the whole model's metric,
        d^T (B B^T + u u^T)^-1 d = |y|^2 - (v' . y)^2 / (1 + |v'|^2), y = B^-1 d (``(k,)``)."""
        y = self.model.whiten_rows(steps)
        v = self._whitened_direction
        along = y @ v
        return np.einsum("ij,ij->i", y, y) - along * along / (1.0 + float(v @ v))

    def without_direction(self, rows: NDArray[np.float64]) -> NDArray[np.float64]:
        """``rows`` (``(k, n)``) as the factorized part alone would have drawn them: whitened by the
        whole model, then colored by the factorized part B only,
        x'' = m + B (I + v' v'^T)^(-1/2) B^-1 (x - m) = x - beta ((x - m)^T Sigma^-1 u) u,
        with Sigma = B B^T, a = u^T Sigma^-1 u = |v'|^2 and beta = 1 / (s (s + 1)), s = sqrt(1 + a).
        Rows of this model come out distributed as N(m, Sigma): the direction's correlations are
        gone and none are added. (Taking out each row's expected share E[xi | x] u instead, beta =
        1 / (1 + a), leaves the rows projected, with correlations -v'_i v'_j / (1 + a) among the
        direction's own variables.) For WI (``Variant.direction_free_wi``)."""
        w = self.model.precision_dot(self.direction)
        s = math.sqrt(1.0 + max(float(self.direction @ w), 0.0))
        share = (rows - self.mean) @ w / (s * (s + 1.0))
        return rows - share[:, None] * self.direction


def marginal_scale(v: NDArray[np.float64] | None) -> NDArray[np.float64] | float:
    """s_i = 1 / sqrt(1 + v_i^2) (1 without a direction): with the factorized part's spreads
    times s and the direction sigma S D v, each variable's variance stays sigma^2 D_i^2."""
    return 1.0 if v is None else 1.0 / np.sqrt(1.0 + v * v)


def direction_rates(n: int, mu_eff: float) -> tuple[float, float]:
    """VD-CMA's c_1 and c_mu for v (Akimoto et al. 2014, pycma's ``GaussVDSampler``)."""
    factor = max((n - 5.0) / 6.0, 0.5)
    c1 = factor * 2.0 / ((n + 1.3) ** 2 + mu_eff)
    return c1, min(1.0 - c1, factor * 2.0 * (mu_eff - 2.0 + 1.0 / mu_eff) / ((n + 2.0) ** 2 + mu_eff))


def _p_and_q(unit: NDArray[np.float64], norm2: float, y: NDArray[np.float64], weights: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The weighted statistics of rows ``y`` (``(k, n)``) that VD-CMA's natural gradient reads:
    p = sum w (y^2 - |v|^2 / (1 + |v|^2) (v^ . y) y v^ - 1), q = sum w ((v^ . y) y - ((v^ . y)^2 + 1 + |v|^2) / 2 v^)."""
    t = y @ unit
    p = weights @ (y * y - norm2 / (1.0 + norm2) * t[:, None] * y * unit - 1.0)
    q = (weights * t) @ y - float(weights @ ((t * t + 1.0 + norm2) / 2.0)) * unit
    return p, q


def update_direction(v: NDArray[np.float64], y: NDArray[np.float64], weights: NDArray[np.float64],
                     path: NDArray[np.float64] | None, mu_eff: float) -> NDArray[np.float64]:  # fmt: skip
    """VD-CMA's natural-gradient step of v, for a diagonal D = 1: ``y`` are the selected rows
    in the shape's units (``(mu, n)``, best first, with ``weights``), ``path`` the mean's path
    p_c in the same units (None: no rank-one term, the stall indicator is on)."""
    n = v.size
    c1, c_mu = direction_rates(n, mu_eff)
    norm2 = v @ v  # NumPy scalars throughout: a degenerate v gives inf or NaN, not an exception
    norm = np.sqrt(norm2)
    unit = v / norm
    unit2 = unit * unit
    gamma = 1.0 / np.sqrt(1.0 + norm2)
    top = unit2.max()
    alpha = np.sqrt(norm2**2 + (1.0 + norm2) / top * (2.0 - gamma)) / (2.0 + norm2)
    if alpha < 1.0:
        beta = (4.0 - (2.0 - gamma) / top) / (1.0 + 2.0 / norm2) ** 2
    else:
        alpha, beta = 1.0, 0.0
    b = 2.0 * alpha**2 - beta
    a = 2.0 - (b + 2.0 * alpha**2) * unit2
    ratio = unit2 / a
    p, q = _p_and_q(unit, norm2, y, weights)
    p, q = c_mu * p, c_mu * q
    if path is not None:
        p1, q1 = _p_and_q(unit, norm2, path[None, :], np.ones(1))
        p, q = p + c1 * p1, q + c1 * q1
    r = p - alpha / (1.0 + norm2) * ((2.0 + norm2) * (q * unit) - norm2 * (unit @ q) * unit2)
    s = r / a - b * (r @ ratio) / (1.0 + b * (unit2 @ ratio)) * ratio
    step_v = q / norm - alpha / norm * ((2.0 + norm2) * (unit * s) - (s @ unit2) * unit)
    size = float(np.linalg.norm(step_v))
    factor = min(1.0, MAX_CHANGE * norm / size if size > 0 else 1.0, MAX_CHANGE / float(np.max(np.abs(s))) if np.any(s) else 1.0)
    return v + factor * step_v


def next_direction(v: NDArray[np.float64] | None, step: NDArray[np.float64], selected: NDArray[np.float64] | None,
                   weights: NDArray[np.float64] | None, mean: NDArray[np.float64], spread: NDArray[np.float64],
                   path: NDArray[np.float64] | None, mu_eff: float) -> NDArray[np.float64] | None:  # fmt: skip
    """v after a generation whose rows came from a model with ``mean`` and spreads ``spread``
    (sigma D, ``(n,)``): :func:`update_direction` on the ``selected`` rows (best first, with
    their rank ``weights``) and the mean's ``path`` (sigma p_c, None while the stall indicator
    is on). Without a v yet, the mean's ``step`` at length :data:`START_LENGTH` (None: no step
    to follow). Each v_i is kept within +-:data:`MAX_COMPONENT`: with each variance fixed at
    sigma^2 D_i^2, a v along one coordinate does not change the model at all, so nothing holds it,
    and such a v drifted (on the sphere at n = 100 with 10,000 n, after a restart, to |v| = 1e8,
    where VD-CMA's step divides by zero); a step that is not finite leaves v as it was."""
    if v is None:
        y = step / spread
        norm = float(np.linalg.norm(y))
        return y * (START_LENGTH / norm) if np.isfinite(norm) and norm > 0.0 else None
    if selected is None or weights is None:
        raise ValueError("selected: a model with a learned direction needs the fit's rows and their weights")
    with np.errstate(all="ignore"):  # a collapsed spread or a degenerate v: checked below
        new = update_direction(v, (selected - mean) / spread, weights, None if path is None else path / spread, mu_eff)
    if not np.all(np.isfinite(new)):
        return v  # no finite step: v as it was
    return np.clip(new, -MAX_COMPONENT, MAX_COMPONENT)
