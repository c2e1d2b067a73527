"""Settings (edamcc.settings): one source of defaults and checks for every entry point."""

import re

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, Settings, default_population_size, minimize
from edamcc.cli import _as_options
from edamcc.cli import main as cli_main
from edamcc.settings import check_budget, check_seed, check_target

BAD = [
    ({"theta": 1.5}, "theta: expected a number in [0, 1]"),
    ({"c": 0}, "c: expected an integer >= 1"),
    ({"m_corr": 1}, "m_corr: expected an integer >= 2"),
    ({"m_corr": 11, "population_size": 20}, "m_corr: expected an integer in [2, m=10]"),
    ({"population_size": 2}, "population_size: expected an integer >= 3"),
    ({"selection_ratio": 1.2}, "selection_ratio: expected a number in (0, 1]"),
    ({"selection_ratio": 0.05, "population_size": 20}, "population_size and selection_ratio: floor"),
    ({"variant": "nope"}, "variant: unknown name"),
    ({"repair": "wrap"}, "repair: expected one of"),
    ({"partition": "clusters"}, "partition: expected one of"),
    ({"partition": "learned", "variant": "edamcc"}, "partition: 'learned' is for the self-adaptive variants"),
    ({"theta": 0.3, "variant": "umdac"}, "theta: variant 'umdac' does not run WI (identify_weak=False)"),
    ({"m_corr": 10, "variant": "sm-only"}, "m_corr: variant 'sm-only' does not run WI (identify_weak=False)"),
    ({"c": 5, "variant": "wi-only"}, "c: variant 'wi-only' has no SM groups to cap (grouping='single')"),
    ({"partition": "learned", "variant": "sm-only"}, "partition: 'learned' is for the self-adaptive variants"),
]

CLI_FLAGS = {"theta": "--theta", "c": "-c", "m_corr": "--m-corr", "population_size": "-M",
             "selection_ratio": "--selection-ratio", "variant": "--variant", "repair": "--repair",
             "partition": "--partition"}  # fmt: skip


def test_defaults_and_where_they_come_from():
    s = Settings()
    assert (s.population_size, s.selection_ratio, s.m_corr, s.theta, s.c, s.variant.name, s.repair) == (
        None, 0.5, None, "auto", 20, "edamcc-sep-cc", "clip")  # fmt: skip
    assert Settings(variant="edamcc").theta == 0.3  # the paper's threshold comes with the paper's variant
    r = Settings(variant="edamcc").resolve(100, budget=10_000 * 100)
    assert (r.population_size, r.n_selected, r.m_corr) == (200, 100, 100)  # the paper's Section IV-A
    assert Settings(population_size=40, variant="edamcc").resolve(5).m_corr == 20  # min(100, m)
    umdac = Settings(variant="umdac").resolve(5)  # no WI, no groups: nothing to set, nothing shown
    assert (umdac.settings.theta, umdac.theta, umdac.m_corr, umdac.c) == (None, None, None, None)
    assert Settings(variant="sm-only").c == 20 and Settings(variant="wi-only").theta == 0.3


def test_the_learned_partition_needs_wi_whose_threshold_it_clusters_by():
    from dataclasses import replace

    from edamcc import VARIANTS

    blind = replace(VARIANTS["edamcc-sep-cc"], name="no-wi", identify_weak=False)  # it would refuse theta
    with pytest.raises(ValueError, match="^partition: 'learned' is for the self-adaptive variants"):
        Settings(variant=blind, partition="learned")
    assert Settings(variant=blind).theta is None


@pytest.mark.parametrize("variant", ["edamcc", "edamcc-sep-cc", "umdac", "mimic", "wi-only", "sm-only", "edamcc-gc"])
def test_settings_rebuilt_from_their_own_values_are_the_same(variant):
    """What the Nevergrad optimizer and a checkpoint do: the resolved values are accepted again."""
    s = Settings(variant=variant)
    assert Settings(**(s.to_dict() | {"variant": s.variant})) == s


def test_one_population_rule_follows_the_budget_then_the_dimension():
    assert [default_population_size(100, b) for b in (100, 3000, 6000, 10**6)] == [10, 100, 200, 200]
    assert [default_population_size(n) for n in (1, 10, 100, 500, 1000, 10**5)] == [20, 22, 50, 99, 136, 200]


@pytest.mark.parametrize("kwargs, message", BAD)
def test_the_same_bad_value_raises_the_same_error_in_every_entry_point(kwargs, message, capsys):
    with pytest.raises(ValueError, match=re.escape(message)) as direct:
        Settings(**kwargs).resolve(5)
    text = str(direct.value)
    with pytest.raises(ValueError) as es:
        EDAMCCStrategy(bounds=[(-1, 1)] * 5, **kwargs)
    assert str(es.value) == text
    with pytest.raises(ValueError) as mini:
        minimize(lambda x: 0.0, [(-1, 1)] * 5, budget=100, **kwargs)
    assert str(mini.value) == text
    argv = ["solve", "F1", "--dim", "5", "--budget", "100", "--quiet"]
    for key, value in kwargs.items():
        argv += [CLI_FLAGS[key], str(value)]
    with pytest.raises(SystemExit):
        cli_main(argv)
    err = capsys.readouterr().err
    assert _as_options(text) in err  # the same message, naming the CLI's options
    assert not re.search(r"\b(population_size|selection_ratio|m_corr)\b:", err)
    ng = pytest.importorskip("nevergrad")
    import edamcc.adapters.nevergrad_optimizer as nevergrad_optimizer

    with pytest.raises(ValueError) as nge:
        nevergrad_optimizer.EDAMCC(**kwargs)(parametrization=ng.p.Array(shape=(5,), lower=-1, upper=1), budget=100)
    assert str(nge.value) == text
    pytest.importorskip("optuna")
    from edamcc.adapters.optuna_sampler import EDAMCCSampler

    with pytest.raises(ValueError) as opt:
        EDAMCCSampler(**kwargs)
    assert str(opt.value) == text


def test_the_population_rule_refuses_what_it_cannot_size():
    for call, message in [(lambda: default_population_size(100, adaptive=True, scale="CSA"), "^scale: expected one of"),
                          (lambda: default_population_size(100, 0), "^budget: expected a positive integer"),
                          (lambda: default_population_size(0), "^dimension: expected a positive integer"),
                          (lambda: Settings(variant="edamcc").resolve(100, budget=-100), "^budget: expected a positive integer"),
                          (lambda: Settings().resolve(-3), "^dimension: expected a positive integer"),
                          (lambda: Settings().resolve(2.5), "^dimension: expected a positive integer")]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(TypeError, match="^adaptive: expected True or False"):
        default_population_size(100, adaptive=1)
    assert default_population_size(100, adaptive=np.True_, scale="csa") == default_population_size(100, adaptive=True, scale="csa")


def test_nothing_is_clamped():
    s = Settings(population_size=10, m_corr=5, theta=0.0, c=1, variant="edamcc")
    assert (s.population_size, s.m_corr, s.theta, s.c) == (10, 5, 0.0, 1)
    with pytest.raises(ValueError, match="m_corr"):
        Settings(population_size=10, m_corr=6, variant="edamcc")  # m = 5: refused, not reduced


def test_run_controls():
    assert check_seed(None) is None and check_seed(np.int64(3)) == 3
    for bad in (-1, 1.5, "abc", True):
        with pytest.raises(ValueError, match="seed: expected a non-negative integer"):
            check_seed(bad)
    assert check_budget(None) is None and check_budget(np.int32(7)) == 7
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(ValueError, match="budget: expected a positive integer"):
            check_budget(bad)
    assert check_target(-1) == -1.0
    for bad in (float("nan"), float("inf"), -float("inf"), "1"):
        with pytest.raises(ValueError, match=r"^target: expected a finite number or None"):
            check_target(bad)
    with pytest.raises(ValueError, match=r"^target: expected a finite number"):  # it stopped before any evaluation
        minimize(lambda x: float(x @ x), [(-1, 1)] * 2, budget=30, target=float("inf"))


def test_settings_are_frozen_and_report_themselves():
    s = Settings(variant="UMDAc")
    assert s.variant.name == "umdac" and s.to_dict()["variant"] == "umdac"
    with pytest.raises(AttributeError):
        s.theta = 0.5  # type: ignore[misc]
    assert Settings.names() == ("population_size", "selection_ratio", "m_corr", "theta", "c", "variant", "repair", "partition")


@pytest.mark.parametrize("variant", ["edamcc-adaptive", "edamcc-csa"])
def test_partition_is_random_by_default_and_learned_on_request_for_the_self_adaptive_variants(variant):
    assert Settings(variant=variant).partition == "random" and Settings(variant=variant).resolve(6).partition == "random"
    s = Settings(variant=variant, partition="learned")
    assert s.resolve(6).partition == "learned" and s.to_dict()["partition"] == "learned"
    for fixed in ("edamcc", "edamcc-gc", "wi-only", "sm-only", "umdac", "eeda", "mimic"):  # the paper fixes their grouping
        with pytest.raises(ValueError, match=f"variant '{fixed}' groups S as the paper fixes it"):
            Settings(variant=fixed, partition="learned")
    with pytest.raises(ValueError, match="partition: expected one of"):
        Settings(variant=variant, partition=None)


def test_too_small_a_population_names_it_and_the_smallest_that_works():
    for kw, least in (({"population_size": 3}, 4), ({"population_size": 5, "selection_ratio": 0.35}, 6)):
        with pytest.raises(ValueError, match=rf"^population_size and selection_ratio: .* = 1 selected rows.*population_size >= {least} "):
            Settings(**kw)
        Settings(**dict(kw, population_size=least))  # the smallest that works


def test_theta_exact_is_the_exact_null_laws_threshold_also_for_a_short_generation():
    from edamcc.wi_threshold import exact_theta

    rules = Settings(theta="exact").resolve(500)
    assert rules.theta == exact_theta(500, rules.m_corr) and rules.settings.theta == "exact"
    assert rules.theta_for(rules.m_corr - 2) == exact_theta(500, rules.m_corr - 2)
    assert Settings().resolve(500).theta_for(rules.m_corr - 2) != rules.theta_for(rules.m_corr - 2)
    for bad in ("Exact", "bonferroni", ""):
        with pytest.raises(ValueError, match=r"^theta: expected a number in \[0, 1\], 'auto' or 'exact'"):
            Settings(theta=bad)
