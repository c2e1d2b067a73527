"""WI, SM, SM-GC, the Gaussian models and the structure record, against direct computations."""

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, StructureRecord, aggregate
from edamcc.models import fit_chain, fit_factorized, fit_univariate
from edamcc.structure import (
    correlation_matrix,
    greedy_partition,
    max_abs_correlation,
    random_partition,
    stack_groups,
)


def test_max_abs_correlation_equals_numpy_corrcoef_for_every_block_size(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 37))
    x[:, 5] = x[:, 3] * -2.0 + 0.1 * rng.normal(size=40)
    c = np.abs(np.corrcoef(x, rowvar=False))
    np.fill_diagonal(c, 0)
    expected = c.max(axis=1)
    import edamcc.structure as structure

    for entries in (37, 37 * 5, 37 * 37, 10**7):  # blocks of 1, 5, 37 rows and one block
        monkeypatch.setattr(structure, "_BLOCK_ENTRIES", entries)
        np.testing.assert_allclose(max_abs_correlation(x), expected, rtol=1e-12, atol=1e-14)


def test_pair_counts_count_each_pair_above_theta_once():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 12))
    c = np.abs(np.corrcoef(x, rowvar=False))
    counts = np.zeros((12, 12), dtype=np.uint32)
    max_abs_correlation(x, pair_counts=counts, theta=0.3)
    max_abs_correlation(x, pair_counts=counts, theta=0.3)
    expected = np.triu(c > 0.3, 1).astype(np.uint32) * 2
    np.testing.assert_array_equal(counts, expected)


def test_zero_variance_column_has_no_correlation():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(50, 4))
    data[:, 2] = 7.0
    data[:, 3] = data[:, 0] * 2 + 1e-3 * data[:, 1]
    best = max_abs_correlation(data)
    assert best[2] == 0.0  # undefined correlation: treated as uncorrelated -> weak
    assert best[0] > 0.99 and best[3] > 0.99
    assert np.all(np.isfinite(correlation_matrix(data)))


def test_random_partition_is_a_partition_into_chunks_of_c():
    rng = np.random.default_rng(0)
    strong = np.array([2, 3, 5, 7, 11, 13, 17, 19])
    parts = random_partition(strong, 3, rng)  # fig:SM_cov_example: 8 variables, c = 3
    assert [p.shape for p in parts] == [(2, 3), (1, 2)]
    assert sorted(np.concatenate([p.ravel() for p in parts]).tolist()) == strong.tolist()
    assert random_partition(np.array([], dtype=np.intp), 3, rng) == []
    assert [p.shape for p in random_partition(strong, 8, rng)] == [(1, 8)]
    assert [p.shape for p in random_partition(strong, 100, rng)] == [(1, 8)]


def test_greedy_clustering_follows_fig_sm_gc():
    # two blocks of strongly correlated variables and one loner
    corr = np.eye(5)
    corr[0, 1] = corr[1, 0] = 0.9
    corr[0, 2] = corr[2, 0] = 0.5
    corr[1, 2] = corr[2, 1] = 0.4
    corr[3, 4] = corr[4, 3] = 0.35
    clusters, left = greedy_partition(corr, 0.3, 3)
    assert [c.tolist() for c in clusters] == [[0, 1, 2], [3, 4]]
    assert left.tolist() == []
    clusters, left = greedy_partition(corr, 0.3, 2)  # capacity 2: variable 2 cannot join
    assert [sorted(c.tolist()) for c in clusters] == [[0, 1], [3, 4]]
    assert left.tolist() == [2]
    clusters, left = greedy_partition(corr, 0.95, 3)  # nothing above theta: all left over
    assert clusters == [] and left.tolist() == [0, 1, 2, 3, 4]


def test_stack_groups_stacks_by_size():
    parts = stack_groups([np.array([1, 2]), np.array([3]), np.array([4, 5])])
    assert [p.tolist() for p in parts] == [[[3]], [[1, 2], [4, 5]]]


def test_factorized_gaussian_recovers_block_covariances():
    rng = np.random.default_rng(0)
    cov = np.array([[2.0, 0.8], [0.8, 1.0]])
    data = rng.multivariate_normal([1.0, -1.0], cov, size=200_000)
    data = np.column_stack([data, rng.normal(3.0, 0.5, size=200_000)])
    model = fit_factorized(data, np.array([2]), [np.array([[0, 1]])], "emna")
    sample = model.sample(np.random.default_rng(1), 200_000)
    np.testing.assert_allclose(sample.mean(axis=0), [1.0, -1.0, 3.0], atol=0.02)
    np.testing.assert_allclose(np.cov(sample[:, :2], rowvar=False), cov, atol=0.03)
    assert abs(sample[:, 2].std() - 0.5) < 0.01
    assert abs(np.corrcoef(sample[:, 1], sample[:, 2])[0, 1]) < 0.01  # groups independent


def test_rank_deficient_groups_sample_finite_values():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(10, 30))  # m = 10 rows, one group of 30: rank <= 9
    for scaling in ("eeda", "emna"):
        model = fit_factorized(data, np.array([], dtype=np.intp), [np.arange(30)[None, :]], scaling)
        out = model.sample(rng, 50)
        assert np.all(np.isfinite(out))
        f = model.blocks[0].factor[0]
        eig = np.linalg.eigvalsh(f.T @ f)
        assert eig.min() > -1e-12
        if scaling == "eeda":  # the largest eigenvalue twice: the reset lifted a zero eigenvalue
            np.testing.assert_allclose(eig[-2], eig[-1], rtol=1e-9)


def test_single_variable_group_is_univariate_under_eeda():
    data = np.random.default_rng(0).normal(2.0, 3.0, size=(500, 1))
    eeda = fit_factorized(data, np.array([], dtype=np.intp), [np.array([[0]])], "eeda")
    umda = fit_univariate(data)
    np.testing.assert_allclose(abs(eeda.blocks[0].factor[0, 0, 0]), umda.weak_std[0])


def test_mimic_chain_follows_the_strongest_conditional_dependencies():
    rng = np.random.default_rng(0)
    a = rng.normal(size=5000)
    b = a + 0.1 * rng.normal(size=5000)
    c = b + 0.1 * rng.normal(size=5000)
    data = np.column_stack([c, rng.normal(size=5000) * 3, a * 0.1])
    model = fit_chain(data)
    assert model.order[0] == 2  # least variance first
    assert model.order.tolist() == [2, 0, 1]
    sample = model.sample(np.random.default_rng(1), 50_000)
    np.testing.assert_allclose(np.corrcoef(sample[:, 0], sample[:, 2])[0, 1], np.corrcoef(data[:, 0], data[:, 2])[0, 1], atol=0.01)


# ------------------------------------------------------------------ the structure record
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
    assert pairs.shape == (8, 8)
    d = r1.to_dict(include_pairs=True)
    assert d["n_strong"] == r1.n_strong.tolist() and len(d["q"]) == 8


def test_record_thinning_and_switching_off():
    es = EDAMCCStrategy(bounds=[(-5, 5)] * 5, population_size=20, seed=0, record_every=3, record_pairs=False)
    for _ in range(10):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
    rec = es.structure
    assert rec.n_strong.size == 10 and rec.q_matrix().shape == (5, 4)
    assert rec.q_generations.tolist() == [0, 3, 6, 9]
    with pytest.raises(ValueError, match="record_pairs=True"):
        rec.pair_frequency()
    off = EDAMCCStrategy(bounds=[(-5, 5)] * 5, record_structure=False)
    assert off.structure is None
    with pytest.raises(ValueError, match="record_every"):
        StructureRecord(5, every=0)
    assert EDAMCCStrategy(bounds=[(-1, 1)] * 2001).structure.pair_counts is None  # 'auto'


def test_pair_counts_reveal_rosenbrocks_chain():
    # fig:F4_WI: WI finds Rosenbrock's chain x_i -- x_{i+1}
    from edamcc.functions import get_function

    f = get_function("F7", 10)
    es = EDAMCCStrategy(bounds=f.bounds, population_size=200, seed=1, record_pairs=True)
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
