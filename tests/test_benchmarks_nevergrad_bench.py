"""The Nevergrad benchmark (benchmarks/nevergrad_bench.py): every optimizer of a run sees the
same function and the same seeded random state, whatever its place in ``--optimizers``."""

import numpy as np
import pytest

pytest.importorskip("nevergrad")
import nevergrad_bench  # noqa: E402  (a program of this repository: a failing import is a failure, not a skip)


def _losses(order: list[str], seed: int) -> dict[str, float]:
    f = nevergrad_bench.make("ellipsoid", 20, seed)
    return {name: nevergrad_bench.run(name, f, "ellipsoid", 20, 300, seed)["loss"] for name in order}


def test_an_optimizers_result_does_not_depend_on_its_place_in_the_list():
    forward = _losses(["EDAMCC", "DiagonalCMA"], seed=3)
    backward = _losses(["DiagonalCMA", "EDAMCC"], seed=3)
    assert forward == backward
    assert all(np.isfinite(v) for v in forward.values())


def test_the_function_is_drawn_from_the_seed():
    x = np.linspace(-1.0, 1.0, 20)
    a, b, c = (nevergrad_bench.make("ellipsoid", 20, s) for s in (3, 3, 4))
    assert a(x) == b(x) != c(x)
