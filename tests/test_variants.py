"""The paper's algorithms as configurations (edamcc.variants)."""

from dataclasses import replace

import numpy as np
import pytest

from edamcc import VARIANTS, EDAMCCStrategy, Variant, get_variant


def test_every_variant_is_one_answer_to_the_three_questions():
    assert set(VARIANTS) == {"edamcc", "edamcc-adaptive", "edamcc-csa", "edamcc-tpa", "edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-wi", "edamcc-emna", "edamcc-gc", "wi-only", "sm-only", "umdac", "emna-global", "eeda", "mimic"}
    assert get_variant("edamcc") == Variant("edamcc", VARIANTS["edamcc"].description, True, "random", "eeda")
    assert (get_variant("umdac").identify_weak, get_variant("umdac").grouping) == (False, "none")
    assert get_variant("mimic").chain and get_variant("emna-global").block_scaling == "emna"
    for v in VARIANTS.values():
        assert v.grouping in ("random", "greedy", "single", "none") and v.block_scaling in ("eeda", "emna")
        assert v.scale in ("avs", "csa")
        assert "Table" in v.description or "Fig." in v.description or "et al." in v.description
    assert get_variant("edamcc-csa").adaptive and get_variant("edamcc-csa").scale == "csa"
    assert [v.name for v in VARIANTS.values() if v.uses_step_size] == ["edamcc-csa", "edamcc-tpa", "edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-wi"]
    assert not replace(VARIANTS["edamcc"], scale="csa").uses_step_size  # the paper's variants ignore scale
    assert [(v.name, v.two_point_from) for v in VARIANTS.values() if v.two_point_from is not None] == [("edamcc-tpa", 300)]
    assert replace(get_variant("edamcc-tpa"), name="edamcc-csa", description=VARIANTS["edamcc-csa"].description, two_point_from=None) == VARIANTS["edamcc-csa"]
    assert [v.name for v in VARIANTS.values() if v.rank_one_path != "cma"] == ["edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-wi"]
    assert replace(get_variant("edamcc-sep-cc"), name="edamcc-csa", description=VARIANTS["edamcc-csa"].description, rank_one_path="cma") == VARIANTS["edamcc-csa"]
    assert [(v.name, v.line_free_path) for v in VARIANTS.values() if v.line_free_path] == [("edamcc-sep-cc-lf", True), ("edamcc-vd", 0.75)]
    assert [v.name for v in VARIANTS.values() if v.learned_direction] == ["edamcc-vd", "edamcc-vd-wi"]
    sep_cc = VARIANTS["edamcc-sep-cc"]
    assert replace(get_variant("edamcc-sep-cc-lf"), name=sep_cc.name, description=sep_cc.description, line_free_path=False) == sep_cc
    assert replace(get_variant("edamcc-vd"), name=sep_cc.name, description=sep_cc.description, line_free_path=False, learned_direction=False) == sep_cc
    # edamcc-vd-wi: the default's variant with the direction, WI blind to it and no active term
    assert replace(get_variant("edamcc-vd-wi"), name=sep_cc.name, description=sep_cc.description, learned_direction=False,
                   direction_free_wi=False, active=True) == sep_cc  # fmt: skip
    assert [v.name for v in VARIANTS.values() if v.direction_free_wi] == ["edamcc-vd-wi"]


def test_lookup_is_forgiving_about_case_and_separators_and_strict_about_names():
    assert get_variant(" EMNA_global ").name == "emna-global"
    assert get_variant(VARIANTS["eeda"]) is VARIANTS["eeda"]
    with pytest.raises(ValueError, match="variant: unknown name"):
        get_variant("cma")
    with pytest.raises(TypeError, match="variant"):
        get_variant(3)  # type: ignore[arg-type]


def test_a_custom_variant_is_checked_when_it_is_made():
    custom = replace(VARIANTS["edamcc"], name="mine", block_scaling="emna")
    assert EDAMCCStrategy(bounds=[(0, 1)] * 3, variant=custom, seed=0).variant is custom
    bad = {"grouping": "randm", "block_scaling": "eda", "scale": "cma", "identify_weak": 1, "name": ""}
    for field, value in bad.items():
        with pytest.raises(ValueError, match=f"^{field}: expected"):
            replace(VARIANTS["edamcc"], **{field: value})
    with pytest.raises(ValueError, match="^chain:"):
        replace(VARIANTS["edamcc"], chain=True)  # a chain with WI and random groups
    with pytest.raises(ValueError, match="^identify_weak: .*grouping other than 'none'"):
        replace(VARIANTS["edamcc"], grouping="none")  # WI that would never run
    with pytest.raises(ValueError, match="^chain:"):
        replace(VARIANTS["mimic"], adaptive=True)
    with pytest.raises(ValueError, match="^grouping: 'greedy' .*needs identify_weak=True"):
        replace(VARIANTS["edamcc-gc"], identify_weak=False)  # its clusters need WI's theta, which it would refuse
    assert [v.name for v in VARIANTS.values() if v.unused_settings == ("m_corr", "theta", "c")] == ["umdac", "emna-global", "eeda", "mimic"]
    assert VARIANTS["sm-only"].unused_settings == ("m_corr", "theta") and VARIANTS["wi-only"].unused_settings == ("c",)
    for base in ("edamcc", "edamcc-adaptive"):  # the two-point rule sets a cumulative step size's sigma: csa only
        with pytest.raises(ValueError, match="^two_point_from: .*adaptive=True and scale='csa'"):
            replace(VARIANTS[base], two_point_from=300)
    for bad_from in (0, -3, 2.5, True, "300"):
        with pytest.raises(ValueError, match="^two_point_from: expected a positive integer"):
            replace(VARIANTS["edamcc-tpa"], two_point_from=bad_from)
    assert replace(VARIANTS["edamcc-tpa"], name="everywhere", two_point_from=1).two_point_from == 1
    with pytest.raises(ValueError, match="^rank_one_path: expected one of"):
        replace(VARIANTS["edamcc-sep-cc"], rank_one_path="sep")
    for base in ("edamcc", "edamcc-adaptive"):  # the path feeds csa's remembered shape: csa only
        with pytest.raises(ValueError, match="^rank_one_path: .*adaptive=True and scale='csa'"):
            replace(VARIANTS[base], rank_one_path="separable")
        with pytest.raises(ValueError, match="^active: .*adaptive=True and scale='csa'"):
            replace(VARIANTS[base], active=True)
        with pytest.raises(ValueError, match="^line_free_path: .*adaptive=True and scale='csa'"):
            replace(VARIANTS[base], line_free_path=True)
        with pytest.raises(ValueError, match="^learned_direction: .*adaptive=True and scale='csa'"):
            replace(VARIANTS[base], learned_direction=True)
        with pytest.raises(ValueError, match="^population_adaptation: .*adaptive=True and scale='csa'"):
            replace(VARIANTS[base], population_adaptation="path")
    with pytest.raises(ValueError, match="^active: expected True or False"):
        replace(VARIANTS["edamcc-csa"], active=1)
    for bad_weight in ("yes", 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match=r"^line_free_path: expected True, False or a weight in \[0, 1\]"):
            replace(VARIANTS["edamcc-sep-cc"], line_free_path=bad_weight)
    assert replace(VARIANTS["edamcc-sep-cc"], line_free_path=0.5).line_free_path == 0.5
    with pytest.raises(ValueError, match="^learned_direction: expected True or False"):
        replace(VARIANTS["edamcc-sep-cc"], learned_direction=1)
    with pytest.raises(ValueError, match="^direction_free_wi: expected True or False"):
        replace(VARIANTS["edamcc-vd"], direction_free_wi=1)
    with pytest.raises(ValueError, match="^direction_free_wi: .*learned_direction=True and identify_weak=True"):
        replace(VARIANTS["edamcc-sep-cc"], direction_free_wi=True)  # no direction to take out
    assert replace(VARIANTS["edamcc-vd"], direction_free_wi=True).direction_free_wi
    numpy_flag = replace(VARIANTS["edamcc-sep-cc"], name="numpy-flag", active=np.False_)  # a NumPy bool is a flag too
    assert numpy_flag.active is False and numpy_flag == replace(VARIANTS["edamcc-sep-cc"], name="numpy-flag", active=False)
    assert replace(VARIANTS["edamcc-sep-cc"], name="numpy-flag", line_free_path=np.True_).line_free_path is True
    for bad_metric in ("Model", None, 1):
        with pytest.raises(ValueError, match=r"^active_metric: expected one of \('diagonal', 'model'\)"):
            replace(VARIANTS["edamcc-sep-cc"], active_metric=bad_metric)
    with pytest.raises(ValueError, match="^active_metric: .*needs active=True"):
        replace(VARIANTS["edamcc-vd-wi"], active_metric="model")  # no active term to read rows for
    assert replace(VARIANTS["edamcc-vd-wi"], active=True, active_metric="model").active_metric == "model"
    assert all(v.active_metric == "diagonal" for v in VARIANTS.values())  # the experiment edamcc-vd-wi-am is not registered
    for bad_rule in ("PSA", True, 1):
        with pytest.raises(ValueError, match=r"^population_adaptation: expected one of \('psa', 'path'\) or None"):
            replace(VARIANTS["edamcc-sep-cc"], population_adaptation=bad_rule)
    assert not any(v.population_adaptation for v in VARIANTS.values())  # an experiment (benchmarks/peers.py), not registered
    assert all(VARIANTS[name].active for name in ("edamcc-csa", "edamcc-tpa", "edamcc-sep-cc"))
    assert not replace(VARIANTS["edamcc-csa"], name="passive", active=False).active


def test_a_variant_pickled_before_a_field_was_added_unpickles_with_the_fields_default():
    import pickle

    variant = VARIANTS["edamcc-vd"]
    restored = pickle.loads(pickle.dumps(variant))
    assert restored == variant
    state = dict(variant.__dict__)
    del state["direction_free_wi"]  # as pickled by a version without the field
    old = object.__new__(Variant)
    old.__setstate__(state)
    assert old.direction_free_wi is False and old == variant
