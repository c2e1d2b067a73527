"""benchmarks/steady_state_quality.py: the simulated steady state and generational runs."""

import numpy as np
import steady_state_quality as ssq

from edamcc import EDAMCCStrategy

BOUNDS = [(-5.0, 5.0)] * 4


def _strategy(budget, seed=3):
    return EDAMCCStrategy(bounds=BOUNDS, population_size=8, seed=seed, budget=budget)


def test_one_worker_steady_state_is_the_generational_run():
    # one row in flight: each is told as it ends, in order, so the generations see the same rows
    wall, best = ssq.generational(_strategy(80), ssq.FUNCTIONS["sphere"], workers=1)
    out = ssq.steady(_strategy(80), ssq.FUNCTIONS["sphere"], workers=1, cut=np.inf)
    assert out["best"] == best and out["extra_share"] == 0.0 and out["told_by_cut"] == 80
    assert wall > 0.02 * 80


def test_many_workers_draw_extras_and_the_cut_counts_what_ended_by_then():
    wall, _ = ssq.generational(_strategy(96), ssq.FUNCTIONS["sphere"], workers=6)
    out = ssq.steady(_strategy(4 * 96), ssq.FUNCTIONS["sphere"], workers=6, cut=wall)
    assert 0.3 < out["extra_share"] < 1.0  # a generation of 7 rows with 6 in flight: mostly extras
    assert 96 <= out["told_by_cut"] < 4 * 96  # no worker waits, so at least as many end in the same time
    assert out["best"] <= out["best_at_cut"]


def test_cell_reports_medians_and_counts():
    r = ssq.cell("edamcc-csa", "rosenbrock", 3, seeds=2, dim=4, budget=48, population=8)
    assert set(r) == {"generational", "steady", "steady_same_time", "evaluations_same_time", "extra_share",
                      "steady_better_same_budget", "steady_better_same_time"}  # fmt: skip
    assert 0 <= r["steady_better_same_time"] <= 2 and r["evaluations_same_time"] >= 48
    # the medians are those of the seeds' own runs (two seeds: the mean of the two)
    make = lambda seed, b: EDAMCCStrategy(bounds=[(-5.0, 5.0)] * 4, population_size=8, variant="edamcc-csa", seed=seed, budget=b)  # noqa: E731
    fun = ssq.FUNCTIONS["rosenbrock"]
    gen = [ssq.generational(make(s, 48), fun, 3)[1] for s in (0, 1)]
    steady = [ssq.steady(make(s, 48), fun, 3, cut=np.inf) for s in (0, 1)]
    assert r["generational"] == np.median(gen) and r["steady"] == np.median([o["best"] for o in steady])
    assert r["extra_share"] == np.median([o["extra_share"] for o in steady])
    assert r["steady_better_same_budget"] == sum(o["best"] < g for o, g in zip(steady, gen))


def test_cost_is_drawn_from_the_point():
    x = np.array([0.5, -1.0, 2.0, 0.0])
    assert ssq.cost(x) == ssq.cost(x.copy()) and 0.02 <= ssq.cost(x) <= 0.2
    assert ssq.cost(x) != ssq.cost(x + 1.0)  # another point, another cost
