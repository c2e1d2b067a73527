"""The structure record (edamcc.structure_record): #strong, Q, pair counts, aggregation."""

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, StructureRecord, aggregate
from edamcc.wi_threshold import chance_strong, pair_exceeds


def test_record_keeps_n_strong_q_and_pairs_and_aggregates_runs():
    def one(seed):
        es = EDAMCCStrategy(bounds=[(-5, 5)] * 8, population_size=60, seed=seed, record_pairs=True)
        for _ in range(6):
            x = es.ask()
            es.tell(x, 100 * (x[:, 1] - x[:, 0] ** 2) ** 2 + np.sum(x[:, 2:] ** 2, axis=1))
        return es.structure

    r1, r2 = one(1), one(2)
    assert r1.n_strong.size == 6  # one WI call per closed generation
    assert r1.q_matrix().shape == (8, 6)
    np.testing.assert_array_equal(r1.q_matrix().sum(axis=0), r1.n_strong)
    freq = r1.pair_frequency()
    np.testing.assert_array_equal(freq, freq.T)
    assert freq.max() <= 1.0
    top = r1.dependency_edges(0.0, limit=3)
    assert len(top) == 3 and top == r1.dependency_edges(0.0)[:3]
    mean_strong, q, pairs = aggregate([r1, r2])
    np.testing.assert_allclose(mean_strong, (r1.n_strong + r2.n_strong) / 2)
    np.testing.assert_array_equal(q, r1.q_matrix() + r2.q_matrix())
    both = r1.pair_counts.astype(float) + r2.pair_counts
    np.testing.assert_allclose(pairs, (both + both.T) / (r1.n_wi_calls + r2.n_wi_calls))  # frequency over both runs' WI calls
    np.testing.assert_allclose(freq, (r1.pair_counts + r1.pair_counts.T) / r1.n_wi_calls)
    assert pairs.shape == (8, 8) and np.triu(r1.pair_counts, 1).sum() == r1.pair_counts.sum()  # each pair once, i < j
    d = r1.to_dict(include_pairs=True)
    assert d["n_strong"] == r1.n_strong.tolist() and len(d["q"]) == 8


def test_the_record_keeps_the_best_value_beside_each_wi_call_also_through_a_pickle():
    import pickle

    es = EDAMCCStrategy(bounds=[(-5, 5)] * 6, population_size=20, seed=3)
    best = []
    for _ in range(5):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
        best.append(es.best_f)
    record = es.structure
    assert record.best_f.tolist() == best and record.to_dict()["best_f"] == best
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(record)).best_f, record.best_f)
    old = pickle.loads(pickle.dumps(record))
    del old._best_f, old._strong_calls  # a record pickled before it kept them (a dumped optimizer)
    restored = pickle.loads(pickle.dumps(old))
    assert np.isnan(restored.best_f).all() and restored.best_f.size == 5
    np.testing.assert_array_equal(restored.strong_frequency(), record.strong_frequency())  # rebuilt from Q (every call)
    restored.add(9, 200, np.ones(6, dtype=bool), best_f=0.5)  # and the run goes on
    assert restored.best_f[-1] == 0.5 and restored.to_dict()["best_f"][:5] == [None] * 5
    np.testing.assert_allclose(restored.strong_frequency(), (record.strong_frequency() * 5 + 1) / 6)
    thinned = StructureRecord(2, every=2)
    for k in range(3):
        thinned.add(k, 10 * k, np.array([k == 1, True]))
    del thinned._strong_calls  # Q kept calls 0 and 2 only: the counts are not known, Q's share is used
    thinned = pickle.loads(pickle.dumps(thinned))
    thinned.add(3, 30, np.array([True, True]))
    assert thinned.strong_frequency().tolist() == [0.0, 1.0]


def test_strong_frequency_counts_every_wi_call_also_when_q_keeps_every_kth():
    record = StructureRecord(2, every=2)
    for k in range(10):  # x0 strong in the even calls, the ones Q keeps
        record.add(k, 10 * k, np.array([k % 2 == 0, False]))
    assert record.q_matrix().shape == (2, 5) and record.strong_frequency().tolist() == [0.5, 0.0]


def test_record_thinning_and_switching_off():
    es = EDAMCCStrategy(bounds=[(-5, 5)] * 5, population_size=20, seed=0, record_every=3, record_pairs=False)
    for _ in range(10):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
    rec = es.structure
    assert rec.n_strong.size == 10 and rec.q_matrix().shape == (5, 4)
    assert rec.q_generations.tolist() == [0, 3, 6, 9]
    assert rec.q_evaluations.tolist() == [rec.evaluations[g] for g in (0, 3, 6, 9)]  # the evaluations at those columns
    with pytest.raises(ValueError, match="record_pairs=True"):
        rec.pair_frequency()
    off = EDAMCCStrategy(bounds=[(-5, 5)] * 5, record_structure=False)
    assert off.structure is None
    with pytest.raises(ValueError, match="record_every"):
        StructureRecord(5, every=0)
    assert EDAMCCStrategy(bounds=[(-1, 1)] * 2001).structure.pair_counts is None  # 'auto'


def test_pair_counts_reveal_rosenbrocks_chain():
    # fig:F4_WI: WI finds Rosenbrock's chain x_i -- x_{i+1}
    from edamcc.benchmark_functions import get_function

    f = get_function("F7", 10)
    es = EDAMCCStrategy(bounds=f.bounds, population_size=200, seed=1, record_pairs=True, variant="edamcc")
    while es.evaluations < 10_000 * 10:
        x = es.ask()
        es.tell(x, f(x))
    edges = es.structure.dependency_edges(0.1)
    i, j, top = edges[0]
    assert j == i + 1 and top > 0.3  # the most frequent dependency is a link of the chain
    assert all(b - a <= 2 for a, b, _ in edges)  # every frequent one is within two links
    # far-apart variables are (almost) never found dependent
    freq = es.structure.pair_frequency()
    far = np.abs(np.subtract.outer(np.arange(10), np.arange(10))) >= 3
    assert freq[far].max() < 0.05


def test_the_chance_floor_follows_each_wi_calls_rows_and_threshold_across_restarts():
    es = EDAMCCStrategy(bounds=[(-5, 5)] * 12, variant="edamcc-csa", seed=1, record_pairs=True)
    while len(es.restarts) < 2:  # a plateau below 1: every run restarts on tolfun
        x = es.ask()
        es.tell(x, np.floor(np.sum(x**2, axis=1)))
    rec = es.structure
    rows, thetas = rec.wi_rows, rec.wi_theta
    assert len(set(rows.tolist())) >= 2  # restarts gave WI more rows
    expected = [chance_strong(12, int(r), t) for r, t in zip(rows, thetas)]
    np.testing.assert_allclose(rec.chance_n_strong(), expected)
    assert rec.chance_pair_frequency() == pytest.approx(np.mean([pair_exceeds(t, int(r)) for r, t in zip(rows, thetas)]))
    d = rec.to_dict()
    assert d["wi_rows"] == rows.tolist() and d["chance_n_strong"] == pytest.approx(expected)
    d["n_strong"].append(99)
    d["generations"].clear()
    assert rec.n_strong.size == rec.generations.size == len(rows)  # the dict holds copies
    bare = StructureRecord(3)
    bare.add(0, 10, np.array([True, False, False]))  # a record without WI's sizes: no floor
    assert np.isnan(bare.chance_n_strong()).all() and bare.chance_pair_frequency() is None


def test_a_wi_call_on_two_rows_or_at_theta_one_has_a_chance_floor_and_keeps_the_runs():
    rec = StructureRecord(5)
    strong = np.array([True] * 5)
    rec.add(0, 10, strong, rows=2, theta=0.3)  # two rows: every correlation is +-1, all strong by chance
    rec.add(1, 20, ~strong, rows=3, theta=1.0)  # theta 1 ("auto" at 3 rows): none strong
    rec.add(2, 30, ~strong, rows=20, theta=0.5)
    np.testing.assert_allclose(rec.chance_n_strong(), [5.0, 0.0, chance_strong(5, 20, 0.5)])
    assert rec.chance_pair_frequency() == pytest.approx((1.0 + 0.0 + pair_exceeds(0.5, 20)) / 3)
    one = StructureRecord(1)
    one.add(0, 10, np.array([False]), rows=2, theta=0.3)
    assert one.chance_n_strong().tolist() == [0.0]  # no partner: never strong


def test_record_pairs_on_a_variant_without_wi_is_refused_by_name():
    with pytest.raises(ValueError, match="^record_pairs: variant 'umdac' runs no WI"):
        EDAMCCStrategy(bounds=[(-5, 5)] * 6, seed=1, variant="umdac", record_pairs=True)
    assert EDAMCCStrategy(bounds=[(-5, 5)] * 6, seed=1, variant="umdac").structure.pair_counts is None


def test_aggregate_refuses_records_thinned_differently_and_takes_any_iterable():
    def one(every):
        es = EDAMCCStrategy(bounds=[(-5, 5)] * 4, population_size=20, seed=0, record_every=every)
        for _ in range(6):
            x = es.ask()
            es.tell(x, np.sum(x**2, axis=1))
        return es.structure

    a, b = one(1), one(1)
    assert aggregate(iter([a, b]))[1].shape == (4, 6)
    with pytest.raises(ValueError, match="record_every"):
        aggregate([a, one(5)])


def test_structure_options_without_a_record_are_refused_not_ignored():
    for option in (dict(record_pairs=True), dict(record_pairs=np.bool_(True)), dict(record_every=3)):
        name = next(iter(option))
        with pytest.raises(ValueError, match=f"{name}: applies to the structure record, and record_structure=False keeps none"):
            EDAMCCStrategy(bounds=[(-5, 5)] * 5, record_structure=False, **option)
    for option in (dict(), dict(record_pairs=False), dict(record_pairs="auto"), dict(record_every=1)):
        assert EDAMCCStrategy(bounds=[(-5, 5)] * 5, record_structure=False, **option).structure is None


def test_a_record_without_wi_calls_has_no_strong_frequency_and_pairs_are_not_left_out_silently():
    rec = StructureRecord(4, pairs=False)
    assert np.isnan(rec.strong_frequency()).all()  # no call: not known, not "never strong"
    assert rec.to_dict()["strong_frequency"] is None
    with pytest.raises(ValueError, match="pair counts were not recorded"):
        rec.to_dict(include_pairs=True)
    assert StructureRecord(4, pairs=True).to_dict(include_pairs=True)["pair_frequency"] == [[0.0] * 4] * 4


def test_dependency_edges_checks_min_frequency_by_name():
    rec = StructureRecord(3, pairs=True)
    for bad in ("x", None, True, 1.5, -0.1):
        with pytest.raises(ValueError, match="min_frequency: expected a number in"):
            rec.dependency_edges(bad)


def test_a_bad_mask_leaves_the_record_unchanged_and_numpy_integers_are_stored_as_ints():
    import json

    rec = StructureRecord(3)
    with pytest.raises(ValueError, match=r"strong: expected a boolean mask of shape \(3,\)"):
        rec.add(0, 10, np.array([True, False]))
    with pytest.raises(ValueError, match="strong: expected a boolean mask"):
        rec.add(0, 10, np.array([1, 0, 1]))
    assert rec.n_wi_calls == 0 and rec.generations.size == 0 and rec.q_matrix().shape == (3, 0)
    rec.add(np.int64(0), np.int64(10), np.array([True, False, True]))
    json.dumps(rec.to_dict())  # NumPy integers would not serialize
    assert rec.strong_frequency().tolist() == [1.0, 0.0, 1.0]
