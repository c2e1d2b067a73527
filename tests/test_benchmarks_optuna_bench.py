"""The Optuna benchmark (benchmarks/optuna_bench.py): every sampler it names runs a short seeded
study, and the row named for a variant (edamcc-sep-cc, the default since 0.7) runs that variant."""

import math

import pytest

pytest.importorskip("optuna")
import optuna_bench  # noqa: E402  (a program of this repository: a failing import is a failure, not a skip)
from edamcc.adapters.optuna_sampler import EDAMCCSampler  # noqa: E402


def test_every_sampler_runs_a_short_study():
    for name in optuna_bench.SAMPLERS:
        r = optuna_bench.quality("F1", 5, 20, name, 0)
        assert r["sampler"] == name and r["trials"] == 20 and math.isfinite(r["error"]) and r["error"] >= 0


def test_the_sep_cc_row_is_that_variant_seeded(monkeypatch):
    r = optuna_bench.quality("F1", 10, 150, "EDAMCCSampler(sep-cc)", 3)
    monkeypatch.setitem(optuna_bench.SAMPLERS, "EDAMCCSampler(sep-cc)", lambda seed: EDAMCCSampler(seed=seed, variant="edamcc-sep-cc"))
    again = optuna_bench.quality("F1", 10, 150, "EDAMCCSampler(sep-cc)", 3)
    assert again["error"] == r["error"]
