"""EDAMCCStrategy: a stateful, seeded ask/tell engine for EDA-MCC and its model family.

One generation is the paper's Fig. 6:

1. select the best m = tau * M individuals of the elite and the generation (truncation);
2. draw m_corr of them without replacement and compute their correlations (WI input);
3. build the model of Eq. (8): WI, then SM, then the fit;
4. sample M - 1 new individuals (each g_i and h_k independently), repair them into the box;
   with the single best individual (elitism) they make the next generation.

The first generation is M uniform points in the box. Which rows make a generation, and what
closing one means, is the rule of :mod:`edamcc.generation`; the asked/told bookkeeping is
:mod:`edamcc.ledger`'s; the state that a restart begins afresh is a :class:`edamcc.run.Run`.
The whole next generation is sampled when the current one closes, so the order and grouping
of ``tell`` calls never change the trajectory; only the seed does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .bounds import parse_bounds, repair
from .checks import check_flag, is_int
from .generation import FittedGeneration
from .ledger import Ledger, as_batch
from .restarts import MAX_RESTARTS, next_population_size
from .run import Run
from .settings import DEFAULT_VARIANT, Settings, check_budget, check_seed, check_target
from .stopping import DIVERGED_REASON
from .structure_record import StructureRecord, check_every, check_pairs
from .variants import Variant


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
        population_size, selection_ratio, m_corr, theta, c, variant, repair, partition: the algorithm's parameters,
            defaults and checks as in :class:`edamcc.Settings` (default: the self-adaptive ``"edamcc-sep-cc"``; the
            paper's ``variant="edamcc"`` with M = 200, tau = 0.5, m_corr = 100, theta = 0.3, c = 20; samples outside
            the box are clipped; SM's groups are random, ``partition="learned"`` clusters them by |corr| instead).
            ``population_size=None`` follows the budget (:func:`edamcc.default_population_size`).
        seed: an int, a :class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator`
            (used as is, not copied) or ``None``.
        budget: optional number of evaluations; :meth:`ask` and :meth:`ask_extra` never hand
            out more candidates than it leaves, and :meth:`should_stop` turns true when it is spent.
        target: optional value; :meth:`should_stop` turns true once ``best_f <= target``.
        record_structure: keep the per-generation structure record (:attr:`structure`).
        record_pairs: count dependent pairs in an ``(n, n)`` array; ``"auto"`` means
            ``n <= 2000`` (``True`` for a variant without WI, or with ``record_structure=False``: ``ValueError``).
        record_every: keep a column of Q every this many WI calls, one per generation that
            fitted a model (the #strong curve is always kept whole); other than 1 only with a record.
    """

    # For a strategy pickled before these existed (a dumped optimizer): they start afresh at the next tell and close.
    _best_number = -1
    _closed_best = np.inf

    def __init__(
        self,
        *,
        bounds: Any,
        dimension: int | None = None,
        population_size: int | None = None,
        selection_ratio: float | None = None,
        m_corr: int | None = None,
        theta: float | str | None = Settings.theta,
        c: int | None = Settings.c,
        variant: str | Variant = DEFAULT_VARIANT,
        repair: str = Settings.repair, partition: str = Settings.partition,
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
        budget: int | None = None,
        target: float | None = None,
        record_structure: bool = True,
        record_pairs: bool | str = "auto",
        record_every: int = 1,
    ) -> None:
        self._lower, self._upper = parse_bounds(bounds, dimension)
        n = self._lower.size
        settings = Settings(population_size, selection_ratio, m_corr, theta, c, variant, repair, partition)
        self._budget = check_budget(budget)
        rules = settings.resolve(n, self._budget)
        self._target = check_target(target)
        seed = check_seed(seed)
        pairs_asked = isinstance(record_pairs, (bool, np.bool_)) and bool(record_pairs)  # True, not "auto"
        record_pairs = check_pairs(record_pairs, n, rules.variant)
        check_every(record_every)  # also when nothing is recorded
        record_structure = check_flag(record_structure, "record_structure")
        if not record_structure and (pairs_asked or record_every != 1):  # asked for, and nothing would be recorded
            raise ValueError(f"{'record_pairs' if pairs_asked else 'record_every'}: applies to the structure record, and "
                             "record_structure=False keeps none; leave it at its default or set record_structure=True")  # fmt: skip
        self._record = (
            StructureRecord(n, every=record_every, pairs=record_pairs)
            if record_structure
            else None
        )
        self._rng = np.random.default_rng(seed)
        self._ledger = Ledger(n, rules.population_size)
        self._run = Run(rules, self._lower, self._upper)  # the current run: rules, models, scale, population rule, elite, progress
        self._restarts: list[dict[str, Any]] = []
        self._generations_before = 0  # generations closed before the last restart or change of population
        self._stuck: str | None = None  # why the self-adaptive variant stops: restarts exhausted
        self._best_x: NDArray[np.float64] | None = None  # the best of everything told (ties: the row asked first)
        self._best_f = np.inf
        self._best_number = -1  # that row's number over the whole run (edamcc.ledger)
        self._closed_best = np.inf  # the best of the closed generations: what the stopping criteria read
        self._nfev = 0
        self._weak_mask: NDArray[np.bool_] | None = None
        self._partition: list[NDArray[np.intp]] = []
        self._ledger.fill(self._run.model.sample(self._rng, self._ledger.free_slots()))

    # ------------------------------------------------------------------ read-only state
    @property
    def settings(self) -> Settings:
        """The algorithm's parameters as given (``population_size`` None if it followed the budget)."""
        return self._run.rules.settings

    dimension = property(lambda self: int(self._lower.size), doc="n, the number of variables.")

    @property
    def population_size(self) -> int:
        """M: the elite plus M - 1 new candidates per generation (M candidates in the first); the current
        run's, which restarts (and ``population_adaptation``) change."""
        return self._run.rules.population_size

    @property
    def n_selected(self) -> int:
        """m = floor(tau * M)."""
        return self._run.rules.n_selected

    m_corr = property(lambda self: self._run.rules.m_corr, doc="Rows for WI's correlations.")
    theta = property(lambda self: self._run.rules.theta, doc="WI's threshold (a number, also for theta='auto').")
    c = property(lambda self: self._run.rules.c, doc="SM's subspace capacity.")
    variant = property(lambda self: self._run.rules.variant, doc="The algorithm (:class:`edamcc.Variant`).")

    @property
    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return self._lower.copy(), self._upper.copy()

    budget = property(lambda self: self._budget, doc="The evaluation budget, or None.")

    @property
    def generation(self) -> int:
        """Index of the current (open) generation, counted over restarts; 0 is the uniform one."""
        return self._generations_before + self._ledger.generation

    @property
    def restarts(self) -> list[dict[str, Any]]:
        """The restarts so far (self-adaptive variant): generation, evaluations, reason, new population."""
        return [dict(r) for r in self._restarts]

    @property
    def multiplier(self) -> float | None:
        """AMaLGaM's variance multiplier of ``edamcc-adaptive`` (None for the other variants)."""
        return None if self._run.adaptation is None else self._run.adaptation.multiplier

    @property
    def step_size(self) -> float | None:
        """The step size sigma of the ``scale="csa"`` variants, the default among them (None for the others and before its first fit)."""
        return getattr(self._run.adaptation, "sigma", None)

    @property
    def evaluations(self) -> int:
        """Number of values told so far, non-finite ones included."""
        return self._nfev

    @property
    def best_x(self) -> NDArray[np.float64] | None:
        """The best point told so far with a finite value (a copy), or None."""
        return None if self._best_x is None else self._best_x.copy()

    @property
    def best_f(self) -> float:
        """The best finite value told so far (``inf`` before any)."""
        return float(self._best_f)

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
        return self._run.model

    @property
    def structure(self) -> StructureRecord | None:
        """The structure record (#strong, Q, pair counts), or None if switched off."""
        return self._record

    @property
    def n_outstanding(self) -> int:
        """Candidates of the current generation not yet handed out by :meth:`ask`."""
        return self._ledger.n_new

    @property
    def n_in_flight(self) -> int:
        """Candidates handed out (by :meth:`ask` or :meth:`ask_extra`) and not told yet."""
        return self._ledger.n_out

    def pending(self) -> NDArray[np.float64]:
        """Candidates handed out, not yet told (a fresh array): a generation closes only when all
        its rows are told, so re-issue these or tell a lost one as NaN (it ranks worst)."""
        return self._ledger.pending()

    # ------------------------------------------------------------------ ask / tell
    def _budget_left(self) -> int | None:
        return None if self._budget is None else max(0, self._budget - self._nfev - self._ledger.n_out)

    def ask(self, k: int | None = None) -> NDArray[np.float64]:
        """Hand out candidates of the current generation that were not handed out before.

        Returns a fresh ``(k', n)`` array: all remaining candidates (``k=None``) or at most
        ``k`` of them, and never more than the evaluation budget has left. An empty
        ``(0, n)`` array means every candidate is out and the generation waits for tells.
        """
        count = self._ledger.n_new
        if k is not None:
            if not is_int(k) or k < 0:
                raise ValueError(f"k: expected a non-negative integer or None; got {k!r}")
            count = min(count, int(k))
        left = self._budget_left()
        if left is not None:
            count = min(count, left)
        return self._ledger.hand_out(count)

    def ask_extra(self, k: int) -> NDArray[np.float64]:
        """Sample ``k`` candidates beyond the generation's, from the current model.

        For steady-state use with more workers than outstanding candidates. Extra candidates
        take the next row numbers, so they belong to the next generation (or the one after)
        whenever their values arrive. Never more than the budget leaves: fewer rows, or none.
        """
        if not is_int(k) or k < 0:
            raise ValueError(f"k: expected a non-negative integer; got {k!r}")
        left = self._budget_left()
        k = int(k) if left is None else min(int(k), left)
        x = self._sample(k)
        self._ledger.add_extra(x)
        return x.copy()

    def tell(self, x: ArrayLike, f: ArrayLike) -> None:
        """Report the values ``f`` (shape ``(k,)``) of asked rows ``x`` (shape ``(k, n)``).

        Any subset of asked rows, in any order, over several calls. A single point may be
        passed as ``(n,)`` with a scalar value. NaN and +-inf are accepted and rank worst;
        they never reach a mean or a covariance. The generation closes when every candidate
        has been told. A bad call raises ``ValueError`` and changes nothing.
        """
        xa, fa = as_batch(x, f, self.dimension)
        if xa.shape[0] == 0:
            return
        numbers = self._ledger.tell(xa, fa)  # rows in flight across a restart: counted, not used
        self._nfev += xa.shape[0]
        self._note_best(xa, fa, numbers)
        self._close_ready_generations()

    def inject(self, x: ArrayLike, f: ArrayLike) -> None:
        """Add evaluated points that were never asked (a user's guesses, another optimizer's).

        They count as evaluations, can become the elite, and take the places of candidates not
        handed out yet (then the next row numbers). ``x`` must be finite; it is not repaired.
        Injecting as many points as the open generation has candidates closes it: a warm start
        from the user's points.
        """
        xa, fa = as_batch(x, f, self.dimension)
        if not np.all(np.isfinite(xa)):
            raise ValueError("x: injected points must be finite")
        numbers = self._ledger.inject(xa.copy(), fa.copy())
        self._nfev += xa.shape[0]
        self._note_best(xa, fa, numbers)
        self._close_ready_generations()

    def set_limits(self, *, budget: int | None, target: float | None) -> None:
        """Replace the budget and the target (a resumed checkpoint); the population stays. Both are
        checked before either changes; a budget below the evaluations spent raises ``ValueError``."""
        budget, target = check_budget(budget), check_target(target)
        if budget is not None and budget < self._nfev:
            raise ValueError(f"budget: {self._nfev} evaluations are spent already; expected at least {self._nfev} or None; got {budget}")
        self._budget, self._target = budget, target

    def should_stop(self) -> bool:
        """True when a stopping criterion holds (see :attr:`stop_reason`)."""
        return self.stop_reason is not None

    @property
    def stop_reason(self) -> str | None:
        """Why :meth:`should_stop` is true, or None (:mod:`edamcc.stopping`); the self-adaptive
        variant restarts instead (:mod:`edamcc.restarts`) until its restarts run out."""
        reason = self._run.stop_reason(evaluations=self._nfev, budget=self._budget, best_f=self._best_f, target=self._target)
        if self._run.adaptation is None or (reason is not None and reason.startswith(("budget", "target", DIVERGED_REASON))):
            return reason  # a restart would diverge again
        return self._stuck  # a stuck run restarts instead, and stops once MAX_RESTARTS restarts are used

    # ------------------------------------------------------------------ the generation (Fig. 6)
    def _close_ready_generations(self) -> None:
        while self._ledger.open_complete():
            rows, values = self._ledger.pop_open()
            run = self._run
            if self._stuck is None:
                pairs = None if self._record is None else self._record.pair_counts
                fitted, big_m = run.close(rows, values, self._rng, pairs)  # steps 1-3
                if fitted is not None:  # fewer than two finite values carry no spread: the model stays
                    self._adopt(fitted)
                if big_m is not None:  # population size adaptation: the next block has big_m rows
                    self._generations_before = self.generation
                    self._ledger.resize(big_m)
            # else stopped for good: the last model stays (asking on never shrinks it to underflow)
            finite = values[np.isfinite(values)]
            if finite.size:
                self._closed_best = min(self._closed_best, float(finite.min()))
            # the closed generations' best, not every told row's: rows of later generations (extras)
            # told before this one closed must not move a restart or a stop
            run.progress.add(self._closed_best, values)
            if run.adaptation is not None and self._stuck is None:
                self._maybe_restart()
            self._ledger.fill(self._sample(self._ledger.free_slots(), self._ledger.next_position()))  # step 4

    def _maybe_restart(self) -> None:
        """IPOP (:mod:`edamcc.restarts`); once MAX_RESTARTS are used, the next reason stops the run."""
        reason = self._run.restart_reason()
        if reason is None:
            return
        if len(self._restarts) >= MAX_RESTARTS:
            self._stuck = f"{reason}, after {MAX_RESTARTS} restarts"
            return
        big_m = next_population_size(self.population_size)
        self._restarts.append({"generation": self.generation, "evaluations": self._nfev, "reason": reason, "population_size": big_m})
        self._generations_before = self.generation
        self._ledger.restart(big_m)
        self._run = Run(self._run.rules.settings.resolve_population(self.dimension, big_m), self._lower, self._upper)

    def _adopt(self, fitted: FittedGeneration) -> None:
        """Keep the closed generation's structure: W, the groups and the record."""
        self._partition = fitted.partition
        if fitted.weak is not None:
            self._weak_mask = fitted.weak
            if self._record is not None:
                self._record.add(self.generation - 1, self._nfev, ~fitted.weak, rows=fitted.wi_rows, theta=fitted.theta, best_f=self._best_f)
        else:  # no WI: univariate variables count as weak, grouped or chained ones as strong
            weak = np.full(self.dimension, not self.variant.chain)
            for stack in fitted.partition:
                weak[stack.ravel()] = False
            self._weak_mask = weak

    def _sample(self, k: int, first: int | None = None) -> NDArray[np.float64]:
        x = self._run.model.sample(self._rng, k, first)
        repair(x, self._lower, self._upper, self._run.rules.repair)
        return x

    def _note_best(self, x: NDArray[np.float64], f: NDArray[np.float64], numbers: NDArray[np.int64]) -> None:
        """Keep the best told row; of equal values the one asked first (the lowest number), so
        that the best after the same tells does not depend on their order."""
        finite = np.isfinite(f)
        if finite.any():
            low = f[finite].min()
            tied = np.flatnonzero(f == low)
            best = int(tied[np.argmin(numbers[tied])])
            if low < self._best_f or (low == self._best_f and numbers[best] < self._best_number):
                self._best_f = float(f[best])
                self._best_x = x[best].copy()
                self._best_number = int(numbers[best])

    def __repr__(self) -> str:
        return (
            f"EDAMCCStrategy(variant={self.variant.name!r}, dimension={self.dimension}, "
            f"population_size={self.population_size}, selection_ratio={self.settings.selection_ratio}, "
            f"m_corr={self.m_corr}, theta={self.theta}, c={self.c}, generation={self.generation}, "
            f"evaluations={self._nfev}, best_f={self._best_f:.6g})"
        )
