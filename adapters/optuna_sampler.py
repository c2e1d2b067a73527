"""EDA-MCC as an Optuna sampler: ``optuna.create_study(sampler=EDAMCCSampler())``.

>>> import optuna
>>> from edamcc.adapters.optuna_sampler import EDAMCCSampler
>>> study = optuna.create_study(sampler=EDAMCCSampler(seed=1))
>>> study.optimize(lambda t: sum(t.suggest_float(f"x{i}", -5, 5) ** 2 for i in range(20)), n_trials=300)

How generations work with any number of workers, threads or processes: the sampler keeps no
state that matters. Every trial records its generation (a small integer in its system
attributes), and each generation's model is a pure function of the study's finished trials:

* generation 0 is uniform in the box (the first trials, before the search space is known,
  come from the independent sampler, uniform too, and count as generation 0);
* generation g closes at ``t_g``, the completion time of its K-th finished trial (K = M for
  generation 0, M - 1 after; FAIL and PRUNED trials count as finished, so a generation never
  waits for a trial that died, as long as others finish);
* the model of generation g + 1 is fitted on the COMPLETE trials that finished in
  ``(t_{g-1}, t_g]``, whatever generation they were asked in, plus the elite (the best
  COMPLETE trial finished by ``t_{g-1}``). A trial finishing after its generation closed is
  thus used by the next model, not thrown away (the overflow rule), and FAIL or PRUNED trials
  never reach a model;
* the study's seed (stored once in the study's system attributes) seeds each generation's
  fit and, with the trial number, each trial's draw: workers never propose the same point
  and any worker, in any process, with any storage, rebuilds the same model from the same
  trials.

Models are cached in memory per generation (thread-safe). Nothing O(n^2) and nothing pickled
is written to the storage.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

try:
    import optuna
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("edamcc.adapters.optuna_sampler needs optuna: pip install 'edamcc[optuna]'") from exc
from optuna._transform import _SearchSpaceTransform
from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from edamcc.bounds import repair
from edamcc.fitting import fit_generation, truncation_selection
from edamcc.models import UniformModel
from edamcc.record import PAIR_COUNTS_AUTO_LIMIT, StructureRecord
from edamcc.strategy import DEFAULT_C, DEFAULT_M_CORR, DEFAULT_SELECTION_RATIO, DEFAULT_THETA, EDAMCCStrategy
from edamcc.variants import get_variant

GENERATION_KEY = "edamcc:generation"
SEED_KEY = "edamcc:seed"
_FINISHED = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
_CACHE_SIZE = 16


def default_population_size(n: int) -> int:
    """M = clip(10 + 4 sqrt(n), 20, 200): 23 at n = 1, 50 at 100, 99 at 500, 136 at 1000.

    The paper's M = 200 assumes 10,000 n evaluations; Optuna studies usually have far fewer
    trials, and more generations of a smaller population use them better.
    """
    return int(np.clip(10 + 4 * math.sqrt(n), 20, 200))


@dataclass(frozen=True)
class _Finished:
    number: int
    generation: int
    state: TrialState
    completed: float  # datetime_complete as a timestamp
    value: float | None  # minimization sign


@dataclass
class _StudyCache:
    """What the sampler has read of one study (finished trials never change)."""

    infos: dict[int, _Finished] = field(default_factory=dict)
    params: dict[int, dict[str, Any]] = field(default_factory=dict)  # COMPLETE trials only
    by_generation: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    space: dict[str, BaseDistribution] = field(default_factory=dict)
    closes: dict[int, list[float]] = field(default_factory=dict)  # per population size M
    seen_complete: bool = False
    # The relative search space as last returned, with its transform and cache key: built
    # once per space instead of once per trial.
    relative: dict[str, BaseDistribution] | None = None
    transform: _SearchSpaceTransform | None = None
    signature: tuple = ()


class EDAMCCSampler(BaseSampler):
    """EDA-MCC over the float and int parameters of a study (relative sampling).

    Args:
        population_size: M; default :func:`default_population_size` of the number of parameters.
        selection_ratio: tau (0.5).
        m_corr: rows for WI's correlations; default ``min(100, m)``.
        theta: WI threshold (0.3).
        c: subspace capacity (20).
        variant: any of ``edamcc.VARIANTS`` ("edamcc").
        repair: "clip" or "reflect" for samples outside the box.
        seed: seeds the study (stored on first use) and the independent sampler.
        independent_sampler: for categorical parameters and parameters outside the relative
            search space (default :class:`optuna.samplers.RandomSampler` with ``seed``).

    Float, int, log-scale and stepped parameters are mapped to a continuous box (logarithm for
    log scale, half a step beyond each end for stepped ones) and back, so values are plain
    Python ``float``/``int`` inside the distribution and on its step grid. Maximization flips
    the sign. Multi-objective studies raise ``ValueError``.
    """

    def __init__(
        self,
        *,
        population_size: int | None = None,
        selection_ratio: float = DEFAULT_SELECTION_RATIO,
        m_corr: int | None = None,
        theta: float = DEFAULT_THETA,
        c: int = DEFAULT_C,
        variant: str = "edamcc",
        repair: str = "clip",
        seed: int | None = None,
        independent_sampler: BaseSampler | None = None,
    ) -> None:
        if repair not in ("clip", "reflect"):
            raise ValueError(f"repair: expected 'clip' or 'reflect' (an Optuna box is always bounded); got {repair!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed: expected an int or None; got {seed!r}")
        if population_size is not None and (isinstance(population_size, bool) or not isinstance(population_size, int)):
            raise ValueError(f"population_size: expected an integer >= 3 or None; got {population_size!r}")
        if m_corr is not None and (isinstance(m_corr, bool) or not isinstance(m_corr, int) or m_corr < 2):
            raise ValueError(f"m_corr: expected an integer >= 2 or None; got {m_corr!r}")
        # The strategy's own checks, on a one-variable probe (the dimension is not known yet).
        EDAMCCStrategy(bounds=[(0.0, 1.0)], population_size=200 if population_size is None else population_size, selection_ratio=selection_ratio,
                       theta=theta, c=c, variant=variant, repair=repair, record_structure=False, seed=0)  # fmt: skip
        self._variant = get_variant(variant)
        self._population_size = population_size
        self._selection_ratio = float(selection_ratio)
        self._m_corr = m_corr
        self._theta = float(theta)
        self._c = c
        self._repair = repair
        self._seed = int(np.random.SeedSequence().entropy % 2**63) if seed is None else seed
        self._independent_sampler = independent_sampler or RandomSampler(seed=seed)
        self._lock = threading.RLock()
        self._studies: dict[tuple[int, int], _StudyCache] = {}  # (storage, study id) -> what we know
        self._models: OrderedDict[Any, Any] = OrderedDict()
        self._seeds: dict[tuple[int, int], int] = {}

    # ------------------------------------------------------------------ BaseSampler API
    def reseed_rng(self) -> None:
        """Reseed the independent sampler. The study's stored seed is kept: every worker
        must keep building the same models."""
        self._independent_sampler.reseed_rng()
        self._seed = int(np.random.SeedSequence().entropy % 2**63)

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        self._check_single_objective(study)
        with self._lock:
            cache = self._refresh(study)
            if cache.relative is None:
                cache.relative = {k: d for k, d in sorted(cache.space.items()) if isinstance(d, (FloatDistribution, IntDistribution)) and not d.single()}
                cache.transform = _SearchSpaceTransform(cache.relative, transform_log=True, transform_step=True, transform_0_1=False) if cache.relative else None
                cache.signature = tuple((k, repr(d)) for k, d in cache.relative.items())
            return cache.relative

    def sample_relative(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        self._check_single_objective(study)
        if not search_space:
            return {}
        numeric = {k: d for k, d in sorted(search_space.items()) if isinstance(d, (FloatDistribution, IntDistribution)) and not d.single()}
        params: dict[str, Any] = {}
        for name, dist in search_space.items():  # categorical or fixed: not ours
            if name not in numeric:
                params[name] = self._independent_sampler.sample_independent(study, trial, name, dist)
        if not numeric:
            return params
        with self._lock:
            seed = self._study_seed(study)
            cache = self._refresh(study)
            if search_space is cache.relative and cache.transform is not None:  # the usual case: reuse
                transform, signature = cache.transform, cache.signature
            else:
                transform = _SearchSpaceTransform(numeric, transform_log=True, transform_step=True, transform_0_1=False)
                signature = tuple((k, repr(d)) for k, d in numeric.items())
            closes = self._closes(cache, len(numeric))
            generation = self._generation_of(study, trial, closes)
            model = self._model(study, cache, closes, numeric, transform, signature, generation, seed)
        lower, upper = transform.bounds[:, 0], transform.bounds[:, 1]
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, trial.number)))
        x = model.sample(rng, 1)
        repair(x, lower, upper, self._repair)
        for name, value in transform.untransform(x[0]).items():
            dist = numeric[name]
            params[name] = int(value) if isinstance(dist, IntDistribution) else float(value)
        return params

    def sample_independent(self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution) -> Any:
        self._check_single_objective(study)
        return self._independent_sampler.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._independent_sampler.before_trial(study, trial)

    def after_trial(self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None) -> None:
        self._independent_sampler.after_trial(study, trial, state, values)

    # ------------------------------------------------------------------ learned structure
    def structure(self, study: Study, *, pairs: bool | None = None) -> StructureRecord:
        """The learned structure (#strong per generation, Q, pair counts) of ``study``'s run so far.

        Rebuilt from the trials: each closed generation's WI is redone exactly as when its
        model was fitted. ``pairs`` defaults to ``n <= 2000``.
        """
        numeric = self.infer_relative_search_space(study, None)  # type: ignore[arg-type]
        numeric = dict(sorted(numeric.items()))
        n = len(numeric)
        record = StructureRecord(n, pairs=(n <= PAIR_COUNTS_AUTO_LIMIT) if pairs is None else pairs)
        if not n or not self._variant.identify_weak:
            return record
        transform = _SearchSpaceTransform(numeric, transform_log=True, transform_step=True, transform_0_1=False)
        _, m = self._sizes(n)
        with self._lock:
            seed = self._study_seed(study)
            cache = self._refresh(study)
            closes = self._closes(cache, n)
            for h in range(1, len(closes) + 1):
                selected = self._selected(cache, closes, h, numeric, transform, m)
                if selected is None:
                    continue
                rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, h)))
                fitted = fit_generation(selected, self._variant, theta=self._theta, c=self._c, m_corr=self._m_corr_for(n), rng=rng, pair_counts=record.pair_counts)
                evaluations = sum(1 for i in cache.infos.values() if i.completed <= closes[h - 1])
                record.add(h - 1, evaluations, ~fitted.weak)  # type: ignore[operator]
        return record

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _check_single_objective(study: Study) -> None:
        if len(study.directions) > 1:
            raise ValueError("EDAMCCSampler supports single-objective studies only; this study has "
                             f"{len(study.directions)} objectives")  # fmt: skip

    def _sizes(self, n: int) -> tuple[int, int]:
        big_m = self._population_size or default_population_size(n)
        m = max(2, int(np.floor(self._selection_ratio * big_m + 1e-9)))
        return big_m, m

    def _m_corr_for(self, n: int) -> int:
        _, m = self._sizes(n)
        return min(self._m_corr or DEFAULT_M_CORR, m)

    def _study_seed(self, study: Study) -> int:
        """The study's seed: stored by the first worker, read (once per process) by the others."""
        key = (id(study._storage), study._study_id)
        if key not in self._seeds:
            attrs = study._storage.get_study_system_attrs(study._study_id)
            if SEED_KEY not in attrs:
                study._storage.set_study_system_attr(study._study_id, SEED_KEY, self._seed)
                attrs = study._storage.get_study_system_attrs(study._study_id)  # a racing worker may have won
            self._seeds[key] = int(attrs[SEED_KEY])
        return self._seeds[key]

    def _refresh(self, study: Study) -> _StudyCache:
        """Bring the study's cache up to date with one read of the storage.

        Finished trials never change, so each is summarized once: its value (minimization
        sign), completion time and generation, and for a COMPLETE one its params, which also
        narrow the search space (the intersection of the COMPLETE trials' distributions, as
        Optuna's ``IntersectionSearchSpace`` computes it, without its deep copy per call).
        """
        cache = self._studies.setdefault((id(study._storage), study._study_id), _StudyCache())
        sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0
        for t in study._get_trials(deepcopy=False, states=_FINISHED, use_cache=True):
            if t.number in cache.infos:
                continue
            value = None if t.state != TrialState.COMPLETE or t.value is None else sign * float(t.value)
            completed = t.datetime_complete.timestamp() if t.datetime_complete else math.inf
            info = _Finished(t.number, int(t.system_attrs.get(GENERATION_KEY, 0)), t.state, completed, value)
            cache.infos[t.number] = info
            cache.by_generation.setdefault(info.generation, []).append((completed, t.number))
            if t.state == TrialState.COMPLETE:
                cache.params[t.number] = t.params
                if not cache.seen_complete:
                    cache.space, cache.seen_complete = dict(t.distributions), True
                    cache.relative = None
                else:
                    narrowed = {k: d for k, d in cache.space.items() if t.distributions.get(k) == d}
                    if len(narrowed) != len(cache.space):
                        cache.space, cache.relative = narrowed, None
        return cache

    def _closes(self, cache: _StudyCache, n: int) -> list[float]:
        """``t_0, t_1, ...``: when each closed generation received its K-th finished trial.

        A closed generation keeps its time (its later trials finish later), so only the open
        generation is looked at again.
        """
        big_m, _ = self._sizes(n)
        closes = cache.closes.setdefault(big_m, [])
        while True:
            g = len(closes)
            need = big_m if g == 0 else big_m - 1
            done = cache.by_generation.get(g, [])
            if len(done) < need:
                return list(closes)
            closes.append(sorted(done)[need - 1][0])

    def _generation_of(self, study: Study, trial: FrozenTrial, closes: list[float]) -> int:
        if GENERATION_KEY in trial.system_attrs:
            return int(trial.system_attrs[GENERATION_KEY])
        generation = len(closes)
        study._storage.set_trial_system_attr(trial._trial_id, GENERATION_KEY, generation)
        return generation

    def _selected(self, cache: _StudyCache, closes: list[float], h: int, numeric: dict[str, BaseDistribution],
                  transform: _SearchSpaceTransform, m: int) -> np.ndarray | None:  # fmt: skip
        """The selected rows (transformed) for generation h's model, or None if they carry no
        spread: the COMPLETE trials finished in ``(t_{h-2}, t_{h-1}]`` in trial order, after the
        elite (the best COMPLETE trial finished by ``t_{h-2}``)."""
        t_prev = closes[h - 2] if h >= 2 else -math.inf
        t_close = closes[h - 1]

        def usable(i: _Finished) -> bool:
            return i.value is not None and all(k in cache.params[i.number] for k in numeric)

        def rank(i: _Finished) -> tuple[float, int]:
            return (i.value if math.isfinite(i.value) else math.inf, i.number)  # type: ignore[arg-type]

        members = sorted((i for i in cache.infos.values() if t_prev < i.completed <= t_close and usable(i)), key=lambda i: i.number)
        before = [i for i in cache.infos.values() if i.completed <= t_prev and usable(i)]
        if before:
            members.insert(0, min(before, key=rank))
        if not members:
            return None
        x = np.array([transform.transform({k: cache.params[i.number][k] for k in numeric}) for i in members])
        return truncation_selection(x, np.array([i.value for i in members], dtype=float), m)

    def _model(self, study: Study, cache: _StudyCache, closes: list[float], numeric: dict[str, BaseDistribution],
               transform: _SearchSpaceTransform, signature: tuple, generation: int, seed: int) -> Any:  # fmt: skip
        """Generation ``generation``'s model: a pure function of the finished trials and the seed (cached)."""
        n = len(numeric)
        generation = min(generation, len(closes))
        if generation == 0:
            return UniformModel(transform.bounds[:, 0].copy(), transform.bounds[:, 1].copy())
        key = (id(study._storage), study._study_id, signature, generation, tuple(closes[:generation]), seed)
        if key in self._models:
            self._models.move_to_end(key)
            return self._models[key]
        selected = self._selected(cache, closes, generation, numeric, transform, self._sizes(n)[1])
        if selected is None:  # fewer than two finite values: the model stays as it was
            model = self._model(study, cache, closes, numeric, transform, signature, generation - 1, seed)
        else:
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, generation)))
            model = fit_generation(selected, self._variant, theta=self._theta, c=self._c, m_corr=self._m_corr_for(n), rng=rng).model
        self._models[key] = model
        while len(self._models) > _CACHE_SIZE:
            self._models.popitem(last=False)
        return model
