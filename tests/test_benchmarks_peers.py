"""benchmarks/peers.py: budgets and the report over every run file."""

import json

import numpy as np
import pytest

import peers


def _write(directory, algorithm, fname, dim, budget, error, wall=1.0, seed=0):
    runs = directory / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    run = {"algorithm": algorithm, "function": fname, "dim": dim, "budget": budget, "seed": seed, "error": error, "wall_seconds": wall}
    (runs / f"{algorithm}__{fname}__{dim}__b{budget}__s{seed}.json").write_text(json.dumps(run))


def test_budget_is_the_papers_unless_a_factor_is_given():
    assert peers._budget(100, None) == 1_000_000 and peers._budget(500, None) == 2_500_000
    assert peers._budget(100, 1000) == 100_000


def test_report_has_one_table_per_dimension_and_budget(tmp_path):
    _write(tmp_path, "umdac", "F10", 100, 100_000, 2.0, wall=12.0)
    _write(tmp_path, "edamcc", "F10", 100, 100_000, 1e-13)
    _write(tmp_path, "edamcc", "F2", 100, 100_000, 3.0)
    _write(tmp_path, "edamcc", "F1", 500, 500_000, 4.0)
    text = peers.report(tmp_path)
    assert text.count("\n100D, 100000 evaluations, 1 run(s)") == 1 and text.count("\n500D, 500000 evaluations") == 1
    assert "| function | edamcc | umdac |" in text  # in ALGORITHMS order, not file order
    assert "| F2 | 3.00e+00 (1.0) | – |" in text
    assert "| F10 | 0.00e+00 (1.0) | 2.00e+00 (12) |" in text  # below 1e-12 is 0; long runs in whole seconds
    assert text.index("| F2 |") < text.index("| F10 |")


def test_minimize_options_name_the_variant_and_the_learned_partition():
    assert peers.minimize_options("edamcc-default") == {}
    assert peers.minimize_options("edamcc-exact-theta") == {"theta": "exact"} and "edamcc-exact-theta" in peers.SELF_ADAPTIVE
    assert peers.minimize_options("edamcc-csa") == {"variant": "edamcc-csa"}
    assert peers.minimize_options("edamcc-adaptive-learned") == {"variant": "edamcc-adaptive", "partition": "learned"}


def test_the_direction_only_experiment_is_the_default_plus_the_learned_direction():
    from dataclasses import fields

    from edamcc import VARIANTS

    variant = peers.minimize_options("edamcc-vd-lf0")["variant"]
    default, vd = VARIANTS["edamcc-sep-cc"], VARIANTS["edamcc-vd"]
    differ = lambda a, b: {f.name for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)}  # noqa: E731
    assert differ(variant, vd) == {"name", "description", "line_free_path"} and variant.line_free_path is False
    assert differ(variant, default) == {"name", "description", "learned_direction"} and variant.learned_direction
    assert "edamcc-vd-lf0" in peers.SELF_ADAPTIVE and "edamcc-vd-lf0" in peers.ALGORITHMS


def test_the_passive_direction_experiment_drops_only_the_active_term():
    from dataclasses import fields

    from edamcc import VARIANTS

    variant = peers.minimize_options("edamcc-vd-lf0-na")["variant"]
    lf0 = peers.minimize_options("edamcc-vd-lf0")["variant"]
    differ = {f.name for f in fields(variant) if getattr(variant, f.name) != getattr(lf0, f.name)}
    assert differ == {"name", "description", "active"} and lf0.active and not variant.active
    assert variant.learned_direction and variant.line_free_path is False
    assert "edamcc-vd-lf0-na" in peers.SELF_ADAPTIVE and "edamcc-vd-lf0-na" in peers.ALGORITHMS
    free = peers.minimize_options("edamcc-vd-lf0-na-wi")["variant"]
    differ = {f.name for f in fields(free) if getattr(free, f.name) != getattr(variant, f.name)}
    assert differ == {"name", "description", "direction_free_wi"} and free.direction_free_wi
    assert "edamcc-vd-lf0-na-wi" in peers.SELF_ADAPTIVE and "edamcc-vd-lf0-na-wi" in peers.ALGORITHMS
    registered = VARIANTS["edamcc-vd-wi"]  # the package's name for the same variant
    assert {f.name for f in fields(free) if getattr(free, f.name) != getattr(registered, f.name)} == {"name", "description"}


def test_the_model_metric_experiment_is_edamcc_vd_wi_with_the_active_term_read_in_the_models_metric():
    from dataclasses import fields

    from edamcc import VARIANTS

    variant = peers.minimize_options("edamcc-vd-wi-am")["variant"]
    registered = VARIANTS["edamcc-vd-wi"]
    differ = {f.name for f in fields(variant) if getattr(variant, f.name) != getattr(registered, f.name)}
    assert differ == {"name", "description", "active", "active_metric"}
    assert variant.active and variant.active_metric == "model" and not registered.active
    assert "edamcc-vd-wi-am" in peers.SELF_ADAPTIVE and "edamcc-vd-wi-am" in peers.ALGORITHMS


def test_budget_pop_scales_the_first_population_with_the_budget():
    # the default's 4 + 3 ln n up to about 170 n evaluations at n = 100, then budget / (10 n), at most 10 sqrt(n)
    assert peers.minimize_options("edamcc-budget-pop", 100, 10_000) == {"variant": "edamcc-csa", "population_size": 17}
    assert peers.minimize_options("edamcc-budget-pop", 100, 50_000) == {"variant": "edamcc-csa", "population_size": 50}
    assert peers.minimize_options("edamcc-budget-pop", 100, 100_000) == {"variant": "edamcc-csa", "population_size": 100}
    assert peers.minimize_options("edamcc-budget-pop", 100, 1_000_000) == {"variant": "edamcc-csa", "population_size": 100}
    assert peers.minimize_options("edamcc-budget-pop", 40, 40_000) == {"variant": "edamcc-csa", "population_size": 63}
    with pytest.raises(ValueError, match="dim and budget"):
        peers.minimize_options("edamcc-budget-pop")


def test_report_leaves_out_the_partition_benchmarks_own_problems(tmp_path):
    _write(tmp_path, "edamcc-csa", "F1", 100, 100_000, 2.0)
    _write(tmp_path, "edamcc-csa", "BlockEllipsoid5", 100, 100_000, 7.0)  # partition_bench.py's, same folder
    text = peers.report(tmp_path)
    assert "| F1 | 2.00e+00 (1.0) |" in text and "BlockEllipsoid5" not in text


def test_pycma_restarts_of_different_seeds_never_share_a_seed():
    first = [peers.cma_seed(s, 0) for s in range(5)]
    assert first == [1, 2, 3, 4, 5]  # a run's first pycma seed is seed + 1, as before restarts had seeds of their own
    seeds = [peers.cma_seed(s, r) for s in range(5) for r in range(50)]
    assert len(set(seeds)) == len(seeds) and all(0 < x < 2**31 for x in seeds)


def test_vd_cma_is_pycmas_diagonal_and_direction_sampler_and_solves_a_small_sphere():
    runs = {alg: peers.run_one(alg, "F1", 10, 3000, 0) for alg in ("sep-cma", "cma", "vd-cma")}
    assert runs["vd-cma"]["error"] < 1e-6 and runs["vd-cma"]["restarts"] == 0
    assert len({r["error"] for r in runs.values()}) == 3  # three different algorithms on the same seed


def test_ipop_sep_cma_restarts_with_doubled_populations_from_random_points_and_leaves_the_local_minimum():
    """Rastrigin (F11) at n = 10: pycma's own tolerances stop sep-CMA-ES in a local minimum, and
    IPOP's larger populations go further than the run restarted with its first population."""
    import cma

    seen = []
    real = cma.CMAEvolutionStrategy

    def spy(x0, sigma0, opts):
        seen.append((np.asarray(x0).copy(), opts.get("popsize")))
        return real(x0, sigma0, opts)

    cma.CMAEvolutionStrategy = spy
    try:
        ipop = peers.run_one("sep-cma-ipop", "F11", 10, 20_000, 0)
    finally:
        cma.CMAEvolutionStrategy = real
    plain = peers.run_one("sep-cma", "F11", 10, 20_000, 0)
    assert ipop["restarts"] >= 2 and [p for _, p in seen] == [10 * 2**r for r in range(len(seen))]  # 4 + floor(3 ln 10) = 10
    assert np.all(seen[0][0] == 0.0) and not np.array_equal(seen[1][0], seen[2][0])  # the centre, then random points
    assert ipop["error"] < plain["error"]

