"""EDAMCCStrategy: a stateful, seeded ask/tell engine for EDA-MCC and its model family.

One generation is ``fig:EDA-MCC flow``:

1. select the best m = tau * M individuals (truncation selection);
2. draw m_corr of them without replacement and compute their correlations (WI input);
3. build the model of eq. ``eq:EDA-MCC Density``: WI, then SM;
4. sample M - 1 new individuals (each g_i and h_k independently), repair them into the box;
5. the new population is those plus the single best individual (elitism).

The first generation is M uniform points in the box. The whole next generation is sampled
when the current one closes, so the order and grouping of ``tell`` calls never changes the
trajectory; only the seed does.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .bounds import REPAIR_METHODS, parse_bounds, repair
from .fitting import FittedGeneration, fit_generation, truncation_selection
from .models import UniformModel
from .record import PAIR_COUNTS_AUTO_LIMIT, StructureRecord
from .structure import Partition
from .variants import Variant, get_variant

# "Parameters of EDA-MCC" and "Common Parameter Settings" paragraphs of the paper.
DEFAULT_POPULATION_SIZE = 200  # M, the smallest of the paper's four sizes (200/500/1000/2000)
DEFAULT_SELECTION_RATIO = 0.5  # tau: "all algorithms use tau = 0.5"
DEFAULT_M_CORR = 100  # m_corr = 100 "through all experiments"
DEFAULT_THETA = 0.3  # theta = 0.3, "a popular threshold to define weakly correlated"
DEFAULT_C = 20  # c = 20 at 50D/100D; the paper uses c = 100 at 500D


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class _RowIndex:
    """Find rows of a fixed table by exact value, vectorized (a sorted view of the rows' bytes)."""

    def __init__(self, rows: NDArray[np.float64]) -> None:
        keys = self.keys(rows)
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]

    @staticmethod
    def keys(rows: NDArray[np.float64]) -> NDArray[np.void]:
        rows = np.ascontiguousarray(rows, dtype=np.float64)
        return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()

    def candidates(self, rows: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """For each row, the range ``[lo, hi)`` of ``order`` holding the equal table rows."""
        if self.sorted.size == 0:
            zero = np.zeros(rows.shape[0], dtype=np.intp)
            return zero, zero
        keys = self.keys(rows)
        return np.searchsorted(self.sorted, keys, "left"), np.searchsorted(self.sorted, keys, "right")


class EDAMCCStrategy:
    """EDA-MCC (Dong, Chen, Tino, Yao) as a seeded ask/tell strategy.

    Example:
        >>> import numpy as np
        >>> from edamcc import EDAMCCStrategy
        >>> es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * 10, population_size=50, seed=1)
        >>> while es.generation < 20:
        ...     x = es.ask()                       # (k, n), a fresh array
        ...     es.tell(x, np.sum(x**2, axis=1))   # any subset, any order, several calls
        >>> bool(es.best_f < 1.0)
        True

    Args:
        bounds: the search box (required; the first generation is uniform in it): a sequence
            of ``(low, high)`` pairs, a :class:`scipy.optimize.Bounds`, or a ``(low, high)``
            pair of scalars together with ``dimension``.
        dimension: number of variables, needed only with scalar bounds.
        population_size: M (paper default 200; it also uses 500, 1000, 2000).
        selection_ratio: tau in (0, 1]; m = floor(tau * M) individuals are selected (paper 0.5).
        m_corr: rows used for WI's correlations, 2 <= m_corr <= m. Default ``min(100, m)``
            (the paper uses 100 throughout).
        theta: WI threshold in [0, 1] (paper 0.3).
        c: subspace capacity, the largest group size, >= 1 (paper 20 at 50/100D, 100 at 500D).
        variant: an algorithm of :data:`edamcc.VARIANTS` (default ``"edamcc"``).
        repair: ``"clip"`` (default) or ``"reflect"`` for samples outside the box, or
            ``"none"``: the box only defines the uniform first generation (unbounded spaces).
        seed: an int, a :class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator`
            (used as is, not copied) or ``None``.
        max_evaluations: optional budget; :meth:`ask` never hands out more candidates than it
            leaves, and :meth:`should_stop` turns true when it is spent.
        target: optional value; :meth:`should_stop` turns true once ``best_f <= target``.
        record_structure: keep the per-generation structure record (:attr:`structure`).
        record_pairs: count dependent pairs in an ``(n, n)`` array; ``"auto"`` means
            ``n <= 2000``.
        record_every: keep a column of Q every this many generations (the #strong curve
            is always kept whole).
    """

    def __init__(
        self,
        *,
        bounds: Any,
        dimension: int | None = None,
        population_size: int = DEFAULT_POPULATION_SIZE,
        selection_ratio: float = DEFAULT_SELECTION_RATIO,
        m_corr: int | None = None,
        theta: float = DEFAULT_THETA,
        c: int = DEFAULT_C,
        variant: str | Variant = "edamcc",
        repair: str = "clip",
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
        max_evaluations: int | None = None,
        target: float | None = None,
        record_structure: bool = True,
        record_pairs: bool | str = "auto",
        record_every: int = 1,
    ) -> None:
        self._lower, self._upper = parse_bounds(bounds, dimension)
        n = self._lower.size
        if not _is_int(population_size) or population_size < 3:
            raise ValueError(f"population_size: expected an integer >= 3; got {population_size!r}")
        if isinstance(selection_ratio, bool) or not isinstance(selection_ratio, numbers.Real) or not 0.0 < selection_ratio <= 1.0:
            raise ValueError(f"selection_ratio: expected a number in (0, 1]; got {selection_ratio!r}")
        m = int(np.floor(selection_ratio * population_size + 1e-9))
        if m < 2:
            raise ValueError(
                f"selection_ratio: floor(selection_ratio * population_size) = {m} selected individuals; "
                "at least 2 are needed to estimate a variance"
            )
        if m_corr is None:
            m_corr = min(DEFAULT_M_CORR, m)
        elif not _is_int(m_corr) or not 2 <= m_corr <= m:
            raise ValueError(f"m_corr: expected an integer in [2, m={m}] (m = floor(tau * M)); got {m_corr!r}")
        if isinstance(theta, bool) or not isinstance(theta, numbers.Real) or not 0.0 <= theta <= 1.0:
            raise ValueError(f"theta: expected a number in [0, 1]; got {theta!r}")
        variant = get_variant(variant)
        min_c = 2 if variant.grouping == "greedy" else 1
        if not _is_int(c) or c < min_c:
            raise ValueError(f"c: expected an integer >= {min_c} for variant {variant.name!r}; got {c!r}")
        if repair not in REPAIR_METHODS:
            raise ValueError(f"repair: expected one of {REPAIR_METHODS}; got {repair!r}")
        if max_evaluations is not None and (not _is_int(max_evaluations) or max_evaluations < 1):
            raise ValueError(f"max_evaluations: expected a positive integer or None; got {max_evaluations!r}")
        if target is not None and (isinstance(target, bool) or not isinstance(target, numbers.Real) or np.isnan(target)):
            raise ValueError(f"target: expected a number or None; got {target!r}")
        if record_pairs == "auto":
            record_pairs = n <= PAIR_COUNTS_AUTO_LIMIT
        elif not isinstance(record_pairs, bool):
            raise ValueError(f"record_pairs: expected True, False or 'auto'; got {record_pairs!r}")

        self._n = n
        self._M = int(population_size)
        self._tau = float(selection_ratio)
        self._m = m
        self._m_corr = int(m_corr)
        self._theta = float(theta)
        self._c = int(c)
        self._variant = variant
        self._repair = repair
        self._max_evaluations = None if max_evaluations is None else int(max_evaluations)
        self._target = None if target is None else float(target)
        self._rng = np.random.default_rng(seed)
        self._record = (
            StructureRecord(n, every=record_every, pairs=bool(record_pairs) and variant.identify_weak)
            if record_structure
            else None
        )
        if not record_structure and (not _is_int(record_every) or record_every < 1):
            raise ValueError(f"record_every: expected a positive integer; got {record_every!r}")

        self._generation = 0
        self._nfev = 0
        self._elite_x: NDArray[np.float64] | None = None
        self._elite_f = np.inf
        self._pop_elite: tuple[NDArray[np.float64], float] | None = None  # the elite in the population
        self._weak_mask: NDArray[np.bool_] | None = None
        self._partition: Partition = []
        self._model: Any = UniformModel(self._lower, self._upper)
        # Extra candidates (ask_extra): asked rows outside the generation, and told ones
        # waiting to join the next selection.
        self._extra_x = np.empty((0, n))
        self._extra_index = _RowIndex(self._extra_x)
        self._extra_pool_x: list[NDArray[np.float64]] = []
        self._extra_pool_f: list[NDArray[np.float64]] = []
        self._start_generation(self._model.sample(self._rng, self._M))

    # ------------------------------------------------------------------ read-only state
    @property
    def dimension(self) -> int:
        return self._n

    @property
    def population_size(self) -> int:
        """M: the elite plus M - 1 new candidates per generation (M candidates in the first)."""
        return self._M

    @property
    def n_selected(self) -> int:
        """m = floor(tau * M)."""
        return self._m

    @property
    def m_corr(self) -> int:
        return self._m_corr

    @property
    def theta(self) -> float:
        return self._theta

    @property
    def c(self) -> int:
        return self._c

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return self._lower.copy(), self._upper.copy()

    @property
    def max_evaluations(self) -> int | None:
        """The evaluation budget, or None."""
        return self._max_evaluations

    @property
    def generation(self) -> int:
        """Index of the current (open) generation; 0 is the uniform one."""
        return self._generation

    @property
    def evaluations(self) -> int:
        """Number of values told so far, non-finite ones included."""
        return self._nfev

    @property
    def best_x(self) -> NDArray[np.float64] | None:
        """The best point told so far with a finite value (a copy), or None."""
        return None if self._elite_x is None else self._elite_x.copy()

    @property
    def best_f(self) -> float:
        """The best finite value told so far (``inf`` before any)."""
        return float(self._elite_f)

    @property
    def weak_mask(self) -> NDArray[np.bool_] | None:
        """The current W as a boolean mask (True = weak), or None before the first model."""
        return None if self._weak_mask is None else self._weak_mask.copy()

    @property
    def strong_variables(self) -> NDArray[np.intp] | None:
        """Indices of the current strong set S, or None before the first model."""
        return None if self._weak_mask is None else np.flatnonzero(~self._weak_mask)

    @property
    def groups(self) -> list[NDArray[np.intp]]:
        """The current multivariate groups (SM's subsets of S), as 1-D index arrays."""
        return [row.copy() for stack in self._partition for row in stack]

    @property
    def model(self) -> Any:
        """The model the current generation was sampled from (read it, do not change it)."""
        return self._model

    @property
    def structure(self) -> StructureRecord | None:
        """The structure record (#strong, Q, pair counts), or None if switched off."""
        return self._record

    @property
    def n_outstanding(self) -> int:
        """Candidates of the current generation not yet handed out by :meth:`ask`."""
        return int(self._candidates.shape[0] - self._handed)

    def pending(self) -> NDArray[np.float64]:
        """Candidates of the current generation handed out but not yet told (a fresh array).

        Use it to re-issue work lost with a crashed worker.
        """
        asked = np.arange(self._handed)
        return self._candidates[asked[~self._told[: self._handed]]].copy()

    # ------------------------------------------------------------------ ask / tell
    def ask(self, k: int | None = None) -> NDArray[np.float64]:
        """Hand out candidates of the current generation that were not handed out before.

        Returns a fresh ``(k', n)`` array: all remaining candidates (``k=None``) or at most
        ``k`` of them, and never more than the evaluation budget has left. An empty
        ``(0, n)`` array means every candidate is out and the generation waits for tells.
        """
        remaining = self.n_outstanding
        if k is not None:
            if not _is_int(k) or k < 0:
                raise ValueError(f"k: expected a non-negative integer or None; got {k!r}")
            remaining = min(remaining, int(k))
        if self._max_evaluations is not None:
            in_flight = self._handed - int(self._told.sum()) + self._extra_x.shape[0]
            remaining = max(0, min(remaining, self._max_evaluations - self._nfev - in_flight))
        out = self._candidates[self._handed : self._handed + remaining].copy()
        self._handed += remaining
        return out

    def ask_extra(self, k: int) -> NDArray[np.float64]:
        """Sample ``k`` candidates beyond the generation, from the current model.

        For steady-state use with more workers than outstanding candidates. Extra candidates
        are not needed to close a generation; each one told before or after joins the next
        selection (with the elite and the generation's candidates), and is never lost. Once
        extras are told, a generation also closes when it holds as many told values as it has
        candidates, so candidates lost with a dead worker cannot block it.
        """
        if not _is_int(k) or k < 0:
            raise ValueError(f"k: expected a non-negative integer; got {k!r}")
        x = self._model.sample(self._rng, int(k))
        repair(x, self._lower, self._upper, self._repair)
        self._extra_x = np.concatenate([self._extra_x, x])
        self._extra_index = _RowIndex(self._extra_x)
        return x.copy()

    def tell(self, x: ArrayLike, f: ArrayLike) -> None:
        """Report the values ``f`` (shape ``(k,)``) of asked rows ``x`` (shape ``(k, n)``).

        Any subset of asked rows, in any order, over several calls. A single point may be
        passed as ``(n,)`` with a scalar value. NaN and +-inf are accepted and rank worst;
        they never reach a mean or a covariance. The generation closes when every candidate
        has been told. A bad call raises ``ValueError`` and changes nothing.
        """
        xa, fa = self._as_batch(x, f)
        if xa.shape[0] == 0:
            return
        idx = self._locate(xa, self._candidates, self._cand_index, self._told)
        in_gen = idx >= 0
        unknown = np.flatnonzero(~in_gen)
        extra_idx = np.full(xa.shape[0], -1, dtype=np.intp)
        if unknown.size:
            extra_told = np.zeros(self._extra_x.shape[0], dtype=bool)
            extra_idx[unknown] = self._locate(xa[unknown], self._extra_x, self._extra_index, extra_told)
            missing = unknown[extra_idx[unknown] < 0]
            if missing.size:
                raise ValueError(
                    f"x: row {int(missing[0])} was never asked, or was already told (rows must be passed "
                    "back exactly as ask() returned them, as float64); "
                    f"{missing.size} such row(s) in this call"
                )
        gen_rows = idx[in_gen]
        if gen_rows.size:
            if np.any(gen_rows >= self._handed):
                raise ValueError("x: a row of this generation was not handed out by ask() yet")
            already = self._told[gen_rows]
            if already.any() or np.unique(gen_rows).size != gen_rows.size:
                _, first = np.unique(gen_rows, return_index=True)
                repeated = np.ones(gen_rows.size, dtype=bool)
                repeated[first] = False
                bad = int(np.flatnonzero(in_gen)[np.flatnonzero(already | repeated)[0]])
                raise ValueError(f"x: row {bad} was already told in this generation (a row is told once)")
        extra_rows = extra_idx[~in_gen]
        if extra_rows.size and np.unique(extra_rows).size != extra_rows.size:
            raise ValueError("x: the same extra candidate appears twice in this call (a row is told once)")

        # All checks passed: apply.
        self._nfev += xa.shape[0]
        self._fitness[gen_rows] = fa[in_gen]
        self._told[gen_rows] = True
        if extra_rows.size:
            self._extra_pool_x.append(self._extra_x[extra_rows])
            self._extra_pool_f.append(fa[~in_gen])
            keep = np.ones(self._extra_x.shape[0], dtype=bool)
            keep[extra_rows] = False
            self._extra_x = self._extra_x[keep]
            self._extra_index = _RowIndex(self._extra_x)
        self._update_elite(xa, fa)
        self._maybe_advance()

    def _maybe_advance(self) -> None:
        """Close the generation when every candidate is told, or, once extra or injected
        values are in play, when it holds a full generation's worth of told values: handed-out
        candidates never told (a dead worker) must not block it. Those stay valid: told later,
        they join a later selection like extras."""
        n_told = int(self._told.sum()) + sum(f.size for f in self._extra_pool_f)
        if self._told.all() or (self._extra_pool_f and n_told >= self._candidates.shape[0]):
            handed = np.arange(self._candidates.shape[0]) < self._handed
            late = self._candidates[handed & ~self._told]
            if late.size:
                self._extra_x = np.concatenate([self._extra_x, late])
                self._extra_index = _RowIndex(self._extra_x)
            self._advance()

    def inject(self, x: ArrayLike, f: ArrayLike) -> None:
        """Add evaluated points that were never asked (a user's guesses, another optimizer's).

        They count as evaluations, can become the elite, and join the next selection like
        extra candidates. ``x`` must be finite; it is not repaired. Injecting as many points as
        the open generation has candidates closes it: a warm start from the user's points.
        """
        xa, fa = self._as_batch(x, f)
        if not np.all(np.isfinite(xa)):
            raise ValueError("x: injected points must be finite")
        self._nfev += xa.shape[0]
        self._extra_pool_x.append(xa.copy())
        self._extra_pool_f.append(fa.copy())
        self._update_elite(xa, fa)
        self._maybe_advance()

    def should_stop(self) -> bool:
        """True when the budget is spent, the target is reached, or the model has collapsed."""
        return self.stop_reason is not None

    @property
    def stop_reason(self) -> str | None:
        """Why :meth:`should_stop` is true, or None."""
        if self._max_evaluations is not None and self._nfev >= self._max_evaluations:
            return f"budget of {self._max_evaluations} evaluations spent"
        if self._target is not None and self._elite_f <= self._target:
            return f"target {self._target} reached"
        if self._model.max_std == 0.0:
            return "the model has collapsed to a point (every standard deviation is 0)"
        return None

    # ------------------------------------------------------------------ internals
    def _as_batch(self, x: ArrayLike, f: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(k, n)`` rows and ``(k,)`` values from what the caller passed (copies as needed)."""
        xa = np.asarray(x, dtype=np.float64)
        fa = np.asarray(f, dtype=np.float64)
        if xa.ndim == 1:
            xa = xa.reshape(1, -1)
        if fa.ndim == 0:
            fa = fa.reshape(1)
        if xa.ndim != 2 or xa.shape[1] != self._n:
            raise ValueError(f"x: expected shape (k, {self._n}) or ({self._n},); got {np.shape(x)}")
        if fa.shape != (xa.shape[0],):
            raise ValueError(f"f: expected shape ({xa.shape[0]},), one value per row of x; got {np.shape(f)}")
        return xa, fa

    @staticmethod
    def _locate(
        rows: NDArray[np.float64], table: NDArray[np.float64], index: _RowIndex, told: NDArray[np.bool_]
    ) -> NDArray[np.intp]:
        """Index into ``table`` of each row (-1 if absent). Equal table rows are handed out
        untold-first, distinct within the call; they only exist once a model has collapsed."""
        lo, hi = index.candidates(rows)
        idx = np.full(rows.shape[0], -1, dtype=np.intp)
        single = hi - lo == 1
        idx[single] = index.order[lo[single]]
        multi = np.flatnonzero(hi - lo > 1)
        if multi.size:
            taken = told.copy()
            for j in multi:  # only identical rows get here
                run = index.order[lo[j] : hi[j]]
                free = run[~taken[run]]
                idx[j] = free[0] if free.size else run[0]
                taken[idx[j]] = True
        return idx

    def _update_elite(self, x: NDArray[np.float64], f: NDArray[np.float64]) -> None:
        finite = np.isfinite(f)
        if finite.any():
            best = int(np.flatnonzero(finite)[np.argmin(f[finite])])
            if f[best] < self._elite_f:
                self._elite_f = float(f[best])
                self._elite_x = x[best].copy()

    def _start_generation(self, candidates: NDArray[np.float64]) -> None:
        self._candidates = candidates
        self._cand_index = _RowIndex(candidates)
        self._fitness = np.full(candidates.shape[0], np.nan)
        self._told = np.zeros(candidates.shape[0], dtype=bool)
        self._handed = 0

    def _advance(self) -> None:
        """Close the generation: select, fit, sample the next one (``fig:EDA-MCC flow``)."""
        xs = [self._candidates, *self._extra_pool_x]
        fs = [self._fitness, *self._extra_pool_f]
        if self._pop_elite is not None:
            xs.insert(0, self._pop_elite[0][None, :])
            fs.insert(0, np.array([self._pop_elite[1]]))
        pop_x = np.concatenate(xs)
        pop_f = np.concatenate(fs)
        self._extra_pool_x, self._extra_pool_f = [], []
        finite = np.isfinite(pop_f)
        if finite.any():
            # The elite is the population's best by a stable ranking (the old elite first, then
            # by index), so that tied values never make the trajectory depend on tell order.
            best = int(np.argmin(np.where(finite, pop_f, np.inf)))
            self._elite_x, self._elite_f = pop_x[best].copy(), float(pop_f[best])
        selected = truncation_selection(pop_x, pop_f, self._m)
        if selected is not None:
            self._model = self._fit(selected)
        # else: fewer than two finite values carry no spread; the model stays as it was.
        self._pop_elite = None if self._elite_x is None else (self._elite_x, self._elite_f)
        self._generation += 1
        n_new = self._M - 1 if self._pop_elite is not None else self._M
        candidates = self._model.sample(self._rng, n_new)  # step 4
        repair(candidates, self._lower, self._upper, self._repair)
        self._start_generation(candidates)

    def _fit(self, selected: NDArray[np.float64]) -> Any:
        pairs = None if self._record is None else self._record.pair_counts
        fitted = fit_generation(
            selected, self._variant, theta=self._theta, c=self._c, m_corr=self._m_corr, rng=self._rng, pair_counts=pairs
        )
        if fitted.weak is not None and self._record is not None:
            self._record.add(self._generation, self._nfev, ~fitted.weak)
        self._weak_mask = fitted.weak if fitted.weak is not None else self._weak_mask_without_wi(fitted)
        self._partition = fitted.partition
        return fitted.model

    def _weak_mask_without_wi(self, fitted: FittedGeneration) -> NDArray[np.bool_]:
        """Variants without WI: univariate variables are 'weak', grouped or chained ones 'strong'."""
        weak = np.ones(self._n, dtype=bool)
        if self._variant.chain:
            weak[:] = False
        for stack in fitted.partition:
            weak[stack.ravel()] = False
        return weak

    def __repr__(self) -> str:
        return (
            f"EDAMCCStrategy(variant={self._variant.name!r}, dimension={self._n}, population_size={self._M}, "
            f"selection_ratio={self._tau}, m_corr={self._m_corr}, theta={self._theta}, c={self._c}, "
            f"generation={self._generation}, evaluations={self._nfev}, best_f={self._elite_f:.6g})"
        )
