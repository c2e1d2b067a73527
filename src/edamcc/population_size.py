"""Population size adaptation within a run (variants with ``population_adaptation``).

PSA-CMA-ES (Nishida and Akimoto, "PSA-CMA-ES: CMA-ES with population size adaptation",
GECCO 2018) grows the population where a generation's update of the distribution is mostly
noise and shrinks it where the updates agree. Its test is the length of an evolution path of
the distribution's change, each change measured in the distribution's own metric and divided
by its expected length under random selection:

* the change of a generation, Delta, has a mean part, the mean's step whitened by the model it
  was sampled from, Sigma^(-1/2) (m' - m), and a variance part, (v'_i / v_i - 1) / sqrt(2) for
  each variable's marginal variance v_i = sigma^2 D_i^2 (the Fisher metric of a diagonal
  Gaussian; the groups' correlations are not counted);
* under random selection E|Delta|^2 is about n / mu_eff + n (c_mu^2 / mu_eff + c_1^2) (our
  reading for the diagonal: the rank-mu term of each D_i^2 is c_mu sum_k w_k (z_k,i^2 - 1), of
  variance 2 c_mu^2 / mu_eff, the rank-one term c_1 (p_c,i^2 - 1), of variance about 2 c_1^2);
* p <- (1 - beta) p + sqrt(beta (2 - beta)) Delta / sqrt(E|Delta|^2), and
  gamma <- (1 - beta)^2 gamma + beta (2 - beta), the expected |p|^2 under random selection;
* lambda <- lambda exp(beta (gamma - |p|^2 / alpha)), with PSA-CMA-ES's alpha = 1.4, kept
  between the run's first population and ``MAX_GROWTH`` times it; the population is lambda
  rounded.

Two rules (``population_adaptation=``):

* ``"psa"``, PSA-CMA-ES's own: beta = 0.4, and when the population changes sigma is
  multiplied by sigma_hat(mu_eff') / sigma_hat(mu_eff), sigma_hat(mu_eff) = n mu_eff /
  (n - 1 + mu_eff), the normalized step size that is best on the sphere for weighted
  recombination of mu_eff rows;
* ``"path"``: beta = c_sigma = (mu_eff + 2) / (n + mu_eff + 5), the rate of the cumulative
  step-size path (:class:`edamcc.step_size.StepSize`), for the run's first population, and
  sigma left as it is: the test looks over the step-size path's horizon, about 1 / c_sigma
  generations, and its rate is about a sixth of PSA-CMA-ES's at n = 100 (0.062 with 17 rows); the step
  size adapts itself to the population it has.

Measured (``benchmarks/drift_ratio.py``, the README's "Population size adaptation"): on the
default's runs at fixed populations |p|^2 / gamma is below 1.4 under both rates at the
default's population, on a converging sphere too, so both rules grow the population on every
function; neither is a registered variant.

The population changes at a generation's close: the next generation is a block of the new
size (:meth:`edamcc.ledger.Ledger.resize`), sampled from the same model (with ``"psa"``'s
corrected step size). IPOP's restarts (:mod:`edamcc.restarts`) double the population the run
had last, and start the rule afresh from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from .models import FactorizedGaussian
from .step_size import effective_mu, shape_rates, step_size_rate
from .variants import check_population_rule

ALPHA = 1.4  # PSA-CMA-ES's threshold on |p|^2 / gamma
BETA = 0.4  # PSA-CMA-ES's rate, of the path and of log lambda alike ("psa")
MAX_GROWTH = 512  # the largest population is this times the run's first (the same as IPOP's 9 doublings)


def expected_change(n: int, mu_eff: float, c1: float, c_mu: float) -> float:
    """E|Delta|^2 under random selection: n / mu_eff for the mean, n (c_mu^2 / mu_eff + c_1^2) for the variances."""
    return n / mu_eff + n * (c_mu * c_mu / mu_eff + c1 * c1)


def sigma_hat(n: int, mu_eff: float) -> float:
    """The normalized step size best on the sphere for mu_eff recombined rows: n mu_eff / (n - 1 + mu_eff)."""
    return n * mu_eff / (n - 1.0 + mu_eff)


def step_size_factor(n: int, selected: int, new_selected: int) -> float:
    """What sigma is multiplied by when the selection grows from ``selected`` to ``new_selected`` rows."""
    return sigma_hat(n, effective_mu(new_selected)) / sigma_hat(n, effective_mu(selected))


@dataclass(frozen=True)
class PopulationSize:
    """The population size's state: lambda (real), the path p and its expected |p|^2, gamma;
    ``rate`` is beta and ``corrects`` whether sigma follows a change of population."""

    lam: float
    smallest: int
    rate: float = BETA
    corrects: bool = True
    path: NDArray[np.float64] | None = None
    gamma: float = 0.0

    @classmethod
    def start(cls, rule: str, n: int, population_size: int, selected: int) -> PopulationSize:
        """A run's first state under ``rule`` (:data:`edamcc.variants.POPULATION_RULES`), with ``population_size``
        rows of which ``selected`` are selected."""
        check_population_rule(rule)
        if rule == "psa":
            return cls(float(population_size), population_size)
        return cls(float(population_size), population_size, step_size_rate(n, effective_mu(selected)), False)

    def step_size_factor(self, n: int, selected: int, new_selected: int) -> float:
        """What sigma is multiplied by when the selection changes from ``selected`` to ``new_selected`` rows."""
        return step_size_factor(n, selected, new_selected) if self.corrects else 1.0

    @property
    def population_size(self) -> int:
        """The population the next generation has: lambda rounded, within the run's bounds."""
        return int(min(max(round(self.lam), self.smallest), MAX_GROWTH * self.smallest))

    def after_generation(self, model: FactorizedGaussian | None, new_model: FactorizedGaussian | None, selected: int) -> PopulationSize:
        """The state after a generation, sampled from ``model`` with ``selected`` rows selected,
        that led to ``new_model`` (the step-size state's models, :class:`edamcc.step_size.StepSize`);
        unchanged while either is None (no fit yet) or the generation fitted nothing (the same model)."""
        if model is None or new_model is None or new_model is model:
            return self
        mu_eff = effective_mu(selected)
        step = model.whiten(new_model.mean - model.mean)
        return self.update(step, model.stds() ** 2, new_model.stds() ** 2, mu_eff, *shape_rates(step.size, mu_eff))

    def update(self, mean_step: NDArray[np.float64], variances: NDArray[np.float64], new_variances: NDArray[np.float64],
               mu_eff: float, c1: float, c_mu: float) -> PopulationSize:  # fmt: skip
        """The state after a generation whose whitened ``mean_step`` (``(n,)``) moved the model
        with marginal ``variances`` to one with ``new_variances``."""
        n = mean_step.size
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(variances > 0, new_variances / variances, 1.0)
        delta = np.concatenate([mean_step, (ratio - 1.0) / math.sqrt(2.0)])
        if not np.all(np.isfinite(delta)):
            return self
        beta = self.rate
        scale = math.sqrt(beta * (2.0 - beta) / expected_change(n, mu_eff, c1, c_mu))
        path = scale * delta if self.path is None else (1.0 - beta) * self.path + scale * delta
        gamma = (1.0 - beta) ** 2 * self.gamma + beta * (2.0 - beta)
        lam = self.lam * math.exp(beta * (gamma - float(path @ path) / ALPHA))
        lam = min(max(lam, float(self.smallest)), float(MAX_GROWTH * self.smallest))
        return replace(self, lam=lam, path=path, gamma=gamma)
