"""Aggregated runtime ECDFs as numbers: the fraction of (run, target) pairs solved, and the area.

The pictures come from ``cocopp``; this module puts one number on them so two optimizers can
be compared without reading a plot. For every run (one function, one instance) and every one
of COCO's 51 standard targets 10^2, 10^1.8, ..., 10^-8 (``f - f_opt``), the runtime is the
first logged evaluation at which COCO's "best noise-free fitness - Fopt" reached the target
(the observer's ``.dat`` file is target-triggered, so the hit is logged when it happens).
The ECDF over x = log10(evaluations / n) is the fraction of pairs with a runtime at most
10^x n. Reported are its value at the budget and its area over x from 0 to log10(budget
factor), divided by that length (1: every target hit with n evaluations; 0: none by the
budget).

Unlike ``cocopp``'s pictures, runs are not bootstrapped with simulated restarts: a run that
stopped early keeps its unsolved targets unsolved. Every function weighs the same when all
runs finished (same instances, same 51 targets).
"""

from __future__ import annotations

import numpy as np

TARGETS = 10.0 ** np.linspace(2, -8, 51)


def hitting_evaluations(evals: np.ndarray, best: np.ndarray, targets: np.ndarray = TARGETS) -> np.ndarray:
    """First entry of ``evals`` where ``best`` (non-increasing) is at most each target; inf if never.

    Shapes: ``evals`` and ``best`` ``(k,)``, ``targets`` ``(t,)``; returns ``(t,)``.
    """
    evals = np.asarray(evals, dtype=float)
    best = np.asarray(best, dtype=float)
    if evals.shape != best.shape or evals.ndim != 1:
        raise ValueError(f"evals, best: expected two 1-D arrays of one length; got {evals.shape} and {best.shape}")
    if np.any(np.diff(best) > 0):
        raise ValueError("best: expected a non-increasing best-so-far sequence")
    first = np.searchsorted(-best, -np.asarray(targets, dtype=float), side="left")  # -best is non-decreasing
    out = np.full(first.shape, np.inf)
    hit = first < evals.size
    out[hit] = evals[first[hit]]
    return out


def ecdf_summary(hits: np.ndarray, dim: int, budget_factor: float) -> tuple[float, float]:
    """(ECDF value at the budget, normalized ECDF area over log10(evaluations / n) in [0, log10(factor)]).

    ``hits``: first-hitting evaluations of any shape (inf: never), all of one dimension ``dim``.
    """
    if not budget_factor > 1:
        raise ValueError(f"budget_factor: expected a number above 1; got {budget_factor!r}")
    hits = np.asarray(hits, dtype=float).ravel()
    if hits.size == 0:
        raise ValueError("hits: expected at least one (run, target) pair")
    span = np.log10(budget_factor)
    with np.errstate(divide="ignore"):
        x = np.maximum(np.log10(hits / dim), 0.0)  # solved with at most n evaluations: counts from x = 0
    solved = x <= span
    area = np.where(solved, (span - x) / span, 0.0)
    return float(solved.mean()), float(area.mean())
