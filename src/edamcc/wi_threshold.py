"""WI's threshold: the paper's fixed theta, or one calibrated to the noise of the correlations.

Under independence a sample correlation r of m_corr rows has Fisher z = atanh(r), approximately
N(0, 1 / (m_corr - 3)). WI calls a variable strong when its largest |r| over the n - 1 other
variables exceeds theta, so with a fixed theta = 0.3 (Section IV-A) chance alone makes truly
independent variables strong more and more often as n grows: at m_corr = 100 they stay weak
79% / 30% / 9% / 0% of the time at n = 100 / 500 / 1000 / 10,000 (:func:`weak_probability`,
exact under independence: r^2 ~ Beta(1/2, (m_corr - 2) / 2)).

``theta="auto"`` is the Bonferroni threshold from Fisher's z,

    theta = tanh(z_{1 - alpha / (2 (n - 1))} / sqrt(m_corr - 3)),   alpha = 0.05.

By Fisher's z an independent variable would stay weak with probability at least 1 - alpha
whatever n is. The approximation holds with many rows (exactly: 94.6% / 94.3% / 94.1% / 93.4%
at m_corr = 100 and the n above) and not with the few rows of the self-adaptive variants: the
default's own m_corr, 8 / 11 / 12 / 15 at those n, keeps 86.6% / 83.8% / 82.0% / 74.3%
(``benchmarks/wi_noise.py --m-corr default``).

``theta="exact"`` (:func:`exact_theta`, opt-in) is the threshold from the exact law instead:
each pair's |r| exceeds it with probability p = 1 - (1 - alpha)^(1 / (n - 1)) (Sidak), so an
independent variable stays weak with probability 1 - alpha at any n and m_corr, as far as its
n - 1 correlations are independent of each other (measured: 95.6% / 95.1% / 95.0% / 95.0% at
the default's m_corr, theta 0.940 / 0.910 / 0.905 / 0.899). It is not the default's rule: every
committed run of the default, and every figure of the targets, uses ``"auto"`` (the README
compares the two).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betaincc, betainccinv
from scipy.stats import norm

from .checks import check_dimension, is_int

AUTO_ALPHA = 0.05


def auto_theta(dimension: int, m_corr: int, alpha: float = AUTO_ALPHA) -> float:
    """The Bonferroni-calibrated WI threshold for ``dimension`` variables and ``m_corr`` rows."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: expected a number in (0, 1); got {alpha!r}")
    if dimension < 2 or m_corr <= 3:
        return 1.0  # no partner, or too few rows for any correlation to mean something
    z = norm.isf(alpha / (2.0 * (dimension - 1)))
    return float(math.tanh(z / math.sqrt(m_corr - 3)))


def exact_theta(dimension: int, m_corr: int, alpha: float = AUTO_ALPHA) -> float:
    """The WI threshold from the exact null law of |r| (r^2 ~ Beta(1/2, (m_corr - 2) / 2)), at
    which an independent variable stays weak with probability 1 - ``alpha``:
    P(|r| > theta) = 1 - (1 - alpha)^(1 / (dimension - 1)) for each of its partners."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha: expected a number in (0, 1); got {alpha!r}")
    if dimension < 2 or m_corr <= 3:
        return 1.0  # as auto_theta
    p = -math.expm1(math.log1p(-alpha) / (dimension - 1))
    return float(math.sqrt(betainccinv(0.5, (m_corr - 2) / 2.0, p)))


def pair_exceeds(theta: float, m_corr: int) -> float:
    """P(|r| > theta) for the sample correlation r of two independent Gaussian variables over
    ``m_corr`` rows (from 2: two rows give r = +-1).

    Under independence r^2 ~ Beta(1/2, (m_corr - 2) / 2) exactly, so this is the regularized
    upper incomplete beta function at theta^2; Fisher's z gives nearly the same value,
    2 (1 - Phi(atanh(theta) sqrt(m_corr - 3))).
    """
    if not is_int(m_corr) or m_corr < 2:
        raise ValueError(f"m_corr: expected an integer >= 2; got {m_corr!r}")
    if not 0.0 <= theta <= 1.0:
        raise ValueError(f"theta: expected a number in [0, 1]; got {theta!r}")
    if theta >= 1.0:
        return 0.0
    if m_corr == 2:  # two rows correlate every pair by +-1: the law's limit
        return 1.0
    return float(betaincc(0.5, (m_corr - 2) / 2.0, theta**2))


def weak_probability(dimension: int, m_corr: int, theta: float) -> float:
    """P(an independent variable is called weak): all of its n - 1 correlations are <= theta."""
    p = pair_exceeds(theta, m_corr)
    return float(np.exp(max(dimension - 1, 0) * np.log1p(-p))) if p < 1.0 else float(dimension <= 1)


def chance_strong(dimension: int, m_corr: int, theta: float) -> float:
    """The expected number of variables, of ``dimension`` independent ones, that WI calls strong.

    A #strong curve near this value says WI sees noise, not structure: with the paper's
    m_corr = 100 and theta = 0.3 about 21 of 100 independent variables are strong; with
    m_corr = 50, 97 of 100.
    """
    dimension = check_dimension(dimension)
    return float(dimension * (1.0 - weak_probability(dimension, m_corr, theta)))


RULES = {"auto": auto_theta, "exact": exact_theta}  # theta's names for a threshold computed per n and m_corr


def resolve_theta(theta: float | str, dimension: int, m_corr: int) -> float:
    """A number for WI: ``theta`` itself, or :func:`auto_theta` for ``"auto"`` and
    :func:`exact_theta` for ``"exact"``."""
    return RULES[theta](dimension, m_corr) if isinstance(theta, str) else float(theta)
