"""Step-size adaptation for EDA-MCC's models (``scale="csa"``: the default ``"edamcc-sep-cc"`` and
``"edamcc-csa"``, cumulative, and ``"edamcc-tpa"``, two-point).

The maximum-likelihood fit is unstable as a step-size rule: its variances shrink by a factor
that depends on the selection, so a run either collapses or, with any fixed multiplier above
about 1.3, diverges (measured on the sphere at n = 100, 40 rows per generation). AMaLGaM's
variance scaling (:mod:`edamcc.adaptation`) steers the multiplier between the two in steps of
1/0.9 and reaches a third of the progress rate a well-scaled Gaussian allows. This module
separates the model's *shape* from its *scale*:

* **Shape**: the maximum-likelihood estimates of the selected rows, weighted by rank
  (w_i proportional to ln(mu + 1/2) - ln i, the best mu = floor(M/2) rows), as in the paper's
  Fig. 6 otherwise: WI picks the weak variables, SM groups the strong ones. Each variable's
  variance, relative to the scale, is remembered across generations as sep-CMA-ES's diagonal
  (Ros and Hansen, "A simple modification in CMA-ES achieving linear time and space
  complexity", PPSN 2008):
  D_i^2 <- (1 - c_1 - c_mu) D_i^2 + c_1 p_c,i^2 + c_mu sum_k w_k (x_k,i - m_i)^2 / sigma^2.
  The rank-mu term is taken around the mean m the rows were sampled from, not around their
  own mean: the mean's step then widens the variance in the direction of progress instead of
  being lost, which is what lets the shape stretch along a separable ellipsoid's long axes
  (measured on COCO's f2 at 80-D: the error after 1000 n fell from 0.13 to below 1e-8). The
  rank-one term follows the mean's path p_c <- (1 - c_c) p_c + h sqrt(c_c (2 - c_c) mu_eff)
  (m' - m) / sigma, with h = 0 while the step-size path is long (the stall indicator of
  Hansen's tutorial). Rates: c_mu = 0.3 (mu_eff + 2) / (n + 5), about sep-CMA-ES's
  (n + 2) / 3 times CMA-ES's c_mu; c_1 = (n + 2) / 3 * 2 / ((n + 1.3)^2 + mu_eff);
  c_c = (4 + mu_eff / n) / (n + 4 + 2 mu_eff / n), or with ``variant="edamcc-sep-cc"`` pycma's
  rate for sep-CMA-ES, c_c = (1 + 1/n + mu_eff/n) / (sqrt(n) + 1/n + 2 mu_eff/n) (:func:`path_rate`;
  ``benchmarks/shape_condition.py``: with the slower rate and the mean-shift samples, the shape's
  condition on the rotated elliptic F9 at n = 100 grows past 1e17 and the run stalls). D is normalized to mean 1 (an
  arithmetic mean: a variable pinned to a bound by the repair has a vanishing variance that a
  geometric mean would turn into a huge scale for all others). A group's correlations come
  from the generation's fit, shrunk towards the identity by s / (s + mu_eff) for a group of s
  variables, since a group larger than the selection has a singular sample correlation.
  A run's first shape (also after a restart) is the box's: D_i^2 proportional to the squared
  width of variable i, flat on a cube, with sigma the geometric mean of the selected rows'
  standard deviations relative to it. Until 0.4 it was those rows' own variances (about ten
  rows), whose sampling noise then stayed in the shape: on a sphere the rank-mu term is
  proportional to D_i^2 itself, so it multiplies each D_i by a noisy factor near one and does
  not pull the shape back to flat (our reading). With the box's shape the default reaches 1e-8
  on the sphere after 89 and 79 evaluations / n at n = 80 and 320, against 96 and 86 before,
  and on the separable ellipsoid after 354 and 520, against 335 and 512
  (``benchmarks/line_samples.py``).
  Since 0.6 the rank-mu term is *active* (``Variant.active``, on for the three variants with a
  step size; Jastrebski and Arnold, "Improving evolution strategies through active covariance
  matrix adaptation", CEC 2006, with the weights of Hansen's tutorial, arXiv:1604.00772, on the
  diagonal): the finite rows ranked below the selection enter with negative weights
  w_i proportional to ln(mu + 1/2) - ln i (ranks i = mu + 1 ... lambda), summing to -alpha with
  alpha = min(1 + c_1 / c_mu, 1 + 2 mu_eff^- / (mu_eff + 2), (1 - c_1 - c_mu) / (n c_mu)); each such
  row's y_i = (x_i - m) / sigma counts with w_i n / |y_i / D|^2, and D^2 decays by
  1 - c_1 - c_mu (1 - alpha). A step that led to bad rows takes variance away from the variables
  it moved; on a flat landscape the two extra terms about cancel on average. Evaluations / n to 1e-8
  (``benchmarks/line_samples.py``, 3 seeds): the separable ellipsoid after 306 and 464 at n = 80
  and 320, against 354 and 520 with 0.5 (sep-CMA-ES 269 and 532), the sphere after 88 and 78
  (0.5: 89 and 79).
* **Scale**: one step size sigma, adapted from the length of the mean's path in the model's
  own coordinates (cumulative step-size adaptation: Hansen and Ostermeier, "Completely
  derandomized self-adaptation in evolution strategies", Evolutionary Computation 9(2), 2001;
  constants from Hansen, "The CMA evolution strategy: a tutorial", 2016):
  p <- (1 - c) p + sqrt(c (2 - c) mu_eff) y,  sigma <- sigma exp(min(1, (c / d)(|p| / E|N(0, I)| - 1))),
  with y the mean's step whitened by the model it was sampled from,
  c = (mu_eff + 2) / (n + mu_eff + 5) and d = 1 + c + 2 max(0, sqrt((mu_eff - 1) / (n + 1)) - 1).

* **Mean-shift samples**: the first two samples of each generation are m' +- l, with l the
  mean's last step m' - m rescaled to the length E|N(0, I)| in the new model's coordinates
  (:class:`~edamcc.models.LineSamples`; pycma's ``mean_shift_line_samples``, the samples of
  Hansen's two-point step-size adaptation, 2008). They take part in selection like any other
  row: when the last step pointed the right way, m' + l ranks high and the next mean goes
  on along it. Evaluations / n to 1e-8, median of 3 seeds, with them (0.4) and without
  (0.3), against pycma's sep-CMA-ES (which uses them with two-point step-size adaptation
  from n = 300 on): sphere 96 / 127 / 112 at n = 80 and 86 / 119 / 70 at n = 320; separable
  ellipsoid (condition 1e6) 335 / 306 / 269 at n = 80 and 512 / 379 / 532 at n = 320
  (``benchmarks/line_samples.py``). They speed up the sphere and cost time on the
  ellipsoid; over COCO's 24 functions they pay (README, "How it compares").

* **Line-free path** (``variant="edamcc-sep-cc-lf"``, :meth:`StepSize.path_step`): the path
  reads the mean's step without the share of a generation's first two rows (the mean-shift
  points, or what a repair made of them), the rest rescaled so that under random selection it
  is a step of the model's own samples, as the path's target length assumes. On the max-type
  F3, F4 and F10 at n = 100 with 1000 n it ends at 3.1, 4.1 and 1.0e4, against the default's
  29.5, 38.1 and 2.3e4; the sphere at n = 80 and 320 takes 153 and 144 evaluations / n to 1e-8,
  against 91 and 78 (``benchmarks/adaptive_targets.py``, ``benchmarks/line_samples.py``).

* **One learned direction** (``variant="edamcc-vd"``, :mod:`edamcc.direction`): the model
  sigma^2 D S (I + v v^T) S D, S = diag(1 / sqrt(1 + v_i^2)), with v learned by VD-CMA's natural
  gradient; each variance stays sigma^2 D_i^2, so the shape keeps the rule above, and the path
  reads the mean's step with a quarter of the mean-shift samples' share (``line_free_path=0.75``).

* **Two-point step size** (``variant="edamcc-tpa"``, from n = 300 on, as pycma): the scale
  follows the two mean-shift samples instead of the path (Hansen, "CMA-ES with two-point
  step-size adaptation", INRIA report 6527, 2008; constants of pycma's ``CMAAdaptSigmaTPA``). With
  lambda rows and f_+ = f(m' + l), f_- = f(m' - l),
  z = (#{f < f_-} - #{f < f_+}) / (lambda - 1),  s <- 0.7 s + 0.3 sign(z) |z|^(1/2),
  sigma <- sigma exp(s / d),  d = 0.7 + 2 ln n + 2 ln max(1, lambda - n):
  sigma grows while the point ahead on the last step ranks better than the one behind. A
  generation whose first two rows are not those two points exactly (a repair moved one, an
  extra or an injected point took its place, an Optuna trial failed) updates sigma by the
  path's rule instead; the path is kept either way, for the stall indicator.

The sampling model is the factorized Gaussian of Eq. (8) with variances sigma^2 D_i^2 and, in a
group, covariance sigma^2 D R D. The state is small and plain, so a strategy with it pickles
and resumes bit for bit, and the Optuna sampler replays it from the trials.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .direction import DirectedGaussian, marginal_scale, next_direction
from .models import FactorizedGaussian, GaussianBlocks, LineSamples
from .variants import RANK_ONE_PATHS

SHAPE_RATE = 0.3  # c_mu = SHAPE_RATE * (mu_eff + 2) / (n + 5): the diagonal learning rate of sep-CMA-ES
MAX_LOG_STEP = 1.0  # sigma changes by at most a factor e per generation
STALL_FACTOR = 1.4  # h = 0 while |p_sigma| / sqrt(1 - (1 - c)^(2 g)) >= (1.4 + 2 / (n + 1)) E|N(0, I)|
TPA_RATE = 0.3  # pycma's TPA: s <- (1 - 0.3) s + 0.3 sign(z) |z|^TPA_EXPONENT
TPA_EXPONENT = 0.5


@functools.lru_cache(maxsize=16)
def recombination_weights(mu: int) -> NDArray[np.float64]:
    """Rank weights of the ``mu`` selected rows, best first: ln(mu + 1/2) - ln i, summing to 1
    (read-only: one array per ``mu``, shared by every generation)."""
    w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
    w = w / w.sum()
    w.flags.writeable = False
    return w


@functools.lru_cache(maxsize=16)
def negative_weights(mu: int, count: int) -> tuple[NDArray[np.float64], float]:
    """The active shape update's weights of the ``count`` rows ranked below the ``mu`` selected,
    best first: ln(mu + 1/2) - ln i for ranks i = mu + 1 ... mu + count, scaled to sum to -1
    (read-only), and their mu_eff^- = (sum w_i)^2 / sum w_i^2 (the default negative weights of
    Hansen's tutorial, arXiv:1604.00772)."""
    raw = np.log(mu + 0.5) - np.log(np.arange(mu + 1, mu + 1 + count))
    mu_minus = float(raw.sum() ** 2 / np.sum(raw**2))
    w = raw / np.abs(raw).sum()
    w.flags.writeable = False
    return w, mu_minus


def active_weights(mu: int, count: int, n: int, c1: float, c_mu: float, mu_eff: float) -> tuple[NDArray[np.float64], float]:
    """The active update's weights of the ``count`` rows ranked below the ``mu`` selected, best
    first, scaled to sum to -alpha, and alpha = min(1 + c_1 / c_mu, 1 + 2 mu_eff^- / (mu_eff + 2),
    (1 - c_1 - c_mu) / (n c_mu)) (Hansen's tutorial, arXiv:1604.00772, on the diagonal)."""
    unit, mu_minus = negative_weights(mu, count)
    alpha = min(1.0 + c1 / c_mu, 1.0 + 2.0 * mu_minus / (mu_eff + 2.0), (1.0 - c1 - c_mu) / (n * c_mu))
    return unit * alpha, alpha


@functools.lru_cache(maxsize=16)
def effective_mu(mu: int) -> float:
    """mu_eff = 1 / sum w_i^2 of :func:`recombination_weights`."""
    return 1.0 / float(np.sum(recombination_weights(mu) ** 2))


def expected_norm(n: int) -> float:
    """E|N(0, I_n)| (Hansen's tutorial): within 8e-4 relative for every n, 1e-4 from n = 12 on."""
    return math.sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n))


def two_point_damping(n: int, rows: int) -> float:
    """d of the two-point rule: 0.7 + 2 ln n + 2 ln max(1, lambda - n) (pycma 4.x)."""
    return 0.7 + 2.0 * math.log(n) + 2.0 * math.log(max(1, rows - n))


def path_rate(n: int, mu_eff: float, kind: str = "cma") -> float:
    """c_c, the rate of the mean's path p_c that feeds the shape's rank-one term: ``"cma"``,
    (4 + mu_eff / n) / (n + 4 + 2 mu_eff / n) (Hansen's tutorial), or ``"separable"``, pycma's
    rate for sep-CMA-ES, (1 + 1 / n + mu_eff / n) / (sqrt(n) + 1 / n + 2 mu_eff / n)."""
    if kind == "separable":
        return (1.0 + 1.0 / n + mu_eff / n) / (math.sqrt(n) + 1.0 / n + 2.0 * mu_eff / n)
    if kind != "cma":
        raise ValueError(f"rank_one_path: expected one of {RANK_ONE_PATHS}; got {kind!r}")
    return (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n)


def step_size_rate(n: int, mu_eff: float) -> float:
    """c_sigma, the rate of the step size's cumulative path: (mu_eff + 2) / (n + mu_eff + 5)."""
    return (mu_eff + 2.0) / (n + mu_eff + 5.0)


def shape_rates(n: int, mu_eff: float) -> tuple[float, float]:
    """c_1 and c_mu of the shape's update: (n + 2) / 3 * 2 / ((n + 1.3)^2 + mu_eff) and
    min(1 - c_1, SHAPE_RATE (mu_eff + 2) / (n + 5))."""
    c1 = (n + 2.0) / 3.0 * 2.0 / ((n + 1.3) ** 2 + mu_eff)
    return c1, min(1.0 - c1, SHAPE_RATE * (mu_eff + 2.0) / (n + 5.0))


@dataclass(frozen=True)
class StepSize:
    """The step-size state after a generation (None fields: no model fitted yet)."""

    sigma: float | None = None
    path: NDArray[np.float64] | None = None
    shape: NDArray[np.float64] | None = None  # D_i^2, mean 1
    model: FactorizedGaussian | None = None  # the model the next generation samples from
    best_f: float = math.inf
    evolution: NDArray[np.float64] | None = None  # p_c, the mean's path for the rank-one term
    generations: int = 0  # updates with a model so far (the stall indicator's bias correction)
    line: NDArray[np.float64] | None = None  # the mean's last step, as long as a typical sample
    two_point_from: int | None = None  # from this n on, sigma follows the two mean-shift samples' ranks (edamcc-tpa)
    tpa: float = 0.0  # s, the two-point rule's smoothed rank difference
    rank_one_path: str = "cma"  # c_c of p_c: "cma" (about 4 / n) or "separable" (pycma's sep-CMA-ES, about 1 / sqrt(n))
    active: bool = False  # the rank-mu term also takes the rows below the selection, with negative weights
    active_metric: str = "diagonal"  # their lengths: |y / D|^2 ("diagonal") or in the sampling model's metric ("model")
    line_free_path: bool | float = False  # the step-size path reads the mean's step without the mean-shift samples' share (a weight: mixed)
    learned_direction: bool = False  # the model has one learned direction beyond its diagonal (edamcc.direction)
    direction: NDArray[np.float64] | None = None  # v, in the units sigma S D of the factorized part (None: none learned yet)

    @property
    def sampler(self) -> Any:
        """What the next generation samples from: ``model``, its first two rows on the line."""
        return self.model if self.line is None else LineSamples(self.model, self.line)

    @property
    def multiplier(self) -> None:
        """No variance multiplier: the scale is ``sigma``."""
        return None

    def line_values(self, rows: NDArray[np.float64], values: NDArray[np.float64]) -> NDArray[np.float64] | None:
        """f(m' + l) and f(m' - l) for the two-point rule: the values of a generation's first
        two ``rows`` when they are exactly this state's mean-shift points and both values are
        finite; else None (and always None below ``two_point_from`` variables)."""
        if self.two_point_from is None or rows.shape[1] < self.two_point_from or self.line is None or rows.shape[0] < 3:
            return None
        points = self.model.mean + np.stack([self.line, -self.line])  # type: ignore[union-attr]  # as LineSamples draws them
        if not (np.array_equal(rows[:2], points) and np.all(np.isfinite(values[:2]))):
            return None
        return values[:2]

    def path_step(self, step: NDArray[np.float64], mu_eff: float, line_share: tuple[NDArray[np.float64], float] | None) -> NDArray[np.float64]:
        """The mean's ``step`` as the step-size path reads it. ``line_share`` is the share of a
        generation's first two rows in the step, sum_k w_k (x_k - m) over those two (w_k = 0 for
        one not selected), and their sum_k w_k^2: the share is taken out and the rest divided
        by sqrt(mu_eff sum' w_k^2), sum' over the other selected rows. Under random selection
        the path then reads a step of the model's own samples, N(0, C / mu_eff), as its target
        length E|N(0, I)| assumes. The first two rows are the mean-shift points m +- l (or what
        a repair made of them), which are not samples of the model but the last step's line,
        carried into the next step whenever one of them is selected; an extra or injected row
        in their place is left out the same way, and the rest stays unbiased. With a weight a
        below 1 for ``line_free_path`` (``"edamcc-vd"``: 0.75), the path reads the mix
        (1 - a) ``step`` + a (that step). None (or no share left to read): ``step`` as it is."""
        if line_share is None:
            return step
        share, squares = line_share
        rest = 1.0 - mu_eff * squares  # mu_eff sum' w_k^2, with sum w_k^2 = 1 / mu_eff
        if not rest > 1e-12:
            return step
        free = (step - share) / math.sqrt(rest)
        weight = float(self.line_free_path)  # True: 1, the line-free step alone
        return free if weight == 1.0 else (1.0 - weight) * step + weight * free

    def update(self, values: NDArray[np.float64], fitted: Any, mu_eff: float,
               line_values: NDArray[np.float64] | None = None, box_variances: NDArray[np.float64] | None = None,
               worst: NDArray[np.float64] | None = None, line_share: tuple[NDArray[np.float64], float] | None = None,
               selected: NDArray[np.float64] | None = None) -> StepSize:  # fmt: skip
        """The state after a closed generation: its ``values`` (of rows sampled from
        ``self.model``, the uniform box at first) and the weighted maximum-likelihood fit
        ``fitted`` of its selected rows (None: fewer than two finite values, nothing learned).
        ``line_values`` (:meth:`line_values`): the two-point rule sets the step size.
        ``box_variances``: the variances of the uniform box the first rows came from, read by
        the first fit only (the first shape; None: a cube). ``worst``: with ``active``, the
        generation's finite rows ranked below the selected ones, best first (``(k, n)``; the
        selected are then the other finite ones). ``line_share``: with ``line_free_path``, the share
        of the generation's first two rows in the mean's step (:meth:`path_step`). ``selected``:
        with ``learned_direction``, the rows of the fit, best first (``(mu, n)``)."""
        finite = np.isfinite(values)
        best = min(self.best_f, float(np.min(values[finite]))) if finite.any() else self.best_f
        if fitted is None:
            return replace(self, best_f=best)
        n = fitted.mean.size
        variances = fitted.stds() ** 2
        if self.model is None:  # the first fit: the box's shape, at the scale of the selected rows
            shape = np.ones(n) if box_variances is None else box_variances / np.mean(box_variances)
            positive = variances > 0
            if not positive.any():
                return replace(self, best_f=best)
            sigma = float(np.exp(0.5 * np.mean(np.log(variances[positive] / shape[positive]))))
            path, evolution, generations, tpa = np.zeros(n), np.zeros(n), 0, 0.0
            direction = None
        else:
            c = step_size_rate(n, mu_eff)
            d = 1.0 + c + 2.0 * max(0.0, math.sqrt((mu_eff - 1.0) / (n + 1.0)) - 1.0)
            step = fitted.mean - self.model.mean
            y = self.model.whiten(self.path_step(step, mu_eff, line_share))  # the mean's step, in the model's units
            path = (1.0 - c) * self.path + math.sqrt(c * (2.0 - c) * mu_eff) * y  # type: ignore[operator]
            norm = float(np.linalg.norm(path))
            log_step = min(MAX_LOG_STEP, (c / d) * (norm / expected_norm(n) - 1.0))
            tpa = self.tpa
            if line_values is not None:  # two-point rule; the path above still feeds the stall indicator
                z = (np.count_nonzero(values < line_values[1]) - np.count_nonzero(values < line_values[0])) / (values.size - 1)
                tpa = (1.0 - TPA_RATE) * self.tpa + TPA_RATE * math.copysign(abs(z) ** TPA_EXPONENT, z)
                log_step = min(MAX_LOG_STEP, tpa / two_point_damping(n, values.size))
            generations = self.generations + 1
            stalled = norm / math.sqrt(1.0 - (1.0 - c) ** (2 * generations)) >= (STALL_FACTOR + 2.0 / (n + 1.0)) * expected_norm(n)
            cc = path_rate(n, mu_eff, self.rank_one_path)
            c1, c_mu = shape_rates(n, mu_eff)
            previous = np.zeros(n) if self.evolution is None else self.evolution
            evolution = (1.0 - cc) * previous + (0.0 if stalled else math.sqrt(cc * (2.0 - cc) * mu_eff)) * step / self.sigma  # type: ignore[operator]
            rank_one = evolution**2 + (cc * (2.0 - cc) * self.shape if stalled else 0.0)  # type: ignore[operator]
            around_old_mean = (variances + step**2) / self.sigma**2  # type: ignore[operator]  # sum_k w_k (x_k - m)^2 / sigma^2
            if self.active and worst is not None and worst.shape[0]:
                mu = int(np.count_nonzero(finite)) - worst.shape[0]  # the selected rows: the finite ones above the worst
                shape = self._active_shape(worst, mu, c1, c_mu, mu_eff, rank_one, around_old_mean)
            else:
                shape = (1.0 - c1 - c_mu) * self.shape + c1 * rank_one + c_mu * around_old_mean  # type: ignore[operator]
            shape = np.maximum(shape, np.finfo(float).tiny)
            sigma = self.sigma * math.exp(log_step)  # type: ignore[operator]
            direction = None
            if self.learned_direction:  # v in the units of the factorized part of the model the rows came from
                weights = None if selected is None else recombination_weights(selected.shape[0])
                spread = self.sigma * np.sqrt(self.shape) * marginal_scale(self.direction)  # type: ignore[arg-type, operator]
                direction = next_direction(self.direction, step, selected, weights, self.model.mean, spread,  # type: ignore[union-attr]
                                           None if stalled else evolution * self.sigma, mu_eff)  # fmt: skip
        shape = shape / np.mean(shape)
        if direction is None:
            model = sampling_model(fitted, sigma, shape, mu_eff)
        else:  # sigma^2 D S (I + v v^T) S D: each variable's variance stays sigma^2 D_i^2 (edamcc.direction)
            scale = marginal_scale(direction)
            model = DirectedGaussian(sampling_model(fitted, sigma, shape * scale**2, mu_eff), sigma * np.sqrt(shape) * scale * direction)
        line = None if self.model is None else mean_shift_line(model, fitted.mean - self.model.mean)
        # the variant's settings (two_point_from, rank_one_path, active, line_free_path, learned_direction) carry over
        return replace(self, sigma=sigma, path=path, shape=shape, model=model, best_f=best, evolution=evolution,
                       generations=generations, line=line, tpa=tpa, direction=direction)  # fmt: skip

    def rescaled(self, factor: float) -> StepSize:
        """The same state with the step size times ``factor`` (a population that changed size)."""
        line = None if self.line is None else self.line * factor
        return replace(self, sigma=self.sigma * factor, model=self.model.scaled(factor * factor), line=line)  # type: ignore[operator, union-attr]

    def _active_shape(self, worst: NDArray[np.float64], mu: int, c1: float, c_mu: float, mu_eff: float,
                      rank_one: NDArray[np.float64], around_old_mean: NDArray[np.float64]) -> NDArray[np.float64]:  # fmt: skip
        """The shape update with negative weights for the ``worst`` rows (active CMA: Jastrebski
        and Arnold 2006; Hansen's tutorial, arXiv:1604.00772, on the diagonal):
        D^2 <- (1 - c_1 - c_mu sum_j w_j) D^2 + c_1 (rank one) + c_mu (sum_k w_k y_k^2 + sum_i w_i° y_i^2),
        y = (x - m) / sigma around the mean the rows were sampled from. The negative weights sum
        to -alpha, alpha = min(1 + c_1 / c_mu, 1 + 2 mu_eff^- / (mu_eff + 2), (1 - c_1 - c_mu) / (n c_mu)),
        so sum_j w_j = 1 - alpha; w_i° = w_i n / |y_i / D|^2 rescales each bad row to the length
        of a typical one, which with the last bound keeps D^2 positive (``active_metric="model"``:
        the row's length in the sampling model's metric instead, see the comment below)."""
        n = worst.shape[1]
        w, alpha = active_weights(mu, worst.shape[0], n, c1, c_mu, mu_eff)  # w sums to -alpha
        y2 = worst - self.model.mean  # type: ignore[union-attr]
        # "model": (x - m)^T C^-1 (x - m) in the model the rows came from, its direction and groups included,
        # read before y2 becomes y^2 in place (so the default's "diagonal" path allocates nothing more)
        model_lengths = self.model.squared_lengths(y2) if self.active_metric == "model" else None  # type: ignore[union-attr]
        y2 /= self.sigma
        np.square(y2, out=y2)  # y^2, y = (x - m) / sigma
        if model_lengths is None:
            z2 = np.sum(y2 / self.shape, axis=1)  # |y / D|^2, the row's squared length in the shape's units
        else:  # at least the row's largest y_i^2 / D_i^2, so that no row takes more than w_i n D_i^2 from a
            # variable and the bound on alpha still keeps D^2 positive
            z2 = np.maximum(model_lengths, np.max(y2 / self.shape, axis=1))
        negative = (w * n / np.maximum(z2, np.finfo(float).tiny)) @ y2
        return (1.0 - c1 - c_mu + c_mu * alpha) * self.shape + c1 * rank_one + c_mu * (around_old_mean + negative)  # type: ignore[operator]


def mean_shift_line(model: FactorizedGaussian, step: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """``step`` rescaled to the length E|N(0, I)| in ``model``'s coordinates, so that the points
    mean +- line are as far out as a typical sample of ``model`` (None: no step to follow)."""
    length = float(np.linalg.norm(model.whiten(step)))
    if not (np.isfinite(length) and length > 0.0):
        return None
    return step * (expected_norm(step.size) / length)


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
