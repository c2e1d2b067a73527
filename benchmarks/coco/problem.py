"""A COCO problem seen by an optimizer: batches in, budget and final target enforced."""

from __future__ import annotations

import numpy as np


class ProblemDone(Exception):
    """Raised when an optimizer asks for an evaluation after the budget is spent or the final target is hit."""


class BatchProblem:
    """Wrap a ``cocoex`` problem so that one call evaluates one point ``(n,)`` or a batch ``(k, n)``.

    COCO evaluates one point at a time (and logs every evaluation); a batch is a loop over its
    rows. The evaluation count is COCO's own (``problem.evaluations``) and the stop signal is
    COCO's own (``problem.final_target_hit``); nothing here knows the optimum.

    With ``strict=True`` a call made once the problem is done raises :class:`ProblemDone`, and a
    batch that crosses the budget is evaluated up to the budget, then raises. With
    ``strict=False`` (for optimizers that stop themselves through a callback and a budget) every
    point is evaluated.
    """

    def __init__(self, problem, budget: int, strict: bool = True):
        self.problem = problem
        self.budget = int(budget)
        self.strict = strict
        self.dimension = int(problem.dimension)
        self.lower = np.asarray(problem.lower_bounds, dtype=float)
        self.upper = np.asarray(problem.upper_bounds, dtype=float)

    @property
    def evaluations(self) -> int:
        return int(self.problem.evaluations)

    @property
    def remaining(self) -> int:
        return self.budget - self.evaluations

    @property
    def done(self) -> bool:
        return self.problem.final_target_hit or self.evaluations >= self.budget

    def __call__(self, x):
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            if self.strict and self.done:
                raise ProblemDone
            return float(self.problem(x))
        problem = self.problem
        values = np.empty(x.shape[0])
        if not self.strict:
            for i, row in enumerate(x):
                values[i] = problem(row)
            return values
        for i, row in enumerate(x):
            if problem.final_target_hit or problem.evaluations >= self.budget:
                raise ProblemDone
            values[i] = problem(row)
        return values
