"""What WI learned, generation by generation (Section VII).

* ``n_strong``: |S| per generation, the "#strong" curves of Fig. 12 and its siblings.
* the matrix Q: which variables were strong at each recorded generation. Stored as packed
  bits (n/8 bytes a generation) and optionally thinned (``every``), so long runs at large n
  stay small. Q of several runs or restarts is their sum (:func:`aggregate`), as in the paper
  where Q_ij counts the runs that put variable i into S at generation j.
* beyond the paper: pair counts, how often each pair (i, j) had |corr| > theta. Divided by
  the number of WI calls this is a dependency graph a user can read (e.g. Rosenbrock's chain).
  It costs an ``(n, n)`` uint32 array, so it is off by default above ``PAIR_COUNTS_AUTO_LIMIT``.
* the noise floor: how many variables WI calls strong by chance alone, when every variable is
  independent (:func:`~edamcc.wi_threshold.chance_strong`), for each WI call's own rows and
  threshold (:meth:`StructureRecord.chance_n_strong`): restarts change m_corr, and with it
  theta="auto", so the floor moves during a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .checks import is_int, is_real
from .wi_threshold import chance_strong, pair_exceeds

PAIR_COUNTS_AUTO_LIMIT = 2000


def check_every(every: Any) -> int:
    """``record_every``: keep Q's column of every k-th WI call (one per generation that fitted a model), k a positive integer."""
    if not is_int(every) or every < 1:
        raise ValueError(f"record_every: expected a positive integer; got {every!r}")
    return int(every)


def check_pairs(record_pairs: Any, dimension: int, variant: Any) -> bool:
    """``record_pairs``: True, False (a NumPy bool too) or ``"auto"`` (on up to
    :data:`PAIR_COUNTS_AUTO_LIMIT` variables); True needs a ``variant`` that runs WI."""
    if isinstance(record_pairs, str):
        if record_pairs != "auto":
            raise ValueError(f"record_pairs: expected True, False or 'auto'; got {record_pairs!r}")
        return dimension <= PAIR_COUNTS_AUTO_LIMIT and variant.identify_weak
    if not isinstance(record_pairs, (bool, np.bool_)):  # as check_flag: not read by its truth value
        raise TypeError(f"record_pairs: expected True, False or 'auto'; got {record_pairs!r}")
    if record_pairs and not variant.identify_weak:
        raise ValueError(f"record_pairs: variant {variant.name!r} runs no WI, so no pair is ever counted; expected False or 'auto'")
    return bool(record_pairs)


def _pair_frequency(counts: NDArray[np.floating], calls: int) -> NDArray[np.float64]:
    """Symmetric frequencies from the upper-triangle counts ``counts`` of ``calls`` WI calls."""
    return (counts + counts.T) / max(calls, 1)


def _chance_pair(rows: int, theta: float) -> float:
    """P(|r| > theta) for two independent variables over ``rows`` rows (:func:`pair_exceeds`;
    0 below two rows, where WI calls nothing strong)."""
    return 0.0 if rows < 2 else pair_exceeds(theta, rows)


class StructureRecord:
    """The learned structure of one run (its restarts included); :func:`aggregate` combines runs."""

    def __init__(self, dimension: int, *, every: int = 1, pairs: bool = False) -> None:
        self.dimension = int(dimension)
        self.every = check_every(every)
        self._generations: list[int] = []
        self._evaluations: list[int] = []
        self._n_strong: list[int] = []
        self._q_generations: list[int] = []
        self._q_evaluations: list[int] = []
        self._q_bits: list[NDArray[np.uint8]] = []
        self._wi_rows: list[int | None] = []  # the rows each WI call correlated (m_corr, or fewer)
        self._wi_theta: list[float | None] = []  # and its threshold
        self._best_f: list[float | None] = []  # the best value told before each WI call
        self._strong_calls = np.zeros(dimension, dtype=np.int64)  # per variable: the WI calls that called it strong
        self.pair_counts: NDArray[np.uint32] | None = (
            np.zeros((dimension, dimension), dtype=np.uint32) if pairs else None
        )
        self.n_wi_calls = 0
        self.n_runs = 1

    def add(self, generation: int, evaluations: int, strong: NDArray[np.bool_], *, rows: int | None = None,
            theta: float | None = None, best_f: float | None = None) -> None:  # fmt: skip
        """Record the strong set S found by WI at ``generation`` (after ``evaluations``
        evaluations), from ``rows`` rows with threshold ``theta`` (None: not known; the chance
        floor of that call is then unknown), when the best value told was ``best_f``.
        ``strong`` is checked before anything is recorded, so a bad call leaves the record as it was."""
        strong = np.asarray(strong)
        if strong.dtype != np.bool_ or strong.shape != (self.dimension,):
            raise ValueError(f"strong: expected a boolean mask of shape ({self.dimension},); got {strong.dtype} of shape {strong.shape}")
        generation, evaluations = int(generation), int(evaluations)  # NumPy integers are not JSON
        self.n_wi_calls += 1
        self._best_f.append(None if best_f is None else float(best_f))
        self._generations.append(generation)
        self._evaluations.append(evaluations)
        self._wi_rows.append(None if rows is None else int(rows))
        self._wi_theta.append(None if theta is None else float(theta))
        self._n_strong.append(int(strong.sum()))
        if self._strong_calls is not None:  # None: a record pickled before it counted (strong_frequency reads Q)
            self._strong_calls += strong
        if (len(self._generations) - 1) % self.every == 0:
            self._q_generations.append(generation)
            self._q_evaluations.append(evaluations)
            self._q_bits.append(np.packbits(strong))

    @property
    def generations(self) -> NDArray[np.int64]:
        """The generation index of each WI call."""
        return np.asarray(self._generations, dtype=np.int64)

    @property
    def evaluations(self) -> NDArray[np.int64]:
        """The number of evaluations told before each WI call (the paper's #eval axis)."""
        return np.asarray(self._evaluations, dtype=np.int64)

    @property
    def n_strong(self) -> NDArray[np.int64]:
        """|S| per WI call: the #strong curve."""
        return np.asarray(self._n_strong, dtype=np.int64)

    @property
    def q_generations(self) -> NDArray[np.int64]:
        """The generations that have a column in Q (every ``every``-th WI call)."""
        return np.asarray(self._q_generations, dtype=np.int64)

    @property
    def q_evaluations(self) -> NDArray[np.int64]:
        """The evaluations told when each column of Q was recorded (its x axis in evaluations)."""
        return np.asarray(self._q_evaluations, dtype=np.int64)

    @property
    def wi_rows(self) -> NDArray[np.float64]:
        """The rows each WI call correlated (m_corr, or fewer after failures; NaN: not known)."""
        return np.array([np.nan if r is None else r for r in self._wi_rows], dtype=np.float64)

    @property
    def wi_theta(self) -> NDArray[np.float64]:
        """The threshold of each WI call (NaN: not known)."""
        return np.array([np.nan if t is None else t for t in self._wi_theta], dtype=np.float64)

    @property
    def best_f(self) -> NDArray[np.float64]:
        """The best value told before each WI call (``inf`` before a finite one; NaN: not known):
        the run's convergence beside its #strong curve, kept through checkpoints and restarts."""
        return np.array([np.nan if b is None else b for b in self._best_f], dtype=np.float64)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling, also of a record made before it kept the best values and the strong counts."""
        state.setdefault("_best_f", [None] * len(state["_generations"]))
        counted = "_strong_calls" in state
        self.__dict__.update(state)
        if not counted:  # exact from Q when Q kept every call, else not known (strong_frequency reads Q)
            self._strong_calls = self.q_matrix().sum(axis=1) if self.every == 1 and self._q_bits else None

    def chance_n_strong(self) -> NDArray[np.float64]:
        """For each WI call, the #strong that chance alone gives independent variables with that
        call's rows and threshold (NaN where they are unknown). A threshold of 1 calls none
        strong; two rows correlate every pair by +-1, so below 1 they call all strong."""
        known = {(r, t): chance_strong(self.dimension, r, t) if r >= 2 else 0.0
                 for r, t in set(zip(self._wi_rows, self._wi_theta)) if r is not None and t is not None}  # fmt: skip
        return np.array([known.get(key, np.nan) for key in zip(self._wi_rows, self._wi_theta)], dtype=np.float64)

    def chance_pair_frequency(self) -> float | None:
        """The fraction of WI calls in which chance alone puts an independent pair above theta,
        over this record's calls (None if there are none, or any call's rows or threshold is unknown)."""
        calls = list(zip(self._wi_rows, self._wi_theta))
        if not calls or any(r is None or t is None for r, t in calls):
            return None
        known = {(r, t): _chance_pair(r, t) for r, t in set(calls)}  # a few distinct sizes, one per restart
        return float(np.mean([known[key] for key in calls]))

    def q_matrix(self) -> NDArray[np.int64]:
        """Q, shape ``(dimension, recorded generations)``: 1 where variable i was strong."""
        if not self._q_bits:
            return np.zeros((self.dimension, 0), dtype=np.int64)
        bits = np.unpackbits(np.stack(self._q_bits), axis=1, count=self.dimension)
        return bits.T.astype(np.int64)

    def strong_frequency(self) -> NDArray[np.float64]:
        """For each variable, the fraction of the WI calls that called it strong (all of them,
        also with ``record_every`` > 1; a record pickled before it counted them: of Q's columns).
        NaN before the first WI call (and for variants without WI): a fraction of no calls is
        not known, and 0 would read as "never strong"."""
        if self.n_wi_calls == 0:
            return np.full(self.dimension, np.nan)
        if self._strong_calls is None:
            return self.q_matrix().mean(axis=1)
        return self._strong_calls / self.n_wi_calls

    def pair_frequency(self) -> NDArray[np.float64]:
        """Symmetric ``(n, n)``: fraction of WI calls in which |corr(x_i, x_j)| > theta."""
        if self.pair_counts is None:
            raise ValueError(
                "pair counts were not recorded: create the strategy with record_pairs=True "
                f"(off by default above {PAIR_COUNTS_AUTO_LIMIT} variables)"
            )
        return _pair_frequency(self.pair_counts.astype(np.float64), self.n_wi_calls)

    def dependency_edges(self, min_frequency: float = 0.5, limit: int | None = None) -> list[tuple[int, int, float]]:
        """Pairs ``(i, j, frequency)`` with i < j found dependent in at least ``min_frequency`` of
        WI calls, most frequent first; at most ``limit`` of them if given."""
        if not (is_real(min_frequency) and 0.0 <= min_frequency <= 1.0):
            raise ValueError(f"min_frequency: expected a number in [0, 1]; got {min_frequency!r}")
        if limit is not None and (not is_int(limit) or limit < 0):
            raise ValueError(f"limit: expected a non-negative integer or None; got {limit!r}")
        freq = np.triu(self.pair_frequency(), 1)
        i, j = np.nonzero(freq >= min_frequency) if min_frequency > 0 else np.triu_indices(self.dimension, 1)
        order = np.argsort(-freq[i, j], kind="stable")[:limit]
        return [(int(a), int(b), float(freq[a, b])) for a, b in zip(i[order], j[order])]

    def to_dict(self, *, include_q: bool = True, include_pairs: bool = False) -> dict[str, Any]:
        """A JSON-ready summary (``strong_frequency`` None before the first WI call);
        ``include_pairs`` needs the pair counts (:meth:`pair_frequency`'s ``ValueError`` without them)."""
        pairs = self.pair_frequency().tolist() if include_pairs else None  # refused before anything is built
        out: dict[str, Any] = {
            "dimension": self.dimension,
            "n_runs": self.n_runs,
            "n_wi_calls": self.n_wi_calls,
            "generations": list(self._generations),
            "evaluations": list(self._evaluations),
            "n_strong": list(self._n_strong),
            "wi_rows": list(self._wi_rows),
            "wi_theta": list(self._wi_theta),
            "best_f": [None if b is None or not np.isfinite(b) else b for b in self._best_f],
            "chance_n_strong": [None if np.isnan(c) else float(c) for c in self.chance_n_strong()],
            "strong_frequency": self.strong_frequency().tolist() if self.n_wi_calls else None,
        }
        if include_q:
            out["q_generations"] = list(self._q_generations)
            out["q"] = self.q_matrix().tolist()
        if include_pairs:
            out["pair_frequency"] = pairs
        return out


def aggregate(records: Sequence[StructureRecord]) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64] | None]:
    """Combine several runs as the paper does: mean #strong, summed Q, mean pair frequency.

    Runs are aligned by WI call: the k-th WI call of each run (a generation without one, where
    fewer than two values were finite, shifts the later calls of that run); a run that stopped
    earlier simply contributes nothing to later columns. The records must share the dimension
    and ``record_every``. Returns ``(mean_n_strong, q_counts, pair_frequency)``: the mean
    #strong over the runs that reached each generation, Q as counts of runs (shape
    ``(dimension, longest run's recorded generations)``), and the pair frequency over all WI
    calls of all runs (``None`` unless every record has pair counts).
    """
    records = list(records)
    if not records:
        raise ValueError("records: expected at least one StructureRecord")
    dims = {r.dimension for r in records}
    if len(dims) != 1:
        raise ValueError(f"records: all runs must have the same dimension; got {sorted(dims)}")
    every = {r.every for r in records}
    if len(every) != 1:
        raise ValueError(f"records: all runs must record Q as often (record_every); got {sorted(every)}")
    n = dims.pop()
    longest = max(len(r.n_strong) for r in records)
    total = np.zeros(longest)
    count = np.zeros(longest)
    for r in records:
        s = r.n_strong
        total[: s.size] += s
        count[: s.size] += 1
    mean_strong = np.divide(total, count, out=np.zeros(longest), where=count > 0)
    qs = [r.q_matrix() for r in records]
    q = np.zeros((n, max(x.shape[1] for x in qs)), dtype=np.int64)
    for x in qs:
        q[:, : x.shape[1]] += x
    pairs = None
    if all(r.pair_counts is not None for r in records):
        summed = sum(r.pair_counts.astype(np.float64) for r in records)  # type: ignore[union-attr]
        calls = sum(r.n_wi_calls for r in records)
        pairs = _pair_frequency(summed, calls)
    return mean_strong, q, pairs
