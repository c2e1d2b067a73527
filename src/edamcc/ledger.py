"""The asked/told bookkeeping of an ask/tell run, kept apart from the algorithm.

Rows are numbered in the order they come into being (sampled for a generation, asked as
extras, injected), and generation g is the block of numbers given by
:func:`edamcc.generation.block_start` and :func:`~edamcc.generation.block_size`. Each row also
keeps a number over the whole run, restarts included, which ``tell`` and ``inject`` return: the
strategy breaks ties between equal best values by it, whatever the order of the tells. The ledger
keeps the rows of the open generation and of any later block that extras already reach,
each in one of three states: sampled but not handed out, handed out (in flight), told. It
answers "which asked row is this?" for ``tell`` (rows are matched by their exact float64
bytes, vectorized) and hands out, accepts and releases rows; it never decides what a
generation means.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .evaluation import REAL_KINDS
from .generation import block_size, block_start

NEW, OUT, TOLD = 0, 1, 2  # sampled, not handed out / handed out, not told / told


def as_batch(x: ArrayLike, f: ArrayLike, dimension: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(k, n)`` rows and ``(k,)`` values from what a caller of ``tell`` passed.

    A single point may be ``(n,)`` with a scalar value. Rows and values must be real numbers
    (NaN and inf allowed in values); strings, booleans, None, complex numbers and other objects
    raise ``ValueError``.
    """
    try:
        xa = np.asarray(x)
        if xa.dtype.kind not in REAL_KINDS:  # strings and booleans are not coordinates, as they are not values
            raise TypeError(f"dtype {xa.dtype}")
        xa = xa.astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"x: expected the rows ask() returned, as float64 numbers; got {type(x).__name__} ({exc})") from exc
    fa = np.asarray(f)
    if fa.dtype.kind not in REAL_KINDS:
        raise ValueError(f"f: expected real numbers (NaN and inf allowed, they rank worst); got {f!r} of dtype {fa.dtype}")
    fa = fa.astype(np.float64)
    if xa.ndim == 1:
        xa = xa.reshape(1, -1)
    if fa.ndim == 0:
        fa = fa.reshape(1)
    if xa.ndim != 2 or xa.shape[1] != dimension:
        raise ValueError(f"x: expected shape (k, {dimension}) or ({dimension},); got {np.shape(x)}")
    if fa.shape != (xa.shape[0],):
        raise ValueError(f"f: expected shape ({xa.shape[0]},), one value per row of x; got {np.shape(f)}")
    return xa, fa


def _row_keys(rows: NDArray[np.float64]) -> NDArray[np.void]:
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


class Ledger:
    """Rows of the open generation and beyond, by number, with their states and values."""

    def __init__(self, dimension: int, population_size: int) -> None:
        self._n = int(dimension)
        self._M = int(population_size)
        self.generation = 0  # the open generation: the oldest one not closed
        self._x = np.empty((0, self._n))  # rows numbered block_start(generation) onwards
        self._f = np.empty(0)
        self._state = np.empty(0, dtype=np.int8)
        self._order: NDArray[np.intp] | None = None  # sorted view of the rows' bytes, built lazily
        self._sorted: NDArray[np.void] | None = None
        self._orphans = np.empty((0, self._n))  # in flight when a restart retired their generation
        self._orphan_numbers = np.empty(0, dtype=np.int64)  # their numbers over the whole run
        self._base = 0  # the number over the whole run of the row at position 0

    # ------------------------------------------------------------------ counts
    @property
    def n_new(self) -> int:
        """Rows sampled for the open generation and not handed out yet."""
        return int(np.count_nonzero(self._state == NEW))

    @property
    def n_out(self) -> int:
        """Rows handed out and not told yet (in flight), orphans included."""
        return int(np.count_nonzero(self._state == OUT)) + int(self._orphans.shape[0])

    def free_slots(self) -> int:
        """Rows the open generation still lacks (extras may already fill part of it)."""
        return max(0, block_size(self.generation, self._M) - self._x.shape[0])

    def next_position(self) -> int:
        """Position in the open generation of the next row to be made (rows asked as extras of
        the generation before may already hold the first ones)."""
        return int(self._x.shape[0])

    def open_complete(self) -> bool:
        """True when every row of the open generation exists and is told."""
        k = block_size(self.generation, self._M)
        return self._x.shape[0] >= k and bool(np.all(self._state[:k] == TOLD))

    # ------------------------------------------------------------------ adding rows
    def _append(self, rows: NDArray[np.float64], values: NDArray[np.float64] | None, state: int) -> None:
        self._x = rows if self._x.shape[0] == 0 else np.concatenate([self._x, rows])  # rows: a fresh array, kept as is
        self._f = np.concatenate([self._f, np.full(rows.shape[0], np.nan) if values is None else values])
        self._state = np.concatenate([self._state, np.full(rows.shape[0], state, dtype=np.int8)])
        self._order = self._sorted = None

    def fill(self, rows: NDArray[np.float64]) -> None:
        """Add the open generation's sampled rows (exactly :meth:`free_slots` of them)."""
        if rows.shape[0] != self.free_slots():
            raise RuntimeError(f"fill: the open generation lacks {self.free_slots()} rows; got {rows.shape[0]}")
        self._append(rows, None, NEW)

    def add_extra(self, rows: NDArray[np.float64]) -> None:
        """Add rows asked beyond the sampled ones: handed out at once, numbered next."""
        self._append(rows, None, OUT)

    def inject(self, rows: NDArray[np.float64], values: NDArray[np.float64]) -> NDArray[np.int64]:
        """Add told rows that were never asked: they take the place of sampled rows not handed
        out yet (so injecting a generation's worth of points closes it), then the next numbers.
        Their numbers over the whole run."""
        free = np.flatnonzero(self._state == NEW)[: rows.shape[0]]
        k = free.size
        self._x[free] = rows[:k]
        self._f[free] = values[:k]
        self._state[free] = TOLD
        self._order = self._sorted = None
        positions = np.concatenate([free, self._x.shape[0] + np.arange(rows.shape[0] - k)])
        if k < rows.shape[0]:
            self._append(rows[k:], values[k:], TOLD)
        return self._base + positions

    # ------------------------------------------------------------------ handing out and telling
    def hand_out(self, k: int) -> NDArray[np.float64]:
        """The next ``k`` (or fewer) sampled rows, now in flight (a fresh array)."""
        new = np.flatnonzero(self._state == NEW)[:k]
        self._state[new] = OUT
        return self._rows(new).copy()

    def _rows(self, positions: NDArray[np.intp]) -> NDArray[np.float64]:
        """The rows at ``positions`` (increasing): a view when the numbers are consecutive (the
        usual case), else a copy."""
        if positions.size and positions[-1] - positions[0] == positions.size - 1:
            return self._x[positions[0] : positions[-1] + 1]
        return self._x[positions]

    def pending(self) -> NDArray[np.float64]:
        """Rows handed out and not told yet, in number order, then any orphans (a fresh array)."""
        return np.concatenate([self._x[self._state == OUT], self._orphans])

    def restart(self, population_size: int) -> None:
        """Start afresh with generation 0 of ``population_size`` rows (a restart). Rows in flight
        become orphans: their values are still accepted, and join no generation."""
        out = np.flatnonzero(self._state == OUT)
        self._orphans = np.concatenate([self._orphans, self._x[out]])
        self._orphan_numbers = np.concatenate([self._orphan_numbers, self._base + out])
        self._base += self._x.shape[0]  # the new run's rows come after every row made so far
        self._M = int(population_size)
        self.generation = 0
        self._x = np.empty((0, self._n))
        self._f = np.empty(0)
        self._state = np.empty(0, dtype=np.int8)
        self._order = self._sorted = None

    def resize(self, population_size: int) -> None:
        """Number the rows after the closed generations afresh, as generation 0 of
        ``population_size`` rows (a population that changed size within a run): rows already
        asked beyond the closed generations keep their order and states and come first."""
        self._M = int(population_size)
        self.generation = 0

    def split_orphans(self, rows: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Which of ``rows`` are orphans (and not rows of the current generations)."""
        mask = np.zeros(rows.shape[0], dtype=bool)
        if self._orphans.shape[0] == 0:
            return mask
        absent = self.locate(rows) < 0
        keys = _row_keys(self._orphans)
        mask[absent] = np.isin(_row_keys(rows[absent]), keys)
        told, counts = np.unique(_row_keys(rows[mask]), return_counts=True)
        have = np.array([np.count_nonzero(keys == k) for k in told], dtype=int)
        if np.any(counts > have):
            raise ValueError("x: a row in flight before a restart was already told earlier in this call (a row is told once)")
        return mask

    def drop_orphans(self, rows: NDArray[np.float64]) -> NDArray[np.int64]:
        """Forget told orphans (one orphan per row, even if several are identical); their numbers."""
        keys = list(_row_keys(self._orphans))
        keep = np.ones(len(keys), dtype=bool)
        hits = []
        for key in _row_keys(rows):  # rare: only rows in flight across a restart get here
            hit = next(i for i, k in enumerate(keys) if keep[i] and k == key)
            keep[hit] = False
            hits.append(hit)
        numbers = self._orphan_numbers[np.array(hits, dtype=np.intp)]
        self._orphans, self._orphan_numbers = self._orphans[keep], self._orphan_numbers[keep]
        return numbers

    def locate(self, rows: NDArray[np.float64]) -> NDArray[np.intp]:
        """Position of each of ``rows`` among the kept rows, or -1, for a tell.

        Identical kept rows (only a collapsed model makes them) are matched in-flight first and
        each at most once per call, so a batch of equal rows finds equal in-flight rows.
        """
        fast = self._in_flight_prefix(rows)
        return fast if fast is not None else self._search(rows)

    def _search(self, rows: NDArray[np.float64]) -> NDArray[np.intp]:
        """:meth:`locate` by a sorted search over the kept rows' bytes."""
        if self._order is None:
            keys = _row_keys(self._x)
            self._order = np.argsort(keys, kind="stable")
            self._sorted = keys[self._order]
        idx = np.full(rows.shape[0], -1, dtype=np.intp)
        if self._x.shape[0] == 0:
            return idx
        keys = _row_keys(rows)
        lo = np.searchsorted(self._sorted, keys, "left")
        hi = np.searchsorted(self._sorted, keys, "right")
        single = hi - lo == 1
        idx[single] = self._order[lo[single]]
        multi = np.flatnonzero(hi - lo > 1)
        if multi.size:
            taken = self._state != OUT
            for j in multi:  # only identical rows get here
                run = self._order[lo[j] : hi[j]]
                free = run[~taken[run]]
                idx[j] = free[0] if free.size else run[0]
                taken[idx[j]] = True
        return idx

    def _in_flight_prefix(self, rows: NDArray[np.float64]) -> NDArray[np.intp] | None:
        """The common tell, the rows in flight passed back in order from the first: their
        positions, found by one comparison of bytes instead of a sorted search (the same answer
        as :meth:`locate`'s, which matches identical rows in flight in number order). Else None."""
        out = np.flatnonzero(self._state == OUT)[: rows.shape[0]]
        if out.size != rows.shape[0] or out.size == 0:
            return None
        mine = self._rows(out).view(np.uint64)
        theirs = np.ascontiguousarray(rows, dtype=np.float64).view(np.uint64)
        return out if np.array_equal(mine, theirs) else None

    def check_tell(self, rows: NDArray[np.float64], positions: NDArray[np.intp] | None = None) -> NDArray[np.intp]:
        """Positions of ``rows`` for :meth:`record`; raises ``ValueError`` naming the first bad row
        (as row ``positions[i]`` of the caller's call, when ``rows`` are some of its rows)."""
        fast = self._in_flight_prefix(rows)
        if fast is not None:  # rows in flight, each once: nothing to check
            return fast

        def row(i: int) -> int:
            return int(i if positions is None else positions[i])

        idx = self._search(rows)
        absent = np.flatnonzero(idx < 0)
        if absent.size:
            raise ValueError(
                f"x: row {row(absent[0])} was never asked, or was told in a generation already closed (rows "
                f"must be passed back exactly as ask() returned them, as float64); {absent.size} such row(s) in this call"
            )
        state = self._state[idx]
        if np.any(state == NEW):
            raise ValueError(f"x: row {row(np.flatnonzero(state == NEW)[0])} was not handed out by ask() yet")
        if np.any(state == TOLD):
            raise ValueError(f"x: row {row(np.flatnonzero(state == TOLD)[0])} was already told (a row is told once)")
        _, first = np.unique(idx, return_index=True)
        if first.size != idx.size:
            repeated = np.ones(idx.size, dtype=bool)
            repeated[first] = False
            raise ValueError(f"x: row {row(np.flatnonzero(repeated)[0])} was already told earlier in this call (a row is told once)")
        return idx

    def tell(self, rows: NDArray[np.float64], values: NDArray[np.float64]) -> NDArray[np.int64]:
        """Check told ``rows`` and store their ``values``; orphans (rows in flight across a
        restart) are forgotten, not stored. Raises ``ValueError`` before changing anything.
        The rows' numbers over the whole run."""
        if self._orphans.shape[0] == 0:  # no run has restarted with rows in flight: no copies
            idx = self.check_tell(rows)
            self.record(idx, values)
            return self._base + idx
        orphan = self.split_orphans(rows)
        numbers = np.empty(rows.shape[0], dtype=np.int64)
        idx = self.check_tell(rows[~orphan], np.flatnonzero(~orphan))  # errors name the row of the caller's call
        self.record(idx, values[~orphan])
        numbers[~orphan] = self._base + idx
        if orphan.any():
            numbers[orphan] = self.drop_orphans(rows[orphan])
        return numbers

    def record(self, idx: NDArray[np.intp], values: NDArray[np.float64]) -> None:
        """Store the values of rows already checked by :meth:`check_tell`."""
        self._f[idx] = values
        self._state[idx] = TOLD

    # ------------------------------------------------------------------ closing
    def pop_open(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The complete open generation's rows and values (number order); the next one opens."""
        k = block_size(self.generation, self._M)
        rows, values = self._x[:k], self._f[:k]
        self._x, self._f, self._state = self._x[k:], self._f[k:], self._state[k:]
        self._order = self._sorted = None
        self._base += k
        self.generation += 1
        return rows, values

    def __setstate__(self, state: dict) -> None:
        """Unpickling, also of a ledger pickled before rows kept numbers over the whole run (a
        dumped optimizer): numbering goes on from 0 here, and its orphans come first."""
        self.__dict__.update(state)
        if "_base" not in state:
            self._base = 0
            self._orphan_numbers = np.full(self._orphans.shape[0], -1, dtype=np.int64)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_order"] = state["_sorted"] = None  # rebuilt on demand
        return state
