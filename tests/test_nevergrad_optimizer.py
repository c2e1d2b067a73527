"""ng.optimizers.registry["EDAMCC"]: Nevergrad's generic checks and the behaviours users rely on."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

ng = pytest.importorskip("nevergrad")
from nevergrad.optimization.test_optimizerlib import check_optimizer  # noqa: E402

import edamcc.adapters.nevergrad_optimizer as adapter  # noqa: E402


def sphere(x):
    return float(np.sum(np.asarray(x) ** 2))


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name", sorted(adapter.REGISTERED))
def test_nevergrads_own_check_optimizer(name):
    check_optimizer(ng.optimizers.registry[name], budget=300)


def test_registered_in_a_fresh_interpreter_after_the_documented_import():
    code = (
        "import nevergrad as ng, edamcc.adapters.nevergrad_optimizer as a, importlib;"
        "importlib.reload(a);"  # a second registration must not collide
        "o = ng.optimizers.registry['EDAMCC'](parametrization=3, budget=60);"
        "print(type(o).__name__, o.minimize(lambda x: float((x**2).sum())).value.shape)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "_EDAMCC (3,)"


def test_options_mirror_the_strategy_and_bad_options_raise_at_construction():
    opt = ng.optimizers.registry["EDAMCC-Paper"](parametrization=30, budget=3000)
    es = opt.strategy
    assert (es.population_size, es.theta, es.c, es.variant.name) == (100, 0.3, 20, "edamcc")
    default = ng.optimizers.registry["EDAMCC"](parametrization=30, budget=3000).strategy
    assert default.variant.name == "edamcc-sep-cc" and default.population_size == 14  # the package's default: 4 + 3 ln 30
    custom = adapter.EDAMCC(population_size=40, theta=0.2, c=5, m_corr=10, selection_ratio=0.25, variant="edamcc-gc")
    es = custom(parametrization=30, budget=3000).strategy
    assert (es.population_size, es.theta, es.c, es.m_corr, es.n_selected, es.variant.name) == (40, 0.2, 5, 10, 10, "edamcc-gc")
    with pytest.raises(ValueError, match="theta: variant 'umdac' does not run WI"):  # refused, not ignored
        adapter.EDAMCC(theta=0.2, variant="umdac")
    # settings that depend on the problem's size are checked on the problem, not on a stand-in
    paper = adapter.EDAMCC(variant="edamcc", m_corr=100)(parametrization=50, budget=500_000).strategy
    assert (paper.population_size, paper.n_selected, paper.m_corr) == (200, 100, 100)
    assert adapter.EDAMCC(selection_ratio=0.1)(parametrization=1000, budget=10_000).strategy.n_selected == 2
    with pytest.raises(ValueError, match=r"m_corr: expected an integer in \[2, m=5\]"):
        adapter.EDAMCC(variant="edamcc", m_corr=100)(parametrization=4, budget=100)
    learned = adapter.EDAMCC(variant="edamcc-csa", partition="learned")(parametrization=30, budget=3000).strategy
    assert learned.settings.partition == "learned" and es.settings.partition == "random"
    with pytest.raises(ValueError, match="theta"):
        adapter.EDAMCC(theta=2.0)(parametrization=3, budget=10)
    for budget in (-5, 0, 2.5, True):  # the population rule reads the budget: checked as the strategy checks it
        with pytest.raises(ValueError, match="budget"):
            ng.optimizers.registry["EDAMCC-Paper"](parametrization=3, budget=budget)
    assert ng.optimizers.registry["EDAMCC-UMDAc"](parametrization=3, budget=100).strategy.variant.name == "umdac"


def test_bounded_array_uses_the_true_box_for_initialization_and_repair():
    param = ng.p.Array(shape=(20,), lower=-5.0, upper=5.0)
    opt = ng.optimizers.registry["EDAMCC"](parametrization=param, budget=4000)
    asked = [opt.ask() for _ in range(opt.strategy.population_size)]
    first = np.array([c.value for c in asked])
    assert first.min() < -4.5 and first.max() > 4.5  # uniform over the whole box
    for c in asked:  # every asked candidate is told: a generation closes when all its rows are
        opt.tell(c, float(np.sum((c.value - 5.0) ** 2)))
    lo, hi, bounded = adapter.standardized_box(param)
    assert bounded.all() and opt.strategy.bounds[0].tolist() == lo.tolist()
    rec = opt.minimize(lambda x: float(np.sum((x - 5.0) ** 2)))  # optimum on the bound
    assert np.all(rec.value <= 5.0) and np.sum((rec.value - 5.0) ** 2) < 10.0  # a random point: ~700


def test_unbounded_array_scalar_and_instrumentation():
    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(5,)), budget=3000)
    rec = opt.minimize(lambda x: float(np.sum((x - 7.0) ** 2)))  # beyond the initial [-2, 2]
    assert np.allclose(rec.value, 7.0, atol=0.5)
    assert opt.strategy.settings.repair == "none"

    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Scalar(lower=-3, upper=3), budget=300)
    assert abs(opt.minimize(lambda x: (x - 1.5) ** 2).value - 1.5) < 0.05

    inst = ng.p.Instrumentation(ng.p.Array(shape=(3,), lower=-1, upper=1), ng.p.Array(shape=(2,)), y=ng.p.Scalar(lower=0, upper=10))

    def f(a, b, y):
        return float(np.sum((a - 0.5) ** 2) + np.sum((b + 3) ** 2) + (y - 2) ** 2)

    rec = ng.optimizers.registry["EDAMCC"](parametrization=inst, budget=3000).minimize(f)
    (a, b), kw = rec.value
    assert f(a, b, **kw) < 1e-2


def test_integer_and_categorical_work_through_the_standardized_space():
    inst = ng.p.Instrumentation(
        ng.p.Scalar(lower=-10, upper=10).set_integer_casting(), ng.p.Choice(["a", "b", "c"]), x=ng.p.Array(shape=(3,))
    )

    def f(i, ch, x):
        return abs(i - 3) + (0 if ch == "b" else 5) + float(np.sum(x**2))

    rec = ng.optimizers.registry["EDAMCC"](parametrization=inst, budget=1500).minimize(f)
    (i, ch), kw = rec.value
    assert isinstance(i, int) and i == 3 and ch == "b"


def test_parallel_asks_beyond_the_generation_tells_in_any_order_and_nan_losses():
    opt = ng.optimizers.registry["EDAMCC-Paper"](parametrization=ng.p.Array(shape=(4,), lower=-3, upper=3), budget=2000, num_workers=50)
    M = opt.strategy.population_size
    cands = [opt.ask() for _ in range(M + 25)]  # more than one generation's candidates
    assert opt.strategy.generation == 0
    for k, cand in enumerate(reversed(cands)):
        loss = np.nan if k % 7 == 0 else (np.inf if k % 11 == 0 else sphere(cand.value))
        opt.tell(cand, loss)
    assert opt.strategy.generation == 1
    assert opt.strategy.evaluations == M + 25
    rec = opt.minimize(sphere)
    assert sphere(rec.value) < 1e-3


def test_suggest_and_tell_not_asked_join_the_selection():
    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,), lower=-3, upper=3), budget=500)
    opt.suggest(np.array([0.1, 0.1, 0.1]))
    cand = opt.ask()
    np.testing.assert_allclose(cand.value, [0.1, 0.1, 0.1])
    opt.tell(cand, sphere(cand.value))
    outsider = opt.parametrization.spawn_child().set_standardized_data(np.array([0.0, 0.0, 0.01]))
    opt.tell(outsider, 1e-4)  # never asked: supported
    assert opt.num_tell_not_asked >= 1
    assert opt.strategy.best_f == 1e-4
    np.testing.assert_allclose(opt.recommend().value, outsider.value)


def test_recommend_before_any_tell_is_the_parametrizations_start_and_samples_nothing():
    param = ng.p.Array(init=np.array([0.5, -1.0, 2.0]))
    opt = ng.optimizers.registry["EDAMCC"](parametrization=param, budget=100)
    np.testing.assert_array_equal(opt.recommend().value, [0.5, -1.0, 2.0])
    assert opt.num_ask == 0 and opt.strategy.evaluations == 0


def test_seeding_through_the_parametrization_random_state():
    def run(seed):
        param = ng.p.Array(shape=(6,), lower=-2, upper=2)
        param.random_state.seed(seed)
        opt = ng.optimizers.registry["EDAMCC"](parametrization=param, budget=600)
        return opt.minimize(sphere).value

    np.testing.assert_array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_an_optimizer_dumped_when_every_variant_got_theta_and_c_still_runs(tmp_path):
    """Until the settings a variant does not use were None, a dump kept theta=0.3 and c=20 for
    every variant; loaded, its strategy (made at the first ask) refused them."""
    for name in ("EDAMCC-UMDAc", "EDAMCC-WIOnly"):
        opt = ng.optimizers.registry[name](parametrization=ng.p.Array(shape=(4,), lower=-1, upper=1), budget=60)
        opt._options.update(theta=0.3, c=20, m_corr=None)  # as such a dump holds them
        opt.dump(tmp_path / "old.pkl")
        loaded = ng.optimizers.registry[name].load(tmp_path / "old.pkl")
        loaded.minimize(sphere)
        assert loaded.strategy.evaluations == 60


def test_bounds_that_broadcast_over_the_array_give_each_variable_its_own_box():
    param = ng.p.Array(shape=(2, 3)).set_bounds(lower=np.array([[-1.0], [-3.0]]), upper=np.array([[1.0], [3.0]]))
    lower, upper, bounded = adapter.standardized_box(param)
    assert bounded.all()
    np.testing.assert_array_equal(param.spawn_child().set_standardized_data(lower).value, [[-1.0] * 3, [-3.0] * 3])
    np.testing.assert_array_equal(param.spawn_child().set_standardized_data(upper).value, [[1.0] * 3, [3.0] * 3])
    columns = ng.p.Array(shape=(2, 3)).set_bounds(lower=-np.array([[1.0, 2.0, 3.0]]), upper=np.array([[1.0, 2.0, 3.0]]))
    top = columns.spawn_child().set_standardized_data(adapter.standardized_box(columns)[1]).value
    np.testing.assert_array_equal(top, [[1.0, 2.0, 3.0]] * 2)


def test_dump_and_load_resume_the_same_trajectory(tmp_path):
    def fresh():
        param = ng.p.Array(shape=(5,), lower=-2, upper=2)
        param.random_state.seed(1)
        return ng.optimizers.registry["EDAMCC"](parametrization=param, budget=1000)

    def steps(opt, k):
        out = []
        for _ in range(k):
            cand = opt.ask()
            out.append(cand.value.copy())
            opt.tell(cand, sphere(cand.value))
        return np.array(out)

    straight = fresh()
    expected = steps(straight, 130)
    interrupted = fresh()
    head = steps(interrupted, 57)  # mid-generation
    path = tmp_path / "opt.pkl"
    interrupted.dump(path)
    resumed = type(interrupted).load(path)
    tail = steps(resumed, 73)
    np.testing.assert_array_equal(np.concatenate([head, tail]), expected)


def test_structure_record_is_exposed():
    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(8,), lower=-5, upper=5), budget=3000)
    opt.minimize(lambda x: float(100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2 + np.sum(x[2:] ** 2)))
    rec = opt.structure
    assert rec.n_strong.size == opt.strategy.generation
    assert rec.pair_frequency().shape == (8, 8)


def test_nan_and_inf_losses_reach_the_strategy_as_given_and_rank_worst():
    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,), lower=-3, upper=3), budget=200)
    seen = []
    original = opt.strategy.tell
    opt.strategy.tell = lambda x, f: (seen.append(float(f)), original(x, f))[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nevergrad warns that it clips NaN to 5e20 for itself
        for loss in (np.nan, np.inf, 1e30, 2.0):
            opt.tell(opt.ask(), loss)
    assert np.isnan(seen[0]) and seen[1:] == [np.inf, 1e30, 2.0]
    assert opt.strategy.best_f == 2.0  # the finite values rank as given: 2.0 is the best told


@pytest.mark.parametrize("variant", ["EDAMCC", "EDAMCC-GC", "EDAMCC-MIMIC", "EDAMCC-UMDAc", "EDAMCC-EEDA"])
def test_dump_and_load_with_several_workers_resume_bit_exactly(tmp_path, variant):
    def run(dump_at=None):
        """300 asks, six in flight (asks run past the generation: extras), told in reverse;
        after 141 asks the three in flight are told, and the optimizer may be dumped and loaded."""
        param = ng.p.Array(shape=(12,), lower=-2, upper=2)
        param.random_state.seed(2)
        opt = ng.optimizers.registry[variant](parametrization=param, budget=3000, num_workers=6)
        out, held = [], []
        for asked in range(1, 301):
            held.append(opt.ask())
            if len(held) == 6 or asked == 141:
                for cand in held[::-1]:
                    out.append(cand.value.copy())
                    opt.tell(cand, sphere(cand.value))
                held = []
            if asked == dump_at:  # mid-generation
                opt.dump(tmp_path / "opt.pkl")
                opt = type(opt).load(tmp_path / "opt.pkl")
        return np.array(out)

    np.testing.assert_array_equal(run(dump_at=141), run())


def test_without_nevergrad_the_import_error_gives_an_install_hint_that_works_from_a_clone_and_an_index():
    code = "import sys; sys.modules['nevergrad'] = None\nimport edamcc.adapters.nevergrad_optimizer"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "pip install nevergrad" in proc.stderr and "pip install '.[nevergrad]'" in proc.stderr
    assert "pip install 'edamcc[nevergrad]'" in proc.stderr


def test_a_cheap_constraint_lets_the_generations_close_and_the_search_converge():
    param = ng.p.Array(shape=(4,), lower=-5, upper=5)
    param.random_state.seed(0)
    param.register_cheap_constraint(lambda x: x[0] > 0)
    opt = ng.optimizers.registry["EDAMCC"](parametrization=param, budget=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = opt.minimize(lambda x: float(np.sum((x - 3) ** 2)))
    es = opt.strategy
    assert es.generation > 50 and es.n_in_flight == 0  # rejected asks are told (as inf), not left in flight
    assert np.sum((best.value - 3) ** 2) < 1e-6


def test_a_rejected_candidate_handed_out_anyway_can_be_told():
    """With tabu_length > 0 Nevergrad tells (as inf) the candidates its cheap constraint rejected,
    then may return the last one: the user's tell of it is a point not asked, not a second tell."""
    param = ng.p.Array(shape=(2,), lower=-1, upper=1)
    param.tabu_length = 1
    param.register_cheap_constraint(lambda x: x[0] > 5)  # never met
    param.random_state.seed(0)
    opt = ng.optimizers.registry["EDAMCC"](parametrization=param, budget=50)
    candidate = opt.ask()
    opt.tell(candidate, 1.0)  # "row 0 was already told" before
    assert opt.strategy.n_in_flight == 0 and np.isfinite(opt.strategy.best_f)  # 1.0 with Nevergrad's penalty


def test_constraint_penalties_reach_the_strategy_and_clipping_does_not():
    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,)), budget=100)
    seen = []
    tell = opt.strategy.tell
    opt.strategy.tell = lambda x, f: (seen.append(float(f)), tell(x, f))
    for loss, violation in ((1.0, [5.0]), (1.0, None), (1e30, None), (np.inf, None), (np.nan, None)):
        opt.tell(opt.ask(), loss, constraint_violation=violation)
    assert seen[0] > 1.0 and seen[1] == 1.0  # the penalized loss, then the loss as given
    assert seen[2] == 1e30 and seen[3] == np.inf and np.isnan(seen[4])  # not Nevergrad's 5e20


def test_a_loss_given_as_a_one_element_array_is_unclipped_like_a_number():
    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,), lower=-1, upper=1), budget=100)
    seen = []
    tell = opt.strategy.tell
    opt.strategy.tell = lambda x, f: (seen.append(float(f)), tell(x, f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nevergrad warns that it clips NaN and inf for itself
        for loss in (np.array(np.nan), np.array(1e30), np.array(np.inf), np.array([1e30]), np.array(2.0)):
            opt.tell(opt.ask(), loss)
    assert np.isnan(seen[0]) and seen[1:] == [1e30, np.inf, 1e30, 2.0]  # not Nevergrad's 5e20


def test_with_every_loss_above_nevergrads_clip_the_recommendation_is_the_best_told_not_the_last():
    def huge(x):  # every loss above 5e20: Nevergrad clips them all to 5e20 for itself
        return float(1e25 * (1.0 + np.sum((np.asarray(x) - 0.3) ** 2)))

    param = ng.p.Array(shape=(3,), lower=-2, upper=2)
    param.random_state.seed(0)
    opt = ng.optimizers.registry["EDAMCC"](parametrization=param, budget=300)
    rec = opt.minimize(huge)
    assert huge(rec.value) == opt.strategy.best_f  # the lowest loss told
    # below the clip Nevergrad's own recommendation stands
    small = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,), lower=-2, upper=2), budget=100)
    first = small.ask()
    small.tell(first, 1e30)
    second = small.ask()
    small.tell(second, 1.0)
    assert small.recommend().value.tolist() == second.value.tolist()


def test_with_tied_clipped_losses_the_recommendation_does_not_depend_on_the_order_of_the_tells():
    picks = []
    for order in ((0, 1), (1, 0)):
        opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,), lower=-2, upper=2), budget=100)
        asked = [opt.ask(), opt.ask()]
        for i in order:
            opt.tell(asked[i], 1e30)
        picks.append(opt.recommend().value.tolist())
        assert picks[-1] == asked[0].value.tolist()  # the row asked first, as the strategy's best_x


def test_an_optimizer_pickled_before_it_kept_its_best_candidate_loads_and_recommends():
    import pickle

    opt = ng.optimizers.registry["EDAMCC"](parametrization=ng.p.Array(shape=(3,), lower=-2, upper=2), budget=100)
    opt.tell(opt.ask(), 1.0)
    opt.strategy  # noqa: B018 (made at the first ask)
    del opt.__dict__["_best"]
    es = opt.strategy
    for name in ("_best_number", "_closed_best"):
        es.__dict__.pop(name, None)
    del es._ledger.__dict__["_base"], es._ledger.__dict__["_orphan_numbers"]
    old = pickle.loads(pickle.dumps(opt))  # what the previous version's dump holds
    old.tell(old.ask(), 0.5)
    assert old.recommend() is not None and old.strategy.best_f == 0.5


def test_a_variant_of_the_users_own_runs_as_given_and_survives_dump_and_load(tmp_path):
    from dataclasses import replace

    from edamcc import get_variant

    mine = replace(get_variant("umdac"), name="my-umdac", description="UMDAc, renamed")
    tuned = replace(get_variant("edamcc-sep-cc"), line_free_path=True)  # a registered name, another rule
    for variant in (mine, tuned):
        param = ng.p.Array(shape=(4,), lower=-2, upper=2)
        param.random_state.seed(3)
        opt = adapter.EDAMCC(variant=variant)(param, budget=200)
        for _ in range(60):
            cand = opt.ask()
            opt.tell(cand, sphere(cand.value))
        assert opt.strategy.variant == variant
        path = tmp_path / f"{variant.name}.pkl"
        opt.dump(path)
        assert type(opt).load(path).strategy.variant == variant


def test_a_candidate_never_told_warns_once_instead_of_stalling_silently():
    p = ng.p.Array(shape=(6,), lower=-5, upper=5)
    p.random_state.seed(0)
    opt = ng.optimizers.registry["EDAMCC"](p, budget=1500)
    opt.ask()  # its evaluation crashed and it was never told: its generation never closes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(1499):
            c = opt.ask()
            opt.tell(c, float(np.sum(c.value**2)))
    held = [w for w in caught if "has not been told yet" in str(w.message)]
    assert len(held) == 1 and held[0].filename == __file__  # once, pointing at the caller's ask
    assert "generation 0" in str(held[0].message) and "loss NaN" in str(held[0].message)


def test_out_of_order_tells_of_several_workers_do_not_warn():
    p = ng.p.Array(shape=(6,), lower=-5, upper=5)
    p.random_state.seed(1)
    opt = ng.optimizers.registry["EDAMCC"](p, budget=3000, num_workers=8)
    rng = np.random.default_rng(0)
    out = [opt.ask() for _ in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3000 - 8):
            c = out.pop(int(rng.integers(len(out))))  # a random one of the 8 running finishes
            opt.tell(c, float(np.sum(c.value**2)))
            out.append(opt.ask())
    assert opt.recommend().loss < 1e-3


def test_a_batch_of_many_workers_told_in_full_does_not_warn():
    p = ng.p.Array(shape=(10,), lower=-5, upper=5)
    p.random_state.seed(0)
    opt = ng.optimizers.registry["EDAMCC"](p, budget=1800, num_workers=600)  # 59 populations asked before any tell
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            batch = [opt.ask() for _ in range(600)]
            for c in reversed(batch):
                opt.tell(c, float(np.sum(c.value**2)))
    assert len(opt.strategy.pending()) == 0
