"""The generation rule: which told rows form a generation, its selection and its model.

One pure rule, shared by :class:`edamcc.EDAMCCStrategy` and the Optuna sampler, so that the
same told history gives the same selection and the same model in both.

Membership (which rows a generation holds) is a function of the rows' numbers only: rows
are numbered in the order they are asked, and generation g is the fixed block of numbers
``[block_start(g), block_start(g) + block_size(g))``: M rows for generation 0, then M - 1
(the paper's elitism, Section IV-A: "only one best individual is survived into the next
generation, together with (M - 1) newly sampled individuals"). A generation closes when every
row of its block is told; a row whose evaluation failed is told as NaN. Rows asked beyond the
open generation (extra candidates for idle workers) take the next numbers, so they belong to
the next block, whatever order the values arrive in.

Closing generation g (Fig. 6 of the paper):

1. the pool is the previous elite followed by the block's rows in number order (for the
   step-size variants, ``scale="csa"``, the block's rows alone: the elite is kept only as
   the best point found);
   NaN and +-inf rank worst and never reach a mean or a covariance;
2. the new elite is the pool's best finite row (ties: the earliest in the pool);
3. the best m rows are selected (truncation selection); with fewer than two finite values
   there is no spread to fit and the model stays as it was;
4. WI, then SM, then the fit (:func:`fit_generation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .adaptation import Adaptation
from .direction import DirectedGaussian
from .models import UniformModel, fit_chain, fit_factorized, fit_univariate
from .settings import Resolved
from .step_size import StepSize, effective_mu, recombination_weights
from .structure_learning import (
    Partition,
    correlation_matrix,
    greedy_partition,
    learned_partition,
    max_abs_correlation,
    random_partition,
    single_group,
    stack_groups,
)
from .variants import Variant


def start_adaptation(variant: Variant) -> Adaptation | StepSize | None:
    """The scale control's state before a run's first generation (None: the paper's ML fit)."""
    if not variant.adaptive:
        return None
    if variant.scale != "csa":
        return Adaptation()
    return StepSize(two_point_from=variant.two_point_from, rank_one_path=variant.rank_one_path, active=variant.active,
                    active_metric=variant.active_metric, line_free_path=variant.line_free_path, learned_direction=variant.learned_direction)  # fmt: skip


# ----------------------------------------------------------------------------- membership
def block_size(generation: int, population_size: int) -> int:
    """Rows of generation ``generation``: M for the first, M - 1 (beside the elite) after."""
    return population_size if generation == 0 else population_size - 1


def block_start(generation: int, population_size: int) -> int:
    """Number of the first row of generation ``generation``."""
    return 0 if generation == 0 else population_size + (generation - 1) * (population_size - 1)


def block_of(number: int, population_size: int) -> int:
    """The generation that row ``number`` belongs to."""
    if number < population_size:
        return 0
    return 1 + (number - population_size) // (population_size - 1)


# ----------------------------------------------------------------------------- selection
def finite_ranking(f: NDArray[np.float64]) -> NDArray[np.intp] | None:
    """Positions of the rows with a finite ``f``, best first, or None: truncation selection
    (Fig. 6, step 1) takes the first m, and the active shape update the rest.

    NaN and +-inf rank worst and are never selected; with fewer than two finite values there
    is no spread to fit and the answer is None. Ties keep the rows' order.
    """
    finite = np.isfinite(f)
    n_finite = int(finite.sum())
    if n_finite < 2:
        return None
    return np.argsort(np.where(finite, f, np.inf), kind="stable")[:n_finite]


@dataclass(frozen=True)
class FittedGeneration:
    """The model, and what WI and SM decided (``weak`` is None for variants without WI)."""

    model: Any
    weak: NDArray[np.bool_] | None
    partition: Partition
    wi_rows: int | None = None  # the rows WI correlated (m_corr, or fewer after failures), and
    theta: float | None = None  # its threshold; None for variants without WI


def fit_generation(
    selected: NDArray[np.float64],
    variant: Variant,
    *,
    theta: float | None,
    c: int | None,
    m_corr: int | None,
    rng: np.random.Generator,
    pair_counts: NDArray[np.integer] | None = None,
    weights: NDArray[np.float64] | None = None,
    partition: str = "random",
    structure_rows: NDArray[np.float64] | None = None,
) -> FittedGeneration:
    """Fit ``variant``'s model on ``selected`` (the best m rows, shape ``(m, n)``): Fig. 6, steps 2-3.

    ``weights`` (best row first, summing to 1) weight the fit of the factorized models
    (the step-size variants, ``scale="csa"``); None: the paper's equal weights.

    ``partition="learned"`` (self-adaptive variants): the strong variables are clustered by
    their |corr| on WI's rows (Fig. 11) and those left over are split at random (Fig. 4).

    ``structure_rows`` (``(m, n)``, in the order of ``selected``): the rows WI and the
    clustering correlate instead of ``selected`` (``Variant.direction_free_wi``); the model is
    fitted on ``selected`` either way.

    Random draws, in this order: the m_corr rows for WI (without replacement: "duplicate
    samples cannot contribute to correlation estimation", Section III-C), then SM's random
    partition (of the variables left over by the clustering, with ``partition="learned"``).
    """
    n = selected.shape[1]
    if variant.chain:
        return FittedGeneration(fit_chain(selected), None, [])
    if variant.grouping == "none":
        return FittedGeneration(fit_univariate(selected), None, [])  # the paper's baselines: equal weights
    weak = np.zeros(n, dtype=bool)
    subset = selected
    if variant.identify_weak:
        k = min(m_corr, selected.shape[0])
        subset = (selected if structure_rows is None else structure_rows)[rng.choice(selected.shape[0], size=k, replace=False)]
        if theta >= 1.0:  # no |corr| exceeds 1 (rounding can put a correlation of two rows just past it)
            weak[:] = True
        else:
            weak = max_abs_correlation(subset, pair_counts=pair_counts, theta=theta) <= theta  # Eq. (3)
    strong = np.flatnonzero(~weak)
    found_weak = weak.copy()
    if variant.grouping == "random" and partition == "learned":  # clusters of |corr|, the rest as SM
        groups = learned_partition(correlation_matrix(subset[:, strong]), strong, theta, c, rng)
    elif variant.grouping == "random":
        groups = random_partition(strong, c, rng)  # Fig. 4, step 2
    elif variant.grouping == "single":
        groups = single_group(strong)
    else:  # "greedy": SM-GC on the same correlation sample (Fig. 11)
        clusters, leftover = greedy_partition(correlation_matrix(subset[:, strong]), theta, c)
        groups = stack_groups([strong[g] for g in clusters])
        weak[strong[leftover]] = True  # left over: "estimate a univariate model"
    model = fit_factorized(selected, np.flatnonzero(weak), groups, variant.block_scaling, weights)
    if not variant.identify_weak:
        return FittedGeneration(model, None, groups)
    return FittedGeneration(model, found_weak, groups, subset.shape[0], theta)


@dataclass(frozen=True)
class ClosedGeneration:
    """What closing one generation decided.

    Attributes:
        elite_x, elite_f: the new elite (None and ``inf`` while no value has been finite).
        selected: the selected rows, best first (``(m', n)``), or None: fewer than two finite
            values, so the model stays as it was.
        fitted: the fitted model with WI's and SM's decisions, or None with ``selected``.
        adaptation: the self-adaptive variant's state after this generation (else None).
        model: the model the next generation samples from (None: keep the current one). For
            the paper's variants the fitted model itself; for the self-adaptive one, the fit
            (or the previous fit) with its variance scaled and its mean shift.
    """

    elite_x: NDArray[np.float64] | None
    elite_f: float
    selected: NDArray[np.float64] | None
    fitted: FittedGeneration | None
    adaptation: Adaptation | None = None
    model: Any = None


def close_generation(
    elite_x: NDArray[np.float64] | None,
    elite_f: float,
    rows: NDArray[np.float64],
    values: NDArray[np.float64],
    rules: Resolved,
    rng: np.random.Generator,
    *,
    pair_counts: NDArray[np.integer] | None = None,
    adaptation: Adaptation | StepSize | None = None,
    fit_before: Any = None,
) -> ClosedGeneration:
    """Close a generation: pool, elite, selection and model (Fig. 6, steps 1-3).

    ``rows`` (``(k, n)``) and ``values`` (``(k,)``) are the generation's block in number order;
    ``elite_x``/``elite_f`` the elite kept from the previous generations (None at first). The
    self-adaptive variant also passes its ``adaptation`` state and ``fit_before``, the
    maximum-likelihood model the block was sampled from (the uniform model at first).
    The step-size variants (``scale="csa"``) pass their :class:`~edamcc.step_size.StepSize`:
    they fit the block's rows alone, rank-weighted, and keep the elite only as the best point found.
    """
    if elite_x is not None and not isinstance(adaptation, StepSize):  # the kept elite competes in the selection
        pool_x = np.concatenate([elite_x[None, :], rows])
        pool_f = np.concatenate([[elite_f], values])
    else:  # the step size reads the new rows' ranks: no elite in the fit
        pool_x, pool_f = rows, values
    finite = np.isfinite(values)
    if finite.any():
        best = int(np.argmin(np.where(finite, values, np.inf)))  # the earliest of tied values
        if elite_x is None or values[best] < elite_f:  # a tie keeps the elite (it comes first)
            elite_x, elite_f = rows[best].copy(), float(values[best])
    ranking = finite_ranking(pool_f)
    order = None if ranking is None else ranking[: rules.n_selected]  # truncation selection (Fig. 6, step 1)
    selected = fitted = weights = None
    if order is not None:
        selected = pool_x[order]
        structure_rows = None
        if isinstance(adaptation, StepSize):
            weights = recombination_weights(len(order))
            if rules.variant.direction_free_wi and isinstance(adaptation.model, DirectedGaussian):
                structure_rows = adaptation.model.without_direction(selected)
        fitted = fit_generation(
            selected, rules.variant, theta=rules.theta_for(len(order)), c=rules.c, m_corr=rules.m_corr, rng=rng, pair_counts=pair_counts,
            weights=weights, partition=rules.partition, structure_rows=structure_rows,
        )  # fmt: skip
    if adaptation is None:
        return ClosedGeneration(elite_x, elite_f, selected, fitted, None, None if fitted is None else fitted.model)
    if isinstance(adaptation, StepSize):
        mu_eff = 0.0 if weights is None else effective_mu(weights.size)
        box = fit_before.stds() ** 2 if adaptation.model is None and isinstance(fit_before, UniformModel) else None
        worst = None
        if adaptation.active and order is not None:  # the finite rows ranked below the selection, best first
            worst = pool_x[ranking[order.size :]]  # type: ignore[index]
        line_share = None
        if adaptation.line_free_path and adaptation.line is not None and order is not None:  # the first two rows: m' +- l
            w = np.zeros(rows.shape[0])
            w[order] = weights  # 0: not selected
            w = w[:2]
            line_share = (w @ (rows[:2] - adaptation.model.mean), float(w @ w))  # type: ignore[union-attr]
        stepped = adaptation.update(values, None if fitted is None else fitted.model, mu_eff, adaptation.line_values(rows, values), box, worst,
                                    line_share, selected)  # fmt: skip
        return ClosedGeneration(elite_x, elite_f, selected, fitted, stepped, stepped.sampler)
    adapted = adaptation.update(rows, values, fit_before, None if fitted is None else fitted.model.mean)
    base = fit_before if fitted is None else fitted.model
    model = None if base is None or not hasattr(base, "scaled") else adapted.sampling_model(base)
    return ClosedGeneration(elite_x, elite_f, selected, fitted, adapted, model)
