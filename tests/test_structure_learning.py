"""WI, SM and SM-GC (edamcc.structure_learning) against direct computations."""

import numpy as np

from edamcc.structure_learning import (
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
    import edamcc.structure_learning as structure

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
