"""Same seed, same run: the pinned trajectories of the first 20 generations of every paper variant on F1-F13.

``data/regression_trajectories.json`` holds, for each variant and function, the best value told in
each of the 20 generations. They were recorded from the code whose trajectories the earlier
pinned hashes had fixed before the core was refactored into settings, ledger and generation rule.
Values, not hashes, are compared (to 1e-9 relative): the last bits of a sum or an
eigendecomposition differ between CPUs and BLAS builds, which changed every hash from one
machine to the next, while a change of the algorithm moves the values by far more. Regenerate
them only for a deliberate change of results (``python tests/test_regression.py --write``) and
say why in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from edamcc import VARIANTS, EDAMCCStrategy
from edamcc.benchmark_functions import get_function, list_functions

DATA = Path(__file__).parent / "data" / "regression_trajectories.json"
DIMENSION = 30
GENERATIONS = 20


def trajectory(variant: str, function: str) -> list[float]:
    """The best value told in each of 20 generations (M = 40, c = 5, seed 7)."""
    f = get_function(function, DIMENSION, seed=3)
    es = EDAMCCStrategy(bounds=f.bounds, population_size=40, c=5, variant=variant, seed=7)
    best = []
    while es.generation < GENERATIONS:
        x = es.ask()
        values = f(x)
        best.append(float(np.min(values)))
        es.tell(x, values)
    return best


PAPER_VARIANTS = sorted(v for v in VARIANTS if not VARIANTS[v].adaptive)


def all_trajectories() -> dict[str, list[float]]:
    return {f"{v}/{name}": trajectory(v, name) for v in PAPER_VARIANTS for name, _, _ in list_functions()}


@pytest.mark.parametrize("variant", PAPER_VARIANTS)
def test_every_paper_variant_repeats_its_pinned_trajectory_on_f1_to_f13(variant: str) -> None:
    pinned = json.loads(DATA.read_text())
    for name, _, _ in list_functions():
        np.testing.assert_allclose(trajectory(variant, name), pinned[f"{variant}/{name}"], rtol=1e-9,
                                   err_msg=f"{variant} on {name} changed")  # fmt: skip


if __name__ == "__main__" and "--write" in sys.argv:
    DATA.write_text(json.dumps(all_trajectories(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
