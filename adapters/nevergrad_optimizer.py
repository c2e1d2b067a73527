"""EDA-MCC in Nevergrad: ``ng.optimizers.registry["EDAMCC"]``.

>>> import nevergrad as ng
>>> import edamcc.adapters.nevergrad_optimizer  # registers the optimizers
>>> opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(50,), lower=-5, upper=5), budget=2000)
>>> rec = opt.minimize(lambda x: float((x**2).sum()))

The strategy works in Nevergrad's standardized space (the flat vector every
parametrization maps to):

* bounded variables (``clipping``/``bouncing`` bounds, ``Scalar(lower=, upper=)``, ``Log``)
  keep their true box: the first generation is uniform in it and samples are repaired into
  it (``repair=``, clip by default);
* unbounded variables, and bounds Nevergrad implements by a squashing transform (``arctan``,
  ``tanh``), start uniform in [-2, 2] standardized units (two sigmas around the initial
  value) and are not repaired; if any variable is unbounded nothing is repaired and
  Nevergrad's own bounding applies to the bounded ones;
* integer and categorical parameters work through Nevergrad's standardized space (integer
  casting rounds, ``Choice`` samples from its weights), as with Nevergrad's own
  continuous optimizers.

Seeding: ``parametrization.random_state.seed(s)`` before the first ask makes a run
repeatable. With ``num_workers`` larger than the outstanding candidates of a generation the
extra asks are drawn from the current model (:meth:`EDAMCCStrategy.ask_extra`); their losses
join the next selection, whenever they arrive. ``tell`` of a point that was not asked is
supported: it joins the next selection too (:meth:`EDAMCCStrategy.inject`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

try:
    import nevergrad as ng
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "edamcc.adapters.nevergrad_optimizer needs nevergrad: pip install nevergrad (or, from a clone of "
        "edamcc, pip install '.[nevergrad]'; from the package index, pip install 'edamcc[nevergrad]')"
    ) from exc
from nevergrad.optimization import base
from nevergrad.optimization.optimizerlib import registry
from nevergrad.parametrization import helpers

from edamcc import DEFAULT_VARIANT, PAPER_VARIANT, EDAMCCStrategy, Settings, StructureRecord, Variant, check_budget, get_variant

# Beyond this many standardized units a bound is a squashing transform's +-infinity.
_FAR = 1e6
UNBOUNDED_INIT = 2.0
_CLIP = 5.0e20  # Nevergrad's tell replaces NaN, inf and larger losses by this
# Asks drawn while one generation stays open, in populations (or in workers, if more), before a
# warning (once per generation): slow evaluations hold a generation a few populations long, a
# lost one forever.
STALE_GENERATIONS = 50


def standardized_box(parametrization: ng.p.Parameter) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lower, upper, bounded)`` of every standardized coordinate of ``parametrization``."""

    def probe(which: int) -> np.ndarray:
        child = parametrization.spawn_child()
        for _, leaf in helpers.flatten(child):
            if isinstance(leaf, ng.p.Data) and leaf.bounds[0] is not None:
                shape = np.shape(leaf.value)
                v = np.asarray(leaf.bounds[which], dtype=float)
                try:  # a bound broadcast over the value (one per row or column, or one for all)
                    v = np.broadcast_to(v, shape)
                except ValueError:
                    v = v.reshape(shape)  # the same number of values, in another shape
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    leaf.value = v.copy() if shape else float(v)
        return np.asarray(child.get_standardized_data(reference=parametrization), dtype=float)

    lower, upper = probe(0), probe(1)
    lo, hi = np.minimum(lower, upper), np.maximum(lower, upper)  # decreasing transforms swap them
    bounded = np.isfinite(lo) & np.isfinite(hi) & (hi > lo) & (np.abs(lo) < _FAR) & (np.abs(hi) < _FAR)
    return lo, hi, bounded


class _EDAMCC(base.Optimizer):
    """Nevergrad optimizer around :class:`edamcc.EDAMCCStrategy`."""

    def __init__(self, parametrization: Any, budget: int | None = None, num_workers: int = 1, *, config: EDAMCC | None = None) -> None:
        """``config``: the :class:`EDAMCC` whose options to run (None: its defaults)."""
        options = (EDAMCC() if config is None else config).config()
        check_budget(budget)  # the package's check: the population rule reads the budget
        super().__init__(parametrization, budget=budget, num_workers=num_workers)
        # A candidate that breaks a cheap constraint is dropped by Nevergrad's ask; it must be
        # told (as inf: it ranks worst) or its generation never closes.
        self._penalize_cheap_violations = True
        # The package's checks and its one population rule (a bad option raises here).
        settings = Settings(**options)
        lower, upper, bounded = standardized_box(self.parametrization)
        self._all_bounded = bool(bounded.all())
        lower = np.where(bounded, lower, -UNBOUNDED_INIT)
        upper = np.where(bounded, upper, UNBOUNDED_INIT)
        options = settings.to_dict() | {
            "variant": settings.variant,  # the Variant itself: a variant of the user's own has no registered name
            "population_size": settings.resolve(lower.size, budget).population_size,
            "repair": settings.repair if self._all_bounded else "none",
        }
        # The strategy is made at the first ask: its seed comes from the parametrization's
        # random state then. Nevergrad keeps the budget itself.
        self._options: dict[str, Any] = {"bounds": np.column_stack([lower, upper]), **options}
        self._strategy: EDAMCCStrategy | None = None
        self._best: tuple[float, ng.p.Parameter] | None = None  # the lowest unclipped loss told, and its candidate
        self._held = (0, 0, False)  # (open generation, asks drawn beyond it, warned): a candidate never told

    @property
    def strategy(self) -> EDAMCCStrategy:
        """The underlying strategy, made at its first use (an ask, a tell, or reading this or
        :attr:`structure`) with its seed drawn from the parametrization's random state then:
        seed that state before (as the README says, before the first ask or this property)."""
        if self._strategy is None:
            seed = int(self._rng.randint(0, 2**31 - 1))
            self._strategy = EDAMCCStrategy(**self._options, seed=seed)
        return self._strategy

    @property
    def structure(self) -> StructureRecord | None:
        """The learned structure record (#strong, Q, pair counts) of the strategy."""
        return self.strategy.structure

    def _internal_ask_candidate(self) -> ng.p.Parameter:
        es = self.strategy
        row = es.ask(1)
        if row.shape[0] == 0:  # every candidate of the generation is out: steady-state extra
            row = es.ask_extra(1)
            self._note_held(es)
        candidate = self.parametrization.spawn_child().set_standardized_data(row[0])
        candidate._meta["edamcc_row"] = row[0]
        return candidate

    def _note_held(self, es: EDAMCCStrategy) -> None:
        """Count the asks drawn while the same generation stays open, and warn once when they
        pass ``STALE_GENERATIONS`` populations (or that many times ``num_workers``, if larger: a
        batch of many workers is drawn before any tell): a candidate asked and never told keeps
        its generation open for good, and every later ask comes from that old model."""
        generation, drawn, warned = self._held if self._held[0] == es.generation else (es.generation, 0, False)
        drawn += 1
        if not warned and drawn >= STALE_GENERATIONS * max(es.population_size, self.num_workers):
            warned = True
            warnings.warn(f"EDAMCC: {drawn} candidates were asked from the model of generation {generation} while it stays "
                          "open, because a candidate asked from it has not been told yet (optimizer.strategy.pending() lists "
                          f"the {len(es.pending())} out now). A slow one closes it when told; a lost one holds it open for "
                          "good: tell every asked candidate, a failed one with loss NaN (it ranks worst); a candidate made "
                          "anew (spawn_child) is another point, not the one asked.",
                          UserWarning, stacklevel=4)  # fmt: skip
        self._held = (generation, drawn, warned)

    def tell(self, candidate: ng.p.Parameter, loss: Any, *args: Any, **kwargs: Any) -> None:
        """Nevergrad's ``tell``; the strategy gets Nevergrad's loss, constraint penalties
        included, but not its clipping: Nevergrad replaces NaN, inf and anything above 5e20 by
        5e20 before its optimizers see it; here NaN and inf rank worst, as everywhere in
        edamcc, and large finite losses keep their order."""
        self._raw_loss = loss
        try:
            super().tell(candidate, loss, *args, **kwargs)
        finally:
            self._raw_loss = None

    def _loss(self, passed: Any) -> float:
        """The loss for the strategy from the one Nevergrad ``passed`` down (a rejected ask's
        inf, or a told loss with any constraint penalty added)."""
        raw = getattr(self, "_raw_loss", None)
        if isinstance(raw, np.ndarray) and not raw.shape and raw.dtype.kind in "biuf":  # np.array(nan): Nevergrad clips it as a number
            raw = raw.item()
        if not isinstance(raw, (int, float, np.floating, np.integer)) or float(raw) < _CLIP:
            return float(passed)  # not clipped: Nevergrad's value, penalty included
        return float(raw) + (float(passed) - _CLIP)  # clipped: the true value, with any penalty on top

    def _internal_tell_candidate(self, candidate: ng.p.Parameter, loss: Any) -> None:
        # Taken off the candidate: a second tell of it (Nevergrad tells a candidate its constraint
        # rejected, then may hand it out with tabu_length > 0) is a point not asked.
        row = candidate._meta.pop("edamcc_row", None)
        if row is None:  # asked elsewhere (e.g. suggest): treat as not asked
            self._internal_tell_not_asked(candidate, loss)
            return
        value = self._loss(loss)
        self.strategy.tell(row, value)
        self._keep_best(candidate, row)

    def _internal_tell_not_asked(self, candidate: ng.p.Parameter, loss: Any) -> None:
        data = candidate.get_standardized_data(reference=self.parametrization)
        self.strategy.inject(data, self._loss(loss))
        self._keep_best(candidate, data)

    def _keep_best(self, candidate: ng.p.Parameter, row: np.ndarray) -> None:
        """Keep the candidate of the strategy's best row: of tied losses the row asked first,
        whatever the order of the tells, as the strategy's own ``best_x``."""
        es = self.strategy
        if es.best_x is not None and np.array_equal(es.best_x, row):
            self._best = (es.best_f, candidate)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling, also of an optimizer dumped before it kept its best candidate, or before
        the settings a variant does not use were None (its strategy, if not made yet, refuses them)."""
        self.__dict__.update(state)
        self.__dict__.setdefault("_best", None)
        self.__dict__.setdefault("_held", (0, 0, False))
        for name in get_variant(self._options["variant"]).unused_settings:
            self._options[name] = None

    def recommend(self) -> ng.p.Parameter:
        """Nevergrad's recommendation, unless every loss told so far was clipped to 5e20 (all
        equal to Nevergrad, which would then recommend the last one): the candidate with the
        lowest true loss."""
        if self.num_objectives == 1 and self._best is not None and self._best[0] >= _CLIP:
            return self._best[1]
        return super().recommend()


class EDAMCC(base.ConfiguredOptimizer):
    """EDA-MCC (Dong, Chen, Tino, Yao): WI + SM Gaussian EDA for high-dimensional problems.

    Parameters
    ----------
    population_size, selection_ratio, m_corr, theta, c, variant, repair, partition:
        as in :class:`edamcc.Settings`; ``population_size=None`` takes
        :func:`edamcc.default_population_size` for the variant, the dimension and the budget
        (the default ``edamcc-sep-cc``: ``4 + 3 ln n``, at least 10; the paper's variant:
        ``clip(budget // 30, 10, 200)``). ``repair`` applies to a fully bounded space.
    """

    def __init__(
        self,
        *,
        population_size: int | None = None,
        selection_ratio: float | None = None,
        m_corr: int | None = None,
        theta: float | str | None = Settings.theta,
        c: int | None = Settings.c,
        variant: str | Variant = DEFAULT_VARIANT,
        repair: str = Settings.repair,
        partition: str = Settings.partition,
    ) -> None:
        # The checks that need no problem run now; those that need its size (m_corr <= m, at
        # least two selected rows) when the optimizer is made for it, not for Nevergrad's
        # stand-in problem (4 variables, 100 evaluations), which would refuse valid settings.
        Settings(population_size, selection_ratio, m_corr, theta, c, variant, repair, partition)
        super().__init__(_EDAMCC, locals(), as_config=True)


#: Registered names and the variant each one runs.
REGISTERED = {
    "EDAMCC": DEFAULT_VARIANT,
    "EDAMCC-Paper": PAPER_VARIANT,
    "EDAMCC-CSA": "edamcc-csa",
    "EDAMCC-TPA": "edamcc-tpa",
    "EDAMCC-SEP-CC": "edamcc-sep-cc",
    "EDAMCC-VD": "edamcc-vd",
    "EDAMCC-VD-WI": "edamcc-vd-wi",
    "EDAMCC-Adaptive": "edamcc-adaptive",
    "EDAMCC-EMNA": "edamcc-emna",
    "EDAMCC-GC": "edamcc-gc",
    "EDAMCC-WIOnly": "wi-only",
    "EDAMCC-SMOnly": "sm-only",
    "EDAMCC-UMDAc": "umdac",
    "EDAMCC-EMNAglobal": "emna-global",
    "EDAMCC-EEDA": "eeda",
    "EDAMCC-MIMIC": "mimic",
}

for _name, _variant in REGISTERED.items():
    if _name not in registry:  # importing (or reloading) twice must not collide
        EDAMCC(variant=_variant).set_name(_name, register=True)
