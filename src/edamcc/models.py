"""The Gaussian models that EDA-MCC and its baselines fit on selected rows and sample from.

Every model has the same shape: a ``fit_*`` function takes the selected rows ``(m, n)`` and
returns a small object with ``sample(rng, k, first=None) -> (k, n)`` and ``max_std``. ``first``
is the position in its generation of the first row asked for (None: rows beyond the
generation's, asked as extras); only :class:`LineSamples` reads it.

* :class:`UniformModel`: the first generation, uniform in the box.
* :class:`FactorizedGaussian`: Eq. (8), univariate Gaussians g_i for the
  weak set W (UMDAc, Eq. (10)) times multivariate Gaussians h_k for the
  groups of S (EMNA_global, Eq. (12), optionally with EEDA's scaling).
  UMDAc, EMNA_global and EEDA are the special cases "no groups" and "one group of all".
* :class:`GaussianChain`: MIMIC_c^G, the chain-structured Gaussian of Larranaga et al.
* :class:`ShiftedModel` and :class:`LineSamples`: the self-adaptive variants' samples that
  follow the mean's last step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .structure_learning import Partition

BLOCK_SCALINGS = ("eeda", "emna")


class _MovedSamples:
    """A wrapper of ``self.model`` that moves some of its samples: the mean, the spreads and the
    stopping scale stay the wrapped model's."""

    model: Any

    @property
    def mean(self) -> NDArray[np.float64]:
        return self.model.mean

    @property
    def max_std(self) -> float:
        return float(self.model.max_std)

    def stds(self) -> NDArray[np.float64]:
        return self.model.stds()


@dataclass(frozen=True)
class ShiftedModel(_MovedSamples):
    """AMaLGaM's anticipated mean shift: the first ``floor(fraction * k)`` of every ``k`` samples
    of ``model`` are moved by ``shift`` (Bosman, Grahl, Thierens, PPSN 2008)."""

    model: Any
    shift: NDArray[np.float64]
    fraction: float

    def sample(self, rng: np.random.Generator, k: int, first: int | None = None) -> NDArray[np.float64]:
        x = self.model.sample(rng, k)
        x[: int(np.floor(self.fraction * k))] += self.shift
        return x


@dataclass(frozen=True)
class UniformModel:
    """Uniform in the box: "initialized by uniform random initialization within the search space"."""

    lower: NDArray[np.float64]
    upper: NDArray[np.float64]

    @property
    def max_std(self) -> float:
        return float(np.max(self.upper - self.lower)) / np.sqrt(12.0)

    @property
    def mean(self) -> NDArray[np.float64]:
        return (self.lower + self.upper) / 2.0

    def stds(self) -> NDArray[np.float64]:
        return (self.upper - self.lower) / np.sqrt(12.0)

    def sample(self, rng: np.random.Generator, k: int, first: int | None = None) -> NDArray[np.float64]:
        return rng.uniform(self.lower, self.upper, size=(k, self.lower.size))


@dataclass(frozen=True)
class LineSamples(_MovedSamples):
    """Mean-shift samples: the first two rows of a generation are ``mean + line`` and
    ``mean - line``, on the line of the mean's last step; the other rows are samples of
    ``model``. Selection then tells whether going on along that step pays (pycma's
    ``mean_shift_line_samples``, the samples of its two-point step-size adaptation: Hansen,
    "CMA-ES with two-point step-size adaptation", 2008)."""

    model: FactorizedGaussian
    line: NDArray[np.float64]

    def sample(self, rng: np.random.Generator, k: int, first: int | None = None) -> NDArray[np.float64]:
        """``k`` rows, the line's points at positions 0 and 1 of the generation (``first`` is the
        position of the first row asked for; None: extras beyond the generation, no line)."""
        if first is None or first >= 2 or k == 0:
            return self.model.sample(rng, k)
        points = (self.model.mean + np.stack([self.line, -self.line]))[max(int(first), 0) : first + k]
        x = np.empty((k, self.model.mean.size))
        x[: points.shape[0]] = points
        self.model.draw_into(rng, x[points.shape[0] :])  # the model's draws, straight into place
        return x


@dataclass(frozen=True)
class GaussianBlocks:
    """Multivariate Gaussians for groups of one size: ``index`` ``(G, s)``, ``factor`` ``(G, s, s)``.

    A sample of group g is ``mean[index[g]] + z @ factor[g]`` with ``z ~ N(0, I_s)``, so the
    group covariance is ``factor[g].T @ factor[g]``.
    """

    index: NDArray[np.intp]
    factor: NDArray[np.float64]


@dataclass(frozen=True)
class FactorizedGaussian:
    """f(x) = prod_{i in W} g_i(x_i) * prod_k h_k(s_k)  (Eq. (8))."""

    mean: NDArray[np.float64]
    weak: NDArray[np.intp]
    weak_std: NDArray[np.float64]
    blocks: tuple[GaussianBlocks, ...]

    @property
    def groups(self) -> list[NDArray[np.intp]]:
        """The multivariate groups as a list of 1-D index arrays."""
        return [row for b in self.blocks for row in b.index]

    @cached_property
    def max_std(self) -> float:
        stds = [self.weak_std]
        for b in self.blocks:
            stds.append(np.sqrt(np.einsum("gij,gij->gj", b.factor, b.factor)).ravel())
        return float(max((s.max() for s in stds if s.size), default=0.0))

    def stds(self) -> NDArray[np.float64]:
        """Each variable's marginal standard deviation, shape ``(n,)``."""
        out = np.zeros(self.mean.size)
        out[self.weak] = self.weak_std
        for b in self.blocks:
            out[b.index.ravel()] = np.sqrt(np.einsum("gij,gij->gj", b.factor, b.factor)).ravel()
        return out

    def whiten(self, step: NDArray[np.float64]) -> NDArray[np.float64]:
        """``step`` (``(n,)``) in the coordinates where this model's covariance is the identity."""
        return self.whiten_rows(step[None, :])[0]

    def whiten_rows(self, steps: NDArray[np.float64]) -> NDArray[np.float64]:
        """:meth:`whiten` for each row of ``steps`` (``(k, n)``, rows minus the mean), the groups'
        k right-hand sides in one batched solve."""
        y = np.empty_like(steps)
        y[:, self.weak] = steps[:, self.weak] / self.weak_std
        for b in self.blocks:  # a sample is mean + z @ factor, so z = step @ inv(factor)
            g, s = b.index.shape
            z = np.linalg.solve(b.factor.transpose(0, 2, 1), steps[:, b.index].transpose(1, 2, 0))  # (G, s, k)
            y[:, b.index.ravel()] = z.transpose(2, 0, 1).reshape(steps.shape[0], g * s)
        return y

    def squared_lengths(self, steps: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each row of ``steps`` (``(k, n)``) as its squared length in this model's metric,
        d^T Sigma^-1 d (``(k,)``)."""
        y = self.whiten_rows(steps)
        return np.einsum("ij,ij->i", y, y)

    def precision_dot(self, vector: NDArray[np.float64]) -> NDArray[np.float64]:
        """Sigma^-1 ``vector`` (``(n,)``) for this model's covariance Sigma: :meth:`whiten` twice,
        since a group's covariance is F^T F and whitening multiplies by F^-T."""
        y = self.whiten(vector)
        out = np.empty_like(y)
        out[self.weak] = y[self.weak] / self.weak_std
        for b in self.blocks:
            out[b.index.ravel()] = np.linalg.solve(b.factor, y[b.index][:, :, None])[:, :, 0].ravel()
        return out

    def scaled(self, multiplier: float) -> FactorizedGaussian:
        """The same model with every covariance times ``multiplier`` (AMaLGaM's c_mult)."""
        root = float(np.sqrt(multiplier))
        blocks = tuple(GaussianBlocks(b.index, b.factor * root) for b in self.blocks)
        return FactorizedGaussian(self.mean, self.weak, self.weak_std * root, blocks)

    def sample(self, rng: np.random.Generator, k: int, first: int | None = None) -> NDArray[np.float64]:
        """Draw ``k`` rows: each g_i and h_k independently (Fig. 6, step 4)."""
        x = np.empty((k, self.mean.size))
        self.draw_into(rng, x)
        return x

    def draw_into(self, rng: np.random.Generator, x: NDArray[np.float64]) -> None:
        """:meth:`sample`'s draws, written into the rows of ``x`` (``(k, n)``)."""
        k = x.shape[0]
        # Eq. (11): x_i = mu_i + zeta * sigma_i
        z = rng.standard_normal((k, self.weak.size))
        z *= self.weak_std  # in place: the same numbers as mu + zeta * sigma, without temporaries
        z += self.mean[self.weak]
        x[:, self.weak] = z
        for b in self.blocks:
            g, s = b.index.shape
            # Eq. (13), batched over the groups: x = mu + zeta H
            y = rng.standard_normal((g, k, s)) @ b.factor  # (G, k, s)
            y += self.mean[b.index][:, None, :]
            x[:, b.index.ravel()] = y.transpose(1, 0, 2).reshape(k, g * s)


def fit_factorized(
    selected: NDArray[np.float64],
    weak: NDArray[np.intp],
    partition: Partition,
    scaling: str,
    weights: NDArray[np.float64] | None = None,
) -> FactorizedGaussian:
    """Maximum-likelihood fit of Eq. (8) on the selected rows ``(m, n)``.

    Weak variables get ML mean and variance (UMDAc). Each group gets the ML mean and
    covariance (divisor m); its eigenvalues are clipped at zero, which makes rank-deficient
    covariances (m <= c, as in the paper's 500D setting) safe where a Cholesky factor is not.
    With ``scaling="eeda"`` the smallest eigenvalue is then reset to the largest (EEDA, Wagner
    et al. 2004; Section III-C, "Model Complexity Control: WI + SM"). A group of one variable is a
    univariate Gaussian under either scaling. With ``weights`` (``(m,)``, summing to 1, best row
    first) the estimates are weighted: mean sum_k w_k x_k, covariance sum_k w_k d_k d_k^T.
    """
    if scaling not in BLOCK_SCALINGS:
        raise ValueError(f"scaling: expected one of {BLOCK_SCALINGS}; got {scaling!r}")
    m = selected.shape[0]
    if weights is None:
        mean = selected.mean(axis=0)
        d_weak = selected[:, weak] - mean[weak]  # centred columns, gathered: no full (m, n) copy
        weak_std = np.sqrt(np.einsum("ij,ij->j", d_weak, d_weak) / m)
        centred = None
    else:  # scale="csa": its weak set is most of the variables, and one pass over all columns
        # costs less than gathering them (each column's weighted sum comes out the same)
        mean = weights @ selected
        centred = selected - mean
        weak_std = np.sqrt(np.einsum("i,ij,ij->j", weights, centred, centred)[weak])
    blocks = []
    for index in partition:
        d = (selected[:, index] - mean[index] if centred is None else centred[:, index]).transpose(1, 0, 2)  # (G, m, s)
        if weights is None:
            cov = d.transpose(0, 2, 1) @ d / m  # (G, s, s), ML estimate
        else:
            cov = (d * weights[None, :, None]).transpose(0, 2, 1) @ d
        eigval, eigvec = np.linalg.eigh(cov)  # ascending eigenvalues
        np.maximum(eigval, 0.0, out=eigval)
        if scaling == "eeda":
            eigval[:, 0] = eigval[:, -1]  # EEDA: smallest eigenvalue := largest
        # C order, so that a pickled or copied model (always C order) samples bit-identically
        factor = np.ascontiguousarray(np.sqrt(eigval)[:, :, None] * eigvec.transpose(0, 2, 1))
        blocks.append(GaussianBlocks(index=np.asarray(index, dtype=np.intp), factor=factor))
    return FactorizedGaussian(mean=mean, weak=np.asarray(weak, dtype=np.intp), weak_std=weak_std, blocks=tuple(blocks))


def fit_univariate(selected: NDArray[np.float64]) -> FactorizedGaussian:
    """UMDAc: every variable an independent Gaussian with ML mean and variance."""
    return fit_factorized(selected, np.arange(selected.shape[1]), [], "emna")


@dataclass(frozen=True)
class GaussianChain:
    """MIMIC_c^G: x_{order[0]} ~ N(mu, sd^2), then x_{order[t]} | x_{order[t-1]} Gaussian.

    ``coef[t]`` is the regression coefficient of ``x_{order[t]}`` on ``x_{order[t-1]}``
    (``coef[0] = 0``) and ``cond_std[t]`` the conditional standard deviation.
    """

    mean: NDArray[np.float64]
    order: NDArray[np.intp]
    coef: NDArray[np.float64]
    cond_std: NDArray[np.float64]

    @property
    def max_std(self) -> float:
        return float(self.cond_std.max(initial=0.0))

    def stds(self) -> NDArray[np.float64]:
        """Each variable's marginal standard deviation along the chain, shape ``(n,)``."""
        var = np.empty(self.mean.size)
        prev = 0.0
        for t in range(self.mean.size):  # Var(x_t) = coef_t^2 Var(x_{t-1}) + cond_std_t^2
            prev = self.coef[t] ** 2 * prev + self.cond_std[t] ** 2
            var[self.order[t]] = prev
        return np.sqrt(var)

    def scaled(self, multiplier: float) -> GaussianChain:
        """The same chain with every covariance times ``multiplier``."""
        return GaussianChain(self.mean, self.order, self.coef, self.cond_std * float(np.sqrt(multiplier)))

    def sample(self, rng: np.random.Generator, k: int, first: int | None = None) -> NDArray[np.float64]:
        n = self.mean.size
        noise = rng.standard_normal((k, n)) * self.cond_std  # column t is for order[t]
        dev = np.empty((k, n))
        prev = np.zeros(k)
        # The chain is a recurrence, so this loop over variables is inherent to MIMIC; each
        # step is vectorized over the k samples.
        for t in range(n):
            prev = self.coef[t] * prev + noise[:, t]
            dev[:, t] = prev
        x = np.empty((k, n))
        x[:, self.order] = self.mean[self.order] + dev
        return x


def fit_chain(selected: NDArray[np.float64]) -> GaussianChain:
    """MIMIC_c^G (Larranaga et al. 2000): greedy chain minimizing the conditional entropies.

    The root is the variable of least entropy (least variance); each next variable is the one
    with least conditional entropy given the previous one, i.e. least
    ``var_j * (1 - corr(j, prev)^2)`` for Gaussians.
    """
    m, n = selected.shape
    mean = selected.mean(axis=0)
    centered = selected - mean
    cov_full = centered.T @ centered / m  # O(n^2) memory: MIMIC is a baseline for n <= a few 1000s
    var = np.diag(cov_full).copy()
    order = np.empty(n, dtype=np.intp)
    coef = np.zeros(n)
    cond_var = np.empty(n)
    remaining = np.ones(n, dtype=bool)
    current = int(np.argmin(var))
    order[0], cond_var[0] = current, var[current]
    remaining[current] = False
    for t in range(1, n):  # sequential by construction; each step is O(n) vectorized
        cov = cov_full[current]
        with np.errstate(divide="ignore", invalid="ignore"):
            resid = np.where(var[current] > 0, var - cov**2 / var[current], var)
        resid = np.maximum(resid, 0.0)
        nxt = int(np.argmin(np.where(remaining, resid, np.inf)))
        order[t] = nxt
        cond_var[t] = resid[nxt]
        coef[t] = cov[nxt] / var[current] if var[current] > 0 else 0.0
        remaining[nxt] = False
        current = nxt
    return GaussianChain(mean=mean, order=order, coef=coef, cond_std=np.sqrt(cond_var))
