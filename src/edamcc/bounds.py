"""The search box: parsing the ways users write bounds, and repairing samples that leave it.

The paper initializes every algorithm "by uniform random initialization within the search
space" (Section "Common Parameter Settings"), so a finite box is required. It says nothing
about samples that a Gaussian model draws outside the box; we repair them (``"clip"`` by
default, ``"reflect"`` as the alternative).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .checks import check_dimension

REPAIR_METHODS = ("clip", "reflect", "none")
# Widths of the box: a variance is a squared width, and the self-adaptive variants' first shape
# divides each variable's variance by their mean, so every variance (below 1e150) and every ratio
# of two (within 1e+-300) must stay inside the doubles' 1e+-308, with room for a model that
# shrinks 1e12-fold before a restart (with widths of 1e-150 and 1e150 in one box, the first
# shape underflowed and the default asked NaN points)
MIN_WIDTH, MAX_WIDTH = 1e-75, 1e75


def _reals(value: Any, bounds: Any) -> NDArray[np.float64]:
    """``value`` (``bounds`` or one side of it) as floats, each element a real number as in
    :mod:`edamcc.checks` (not a bool or a string, which float() would read; a list mixing bools and
    floats would become floats)."""
    expected = _expected(bounds)
    try:
        raw = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    except (TypeError, ValueError) as exc:
        raise TypeError(expected()) from exc
    if raw.dtype.kind == "O":  # a 0-d array element stands for its number
        items = [v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in raw.flat]
        raw = np.asarray(items, dtype=object).reshape(raw.shape)
    kinds = {raw.dtype.type} if raw.dtype.kind in "iufbUS" else set(map(type, raw.flat))
    if not all(issubclass(k, numbers.Real) and not issubclass(k, (bool, np.bool_)) for k in kinds):
        text = any(issubclass(k, (str, bytes, bool, np.bool_, np.str_, np.bytes_)) for k in kinds)
        raise TypeError(expected() + (" (bounds are numbers, not bools or strings)" if text else ""))
    try:
        return raw.astype(float)
    except (TypeError, ValueError) as exc:
        raise TypeError(expected()) from exc
    except OverflowError as exc:
        raise ValueError(f"bounds: a bound is too large for a float (about 1.8e308 at most); got {value!r}") from exc


def _expected(bounds: Any) -> Callable[[], str]:
    """The message for bounds of the wrong kind, made only when one is raised (a long list's repr
    takes time)."""
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):
        return lambda: f"bounds: expected a scipy.optimize.Bounds with real lb and ub; got {bounds!r}"
    return lambda: ("bounds: expected a scipy.optimize.Bounds, a sequence of (low, high) pairs or a "
                    f"(low, high) pair of scalars; got {bounds!r}")  # fmt: skip


def parse_bounds(bounds: Any, dimension: int | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return ``(lower, upper)``, each of shape ``(dimension,)``.

    Accepted forms, as in SciPy:

    * a :class:`scipy.optimize.Bounds` (``lb``/``ub`` scalars, or of one entry, need ``dimension``);
    * a sequence of ``(low, high)`` pairs, one per variable, shape ``(n, 2)``;
    * a single ``(low, high)`` pair of scalars together with ``dimension``.
    """
    lower: Any
    upper: Any
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):
        lower, upper = _reals(bounds.lb, bounds), _reals(bounds.ub, bounds)
        if np.size(lower) == 1 and np.size(upper) == 1:  # Bounds(-1, 2): scalars
            if dimension is None:  # SciPy stores Bounds(-1, 2) as Bounds([-1], [2]): n is not known
                raise ValueError("dimension: a scipy.optimize.Bounds with one lb and one ub (SciPy keeps Bounds(-1, 2) as "
                                 "Bounds([-1], [2])) needs dimension=n to know how many variables there are (dimension=1 for one)")
            lower, upper = np.asarray(lower, dtype=float).ravel()[0], np.asarray(upper, dtype=float).ravel()[0]
    else:
        arr = _reals(bounds, bounds)
        if arr.ndim == 1 and arr.shape == (2,):
            lower, upper = arr[0], arr[1]
        elif arr.ndim == 2 and arr.shape[1] == 2 and arr.shape[0] >= 1:
            lower, upper = arr[:, 0], arr[:, 1]
        else:
            raise ValueError(
                "bounds: expected shape (n, 2) (one (low, high) pair per variable) or a "
                f"(low, high) pair of scalars; got an array of shape {arr.shape}"
            )
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    if lower.ndim > 1 or upper.ndim > 1:
        raise ValueError(f"bounds: expected lb and ub as scalars or 1-D arrays (one entry per variable); got shapes "
                         f"{lower.shape} and {upper.shape}")
    if dimension is not None:
        dimension = check_dimension(dimension)
    sizes = {a.size for a in (lower, upper) if a.ndim > 0}
    if len(sizes) > 1:
        raise ValueError(f"bounds: lower and upper have different lengths {sorted(sizes)}")
    if sizes:
        n = sizes.pop()
        if dimension is not None and dimension != n:
            raise ValueError(f"dimension: bounds describe {n} variables but dimension={dimension}")
    elif dimension is None:
        raise ValueError("dimension: scalar bounds need dimension=n to know how many variables there are")
    else:
        n = dimension
    lower = np.broadcast_to(lower, (n,)).astype(float)
    upper = np.broadcast_to(upper, (n,)).astype(float)
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        bad = np.flatnonzero(~(np.isfinite(lower) & np.isfinite(upper)))
        raise ValueError(
            "bounds: every bound must be finite (the first generation is uniform in the box); "
            f"variables {bad[:10].tolist()} have non-finite bounds"
        )
    if np.any(lower >= upper):
        bad = np.flatnonzero(lower >= upper)
        raise ValueError(
            f"bounds: expected low < high for every variable; variables {bad[:10].tolist()} have "
            f"low >= high (first: low={lower[bad[0]]}, high={upper[bad[0]]})"
        )
    with np.errstate(over="ignore"):  # an infinite width is refused below
        width = upper - lower
    if np.any(~((width >= MIN_WIDTH) & (width <= MAX_WIDTH))):
        bad = np.flatnonzero(~((width >= MIN_WIDTH) & (width <= MAX_WIDTH)))
        raise ValueError(
            f"bounds: every width high - low must be between {MIN_WIDTH:g} and {MAX_WIDTH:g} (the model's variances are "
            f"squared widths, which with their ratios would overflow or underflow); variables {bad[:10].tolist()} have widths outside it "
            f"(first: {width[bad[0]]:g}): rescale them"
        )
    return lower, upper


def repair(x: NDArray[np.float64], lower: NDArray[np.float64], upper: NDArray[np.float64], method: str) -> None:
    """Bring the rows of ``x`` (shape ``(k, n)``) back into the box, in place.

    ``"clip"`` sets an out-of-range coordinate to the nearest bound. ``"reflect"`` mirrors it
    at the bound it crossed (repeatedly, so any value lands inside), which keeps repaired
    samples off the faces of the box. ``"none"`` leaves samples as drawn: the box then only
    defines the uniform first generation (for unbounded spaces).
    """
    if method == "none":
        return
    if method == "clip":
        np.minimum(np.maximum(x, lower, out=x), upper, out=x)  # np.clip's values, at 2/3 of its time
    elif method == "reflect":
        width = upper - lower
        y = np.mod(x - lower, 2.0 * width)
        np.copyto(y, 2.0 * width - y, where=y > width)
        np.add(lower, y, out=x)
    else:  # pragma: no cover - validated by the strategy
        raise ValueError(f"repair: expected one of {REPAIR_METHODS}; got {method!r}")
