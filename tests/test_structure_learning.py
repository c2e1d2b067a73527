"""WI, SM, SM-GC and the learned partition (edamcc.structure_learning) against direct computations."""

import numpy as np
import pytest

from edamcc import structure_learning
from edamcc.structure_learning import (
    correlation_matrix,
    greedy_partition,
    learned_partition,
    max_abs_correlation,
    random_partition,
    stack_groups,
)
from edamcc.wi_threshold import auto_theta


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


@pytest.mark.parametrize("block_rows", [1, 5, 12])
def test_pair_counts_count_each_pair_above_theta_once(monkeypatch, block_rows):
    monkeypatch.setattr(structure_learning, "_BLOCK_ENTRIES", block_rows * 12)  # blocks of block_rows rows
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


def test_numerically_constant_columns_are_the_ones_the_definition_names():
    """standardize_columns takes max |x| only for columns its bound cannot clear; the columns it
    zeroes must be exactly those whose spread is at most 64 ulps of their largest |x|."""
    rng = np.random.default_rng(3)
    k = 30
    eps = np.finfo(float).eps
    base = rng.normal(size=(k, 1))
    columns = [
        np.full(k, 7.0),  # constant
        np.full(k, -1e100),  # constant, huge
        np.zeros(k),  # constant zero
        1e8 + eps * 1e8 * base[:, 0],  # a few ulps of spread: numerically constant
        1e8 + 1e4 * eps * 1e8 * base[:, 0],  # thousands of ulps: a real (tiny) spread
        1e-100 * base[:, 0],  # tiny but relative spread of order 1
        rng.normal(size=k),
    ]
    for spread in 10.0 ** np.arange(-17, -10, 0.5):  # around the 64-ulp boundary
        columns.append(1.0 + spread * base[:, 0])
    x = np.column_stack(columns)
    z = structure_learning.standardize_columns(x)
    centered = x - x.mean(axis=0)
    std = np.sqrt(np.einsum("ij,ij->j", centered, centered) / k)
    expected_constant = std <= 64.0 * eps * np.abs(x).max(axis=0)
    np.testing.assert_array_equal(np.all(z == 0.0, axis=0), expected_constant)
    assert expected_constant[:4].all() and not expected_constant[4:7].any()
    assert 0 < expected_constant[7:].sum() < len(columns) - 7  # both sides of the boundary covered


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


def block_gaussian_rows(rng, blocks, rho, rows):
    """``rows`` draws (shape ``(rows, n)``) of a Gaussian whose variables ``blocks[b]`` are
    equicorrelated with correlation ``rho`` and independent of every other block."""
    n = sum(len(b) for b in blocks)
    cov = np.eye(n)
    for b in blocks:
        cov[np.ix_(b, b)] = rho
        cov[b, b] = 1.0
    return rng.multivariate_normal(np.zeros(n), cov, size=rows)


def groups_of(partition):
    return sorted(sorted(row.tolist()) for stack in partition for row in stack)


def test_learned_partition_puts_each_block_of_a_block_diagonal_gaussian_together():
    # 6 blocks of 4 variables, scattered over 24 positions; strong = all of them
    for seed in range(5):
        rng = np.random.default_rng(seed)
        blocks = [sorted(b) for b in rng.permutation(24).reshape(6, 4).tolist()]
        x = block_gaussian_rows(rng, blocks, 0.8, 100)
        strong = np.arange(24)
        theta = auto_theta(24, 100)
        learned = learned_partition(correlation_matrix(x), strong, theta, 4, rng)  # c = the blocks' size
        assert groups_of(learned) == sorted(blocks), seed
        halves = learned_partition(correlation_matrix(x), strong, theta, 2, rng)  # c below it: pairs within blocks
        assert all(any(set(g) <= set(b) for b in blocks) for g in groups_of(halves)), seed
        randomly = random_partition(strong, 4, rng)
        assert groups_of(randomly) != sorted(blocks)  # what chance gives: the blocks mixed


def test_learned_partition_maps_positions_in_s_back_to_variables():
    rng = np.random.default_rng(3)
    x = block_gaussian_rows(rng, [[0, 1, 2], [3, 4, 5]], 0.9, 80)
    strong = np.array([10, 20, 30, 40, 50, 60])  # variables of a larger problem
    learned = learned_partition(correlation_matrix(x), strong, 0.3, 3, rng)
    assert groups_of(learned) == [[10, 20, 30], [40, 50, 60]]


def test_learned_partition_groups_the_strong_variables_left_over_instead_of_making_them_univariate():
    corr = np.eye(12)
    corr[np.ix_([0, 1, 2], [0, 1, 2])] = 0.9  # one cluster; variables 3..11 correlate with nothing
    np.fill_diagonal(corr, 1.0)
    strong = np.arange(12)
    clusters, left = greedy_partition(corr, 0.3, 4)
    assert [sorted(g.tolist()) for g in clusters] == [[0, 1, 2]] and left.tolist() == list(range(3, 12))  # SM-GC: univariate
    learned = learned_partition(corr, strong, 0.3, 4, np.random.default_rng(0))
    groups = groups_of(learned)
    assert [0, 1, 2] in groups
    rest = [g for g in groups if g != [0, 1, 2]]
    assert sorted(len(g) for g in rest) == [1, 4, 4]  # 9 left over: random groups of c = 4, as SM (Fig. 4)
    assert sorted(v for g in rest for v in g) == list(range(3, 12))
    other = learned_partition(corr, strong, 0.3, 4, np.random.default_rng(1))
    assert groups_of(other) != groups  # the left-over groups are drawn at random


def test_learned_groups_never_exceed_c_and_cover_s_once():
    rng = np.random.default_rng(0)
    x = block_gaussian_rows(rng, [list(range(17))], 0.7, 60)  # 17 variables, all dependent
    strong = np.arange(17)
    for c in (1, 2, 3, 5, 17, 40):
        learned = learned_partition(correlation_matrix(x), strong, 0.3, c, rng)
        sizes = [stack.shape[1] for stack in learned for _ in stack]
        assert max(sizes) <= c and sum(sizes) == 17, c
        assert sorted(np.concatenate([stack.ravel() for stack in learned]).tolist()) == list(range(17))
    assert learned_partition(np.zeros((0, 0)), np.array([], dtype=np.intp), 0.3, 3, rng) == []
