"""The paper's test suite F1-F13 (Table III) as vectorized callables.

Each function maps ``(k, n) -> (k,)`` (a single ``(n,)`` point -> a float), carries its
bounds, optimum value (CEC2005 bias included) and optimum location, and works at any
dimension (F7, F8 and F13, which couple neighbouring variables, from 2 on). Shifts,
rotations and F10's ``A`` are generated from a seed following the CEC2005 report's procedure
for dimensions beyond its data files (Suganthan et al., "Problem Definitions and Evaluation
Criteria for the CEC 2005 Special Session on Real-Parameter Optimization", 2005, and its
official ``benchmark_func.m``), or taken from explicit data such as the official data files:

>>> from edamcc.benchmark_functions import get_function
>>> f = get_function("F8", dimension=100, seed=1)
>>> f(f.optimum_x) == f.optimum_value
True

Conventions of the official code: rotations multiply row vectors, ``z = (x - o) M``.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .checks import check_dimension, is_int

Evaluate = Callable[[NDArray[np.float64]], NDArray[np.float64]]


@dataclass(frozen=True, eq=False)
class BenchmarkFunction:
    """One instance of a test function: fixed dimension, fixed shift/rotation data."""

    name: str
    title: str
    reference: str
    dimension: int
    lower: float
    upper: float
    bias: float
    optimum_x: NDArray[np.float64]
    evaluate: Evaluate = field(repr=False)
    data: dict[str, NDArray[np.float64]] = field(default_factory=dict, repr=False)

    @property
    def bounds(self) -> list[tuple[float, float]]:
        """One ``(low, high)`` pair per variable, as SciPy and :class:`edamcc.EDAMCCStrategy` take."""
        return [(self.lower, self.upper)] * self.dimension

    @property
    def instance_key(self) -> str:
        """A digest of this instance: its name, dimension, bias and data (shift, rotation, matrix).
        A checkpoint of a run on it resumes on the same instance only (:mod:`edamcc.checkpoint`)."""
        digest = hashlib.sha256(f"{self.name} {self.dimension} {self.bias!r}".encode())
        for name, array in [("optimum_x", self.optimum_x), *sorted(self.data.items())]:
            digest.update(name.encode() + np.ascontiguousarray(array, dtype=np.float64).tobytes())
        return digest.hexdigest()

    @property
    def optimum_value(self) -> float:
        """F(x*), the bias included (the paper reports F(x) - F(x*))."""
        return float(self.evaluate(self.optimum_x[None, :])[0])

    def __call__(self, x: ArrayLike) -> Any:
        xa = np.asarray(x, dtype=np.float64)
        single = xa.ndim == 1
        batch = xa[None, :] if single else xa
        if batch.ndim != 2 or batch.shape[1] != self.dimension:
            raise ValueError(
                f"x: {self.name} is {self.dimension}-dimensional; expected shape (k, {self.dimension}) "
                f"or ({self.dimension},); got {xa.shape}"
            )
        values = self.evaluate(batch)
        return float(values[0]) if single else values

    def error(self, values: ArrayLike) -> Any:
        """F(x) - F(x*), the quantity the paper's tables report."""
        return np.asarray(values, dtype=np.float64) - self.optimum_value


# --------------------------------------------------------------------------- data generation
def random_orthogonal(n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """A Haar-distributed orthogonal matrix (QR of a Gaussian matrix, signs fixed)."""
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def condition_two_matrix(n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """CEC2005 F10's linear transformation: ``P diag(2^((u - min u)/(max u - min u))) Q``.

    P and Q orthogonal and u uniform, so the singular values span [1, 2]: condition number 2.
    """
    p = random_orthogonal(n, rng)
    q = random_orthogonal(n, rng)
    if n == 1:
        return p @ q
    u = rng.uniform(size=n)
    s = 2.0 ** ((u - u.min()) / (u.max() - u.min()))
    return (p * s) @ q


def schwefel_206_data(n: int, rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """CEC2005 F5's ``A`` (integers in [-100, 100] with det != 0) and raw ``o`` (uniform in [-100, 100])."""
    o = rng.uniform(-100.0, 100.0, size=n)
    while True:
        a = np.round(rng.uniform(-100.0, 100.0, size=(n, n)))
        if np.linalg.slogdet(a)[0] != 0:
            return a, o


def schwefel_206_on_bounds(o: NDArray[np.float64]) -> NDArray[np.float64]:
    """Put F5's optimum on the bounds as the official code does: the first ceil(D/4)
    coordinates at -100, coordinates max(floor(0.75 D), 1)..D (1-based) at 100."""
    d = o.size
    o = o.copy()
    o[: int(np.ceil(d / 4))] = -100.0
    o[max(int(np.floor(0.75 * d)), 1) - 1 :] = 100.0
    return o


# --------------------------------------------------------------------------- the expressions
def _sphere(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.einsum("ij,ij->i", z, z)


def _max_abs(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.max(np.abs(z), axis=1)


def _schwefel_larranaga(z: NDArray[np.float64]) -> NDArray[np.float64]:
    # F5: sum_i [(x_1 - x_i^2)^2 + (x_i - 1)^2]
    return np.sum((z[:, :1] - z**2) ** 2 + (z - 1.0) ** 2, axis=1)


def _rosenbrock(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.sum(100.0 * (z[:, 1:] - z[:, :-1] ** 2) ** 2 + (z[:, :-1] - 1.0) ** 2, axis=1)


def _elliptic(z: NDArray[np.float64]) -> NDArray[np.float64]:
    n = z.shape[1]
    weights = 1e6 ** (np.arange(n) / (n - 1)) if n > 1 else np.ones(1)
    return (z**2) @ weights


def _rastrigin(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.sum(z**2 - 10.0 * np.cos(2.0 * np.pi * z) + 10.0, axis=1)


def _griewank_rosenbrock(z: NDArray[np.float64]) -> NDArray[np.float64]:
    # CEC2005 F13 (report p. 16): sum_i F8(F2(z_i, z_{i+1})), z_{D+1} = z_1,
    # F2(x, y) = 100 (x^2 - y)^2 + (x - 1)^2, F8(x) = x^2 / 4000 - cos(x) + 1.
    nxt = np.roll(z, -1, axis=1)
    f2 = 100.0 * (z**2 - nxt) ** 2 + (z - 1.0) ** 2
    return np.sum(f2**2 / 4000.0 - np.cos(f2) + 1.0, axis=1)


# --------------------------------------------------------------------------- the suite
@dataclass(frozen=True)
class _Spec:
    name: str
    alias: str
    title: str
    reference: str
    lower: float
    upper: float
    bias: float = 0.0
    shift_range: tuple[float, float] | None = None  # where a generated optimum lies
    plus_one: bool = False  # z = x - o + 1 (optimum of the unshifted expression at 1)
    rotation: str | None = None  # "orthogonal" | "condition2"


_SPECS = (
    _Spec("F1", "sphere", "Sphere", "Table III; f1 of Yao, Liu, Lin 1999", -100, 100),
    _Spec("F2", "shifted_sphere", "Shifted Sphere", "CEC2005 F1 (report p. 4)", -100, 100, -450.0, (-100, 100)),
    _Spec("F3", "schwefel_2_21", "Schwefel's Problem 2.21", "f4 of Yao, Liu, Lin 1999", -100, 100),
    _Spec("F4", "shifted_schwefel_2_21", "Shifted Schwefel 2.21", "Table III: F3 shifted as in CEC2005", -100, 100, 0.0, (-100, 100)),
    _Spec("F5", "schwefel_larranaga", "Schwefel (F2 of Larranaga et al. 2000)", "Table III", -10, 10),
    _Spec("F6", "shifted_schwefel_larranaga", "Shifted F5, z = x - o + 1", "Table III", -10, 10, 0.0, (-9, 9), True),
    _Spec("F7", "rosenbrock", "Rosenbrock", "f5 of Yao, Liu, Lin 1999 (domain changed to [-100, 100]^n)", -100, 100),
    _Spec("F8", "shifted_rosenbrock", "Shifted Rosenbrock", "CEC2005 F6 (report p. 9)", -100, 100, 390.0, (-90, 90), True),
    _Spec("F9", "shifted_rotated_elliptic", "Shifted Rotated High Conditioned Elliptic", "CEC2005 F3 (report p. 6)", -100, 100, -450.0, (-100, 100), False, "orthogonal"),
    _Spec("F10", "schwefel_2_6_on_bounds", "Schwefel 2.6 with Global Optimum on Bounds", "CEC2005 F5 (report p. 8)", -100, 100, -310.0),
    _Spec("F11", "rastrigin", "Rastrigin", "f9 of Yao, Liu, Lin 1999 (domain changed to [-5, 5]^n)", -5, 5),
    _Spec("F12", "shifted_rotated_rastrigin", "Shifted Rotated Rastrigin", "CEC2005 F10 (report p. 12)", -5, 5, -330.0, (-5, 5), False, "condition2"),
    _Spec("F13", "shifted_expanded_griewank_rosenbrock", "Shifted Expanded Griewank plus Rosenbrock", "CEC2005 F13 (report p. 16)", -3, 1, -130.0, (-1, 0), True),
)
_EXPRESSIONS: dict[str, Callable[[NDArray[np.float64]], NDArray[np.float64]]] = {
    "F1": _sphere, "F2": _sphere, "F3": _max_abs, "F4": _max_abs, "F5": _schwefel_larranaga,
    "F6": _schwefel_larranaga, "F7": _rosenbrock, "F8": _rosenbrock, "F9": _elliptic,
    "F11": _rastrigin, "F12": _rastrigin, "F13": _griewank_rosenbrock,
}  # fmt: skip
_BY_NAME = {s.name: s for s in _SPECS}
_ALIASES = {s.alias: s.name for s in _SPECS}
_UNSHIFTED_OPTIMUM = {"F5": 1.0, "F7": 1.0}  # others: 0


def list_functions() -> list[tuple[str, str, str]]:
    """``(name, alias, title)`` of every function of the suite, F1..F13."""
    return [(s.name, s.alias, s.title) for s in _SPECS]


def _spec(name: str) -> _Spec:
    if not isinstance(name, str):
        raise TypeError(f"name: expected a function name such as 'F8'; got {name!r}")
    key = name.strip()
    if key.upper() in _BY_NAME:
        return _BY_NAME[key.upper()]
    if key.lower().replace("-", "_") in _ALIASES:
        return _BY_NAME[_ALIASES[key.lower().replace("-", "_")]]
    raise ValueError(f"name: unknown function {name!r}; expected one of F1..F13 or {sorted(_ALIASES)}")


def _vector(value: ArrayLike, n: int, what: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim != 1 or arr.size < n:
        raise ValueError(f"{what}: expected a vector of at least {n} values; got shape {arr.shape}")
    arr = arr[:n]  # the official data files hold 100 values; the first D are used
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: values must be finite")
    return arr.copy()


def _check_inside(optimum: NDArray[np.float64], spec: _Spec) -> None:
    """A given shift puts the optimum in the box, or the stated optimum could not be reached."""
    outside = np.flatnonzero((optimum < spec.lower) | (optimum > spec.upper))
    if outside.size:
        raise ValueError(f"shift: the optimum must lie in {spec.name}'s box [{spec.lower:g}, {spec.upper:g}]; variables "
                         f"{outside[:10].tolist()} lie outside it (first: {optimum[outside[0]]:g})")  # fmt: skip


def _matrix(value: ArrayLike, n: int, what: str, exact: bool = False) -> NDArray[np.float64]:
    """F10's ``A`` (the official file holds 100 x 100: its leading n x n block is used) or, with
    ``exact``, a rotation, which must be n x n (a block of an orthogonal matrix is not one)."""
    arr = np.asarray(value, dtype=np.float64)
    if exact and arr.shape != (n, n):
        raise ValueError(f"{what}: expected a matrix of shape ({n}, {n}); got shape {arr.shape}")
    if arr.ndim != 2 or arr.shape[0] < n or arr.shape[1] < n:
        raise ValueError(f"{what}: expected a matrix of at least ({n}, {n}); got shape {arr.shape}")
    arr = arr[:n, :n]
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: values must be finite")
    return arr.copy()


def get_function(
    name: str,
    dimension: int,
    *,
    seed: int | None = 0,
    shift: ArrayLike | None = None,
    rotation: ArrayLike | None = None,
    matrix: ArrayLike | None = None,
) -> BenchmarkFunction:
    """An instance of ``name`` ("F1".."F13" or a descriptive alias) at ``dimension``.

    Args:
        seed: generates the shift, rotation and F10's ``A`` where not given (default 0,
            so the default instance is always the same; None draws a fresh one). The
            instance's stream is separate from an optimizer's ``default_rng(seed)``.
        shift: explicit optimum shift ``o`` (e.g. an official CEC2005 data file's row).
            For F10 the official code then puts the optimum on the bounds, and so do we.
        rotation: explicit ``M`` for F9 (orthogonal) or F12 (condition number 2).
        matrix: explicit ``A`` for F10.
    """
    spec = _spec(name)
    n = check_dimension(dimension)
    if seed is not None and (not is_int(seed) or seed < 0):
        raise ValueError(f"seed: expected a non-negative integer or None (the instance's seed); got {seed!r}")
    if spec.name in ("F7", "F8", "F13") and n < 2:
        raise ValueError(f"dimension: {spec.name} needs at least 2 variables; got {n}")
    # The instance's own stream, separated from any optimizer's default_rng(seed): a shift drawn
    # from default_rng(0) would otherwise equal the first uniform sample of an optimizer seeded 0.
    rng = np.random.default_rng(None if seed is None else np.random.SeedSequence([2005, int(spec.name[1:]), seed]))
    if rotation is not None and spec.rotation is None:
        raise ValueError(f"rotation: {spec.name} is not rotated")
    if matrix is not None and spec.name != "F10":
        raise ValueError(f"matrix: only F10 takes a matrix A; got it for {spec.name}")
    if shift is not None and spec.shift_range is None and spec.name != "F10":
        raise ValueError(f"shift: {spec.name} is not shifted")

    if spec.name == "F10":
        a_gen, o_gen = schwefel_206_data(n, rng) if (matrix is None or shift is None) else (None, None)
        a = _matrix(matrix, n, "matrix") if matrix is not None else a_gen
        o = schwefel_206_on_bounds(_vector(shift, n, "shift") if shift is not None else o_gen)  # type: ignore[arg-type]
        _check_inside(o, spec)
        at = np.ascontiguousarray(a.T)  # type: ignore[union-attr]
        b = (o[None, :] @ at)[0]  # B = A o, by the same product as evaluate (exact at x = o)

        def evaluate(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.max(np.abs(x @ at - b), axis=1) + spec.bias

        return BenchmarkFunction(spec.name, spec.title, spec.reference, n, spec.lower, spec.upper, spec.bias, o, evaluate, {"shift": o, "matrix": a, "b": b})  # type: ignore[arg-type]

    expr = _EXPRESSIONS[spec.name]
    data: dict[str, NDArray[np.float64]] = {}
    if spec.shift_range is None:
        optimum = np.full(n, _UNSHIFTED_OPTIMUM.get(spec.name, 0.0))

        def evaluate(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return expr(x) + spec.bias

        return BenchmarkFunction(spec.name, spec.title, spec.reference, n, spec.lower, spec.upper, spec.bias, optimum, evaluate)

    o = _vector(shift, n, "shift") if shift is not None else rng.uniform(*spec.shift_range, size=n)
    _check_inside(o, spec)
    data["shift"] = o
    offset = o - 1.0 if spec.plus_one else o  # z = x - o + 1  <=>  z = x - (o - 1)
    if spec.rotation is not None:
        if rotation is not None:
            m = _matrix(rotation, n, "rotation", exact=True)
        elif spec.rotation == "orthogonal":
            m = random_orthogonal(n, rng)
        else:
            m = condition_two_matrix(n, rng)
        data["rotation"] = m

        def evaluate(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return expr((x - offset) @ m) + spec.bias

    else:

        def evaluate(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return expr(x - offset) + spec.bias

    return BenchmarkFunction(spec.name, spec.title, spec.reference, n, spec.lower, spec.upper, spec.bias, o.copy(), evaluate, data)


# The official CEC2005 data files behind the paper's CEC2005-derived functions: name ->
# (file holding o, file pattern holding the rotation M or None). They hold 100 values per
# row; rotations exist for 2, 10, 30 and 50 dimensions only.
CEC2005_DATA_FILES: dict[str, tuple[str, str | None]] = {
    "F2": ("sphere_func_data.txt", None),
    "F8": ("rosenbrock_func_data.txt", None),
    "F9": ("high_cond_elliptic_rot_data.txt", "elliptic_M_D{n}.txt"),
    "F10": ("schwefel_206_data.txt", None),  # row 0 is o, rows 1..100 are A
    "F12": ("rastrigin_func_data.txt", "rastrigin_M_D{n}.txt"),
    "F13": ("EF8F2_func_data.txt", None),
}
CEC2005_MAX_DIMENSION = 100
CEC2005_ROTATION_DIMENSIONS = (2, 10, 30, 50)


def cec2005_instance(name: str, dimension: int, directory: str | os.PathLike[str]) -> dict[str, NDArray[np.float64]]:
    """``get_function`` keyword arguments that build the official CEC2005 instance of ``name``.

    ``directory`` holds the text data files distributed with the CEC2005 benchmark code
    (``sphere_func_data.txt``, ``schwefel_206_data.txt``, ``elliptic_M_D50.txt``, ...). Use as
    ``get_function(name, n, **cec2005_instance(name, n, directory))``. Functions not derived
    from CEC2005 (F1, F3-F7, F11) get ``{}``; a rotation at a dimension the distribution has
    no file for (other than 2, 10, 30 and 50, e.g. 100) is left to ``get_function``'s
    generator, as the official code does.

    Raises:
        ValueError: ``dimension`` above 100, where no official data exist.
        FileNotFoundError: a needed file is missing from ``directory``.
    """
    spec = _spec(name)
    check_dimension(dimension)
    if spec.name not in CEC2005_DATA_FILES:
        return {}
    if dimension > CEC2005_MAX_DIMENSION:
        raise ValueError(f"dimension: the CEC2005 data files cover at most {CEC2005_MAX_DIMENSION} "
                         f"variables; got {dimension}")  # fmt: skip
    base = Path(directory)
    shift_file, rotation_pattern = CEC2005_DATA_FILES[spec.name]

    def load(file: str) -> NDArray[np.float64]:
        path = base / file
        if not path.is_file():
            raise FileNotFoundError(f"directory: {file} not found in {str(base)!r} (the CEC2005 data files)")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # numpy's "no data" for an empty file: refused below
                table = np.loadtxt(path, ndmin=2)
        except ValueError as exc:
            raise ValueError(f"directory: {file} in {str(base)!r} is not a CEC2005 data file ({exc})") from exc
        if table.shape[0] == 0 or table.shape[1] < dimension:
            raise ValueError(f"directory: {file} in {str(base)!r} has {table.shape[1] if table.shape[0] else 0} values in a row; "
                             f"expected at least {dimension}, one per variable")
        return table

    table = load(shift_file)
    out: dict[str, NDArray[np.float64]] = {"shift": table[0, :dimension]}
    if spec.name == "F10":
        out["matrix"] = table[1 : 1 + dimension, :dimension]
    if rotation_pattern is not None and dimension in CEC2005_ROTATION_DIMENSIONS:  # a missing file is an incomplete directory
        out["rotation"] = load(rotation_pattern.format(n=dimension))
    return out
