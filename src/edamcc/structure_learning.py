"""Structure learning: Weakly dependent variable Identification (WI) and Subspace Modeling (SM).

* WI (Fig. 3, Eq. (3)): a variable is weakly dependent
  iff its absolute correlation to *every* other variable is at most theta. Only each
  variable's largest |corr| is needed, so the n x n correlation matrix is computed block by
  block and never kept (memory O(block * n) instead of O(n^2)).
* SM (Fig. 4): the strong set S is randomly split into ceil(|S|/c) groups of at most
  c variables, afresh every generation.
* SM-GC (Fig. 11): the greedy correlation clustering the paper compares against.
* The learned partition (beyond the paper, whose section "Subspace Modeling By Clustering
  Variables?" found random groups better than SM-GC's): SM-GC's clusters, with the strong
  variables it leaves over split at random as in SM instead of made univariate.

A partition is a list of 2-D integer arrays; each array stacks groups of one size, one group
per row, so that models can be fitted and sampled group-batched.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

# Largest temporary correlation block, in matrix entries (8 bytes each): 4e6 -> 32 MB.
_BLOCK_ENTRIES = 4_000_000

Partition = list[NDArray[np.intp]]


def standardize_columns(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Columns scaled so that ``z.T @ z`` is the correlation matrix of ``x`` (shape ``(k, n)``).

    A column with zero sample variance has no defined correlation. We treat it as
    uncorrelated with every other variable (its column of ``z`` is zero), so WI classifies it
    as weakly dependent. "Zero" is relative to float resolution: a column whose spread is below
    64 ulps of its magnitude is numerically constant and its correlations are rounding noise.
    """
    k = x.shape[0]
    mean = x.mean(axis=0)
    centered = x - mean
    std = np.sqrt(np.einsum("ij,ij->j", centered, centered) / k)
    tol = 64.0 * np.finfo(float).eps
    # max |x| of a column is at most |mean| + sqrt(k) std (a centred entry is at most the
    # centred column's norm), so only columns under twice that bound can be constant: the
    # exact max |x| is taken for those alone (usually none), the same test at a fraction of
    # the cost of two passes over x.
    maybe = np.flatnonzero(std <= 2.0 * tol * (np.abs(mean) + np.sqrt(k) * std))
    constant = np.zeros(std.shape, dtype=bool)
    if maybe.size:
        scale = np.maximum(x[:, maybe].max(axis=0), -x[:, maybe].min(axis=0))  # max |x| per column
        constant[maybe] = std[maybe] <= tol * scale
    inv = np.zeros_like(std)
    np.divide(1.0, std * np.sqrt(k), out=inv, where=~constant)
    centered *= inv
    return centered


def max_abs_correlation(
    x: NDArray[np.float64],
    *,
    pair_counts: NDArray[np.integer] | None = None,
    theta: float | None = None,
) -> NDArray[np.float64]:
    """For each variable, its largest |corr| to any *other* variable (Fig. 3, step 1).

    ``x`` has shape ``(m_corr, n)``. The product is computed over the upper block triangle
    only (each pair once) in row blocks, so peak extra memory is about 32 MB whatever n is.
    If ``pair_counts`` (an ``(n, n)`` integer array) is given, ``pair_counts[i, j]`` for
    ``i < j`` is incremented where ``|corr(x_i, x_j)| > theta``.
    """
    z = standardize_columns(x)
    n = z.shape[1]
    best = np.zeros(n)
    block = max(1, min(n, _BLOCK_ENTRIES // max(n, 1)))
    for start in range(0, n, block):
        stop = min(start + block, n)
        width = stop - start
        corr = z[:, start:stop].T @ z[:, start:]  # (width, n - start): pairs (i, j >= start)
        np.abs(corr, out=corr)
        diag = np.arange(width)
        corr[diag, diag] = 0.0  # a variable's correlation with itself does not count
        # Row maxima cover the rows' pairs; the diagonal block is symmetric, so only the
        # columns right of it (pairs with a later block) need column maxima.
        np.maximum(best[start:stop], corr.max(axis=1), out=best[start:stop])
        if stop < n:
            np.maximum(best[stop:], corr[:, width:].max(axis=0), out=best[stop:])
        if pair_counts is not None:
            i, j = np.divmod(np.flatnonzero(corr > theta), corr.shape[1])  # few pairs: index them, not an (n, n) mask
            once = j > i  # each pair once, i < j (column j is variable start + j, row i is start + i)
            pair_counts[start + i[once], start + j[once]] += 1  # distinct pairs: no repeated index
    return best


def correlation_matrix(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """The full correlation matrix of ``x`` (shape ``(k, n)``), zero-variance columns as zero."""
    z = standardize_columns(x)
    return z.T @ z


def random_partition(strong: NDArray[np.intp], c: int, rng: np.random.Generator) -> Partition:
    """SM (Fig. 4, step 2): split ``strong`` at random into ceil(|S|/c) groups.

    Groups are consecutive chunks of a random permutation: all hold c variables except the
    last, which holds the remainder (as in Fig. 5: 8 variables, c=3 -> 3, 3, 2).
    """
    perm = rng.permutation(strong)
    full = (perm.size // c) * c
    partition: Partition = []
    if full:
        partition.append(perm[:full].reshape(-1, c))
    if perm.size > full:
        partition.append(perm[full:].reshape(1, -1))
    return partition


def single_group(strong: NDArray[np.intp]) -> Partition:
    """No SM: all of S in one multivariate group ("WI only", EEDA, EMNA_global)."""
    return [strong.reshape(1, -1)] if strong.size else []


def stack_groups(groups: list[NDArray[np.intp]]) -> Partition:
    """Stack a list of 1-D groups of mixed sizes into one 2-D array per size."""
    by_size: dict[int, list[NDArray[np.intp]]] = {}
    for g in groups:
        by_size.setdefault(len(g), []).append(np.asarray(g, dtype=np.intp))
    return [np.stack(by_size[s]) for s in sorted(by_size)]


def greedy_partition(
    corr: NDArray[np.float64], theta: float, c: int
) -> tuple[list[NDArray[np.intp]], NDArray[np.intp]]:
    """SM-GC (Fig. 11): greedy clustering of S by |corr|.

    ``corr`` is the correlation matrix among the variables of S (positions 0..|S|-1). A
    cluster starts from the remaining pair with the largest |corr| > theta and grows, while
    smaller than c, by the remaining variable whose largest |corr| to a cluster member is the
    largest and above theta. Returns the clusters (positions into S) and the positions left
    over, which the paper models univariately. ``c`` must be at least 2 (the figure's caption).

    The clustering is sequential by nature; each step is vectorized over the variables.
    """
    s = corr.shape[0]
    a = np.abs(corr)
    np.fill_diagonal(a, -np.inf)
    remaining = np.ones(s, dtype=bool)
    clusters: list[NDArray[np.intp]] = []

    def take(members: list[int]) -> None:
        remaining[members] = False
        a[members, :] = -np.inf  # a taken variable no longer links anything
        a[:, members] = -np.inf

    while remaining.sum() >= 2:
        flat = int(np.argmax(a))
        i, j = divmod(flat, s)
        if not a[i, j] > theta:
            break
        link = np.maximum(a[i], a[j])  # max |corr| of every remaining variable to the cluster
        members = [i, j]
        take(members)
        while len(members) < c:
            cand = np.where(remaining, link, -np.inf)
            k = int(np.argmax(cand))
            if not cand[k] > theta:
                break
            np.maximum(link, a[k], out=link)
            members.append(k)
            take([k])
        clusters.append(np.asarray(members, dtype=np.intp))
    return clusters, np.flatnonzero(remaining)


def learned_partition(
    corr: NDArray[np.float64], strong: NDArray[np.intp], theta: float, c: int, rng: np.random.Generator
) -> Partition:
    """SM with groups learned from the measured dependencies (``partition="learned"``).

    ``corr`` (``(|S|, |S|)``) is the correlation matrix among the strong variables ``strong``,
    from the same m_corr rows WI used. The variables are clustered greedily by |corr| as in
    SM-GC (Fig. 11, clusters of at most ``c``); unlike SM-GC, the variables left over stay
    multivariate: WI called them strong, so they are split at random into groups of at most
    ``c`` as in SM (Fig. 4, step 2), drawing from ``rng``. With ``c = 1`` every group has one
    variable and nothing is clustered.
    """
    if c < 2:
        return random_partition(strong, c, rng)
    clusters, leftover = greedy_partition(corr, theta, c)
    rest = random_partition(strong[leftover], c, rng)
    return stack_groups([strong[g] for g in clusters] + [row for stack in rest for row in stack])
