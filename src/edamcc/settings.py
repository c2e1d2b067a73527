"""Every algorithm parameter in one place: its default, its validation and where it comes from.

:class:`Settings` is what the strategy, :func:`edamcc.minimize`, the ``edamcc`` command, the
Nevergrad optimizer and the Optuna sampler all build from, so a bad value raises the same
``ValueError``, naming the argument, wherever it is given, and nothing is clamped silently.
The run controls that are not algorithm parameters (seed, budget, target) are checked here
too, by :func:`check_seed`, :func:`check_budget` and :func:`check_target`.

Paper references are to the printed article (Dong, Chen, Tino, Yao, IEEE Trans. Evol. Comput.
17(6), 2013, doi:10.1109/TEVC.2013.2247404); Section IV-A holds "Common Parameter Settings"
and "Parameters of EDA-MCC".
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .bounds import REPAIR_METHODS
from .checks import check_dimension, check_flag, is_int, is_real
from .variants import SCALES, VARIANTS, Variant, get_variant
from .wi_threshold import RULES as THETA_RULES, resolve_theta

# Section IV-A, "Common Parameter Settings": M is one of 200, 500, 1000, 2000, tau = 0.5.
PAPER_POPULATION_SIZE = 200
# The paper's M = 200 assumes its budget of 10,000 n evaluations; a smaller budget gets a
# population that leaves at least this many generations (and never fewer than 10 rows).
MIN_GENERATIONS = 30
MIN_DEFAULT_POPULATION = 10
DEFAULT_SELECTION_RATIO = 0.5  # tau: "all algorithms use tau = 0.5"
ADAPTIVE_SELECTION_RATIO = 0.35  # AMaLGaM's tau (Bosman, Grahl, Thierens 2013), for edamcc-adaptive
DEFAULT_M_CORR = 100  # Section IV-A, "Parameters of EDA-MCC": m_corr = 100 "through all experiments"
DEFAULT_THETA = 0.3  # ibid.: theta = 0.3, "a popular threshold to define weakly correlated"
DEFAULT_BUDGET_FACTOR = 10_000  # Section IV-A: "the maximal #FEs is set to 10000 x n" (CEC 2005)
DEFAULT_C = 20  # Section IV-A: "For SM, we set c=20" (50D/100D); at 500D the paper uses c = 100
# The package's default algorithm (since 0.7): the self-adaptive EDA-MCC with a cumulative step
# size and sep-CMA-ES's rate for its rank-one path, ahead of the paper's variant, of
# edamcc-adaptive (the default of 0.2) and of edamcc-csa (the default of 0.3 to 0.6) at the budgets
# users have (README, "Self-adaptive EDA-MCC"). The paper's is variant="edamcc".
DEFAULT_VARIANT = "edamcc-sep-cc"
PAPER_VARIANT = "edamcc"
# How SM groups the strong set S: "random" (Fig. 4, step 2) or "learned" (SM-GC's clusters of
# Fig. 11, the strong variables left over in random groups; :func:`edamcc.structure_learning.learned_partition`).
PARTITIONS = ("random", "learned")


def default_population_size(dimension: int, budget: int | None = None, *, adaptive: bool = False, scale: str = "avs") -> int:
    """M when the user gives none: the one population rule of the package.

    * The step-size variants (``adaptive=True, scale="csa"``, ``Variant.uses_step_size``: the
      default ``edamcc-sep-cc`` and its relatives), which double it at each restart (IPOP):
      CMA-ES's ``4 + 3 ln n`` (at least 10), whatever the budget: the step size, not the
      population, keeps the model from collapsing, and the restarts grow it where needed.

    * ``edamcc-adaptive`` (``adaptive=True, scale="avs"``), which doubles it at each restart (IPOP):
      ``max(4 + 3 ln n, min(10 sqrt(n), budget / (25 sqrt(n))))`` (at least 10): AMaLGaM's
      10 sqrt(n) when the budget allows 25 sqrt(n) generations of it, down to CMA-ES's
      4 + 3 ln n for small budgets; 100 at n = 100 from 25,000 evaluations on.
    * The paper's variants, with a budget: ``clip(budget // 30, 10, 200)``, so that at least
      about 30 generations run; the paper's M = 200 (Section IV-A) from 6,000 evaluations on,
      which covers its budget of 10,000 n.
    * Without a budget (an Optuna study, an open-ended ask/tell loop): ``clip(10 + 4 sqrt(n),
      20, 200)``, 50 at n = 100 and 99 at n = 500, since such runs usually have far fewer than
      10,000 n evaluations and more generations of a smaller population use them better.
    """
    dimension, budget = check_dimension(dimension), check_budget(budget)
    adaptive = check_flag(adaptive, "adaptive")
    if scale not in SCALES:
        raise ValueError(f"scale: expected one of {SCALES}; got {scale!r}")
    if adaptive and scale == "csa":
        return max(MIN_DEFAULT_POPULATION, int(4 + 3 * np.log(max(dimension, 1))))
    if adaptive:
        smallest = 4 + 3 * np.log(max(dimension, 1))  # CMA-ES's default population
        wanted = 10 * np.sqrt(dimension)  # AMaLGaM-Univariate's
        if budget is not None:
            wanted = min(wanted, budget / (25 * np.sqrt(dimension)))  # leave room for 25 sqrt(n) generations
        return max(MIN_DEFAULT_POPULATION, int(max(smallest, wanted)))
    if budget is None:
        return int(np.clip(10 + 4 * np.sqrt(dimension), 20, PAPER_POPULATION_SIZE))
    return int(np.clip(budget // MIN_GENERATIONS, MIN_DEFAULT_POPULATION, PAPER_POPULATION_SIZE))


def check_seed(seed: Any) -> Any:
    """A seed as :func:`numpy.random.default_rng` takes it: None, a non-negative int, a
    :class:`~numpy.random.SeedSequence` or a :class:`~numpy.random.Generator`."""
    if seed is None or isinstance(seed, (np.random.SeedSequence, np.random.Generator)):
        return seed
    if not is_int(seed) or seed < 0:
        raise ValueError(
            "seed: expected a non-negative integer, a numpy SeedSequence or Generator, or None; "
            f"got {seed!r}"
        )
    return int(seed)


def check_budget(budget: Any) -> int | None:
    """The evaluation budget: a positive integer or None (no limit)."""
    if budget is None:
        return None
    if not is_int(budget) or budget < 1:
        raise ValueError(f"budget: expected a positive integer (a number of evaluations) or None; got {budget!r}")
    return int(budget)


def default_budget(dimension: int) -> int:
    """The budget when none is given: the paper's 10,000 n evaluations."""
    return DEFAULT_BUDGET_FACTOR * dimension


def check_seconds(value: Any, name: str) -> float | None:
    """A duration: positive seconds or None (no limit); ``name`` is the argument's name."""
    if value is None:
        return None
    if not is_real(value) or not value > 0:
        raise ValueError(f"{name}: expected positive seconds or None; got {value!r}")
    return float(value)


def check_count(value: Any, name: str) -> int:
    """A positive integer; ``name`` is the argument's name."""
    if not is_int(value) or value < 1:
        raise ValueError(f"{name}: expected a positive int; got {value!r}")
    return int(value)


def check_target(target: Any) -> float | None:
    """A target value: a finite number or None (+inf would count as reached before any
    evaluation, -inf never: None is the run without a target)."""
    if target is None:
        return None
    if not is_real(target) or not np.isfinite(target):
        raise ValueError(f"target: expected a finite number or None; got {target!r}")
    return float(target)


def _learns_groups(variant: Variant) -> bool:
    """Whether ``partition="learned"`` applies: the self-adaptive variants with WI and SM's random groups."""
    return variant.adaptive and variant.grouping == "random" and variant.identify_weak


@dataclass(frozen=True)
class Settings:
    """The algorithm's parameters, validated when built.

    Args:
        population_size: M, the elite plus M - 1 new candidates per generation (Section IV-A:
            200, 500, 1000 or 2000). None: :func:`default_population_size` of the dimension
            and budget.
        selection_ratio: tau in (0, 1]; m = floor(tau * M) rows are selected. None: the
            paper's 0.5, or AMaLGaM's 0.35 for ``edamcc-adaptive``.
        m_corr: rows drawn from the m selected for WI's correlations, 2 <= m_corr <= m
            (Fig. 6, step 2). None: ``min(100, m)`` (paper 100).
        theta: WI's threshold in [0, 1] (Eq. (3); paper 0.3), or ``"auto"`` for the threshold
            calibrated to the correlations' noise by Fisher's z, or ``"exact"`` for the one from
            their exact null law (:mod:`edamcc.wi_threshold`). None: 0.3 for the paper's
            variants, ``"auto"`` for the self-adaptive ones.
        c: subspace capacity, the largest SM group (Fig. 4); at least 1, or 2 for the
            greedy-clustering variant (Fig. 11). Paper: 20 at 50/100D, 100 at 500D. None: 20.
        variant: one of :data:`edamcc.VARIANTS` or a :class:`~edamcc.Variant`; default
            ``"edamcc-sep-cc"`` (:data:`DEFAULT_VARIANT`), the paper's algorithm is ``"edamcc"``.
        repair: ``"clip"``, ``"reflect"`` or ``"none"`` for samples outside the box.
        partition: how SM groups the strong set: ``"random"`` (Fig. 4, the default) or
            ``"learned"``, clusters of the measured |corr| (Fig. 11's greedy clustering) with the
            strong variables left over in random groups. ``"learned"`` is for the self-adaptive
            variants only; the paper's variants group as the paper says (``"edamcc-gc"`` is its
            greedy clustering).

    A variant without WI (``identify_weak=False``: UMDAc, EEDA, EMNA, MIMIC, "SM only") has no
    use for ``m_corr`` and ``theta``, and one without SM's groups (``Variant.uses_capacity``)
    none for ``c``: giving one raises, and they stay None, so a value is never silently ignored.
    """

    population_size: int | None = None
    selection_ratio: float | None = None
    m_corr: int | None = None
    theta: float | str | None = None
    c: int | None = None
    variant: Variant = field(default_factory=lambda: get_variant(DEFAULT_VARIANT))
    repair: str = "clip"
    partition: str = "random"

    def __post_init__(self) -> None:
        variant = get_variant(self.variant)
        object.__setattr__(self, "variant", variant)
        if self.population_size is not None:
            if not is_int(self.population_size) or self.population_size < 3:
                raise ValueError(f"population_size: expected an integer >= 3 or None; got {self.population_size!r}")
            object.__setattr__(self, "population_size", int(self.population_size))
        if self.selection_ratio is None:
            adaptive_ratio = ADAPTIVE_SELECTION_RATIO if variant.scale == "avs" else DEFAULT_SELECTION_RATIO
            object.__setattr__(self, "selection_ratio", adaptive_ratio if variant.adaptive else DEFAULT_SELECTION_RATIO)
        if not is_real(self.selection_ratio) or not 0.0 < self.selection_ratio <= 1.0:
            raise ValueError(f"selection_ratio: expected a number in (0, 1]; got {self.selection_ratio!r}")
        object.__setattr__(self, "selection_ratio", float(self.selection_ratio))
        for name in variant.unused_settings:
            if getattr(self, name) is not None:
                why = "does not run WI (identify_weak=False)" if name != "c" else f"has no SM groups to cap (grouping={variant.grouping!r})"
                raise ValueError(f"{name}: variant {variant.name!r} {why}, so it does not use {name}; expected None, got {getattr(self, name)!r}")
        if self.m_corr is not None:
            if not is_int(self.m_corr) or self.m_corr < 2:
                raise ValueError(f"m_corr: expected an integer >= 2 (and <= m = floor(tau * M)) or None; got {self.m_corr!r}")
            object.__setattr__(self, "m_corr", int(self.m_corr))
        if self.theta is None and "theta" not in variant.unused_settings:
            object.__setattr__(self, "theta", "auto" if variant.adaptive else DEFAULT_THETA)
        elif self.theta is not None and not (isinstance(self.theta, str) and self.theta in THETA_RULES):
            if not is_real(self.theta) or not 0.0 <= self.theta <= 1.0:
                raise ValueError(f"theta: expected a number in [0, 1], 'auto' or 'exact'; got {self.theta!r}")
            object.__setattr__(self, "theta", float(self.theta))
        if "c" not in variant.unused_settings:
            min_c = 2 if variant.grouping == "greedy" else 1
            c = DEFAULT_C if self.c is None else self.c
            if not is_int(c) or c < min_c:
                raise ValueError(f"c: expected an integer >= {min_c} or None for variant {variant.name!r}; got {c!r}")
            object.__setattr__(self, "c", int(c))
        if self.repair not in REPAIR_METHODS:
            raise ValueError(f"repair: expected one of {REPAIR_METHODS}; got {self.repair!r}")
        if not isinstance(self.partition, str) or self.partition not in PARTITIONS:
            raise ValueError(f"partition: expected one of {PARTITIONS}; got {self.partition!r}")
        if self.partition == "learned" and not _learns_groups(variant):
            learnable = [v.name for v in VARIANTS.values() if _learns_groups(v)]
            raise ValueError(
                f"partition: 'learned' is for the self-adaptive variants ({', '.join(learnable)}); variant {variant.name!r} "
                "groups S as the paper fixes it (variant='edamcc-gc' is the paper's greedy clustering, Fig. 11)"
            )
        if self.population_size is not None:
            self.sizes(self.population_size)  # m >= 2 and m_corr <= m, checked now

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The parameter names, as keyword arguments everywhere."""
        return tuple(f.name for f in fields(cls))

    def sizes(self, population_size: int) -> tuple[int, int | None]:
        """``(m, m_corr)`` for a population of ``population_size``, checked (m_corr None for a
        variant without WI)."""
        m = int(np.floor(self.selection_ratio * population_size + 1e-9))
        if m < 2:
            least = int(np.ceil(2.0 / self.selection_ratio - 1e-9))
            raise ValueError(
                f"population_size and selection_ratio: floor(selection_ratio * population_size) = floor({self.selection_ratio:g} * {population_size}) "
                f"= {m} selected rows; at least 2 are needed to estimate a variance (population_size >= {least} "
                "at this selection_ratio, or a larger selection_ratio)"
            )
        if self.m_corr is None:
            return m, None if "m_corr" in self.variant.unused_settings else min(DEFAULT_M_CORR, m)
        if self.m_corr > m:
            raise ValueError(
                f"m_corr: expected an integer in [2, m={m}] (m = floor(selection_ratio * population_size)); "
                f"got {self.m_corr!r}"
            )
        return m, self.m_corr

    def resolve(self, dimension: int, budget: int | None = None) -> Resolved:
        """The concrete sizes for a problem of ``dimension`` variables and ``budget`` evaluations
        (checked: a positive integer, and a positive integer or None)."""
        dimension, budget = check_dimension(dimension), check_budget(budget)
        big_m = self.population_size
        if big_m is None:
            big_m = default_population_size(dimension, budget, adaptive=self.variant.adaptive, scale=self.variant.scale)
        return self.resolve_population(dimension, big_m)

    def resolve_population(self, dimension: int, population_size: int) -> Resolved:
        """As :meth:`resolve`, for a population given by a restart rule."""
        m, m_corr = self.sizes(population_size)
        theta = None if self.theta is None else resolve_theta(self.theta, dimension, m_corr)  # type: ignore[arg-type]
        return Resolved(self, dimension, population_size, m, m_corr, theta)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the variant by name."""
        return {name: (getattr(self, name).name if name == "variant" else getattr(self, name)) for name in self.names()}


@dataclass(frozen=True)
class Resolved:
    """Settings fixed for one problem: M, m = floor(tau * M), m_corr and WI's threshold (None,
    as m_corr, for a variant without WI)."""

    settings: Settings
    dimension: int
    population_size: int
    n_selected: int
    m_corr: int | None
    theta: float | None  # a number, also for theta="auto" or "exact"

    def theta_for(self, rows: int) -> float | None:
        """WI's threshold for a generation with ``rows`` selected rows: ``theta``, or with
        ``theta="auto"`` or ``"exact"`` and fewer rows than m_corr (failed evaluations) the
        threshold for the rows WI can use (1 from 3 rows down: too few rows for any correlation
        to mean something)."""
        if not isinstance(self.settings.theta, str) or rows >= self.m_corr:  # type: ignore[operator]
            return self.theta
        return resolve_theta(self.settings.theta, self.dimension, rows)

    @property
    def c(self) -> int | None:
        return self.settings.c

    @property
    def variant(self) -> Variant:
        return self.settings.variant

    @property
    def repair(self) -> str:
        return self.settings.repair

    @property
    def partition(self) -> str:
        return self.settings.partition
