"""Population size adaptation within a run (``population_adaptation=True`` variants).

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
* lambda <- lambda exp(beta (gamma - |p|^2 / alpha)), with PSA-CMA-ES's alpha = 1.4 and
  beta = 0.4, kept between the run's first population and ``MAX_GROWTH`` times it; the
  population is lambda rounded;
* when the population changes, sigma is multiplied by sigma_hat(mu_eff') / sigma_hat(mu_eff),
  sigma_hat(mu_eff) = n mu_eff / (n - 1 + mu_eff), the normalized step size that is best on
  the sphere for weighted recombination of mu_eff rows, as PSA-CMA-ES corrects it.

The population changes at a generation's close: the next generation is a block of the new
size (:meth:`edamcc.ledger.Ledger.resize`), sampled from the same model with the corrected
step size. IPOP's restarts (:mod:`edamcc.restarts`) double the population the run had last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .step_size import effective_mu, shape_rates, whiten

ALPHA = 1.4  # PSA-CMA-ES's threshold on |p|^2 / gamma
BETA = 0.4  # PSA-CMA-ES's rate, of the path and of log lambda alike
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
    """The population size's state: lambda (real), the path p and its expected |p|^2, gamma."""

    lam: float
    smallest: int
    path: NDArray[np.float64] | None = None
    gamma: float = 0.0

    @property
    def population_size(self) -> int:
        """The population the next generation has: lambda rounded, within the run's bounds."""
        return int(min(max(round(self.lam), self.smallest), MAX_GROWTH * self.smallest))

    def after_generation(self, before: Any, after: Any, selected: int) -> PopulationSize:
        """The state after a generation that took the step-size state ``before`` to ``after``
        (:class:`edamcc.step_size.StepSize`) with ``selected`` rows; unchanged while either has
        no model yet or the generation fitted nothing."""
        if before.model is None or after.model is None or after.model is before.model:
            return self
        mu_eff = effective_mu(selected)
        step = whiten(before.model, after.model.mean - before.model.mean)
        return self.update(step, before.model.stds() ** 2, after.model.stds() ** 2, mu_eff, *shape_rates(step.size, mu_eff))

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
        scale = math.sqrt(BETA * (2.0 - BETA) / expected_change(n, mu_eff, c1, c_mu))
        path = scale * delta if self.path is None else (1.0 - BETA) * self.path + scale * delta
        gamma = (1.0 - BETA) ** 2 * self.gamma + BETA * (2.0 - BETA)
        lam = self.lam * math.exp(BETA * (gamma - float(path @ path) / ALPHA))
        lam = min(max(lam, float(self.smallest)), float(MAX_GROWTH * self.smallest))
        return PopulationSize(lam, self.smallest, path, gamma)
