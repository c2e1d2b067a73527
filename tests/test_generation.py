"""The generation rule (edamcc.generation): membership by row number, elite, selection, model."""

import numpy as np
import pytest

from edamcc import Settings, block_of, block_size, block_start, close_generation
from edamcc.generation import finite_ranking, fit_generation, start_adaptation
from edamcc.variants import get_variant
from edamcc.wi_threshold import auto_theta

RULES = Settings(population_size=10, c=2, variant="edamcc").resolve(4)


def test_blocks_are_m_rows_then_m_minus_one_and_cover_every_number_once():
    assert [block_size(g, 10) for g in range(3)] == [10, 9, 9]
    assert [block_start(g, 10) for g in range(4)] == [0, 10, 19, 28]
    numbers = np.arange(200)
    owners = [block_of(int(k), 10) for k in numbers]
    for g in range(20):
        members = numbers[np.array(owners) == g]
        assert members.tolist() == list(range(block_start(g, 10), block_start(g, 10) + block_size(g, 10)))


def test_the_ranking_puts_nan_and_inf_out_and_keeps_ties_in_order():
    f = np.array([3.0, np.nan, 1.0, -np.inf, 1.0, np.inf, 2.0])
    assert finite_ranking(f)[:3].tolist() == [2, 4, 6]  # truncation selection of m = 3
    assert finite_ranking(f).tolist() == [2, 4, 6, 0]  # NaN and +-inf are never ranked
    assert finite_ranking(np.array([np.nan, 1.0, np.inf])) is None


def test_close_generation_puts_the_elite_first_and_keeps_the_earliest_of_ties():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(9, 4))
    values = np.arange(9.0) + 1.0
    elite = np.full(4, 7.0)
    closed = close_generation(elite, 1.0, rows, values, RULES, np.random.default_rng(1))
    np.testing.assert_array_equal(closed.elite_x, elite)  # tied with row 0: the elite stays
    np.testing.assert_array_equal(closed.selected, np.vstack([elite, rows[:4]]))  # m = 5
    assert closed.fitted is not None and closed.fitted.weak is not None


def test_fewer_than_two_finite_values_keep_the_model_but_move_the_elite():
    rows = np.ones((9, 4))
    values = np.full(9, np.nan)
    values[3] = 5.0
    closed = close_generation(None, np.inf, rows * np.arange(9)[:, None], values, RULES, np.random.default_rng(0))
    assert closed.selected is None and closed.fitted is None
    assert closed.elite_f == 5.0 and closed.elite_x.tolist() == [3.0] * 4


def test_the_rule_is_pure_same_inputs_same_generator_same_model():
    rng = np.random.default_rng(2)
    rows, values = rng.normal(size=(9, 4)), rng.normal(size=9)
    a = close_generation(None, np.inf, rows, values, RULES, np.random.default_rng(5))
    b = close_generation(None, np.inf, rows.copy(), values.copy(), RULES, np.random.default_rng(5))
    np.testing.assert_array_equal(a.fitted.model.mean, b.fitted.model.mean)
    assert [g.tolist() for g in a.fitted.partition] == [g.tolist() for g in b.fitted.partition]


@pytest.mark.parametrize("name", ["edamcc", "umdac", "eeda", "mimic", "edamcc-gc", "wi-only"])
def test_fit_generation_follows_the_variant(name):
    variant = get_variant(name)
    selected = np.random.default_rng(0).normal(size=(20, 6))
    fitted = fit_generation(selected, variant, theta=0.3, c=3, m_corr=20, rng=np.random.default_rng(0))
    assert (fitted.weak is None) == (not variant.identify_weak)
    assert fitted.model.sample(np.random.default_rng(1), 4).shape == (4, 6)


def test_structure_rows_decide_wi_while_the_model_is_fitted_on_the_selected_rows():
    rng = np.random.default_rng(0)
    independent = rng.normal(size=(40, 6))
    selected = independent.copy()
    selected[:, 1] = selected[:, 0] + 0.01 * selected[:, 1]  # variables 0 and 1 dependent as selected
    variant = get_variant("edamcc")
    plain = fit_generation(selected, variant, theta=0.5, c=3, m_corr=40, rng=np.random.default_rng(1))
    cleaned = fit_generation(selected, variant, theta=0.5, c=3, m_corr=40, rng=np.random.default_rng(1), structure_rows=independent)
    assert not plain.weak[0] and not plain.weak[1]
    assert cleaned.weak.all()  # WI read the structure rows: no dependence
    np.testing.assert_array_equal(cleaned.model.mean, selected.mean(axis=0))  # the fit read the selected rows
    np.testing.assert_allclose(cleaned.model.stds(), selected.std(axis=0))


def test_direction_free_wi_reads_the_rows_without_the_directions_share():
    from dataclasses import replace

    from edamcc import EDAMCCStrategy, VARIANTS

    variant = replace(VARIANTS["edamcc-vd"], name="vd-free-wi", direction_free_wi=True)
    runs = {}
    for v in (VARIANTS["edamcc-vd"], variant):
        es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * 30, variant=v, seed=3, record_pairs=False)
        for _ in range(60):
            x = es.ask()
            es.tell(x, np.sum(np.cumsum(x, axis=1) ** 2, axis=1))  # Schwefel 1.2: one direction matters most
        runs[v.name] = es
    assert runs["vd-free-wi"].model.mean.shape == (30,)
    assert not np.array_equal(runs["vd-free-wi"].weak_mask, runs["edamcc-vd"].weak_mask)


def test_learned_partition_groups_the_strong_variables_by_their_dependencies():
    # selected rows of two dependent blocks, scattered, and independent variables elsewhere
    rng = np.random.default_rng(0)
    n, blocks = 16, [[1, 6, 11], [3, 8, 14]]
    cov = np.eye(n)
    for b in blocks:
        cov[np.ix_(b, b)] = 0.9
        cov[b, b] = 1.0
    selected = rng.multivariate_normal(np.zeros(n), cov, size=60)
    variant = get_variant("edamcc-adaptive")
    kw = {"theta": 0.5, "c": 3, "m_corr": 60}
    learned = fit_generation(selected, variant, rng=np.random.default_rng(1), partition="learned", **kw)
    randomly = fit_generation(selected, variant, rng=np.random.default_rng(1), **kw)
    np.testing.assert_array_equal(learned.weak, randomly.weak)  # WI's draw and decision come first, unchanged
    assert sorted(np.flatnonzero(~learned.weak).tolist()) == sorted(blocks[0] + blocks[1])
    groups = sorted(sorted(row.tolist()) for stack in learned.partition for row in stack)
    assert groups == blocks
    shuffled = sorted(sorted(row.tolist()) for stack in randomly.partition for row in stack)
    assert shuffled != blocks  # the random partition mixes them (Fig. 4)
    # the learned groups reach the model: each block is one multivariate group of the fit
    assert learned.model.sample(np.random.default_rng(2), 4).shape == (4, n)



def test_wi_threshold_follows_the_rows_left_when_evaluations_fail():
    # theta="auto" is calibrated for m_corr rows; with fewer finite values WI has fewer rows,
    # and the threshold for those rows keeps independent variables weak
    rules = Settings(variant="edamcc-csa").resolve(50)
    rng = np.random.default_rng(0)
    rows = rng.uniform(-5, 5, size=(rules.population_size, 50))  # independent variables
    strong = {}
    for n_finite in (rules.population_size, 5, 3, 2):
        values = np.full(rules.population_size, np.nan)
        values[:n_finite] = rng.random(n_finite)
        closed = close_generation(None, np.inf, rows, values, rules, np.random.default_rng(1),
                                  adaptation=start_adaptation(rules.variant), fit_before=None)  # fmt: skip
        strong[n_finite] = int((~closed.fitted.weak).sum())
    assert rules.theta_for(5) == auto_theta(50, 5) > rules.theta and rules.theta_for(rules.m_corr + 1) == rules.theta
    assert strong[rules.population_size] <= 10 and strong[5] <= 10  # about 5% of 50 each
    assert strong[3] == strong[2] == 0  # 3 rows or fewer: no correlation means anything, all weak
