"""Same seed, same run: pinned hashes of the first 20 generations of every variant on F1-F13.

The hashes in ``data/regression_hashes.json`` were recorded before the core was refactored into
settings, ledger and generation rule; regenerate them only for a deliberate change of results
(``python tests/test_regression.py --write``) and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from edamcc import VARIANTS, EDAMCCStrategy
from edamcc.benchmark_functions import get_function, list_functions

DATA = Path(__file__).parent / "data" / "regression_hashes.json"
DIMENSION = 30
GENERATIONS = 20


def run_hash(variant: str, function: str) -> str:
    """SHA-256 of every asked row and told value of 20 generations (M = 40, c = 5, seed 7)."""
    f = get_function(function, DIMENSION, seed=3)
    es = EDAMCCStrategy(bounds=f.bounds, population_size=40, c=5, variant=variant, seed=7)
    digest = hashlib.sha256()
    while es.generation < GENERATIONS:
        x = es.ask()
        values = f(x)
        digest.update(x.tobytes())
        digest.update(values.tobytes())
        es.tell(x, values)
    digest.update(np.float64(es.best_f).tobytes())
    return digest.hexdigest()


def all_hashes() -> dict[str, str]:
    return {f"{v}/{name}": run_hash(v, name) for v in PAPER_VARIANTS for name, _, _ in list_functions()}


PAPER_VARIANTS = sorted(v for v in VARIANTS if not VARIANTS[v].adaptive)


@pytest.mark.parametrize("variant", PAPER_VARIANTS)
def test_every_paper_variant_repeats_its_pinned_trajectory_on_f1_to_f13(variant: str) -> None:
    pinned = json.loads(DATA.read_text())
    for name, _, _ in list_functions():
        assert run_hash(variant, name) == pinned[f"{variant}/{name}"], f"{variant} on {name} changed"


if __name__ == "__main__" and "--write" in sys.argv:
    DATA.write_text(json.dumps(all_hashes(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
