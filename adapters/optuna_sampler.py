"""EDA-MCC as an Optuna sampler: ``optuna.create_study(sampler=EDAMCCSampler())``.

>>> import optuna
>>> from edamcc.adapters.optuna_sampler import EDAMCCSampler
>>> study = optuna.create_study(sampler=EDAMCCSampler(seed=1))
>>> study.optimize(lambda t: sum(t.suggest_float(f"x{i}", -5, 5) ** 2 for i in range(20)), n_trials=300)

How generations work with any number of workers, threads or processes: the sampler keeps no
state that matters. Each generation's model is a pure function of the study's finished
trials, through the same rule as :class:`edamcc.EDAMCCStrategy` (:mod:`edamcc.generation`):

* trial numbers play the part of the strategy's row numbers: generation g is the fixed block
  of trial numbers :func:`edamcc.block_start` ``(g)`` onwards, M trials for generation 0 and
  M - 1 after. Membership is a function of trial numbers only: no worker's timing changes it;
* generation g closes when every trial of its block is finished (COMPLETE, FAIL or PRUNED);
  the model of generation g + 1 is fitted on the elite (not for the variants with a step size,
  ``Variant.uses_step_size``, such as the default ``edamcc-sep-cc``, which fit the block
  alone) and the block's COMPLETE trials (:func:`edamcc.close_generation`). FAIL and PRUNED trials
  keep their place in the block as the strategy's failed (NaN) rows: never selected, but
  counted. A trial that never finishes (a killed process) holds its generation open: use Optuna's
  heartbeat (``heartbeat_interval`` on the storage) so that such trials are marked FAIL, and
  ``study.tell(number, state=TrialState.FAIL)`` for one left RUNNING by a run without a heartbeat;
* a trial is drawn from the model of its own generation when every earlier generation has
  closed, else from the newest model whose generations have (so no worker ever waits), and
  records which one in its system attributes. With those three the first
  two trials of a generation's block are its mean-shift points (:class:`edamcc.models.LineSamples`)
  when drawn from their own generation's model (``edamcc-tpa``'s step size reads their values);
* the study's seed (stored once in the study's system attributes) seeds each generation's
  fit and, with the trial number, each trial's draw (with the parameter's name, also the
  default draw of a categorical parameter): workers never propose the same point, and any
  worker, in any process, with any storage, builds the same model for a generation.

Models are cached in memory per generation (thread-safe). Nothing O(n^2) and nothing pickled
is written to the storage.
"""

from __future__ import annotations

import numbers
import threading
import warnings
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import optuna  # noqa: F401 (the install hint below when it is missing)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "edamcc.adapters.optuna_sampler needs optuna: pip install optuna (or, from a clone of edamcc, "
        "pip install '.[optuna]'; from the package index, pip install 'edamcc[optuna]')"
    ) from exc
from optuna._transform import _SearchSpaceTransform
from optuna.distributions import BaseDistribution, IntDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from edamcc import (
    DEFAULT_VARIANT,
    PAIR_COUNTS_AUTO_LIMIT,
    ClosedGeneration,
    Settings,
    StructureRecord,
    UniformModel,
    Variant,
    block_of,
    block_start,
    check_budget,
    check_seed,
    close_generation,
    repair,
    start_adaptation,
)

from .optuna_study import SEED_KEY, StudyCache, box_transform, numeric_space  # noqa: F401 (SEED_KEY: named here too)

GENERATION_KEY = "edamcc:generation"  # on a trial: the generation whose model drew it
_CACHE_SIZE = 16
# A trial drawn this many generations behind its own block warns, once per generation held open:
# slow trials hold a few (README: up to 16 with nearly free trials), a lost one holds it forever.
STALE_GENERATIONS = 50


class EDAMCCSampler(BaseSampler):
    """EDA-MCC over the float and int parameters of a study (relative sampling).

    Args:
        population_size, selection_ratio, m_corr, theta, c, variant, repair, partition: as in
            :class:`edamcc.Settings` (``repair="none"`` is refused: an Optuna box is bounded).
        budget: the number of trials you plan (optional): with ``population_size=None`` the
            population of the paper's variants and of ``edamcc-adaptive`` follows it through
            :func:`edamcc.default_population_size`; the default variant's does not.
        seed: seeds the study (stored by the first sampler that samples it; the stored one wins,
            and a sampler whose ``seed`` it is not warns once).
        independent_sampler: for categorical parameters and parameters outside the relative
            search space; default: :class:`optuna.samplers.RandomSampler`'s draw seeded by the
            study's seed, the trial's number and the parameter's name (a function of the study).

    Float, int, log-scale and stepped parameters are mapped to a continuous box (logarithm for
    log scale, half a step beyond each end for stepped ones) and back, so values are plain
    Python ``float``/``int`` inside the distribution and on its step grid. Maximization flips
    the sign. Multi-objective studies raise ``ValueError``.
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
        budget: int | None = None,
        seed: int | None = None,
        independent_sampler: BaseSampler | None = None,
    ) -> None:
        self._settings = Settings(population_size, selection_ratio, m_corr, theta, c, variant, repair, partition)
        if population_size is not None:  # m and m_corr against M now, not at the first modelled trial
            self._settings.sizes(population_size)
        if repair == "none":
            raise ValueError("repair: expected 'clip' or 'reflect' (an Optuna box is always bounded); got 'none'")
        if self._settings.variant.population_adaptation:  # blocks are fixed by trial numbers and one M
            raise ValueError(f"variant: {self._settings.variant.name!r} changes its population within a run, which the sampler's fixed blocks of trial numbers cannot follow; expected a variant with a fixed population")  # fmt: skip
        if seed is not None:  # the package's seed check, for the integers a study can store
            try:
                checked = check_seed(seed)
            except ValueError:
                checked = None
            if not isinstance(checked, int) or checked >= 2**32:  # a 32-bit seed, as Optuna's samplers take
                raise ValueError(f"seed: expected an integer in [0, 2**32) or None (it is stored in the study); got {seed!r}")
            seed = checked
        self._budget = check_budget(budget)
        self._seed = seed  # None: each study this sampler seeds first gets a fresh seed (_study_seed)
        if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
            raise TypeError(f"independent_sampler: expected an Optuna sampler (a BaseSampler) or None; got {independent_sampler!r}")
        self._independent_sampler = independent_sampler  # None: a draw per trial and parameter (_independent)
        self._start_caches()

    def _start_caches(self) -> None:
        """The lock and what the sampler has read and built: derived from the studies' trials,
        so a pickled sampler (or a pickled study holding it) starts them afresh."""
        self._lock = threading.RLock()
        # storage -> study id -> what we know; held weakly, so a study dropped with its storage
        # is forgotten and a new storage is never taken for it
        self._studies: weakref.WeakKeyDictionary[Any, dict[int, StudyCache]] = weakref.WeakKeyDictionary()
        self._models: OrderedDict[Any, tuple[Any, ClosedGeneration | None, Any]] = OrderedDict()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_lock", "_studies", "_models"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._start_caches()

    # ------------------------------------------------------------------ BaseSampler API
    def reseed_rng(self) -> None:
        """Reseed a given independent sampler. The study's seed is kept: every worker, thread or
        process must keep building the same models (and drawing the same default independent values)."""
        if self._independent_sampler is not None:
            self._independent_sampler.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        self._check_single_objective(study)
        with self._lock:  # a copy: a caller may change it (PartialFixedSampler drops its fixed parameters)
            return dict(self._refresh(study).relative_space())

    def sample_relative(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        self._check_single_objective(study)
        if not search_space:
            return {}
        numeric = numeric_space(search_space)
        params: dict[str, Any] = {}
        for name, dist in search_space.items():  # categorical or fixed: not ours
            if name not in numeric:
                params[name] = self._independent(study, trial, name, dist)
        if not numeric:
            return params
        with self._lock:
            cache = self._refresh(study)
            space = self._space(cache, numeric)
            big_m = self._population_size(len(numeric))
            generation = min(block_of(trial.number, big_m), cache.count_closed(big_m))
            seed = self._study_seed(study, cache, final=generation > 0)
            model, _ = self._model(cache, space, big_m, generation, seed)
            lag = block_of(trial.number, big_m) - generation
            held = cache.held_open(big_m, generation) if lag >= STALE_GENERATIONS and cache.warned_held != generation else None
            if held:
                cache.warned_held = generation
                warnings.warn(f"EDAMCCSampler: trial {trial.number} is drawn from the model of generation {generation}, {lag} "
                              f"generations behind its own, because trials {held} of that generation's block have not finished. "
                              "A slow trial closes it when it finishes; one whose process died stays RUNNING unless the storage "
                              "has a heartbeat: fail that one with study.tell(number, state=TrialState.FAIL)", UserWarning, stacklevel=2)  # fmt: skip
        study._storage.set_trial_system_attr(trial._trial_id, GENERATION_KEY, generation)
        transform = space[1]
        lower, upper = transform.bounds[:, 0], transform.bounds[:, 1]
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, trial.number)))
        own = block_of(trial.number, big_m) == generation  # a trial of the model's own generation, not a later one
        x = model.sample(rng, 1, trial.number - block_start(generation, big_m) if own else None)
        repair(x, lower, upper, self._settings.repair)
        for name, value in transform.untransform(x[0]).items():
            dist = numeric[name]
            params[name] = int(value) if isinstance(dist, IntDistribution) else float(value)
        return params

    def sample_independent(self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution) -> Any:
        self._check_single_objective(study)
        return self._independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        if self._independent_sampler is not None:
            self._independent_sampler.before_trial(study, trial)

    def after_trial(self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None) -> None:
        if self._independent_sampler is not None:
            self._independent_sampler.after_trial(study, trial, state, values)

    def _independent(self, study: Study, trial: FrozenTrial, name: str, dist: BaseDistribution) -> Any:
        """The given independent sampler's draw or, by default, RandomSampler's seeded by the
        study's seed, the trial's number and the parameter's name (not a per-process stream)."""
        if self._independent_sampler is not None:
            return self._independent_sampler.sample_independent(study, trial, name, dist)
        with self._lock:  # the seed is kept once a trial has finished (by then every racing write has landed)
            cache = self._cache(study)
            if cache.seed is None:  # kept: no read of the trials per draw
                self._refresh(study)
            seed = self._study_seed(study, cache, final=bool(cache.values))
        key = np.random.SeedSequence(seed, spawn_key=(2, trial.number, zlib.crc32(name.encode()))).generate_state(1)[0]
        return RandomSampler(seed=int(key)).sample_independent(study, trial, name, dist)

    # ------------------------------------------------------------------ what the study has learned
    def closed_generations(self, study: Study) -> int:
        """How many generations of ``study`` have closed (every trial of their block finished)."""
        numeric = self.infer_relative_search_space(study, None)  # type: ignore[arg-type]
        with self._lock:
            return self._refresh(study, fresh=True).count_closed(self._population_size(len(numeric))) if numeric else 0

    def closed_generation(self, study: Study, generation: int) -> tuple[Any, ClosedGeneration | None]:
        """``(model, closed)`` of ``generation`` (>= 1, at most :meth:`closed_generations`):
        the model its trials are drawn from, and what closing the previous generation decided
        (selection, elite, WI and SM), or None where it kept the model before it."""
        numeric = self.infer_relative_search_space(study, None)  # type: ignore[arg-type]
        with self._lock:
            cache = self._refresh(study, fresh=True)
            big_m = self._population_size(len(numeric))
            integer = isinstance(generation, numbers.Integral) and not isinstance(generation, bool)  # True is not 1
            if not integer or not 1 <= generation <= cache.count_closed(big_m):
                raise ValueError(f"generation: expected an integer, 1 <= generation <= {cache.count_closed(big_m)} (closed so far); got {generation!r}")
            space = self._space(cache, numeric)
            return self._model(cache, space, big_m, generation, self._study_seed(study, cache, final=True))

    def structure(self, study: Study, *, pairs: bool | None = None) -> StructureRecord:
        """The learned structure (#strong per generation, Q, pair counts) of ``study``'s run so far.

        Rebuilt from the trials: each closed generation's WI is redone exactly as when its
        model was fitted. ``pairs`` defaults to ``n <= 2000``.
        """
        numeric = self.infer_relative_search_space(study, None)  # type: ignore[arg-type]
        n = len(numeric)
        if pairs is not None and not isinstance(pairs, (bool, np.bool_)):  # as record_pairs: not read by its truth value
            raise TypeError(f"pairs: expected True, False or None; got {pairs!r}")
        record = StructureRecord(n, pairs=(n <= PAIR_COUNTS_AUTO_LIMIT) if pairs is None else bool(pairs))
        if not n or not self._settings.variant.identify_weak:
            return record
        with self._lock:
            cache = self._refresh(study, fresh=True)
            space = self._space(cache, numeric)
            big_m = self._population_size(n)
            seed = self._study_seed(study, cache, final=True)
            sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0  # the best in the study's own terms
            best = np.inf  # of the minimization values of the trials before block h
            for h in range(1, cache.count_closed(big_m) + 1):
                block = [cache.values[t] for t in range(block_start(h - 1, big_m), block_start(h, big_m))]
                best = min([best, *(v for v in block if v is not None)])
                before = self._entry(cache, space, big_m, h - 1, seed) if self._settings.variant.adaptive else None
                closed = self._close(cache, space, big_m, h, seed, pair_counts=record.pair_counts, before=before)
                if closed is not None and closed.fitted is not None and closed.fitted.weak is not None:
                    fitted = closed.fitted
                    record.add(h - 1, block_start(h, big_m), ~fitted.weak, rows=fitted.wi_rows, theta=fitted.theta, best_f=sign * best)
        return record

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _check_single_objective(study: Study) -> None:
        if len(study.directions) > 1:
            raise ValueError("EDAMCCSampler supports single-objective studies only; this study has "
                             f"{len(study.directions)} objectives")  # fmt: skip

    def _population_size(self, n: int) -> int:
        return self._settings.resolve(n, self._budget).population_size

    def _cache(self, study: Study) -> StudyCache:
        return self._studies.setdefault(study._storage, {}).setdefault(study._study_id, StudyCache())

    def _refresh(self, study: Study, *, fresh: bool = False) -> StudyCache:
        return self._cache(study).refresh(study, fresh=fresh)

    def _study_seed(self, study: Study, cache: StudyCache, *, final: bool) -> int:
        own = int(np.random.SeedSequence().entropy % 2**63) if self._seed is None else self._seed  # stored only if the study has none
        return cache.study_seed(study, own, final=final, explicit=self._seed is not None)

    def _space(self, cache: StudyCache, numeric: dict[str, BaseDistribution]) -> tuple[dict[str, BaseDistribution], _SearchSpaceTransform, tuple]:
        if numeric == cache.relative and cache.transform is not None:  # the usual case: reuse
            return cache.relative, cache.transform, cache.signature
        transform = box_transform(numeric)
        return numeric, transform, tuple((k, repr(d)) for k, d in numeric.items())

    def _close(self, cache: StudyCache, space: tuple, big_m: int, h: int, seed: int, pair_counts: Any = None,
               before: tuple[Any, ClosedGeneration | None, Any] | None = None) -> ClosedGeneration:  # fmt: skip
        """Close generation h - 1 (its block and the elite of the blocks before), as the strategy
        does; ``before`` is generation h - 1's cache entry (needed by the self-adaptive variant)."""
        start, stop = block_start(h - 1, big_m), block_start(h, big_m)
        earlier = [t for t in cache.usable(space[0], range(start)) if np.isfinite(cache.values[t])]
        elite_x, elite_f = None, np.inf
        if earlier:  # the elite: the best earlier trial, the lowest number among ties
            best = min(earlier, key=lambda t: (cache.values[t], t))
            x_best, f_best = cache.rows(space, [best])
            elite_x, elite_f = x_best[0], float(f_best[0])
        rows, values = cache.block_rows(space, range(start, stop))
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, h)))
        rules = self._settings.resolve(len(space[0]), self._budget)
        adaptation = fit_before = None
        if rules.variant.adaptive and before is not None:  # variance scaling replayed from the trials
            _, closed_before, fit_before = before
            adaptation = start_adaptation(rules.variant) if closed_before is None else closed_before.adaptation
        return close_generation(elite_x, elite_f, rows, values, rules, rng, pair_counts=pair_counts,
                                adaptation=adaptation, fit_before=fit_before)  # fmt: skip

    def _model(self, cache: StudyCache, space: tuple, big_m: int, generation: int, seed: int) -> tuple[Any, ClosedGeneration | None]:
        """Generation ``generation``'s model (a pure function of the finished trials and the seed, cached)."""
        model, closed, _ = self._entry(cache, space, big_m, generation, seed)
        return model, closed

    def _entry(self, cache: StudyCache, space: tuple, big_m: int, generation: int, seed: int) -> tuple[Any, ClosedGeneration | None, Any]:
        """``(model, closed, fit)`` of a generation: built forward from the newest one cached."""
        _, transform, signature = space
        uniform = UniformModel(transform.bounds[:, 0].copy(), transform.bounds[:, 1].copy())
        entry: tuple[Any, ClosedGeneration | None, Any] = (uniform, None, uniform)
        start = 0
        for g in range(generation, 0, -1):
            key = (cache.token, signature, big_m, g, seed)
            if key in self._models:
                self._models.move_to_end(key)
                entry, start = self._models[key], g
                break
        for g in range(start + 1, generation + 1):
            closed = self._close(cache, space, big_m, g, seed, before=entry)
            model = closed.model if closed.model is not None else entry[0]  # too few finite values: kept
            fit = closed.fitted.model if closed.fitted is not None else entry[2]
            entry = (model, closed, fit)
            self._models[(cache.token, signature, big_m, g, seed)] = entry
            while len(self._models) > _CACHE_SIZE:
                self._models.popitem(last=False)
        return entry
