"""What the Optuna sampler reads of a study: one cache per study of its finished trials.

Finished trials never change, so each is summarized once: its value (minimization sign;
None unless COMPLETE) and, for a COMPLETE one, its params, which also narrow the search space
(the intersection of the COMPLETE trials' distributions, as Optuna's
``IntersectionSearchSpace`` computes it, without its deep copy per call). From the cache come
the relative search space the model covers, the generations closed so far, the rows of a
block of trials, and the study's seed.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from optuna._transform import _SearchSpaceTransform
from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import TrialState

from edamcc import block_size, block_start, parse_bounds

SEED_KEY = "edamcc:seed"  # on the study: the seed every worker uses
_FINISHED = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)


def numeric_space(space: dict[str, BaseDistribution]) -> dict[str, BaseDistribution]:
    """The float and int parameters of ``space`` with more than one value, by name: what the model covers."""
    return {k: d for k, d in sorted(space.items()) if isinstance(d, (FloatDistribution, IntDistribution)) and not d.single()}


def box_transform(space: dict[str, BaseDistribution]) -> _SearchSpaceTransform:
    """The parameters' box: a log scale as its logarithm, a step as half a step beyond each end."""
    return _SearchSpaceTransform(space, transform_log=True, transform_step=True, transform_0_1=False)


def _refusal(bounds: np.ndarray) -> str | None:
    """Why the strategy refuses ``(low, high)`` as a variable's box (:func:`edamcc.parse_bounds`'s
    message), or None if it takes it."""
    try:
        parse_bounds([tuple(bounds)])
    except ValueError as exc:
        return str(exc)
    return None


@dataclass
class StudyCache:
    """What the sampler has read of one study (finished trials never change)."""

    values: dict[int, float | None] = field(default_factory=dict)  # number -> minimization value, None unless COMPLETE
    params: dict[int, dict[str, Any]] = field(default_factory=dict)  # COMPLETE trials only
    closed: dict[int, int] = field(default_factory=dict)  # population size -> generations closed
    space: dict[str, BaseDistribution] = field(default_factory=dict)
    seen_complete: bool = False
    seed: int | None = None
    # the relative search space as last returned, with its transform and cache key (built once per space)
    relative: dict[str, BaseDistribution] | None = None
    transform: _SearchSpaceTransform | None = None
    signature: tuple = ()
    warned_held: int = -1  # the last generation warned of as held open by unfinished trials
    token: int = field(default_factory=itertools.count().__next__)  # unique per cache: the model cache's key

    def refresh(self, study: Study, *, fresh: bool = False) -> StudyCache:
        """Bring the cache up to date with one read of the storage. Inside a trial Optuna's
        per-trial snapshot of the trials is current; outside one (``fresh``) it may be stale."""
        sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0
        for t in study._get_trials(deepcopy=False, states=_FINISHED, use_cache=not fresh):
            if t.number in self.values:
                continue
            complete = t.state == TrialState.COMPLETE and t.value is not None
            self.values[t.number] = sign * float(t.value) if complete else None  # type: ignore[arg-type]
            if complete:
                self.params[t.number] = t.params
                if not self.seen_complete:
                    self.space, self.seen_complete = dict(t.distributions), True
                    self.relative = None
                else:
                    narrowed = {k: d for k, d in self.space.items() if t.distributions.get(k) == d}
                    if len(narrowed) != len(self.space):
                        self.space, self.relative = narrowed, None
        return self

    def relative_space(self) -> dict[str, BaseDistribution]:
        """The modelled parameters of the current space, with their transform to a box (built
        once per space). A parameter whose width in the box fails the strategy's check
        (:func:`edamcc.parse_bounds`; a log-scale one's logarithm's) is left to independent sampling,
        with a warning naming it, as Optuna's samplers do with what they cannot model."""
        if self.relative is None:
            relative = numeric_space(self.space)
            refused = {name: _refusal(bounds) for name, bounds in zip(relative, box_transform(relative).bounds)} if relative else {}
            bad = [name for name, why in refused.items() if why is not None]
            if bad:
                warnings.warn(f"EDAMCCSampler: parameters {bad} span a range the model cannot hold (in the sampler's box, the "
                              f"logarithm's for a log scale; {bad[0]}: {refused[bad[0]]}): they are sampled independently; "
                              "rescale them to have them modelled", UserWarning, stacklevel=2)  # fmt: skip
                relative = {k: d for k, d in relative.items() if k not in bad}
            self.relative, self.transform = relative, box_transform(relative) if relative else None
            self.signature = tuple((k, repr(d)) for k, d in relative.items())
        return self.relative

    def count_closed(self, big_m: int) -> int:
        """Generations closed: the leading blocks whose every trial has finished (never shrinks)."""
        g = self.closed.get(big_m, 0)
        while all(t in self.values for t in range(block_start(g, big_m), block_start(g, big_m) + block_size(g, big_m))):
            g += 1
        self.closed[big_m] = g
        return g

    def held_open(self, big_m: int, generation: int) -> list[int]:
        """The trials of generation ``generation``'s block that have not finished."""
        start = block_start(generation, big_m)
        return [t for t in range(start, start + block_size(generation, big_m)) if t not in self.values]

    def usable(self, numeric: dict[str, BaseDistribution], numbers: range) -> list[int]:
        """The COMPLETE trials among ``numbers`` that set every parameter of the space."""
        return [t for t in numbers if self.values.get(t) is not None and all(k in self.params[t] for k in numeric)]

    def block_rows(self, space: tuple, numbers: range) -> tuple[np.ndarray, np.ndarray]:
        """Every trial of a block as the strategy's rows, in number order: a :meth:`usable` one with
        its value, any other (FAIL, PRUNED, or a parameter unset) with NaN, as the strategy's
        failed rows. A NaN row is never selected and weighs nothing, but it keeps its position
        (the first two are the mean-shift line's) and counts among the block's rows (the
        two-point rule's ranks); its row, the box's lower corner, is never read."""
        numeric, transform, _ = space
        x = np.repeat(transform.bounds[None, :, 0], len(numbers), axis=0)
        f = np.full(len(numbers), np.nan)
        usable = self.usable(numeric, numbers)
        if usable:
            at = np.array(usable) - numbers.start
            x[at], f[at] = self.rows(space, usable)
        return x, f

    def rows(self, space: tuple, numbers: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The trials ``numbers`` as rows of the box (``(k, n)``) and their minimization values."""
        numeric, transform, _ = space
        x = np.array([transform.transform({k: self.params[t][k] for k in numeric}) for t in numbers])
        return x.reshape(len(numbers), len(numeric)), np.array([self.values[t] for t in numbers], dtype=float)

    def study_seed(self, study: Study, own: int, *, final: bool, explicit: bool = False) -> int:
        """The study's seed: stored by the first worker that needs one (``own``, its sampler's),
        read by the others. Workers starting together may race to store it; the value is read
        again until the first generation has closed (by then every racing write has landed), and
        a value this call stored itself is kept only when a later call reads it back (a racing
        write may land after this call's read, also in a study whose generations closed before
        any seed was stored). ``explicit``: ``own`` was given by the user, who is warned, once,
        when the study's stored seed is another."""
        if self.seed is not None:
            return self.seed
        attrs = study._storage.get_study_system_attrs(study._study_id)
        wrote = SEED_KEY not in attrs
        if wrote:
            study._storage.set_study_system_attr(study._study_id, SEED_KEY, own)
            attrs = study._storage.get_study_system_attrs(study._study_id)
        seed = int(attrs[SEED_KEY])
        if final and not wrote:
            self.seed = seed
            if explicit and seed != own:
                warnings.warn(f"EDAMCCSampler: study {study.study_name!r} was seeded {seed} by the sampler that sampled it "
                              f"first; this sampler's seed={own} is not used for it (the stored seed wins, so that every "
                              "worker builds the same models)", UserWarning, stacklevel=4)  # fmt: skip
        return seed
