"""A one-page picture of a run: the error, #strong against chance, and which pairs depend.

Three panels, drawn by :func:`plot_structure` (matplotlib is imported only when it is called):

(a) the best error so far against evaluations, on a log scale;
(b) |S|, the number of strong variables WI found at each generation, against evaluations,
    with the number chance alone would produce for independent variables
    (:func:`~edamcc.wi_threshold.chance_strong`): a curve near that line is noise;
(c) how often each pair had |corr| > theta (:meth:`StructureRecord.pair_frequency`), with the
    variables reordered (reverse Cuthill-McKee on the pairs found in at least 5% of the
    generations) so that groups of dependent variables show as blocks near the diagonal; the
    colour scale is logarithmic, so pairs found now and then by chance stay faint and pairs
    never found are white.
    Without pair counts (above 2,000 variables by default) it shows, per variable, the
    fraction of generations in which it was strong.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .checkpoint import check_path
from .checks import is_int, is_real
from .structure_record import StructureRecord
from .wi_threshold import chance_strong, pair_exceeds

#: pairs found dependent in at least this fraction of WI calls are edges for the ordering
ORDER_THRESHOLD = 0.05
NOISE_RANGE = 100.0  # panel (c) spans at least this factor above the chance rate, so noise stays faint
NEEDS_TEX = {"pgf"}  # formats matplotlib writes only through a TeX program: not offered (they fail after the run)


def dependency_order(frequency: NDArray[np.float64], threshold: float = ORDER_THRESHOLD) -> NDArray[np.intp]:
    """An order of the variables that puts frequently dependent ones next to each other.

    Reverse Cuthill-McKee on the graph of pairs with ``frequency >= threshold``; variables
    without such a pair keep their order after the connected ones.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    adjacency = np.asarray(frequency) >= threshold
    np.fill_diagonal(adjacency, False)
    connected = adjacency.any(axis=1)
    order = np.asarray(reverse_cuthill_mckee(csr_matrix(adjacency.astype(np.int8)), symmetric_mode=True), dtype=np.intp)
    return np.concatenate([order[connected[order]], np.flatnonzero(~connected)])


def dependency_groups(frequency: NDArray[np.float64], threshold: float = ORDER_THRESHOLD) -> list[NDArray[np.intp]]:
    """The groups of at least two variables linked by pairs with ``frequency >= threshold``
    (connected components), largest first; each group's variables in increasing order."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    adjacency = np.asarray(frequency) >= threshold
    np.fill_diagonal(adjacency, False)
    _, labels = connected_components(csr_matrix(adjacency.astype(np.int8)), directed=False)
    groups = [np.flatnonzero(labels == k) for k in np.unique(labels)]
    return sorted((g for g in groups if g.size >= 2), key=lambda g: (-g.size, int(g[0])))


def check_plot_path(path: Any, name: str = "path") -> None:
    """Raise ``ValueError`` naming ``name`` unless ``path`` ends in a picture format matplotlib
    writes (``.png``, ``.svg``, ``.pdf``, ...): without one, matplotlib would add ``.png`` and write
    another file than the one named."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = sorted(set(FigureCanvasBase.get_supported_filetypes()) - NEEDS_TEX)
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if suffix not in formats:
        raise ValueError(f"{name}: expected a file name ending in one of .{', .'.join(formats)}; got {os.fspath(path)!r}")


def plot_structure(
    record: StructureRecord,
    *,
    path: str,
    errors: Sequence[tuple[int, float]] | NDArray[np.float64] | None = None,
    m_corr: int | None = None,
    theta: float | None = None,
    title: str = "",
    dpi: int = 110,
) -> None:
    """Write the three-panel picture of a run to ``path`` (any format matplotlib knows).

    Every argument is checked before anything is drawn. The figure is drawn on its own
    canvas: matplotlib's backend and pyplot's figures are left as they were.

    Args:
        record: the run's :class:`~edamcc.structure_record.StructureRecord` (``res.structure``
            or ``es.structure``), with at least one WI call.
        path: the output file; its suffix names the format (``ValueError`` for one matplotlib
            cannot write, or none).
        errors: ``(evaluations, best error)`` pairs, e.g. collected by :func:`edamcc.minimize`'s
            callback from ``r.nfev`` and ``r.fun`` (minus F(x*) when known); no NaN, none
            negative (a wrong F(x*) would hide there), 0 drawn below the smallest positive one.
            None: panel (a) says there is no error history.
        m_corr, theta: WI's sizes for a constant chance line in panel (b) and the colour
            floor of panel (c). None (default): each WI call's own rows and threshold as the
            record holds them (they change at restarts), a stepped line; left out if unknown.
        title: a title over the figure.
        dpi: the resolution of a raster format, a positive number.
    """
    if not isinstance(record, StructureRecord):
        raise TypeError(f"record: expected a StructureRecord (res.structure or es.structure; None when "
                        f"record_structure=False); got {type(record).__name__}")  # fmt: skip
    if record.n_wi_calls == 0:
        raise ValueError("record: no WI call was recorded (a variant without WI, or no generation closed yet); there is nothing to draw")
    check_path(path, "path", in_place=True)  # the directory, before the drawing takes its seconds
    check_plot_path(path)
    if not (is_real(dpi) and 0 < dpi < np.inf):
        raise ValueError(f"dpi: expected a positive finite number; got {dpi!r}")
    if theta is not None and not (is_real(theta) and 0.0 <= theta <= 1.0):
        raise ValueError(f"theta: expected the number WI used (es.theta, in [0, 1]) or None; got {theta!r}")
    if m_corr is not None and (not is_int(m_corr) or m_corr < 2):
        raise ValueError(f"m_corr: expected the rows WI correlated (es.m_corr, an integer >= 2) or None; got {m_corr!r}")
    if (m_corr is None) != (theta is None):  # one alone cannot draw the constant line
        raise ValueError(f"m_corr, theta: expected both (a constant chance line) or neither (each WI call's own); got {m_corr!r}, {theta!r}")
    if errors is not None and len(errors) and np.shape(errors)[1:] != (2,):
        raise ValueError(f"errors: expected (evaluations, best error) pairs, shape (k, 2); got shape {np.shape(errors)}")
    if errors is not None and len(errors):
        _check_errors(np.asarray(errors, dtype=np.float64))
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 7.6))  # not pyplot's: no backend is chosen, no global figure kept
    grid = fig.add_gridspec(2, 2, width_ratios=[1.25, 1], height_ratios=[1, 1], left=0.07, right=0.92, top=0.9, bottom=0.2, wspace=0.22, hspace=0.45)
    ax_err = fig.add_subplot(grid[0, 0])
    ax_strong = fig.add_subplot(grid[1, 0], sharex=ax_err)
    ax_pairs = fig.add_subplot(grid[:, 1])

    _error_panel(ax_err, errors)
    _strong_panel(ax_strong, record, m_corr, theta)
    pairs_caption = _pairs_panel(fig, ax_pairs, record, m_corr, theta)

    if title:
        fig.suptitle(title, fontsize=12)
    if m_corr is not None and theta is not None:
        chance = f" (dashed: expected by chance alone, m_corr = {m_corr}, theta = {theta:g})"
    else:
        chance = " (dashed: chance alone, at each generation's m_corr and theta)" if np.isfinite(record.chance_n_strong()).any() else ""
    caption = (
        "(a) best error found so far. (b) number of variables WI calls strong (|corr| > theta to some other variable)"
        f"{chance}:\nnear the dashed line the strong set is mostly noise, clearly above it the problem couples variables.\n"
        f"(c) {pairs_caption}"
    )
    fig.text(0.07, 0.015, caption, fontsize=8.5, va="bottom", ha="left")
    fig.savefig(path, dpi=dpi)


def _check_errors(data: NDArray[np.float64]) -> None:
    """``errors``' best errors: none NaN, none negative (below F(x*): a wrong optimum value)."""
    values = data[:, 1]
    if np.isnan(values).any():
        at = data[np.flatnonzero(np.isnan(values))[0], 0]
        raise ValueError(f"errors: expected best errors, not NaN; got NaN at {at:g} evaluations")
    if (values < 0).any():
        k = np.flatnonzero(values < 0)[0]
        raise ValueError(f"errors: expected best errors >= 0; got {values[k]:g} at {data[k, 0]:g} evaluations: is F(x*) right?")


def _error_panel(ax: Any, errors: Sequence[tuple[int, float]] | NDArray[np.float64] | None) -> None:
    ax.set_title("(a) best error so far", fontsize=10, loc="left")
    ax.set_ylabel("F(x) - F(x*)")
    if errors is None or len(errors) == 0:
        ax.text(0.5, 0.5, "no error history", transform=ax.transAxes, ha="center", va="center")
        return
    data = np.asarray(errors, dtype=np.float64).reshape(-1, 2)
    values = data[:, 1]
    positive = values[np.isfinite(values) & (values > 0)]
    floor = positive.min() / 10 if positive.size else 1e-12
    ax.step(data[:, 0], np.where(values > 0, values, floor), where="post", lw=1.2, color="C0")  # 0 (reached): below the rest
    ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    ax.tick_params(labelbottom=False)  # shares the evaluations axis with panel (b)


def _strong_panel(ax: Any, record: StructureRecord, m_corr: int | None, theta: float | None) -> None:
    n = record.dimension
    ax.set_title("(b) strong variables per generation", fontsize=10, loc="left")
    evaluations, n_strong = record.evaluations, record.n_strong
    ax.plot(evaluations, n_strong, lw=0.6, color="C1", alpha=0.6, label="#strong (WI)")
    window = max(1, n_strong.size // 50)
    if window > 1:
        smooth = np.convolve(n_strong, np.ones(window) / window, mode="valid")
        ax.plot(evaluations[window - 1 :], smooth, lw=1.6, color="C3", label=f"mean of {window} generations")
    if m_corr is not None and theta is not None:
        expected = chance_strong(n, m_corr, theta)
        ax.axhline(expected, ls="--", color="0.3", lw=1, label=f"chance alone: {expected:.0f}")
    elif m_corr is None and theta is None and np.isfinite(chance := record.chance_n_strong()).any():
        ax.step(evaluations, chance, where="post", ls="--", color="0.3", lw=1, label=f"chance alone: {np.nanmean(chance):.1f} on average")
    ax.set_ylim(0, n * 1.05)
    ax.set_xlabel("evaluations")
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 4))
    ax.set_ylabel(f"#strong (of n = {n})")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)


def _pairs_panel(fig: Any, ax: Any, record: StructureRecord, m_corr: int | None, theta: float | None) -> str:
    n = record.dimension
    thetas = record.wi_theta[np.isfinite(record.wi_theta)]
    if theta is not None:
        above = f"|corr| > {theta:g}"
    elif thetas.size and thetas.min() == thetas.max():
        above = f"|corr| > {thetas[0]:g}"
    elif thetas.size:
        above = f"|corr| > theta ({thetas.min():.3g} to {thetas.max():.3g})"
    else:
        above = "|corr| > theta"
    if record.pair_counts is None:
        freq = record.strong_frequency()
        order = np.argsort(-freq, kind="stable")
        ax.bar(np.arange(n), freq[order], width=1.0, color="C2")
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(0, 1)
        ax.set_title("(c) how often each variable was strong", fontsize=10, loc="left")
        ax.set_xlabel("variables, most often strong first")
        ax.set_ylabel("fraction of generations")
        return "fraction of generations in which each variable was strong (no pair counts were recorded)."
    freq = record.pair_frequency()
    order = dependency_order(freq)
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Rectangle

    shown = freq[np.ix_(order, order)]
    # the colour scale starts at what chance alone gives a pair, so noise stays near white
    floor = 1.0 / max(record.n_wi_calls, 1)
    if m_corr is not None and theta is not None:
        floor = max(floor, pair_exceeds(theta, m_corr))
    elif m_corr is None and theta is None and (rate := record.chance_pair_frequency()) is not None:
        floor = max(floor, rate)
    top = max(float(shown.max()), min(1.0, NOISE_RANGE * floor))  # a fraction; noise, a few times the floor, stays faint
    if floor >= top:  # chance gives every pair (two rows): a scale that still shows the frequencies
        floor = top / NOISE_RANGE
    image = ax.imshow(np.clip(shown, floor, None), cmap="Blues", norm=LogNorm(vmin=floor, vmax=top), interpolation="nearest")
    ax.set_title(f"(c) pairs with {above}", fontsize=10, loc="left")
    position = np.empty(n, dtype=np.intp)
    position[order] = np.arange(n)
    for group in dependency_groups(freq)[:6]:  # RCM keeps each group contiguous
        first = int(position[group].min())
        ax.add_patch(Rectangle((first - 0.5, first - 0.5), group.size, group.size, fill=False, edgecolor="C3", lw=1.2))
        names = ", ".join(f"x{i}" for i in group[:6]) + (", ..." if group.size > 6 else "")
        ax.annotate(names, (first + group.size - 0.5, first - 0.5), xytext=(4, -2), textcoords="offset points",
                    fontsize=8, color="C3", va="top")  # fmt: skip
    ticks = np.unique(np.linspace(0, n - 1, min(n, 8)).round().astype(int))
    labels = [f"x{order[t]}" for t in ticks]
    ax.set_xticks(ticks, labels, rotation=90, fontsize=7)
    ax.set_yticks(ticks, labels, fontsize=7)
    ax.set_xlabel("variable (dependent ones placed together)")
    bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.03, orientation="vertical")
    bar.set_label("fraction of generations")
    return (
        f"fraction of generations in which each pair had {above} (log scale from the rate chance alone gives a pair,\n"
        "faint), variables reordered so that dependent groups form blocks on the diagonal (red: pairs in at least "
        f"{ORDER_THRESHOLD:.0%} of generations)."
    )
