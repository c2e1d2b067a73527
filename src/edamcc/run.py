"""One run of a strategy: what a restart begins afresh, and what closing a generation changes in it.

A strategy (:class:`edamcc.EDAMCCStrategy`) keeps what lasts over its restarts: the box, the
budget and the target, the random generator, the asked/told ledger, the best point, the
evaluation count, the generations closed so far, the restarts (and why the run stopped for
good, once they are used), the last W and groups, and the structure record. A :class:`Run`
holds the rest, from a uniform start in the box to the next restart (IPOP, :mod:`edamcc.restarts`):

* its rules (:class:`edamcc.settings.Resolved`: the population and the sizes that follow from it);
* the model its generations are sampled from, and the maximum-likelihood fit behind it;
* the scale control (AMaLGaM's variance multiplier or the step size, :func:`edamcc.generation.start_adaptation`);
* the population size rule, for variants with ``population_adaptation`` (:mod:`edamcc.population_size`);
* the elite, and the progress that the stopping and restart criteria read.

Closing a generation (:meth:`Run.close`) is the generation rule (:func:`edamcc.generation.close_generation`:
Fig. 6, steps 1-3) followed by the population rule; the strategy then samples the next
generation from :attr:`Run.model` (step 4), or from a fresh run's uniform model after a restart.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .generation import FittedGeneration, close_generation, start_adaptation
from .models import UniformModel
from .population_size import PopulationSize
from .restarts import restart_reason
from .settings import Resolved
from .stopping import Progress, no_progress_window


class Run:
    """The state of one run, from the uniform model in the box ``lower``, ``upper`` under ``rules``."""

    def __init__(self, rules: Resolved, lower: NDArray[np.float64], upper: NDArray[np.float64]) -> None:
        self.rules = rules
        self.lower, self.upper = lower, upper
        self.model: Any = UniformModel(lower, upper)  # what the open generation samples
        self.fit: Any = self.model  # the maximum-likelihood model behind it
        self.adaptation = start_adaptation(rules.variant)
        rule = rules.variant.population_adaptation
        self.population = None if rule is None else PopulationSize.start(rule, rules.dimension, rules.population_size, rules.n_selected)
        self.elite_x: NDArray[np.float64] | None = None  # the elite kept by the closed generations
        self.elite_f = np.inf
        self.progress = Progress()  # what the stopping criteria read

    @property
    def window(self) -> int:
        """Generations looked back by the no-progress tests: ``10 + ceil(30 n / M)``."""
        return no_progress_window(self.rules.dimension, self.rules.population_size)

    def close(self, rows: NDArray[np.float64], values: NDArray[np.float64], rng: np.random.Generator,
              pair_counts: NDArray[np.integer] | None) -> tuple[FittedGeneration | None, int | None]:  # fmt: skip
        """Close a generation of ``rows`` (``(k, n)``, in number order) and their ``values``:
        its fit (None: fewer than two finite values, the model stays) and the population of
        the next generation when the population rule changed it (else None)."""
        closed = close_generation(self.elite_x, self.elite_f, rows, values, self.rules, rng, pair_counts=pair_counts,
                                  adaptation=self.adaptation, fit_before=self.fit)  # fmt: skip
        before = self.adaptation
        self.elite_x, self.elite_f = closed.elite_x, closed.elite_f
        self.adaptation = closed.adaptation
        if closed.model is not None:
            self.model = closed.model
        if closed.fitted is not None:
            self.fit = closed.fitted.model
        return closed.fitted, None if self.population is None else self._adapt_population(before)

    def _adapt_population(self, before: Any) -> int | None:
        """PSA (:mod:`edamcc.population_size`): the next generation's size if it changed, with
        sigma corrected for it."""
        rules = self.rules
        self.population = self.population.after_generation(before.model, self.adaptation.model, rules.n_selected)  # type: ignore[union-attr]
        big_m = self.population.population_size
        if big_m == rules.population_size:
            return None
        self.rules = rules.settings.resolve_population(rules.dimension, big_m)
        factor = self.population.step_size_factor(rules.dimension, rules.n_selected, self.rules.n_selected)
        self.adaptation = self.adaptation.rescaled(factor)  # type: ignore[union-attr]
        self.model = self.adaptation.sampler
        return big_m

    def restart_reason(self) -> str | None:
        """Why this run should restart (:func:`edamcc.restarts.restart_reason`), or None; the
        step-size variants also read pycma's ``tolfun`` on the progress."""
        tolfun = (self.progress, self.window) if self.rules.variant.uses_step_size else ()
        return restart_reason(self.model, self.adaptation.multiplier, self.lower, self.upper, *tolfun)  # type: ignore[union-attr]

    @functools.cached_property
    def widest(self) -> float:
        """The box's widest variable: the scale of the diverged-model test (once per run, not per generation)."""
        return float(np.max(self.upper - self.lower))

    def stop_reason(self, *, evaluations: int, budget: int | None, best_f: float, target: float | None) -> str | None:
        """The first stopping criterion of :mod:`edamcc.stopping` that holds for this run, or None."""
        return self.progress.reason(evaluations=evaluations, budget=budget, best_f=best_f, target=target,
                                    max_std=self.model.max_std, window=self.window, widest=self.widest)  # fmt: skip
