"""One generation's model from the selected rows: WI, then SM, then the fit (``fig:EDA-MCC flow``, steps 2-3).

A pure function of the selected rows, the variant's settings and a random generator, shared by
:class:`edamcc.EDAMCCStrategy` and the Optuna sampler (which rebuilds each generation's model
from the study's trials).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .models import fit_chain, fit_factorized, fit_univariate
from .structure import (
    Partition,
    correlation_matrix,
    greedy_partition,
    max_abs_correlation,
    random_partition,
    single_group,
    stack_groups,
)
from .variants import Variant


def truncation_selection(x: NDArray[np.float64], f: NDArray[np.float64], m: int) -> NDArray[np.float64] | None:
    """The best ``m`` rows of ``x`` by ``f`` (``fig:EDA-MCC flow``, step 1), or None.

    NaN and +-inf rank worst and are never selected, so they never reach a mean or a
    covariance; with fewer than two finite values there is no spread to fit and the answer is
    None. Ties keep the rows' order (callers put the elite first).
    """
    finite = np.isfinite(f)
    n_finite = int(finite.sum())
    if n_finite < 2:
        return None
    order = np.argsort(np.where(finite, f, np.inf), kind="stable")
    return x[order[: min(m, n_finite)]]


@dataclass(frozen=True)
class FittedGeneration:
    """The model, and what WI and SM decided (``weak`` is None for variants without WI)."""

    model: Any
    weak: NDArray[np.bool_] | None
    partition: Partition


def fit_generation(
    selected: NDArray[np.float64],
    variant: Variant,
    *,
    theta: float,
    c: int,
    m_corr: int,
    rng: np.random.Generator,
    pair_counts: NDArray[np.integer] | None = None,
) -> FittedGeneration:
    """Fit ``variant``'s model on ``selected`` (the best m rows, shape ``(m, n)``).

    Random draws, in this order: the m_corr rows for WI (without replacement: "duplicate
    samples cannot contribute to correlation estimation"), then SM's random partition.
    """
    n = selected.shape[1]
    if variant.chain:
        return FittedGeneration(fit_chain(selected), None, [])
    if variant.grouping == "none":
        return FittedGeneration(fit_univariate(selected), None, [])
    weak = np.zeros(n, dtype=bool)
    subset = selected
    if variant.identify_weak:
        k = min(m_corr, selected.shape[0])
        subset = selected[rng.choice(selected.shape[0], size=k, replace=False)]
        weak = max_abs_correlation(subset, pair_counts=pair_counts, theta=theta) <= theta  # eq:weak-dependent definition
    strong = np.flatnonzero(~weak)
    found_weak = weak.copy()
    if variant.grouping == "random":
        partition = random_partition(strong, c, rng)  # fig:SM flow, step 2
    elif variant.grouping == "single":
        partition = single_group(strong)
    else:  # "greedy": SM-GC on the same correlation sample (fig:SM-GC_flow)
        clusters, leftover = greedy_partition(correlation_matrix(subset[:, strong]), theta, c)
        partition = stack_groups([strong[g] for g in clusters])
        weak[strong[leftover]] = True  # left over: "estimate a univariate model"
    model = fit_factorized(selected, np.flatnonzero(weak), partition, variant.block_scaling)
    return FittedGeneration(model, found_weak if variant.identify_weak else None, partition)
