"""The report's numbers: the best population size of a cell, the paper's Mann-Whitney markers,
the paper's cell for each row and whether ours reproduces it."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from scipy.stats import mannwhitneyu

from common import ZERO

from . import published as paper
from .registry import generated

Cell = tuple  # (table, function, dim, column, theta, c); column "edamcc (cec2005)" on official instances


def cells(rows: list[dict]) -> dict[Cell, dict[int, list[dict]]]:
    """The run files by cell, then by population size; runs on official instances are cells
    of their own (column "<column> (<instance>)"), never pooled with generated ones."""
    by: dict[Cell, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        column = r["column"] if generated(r) else f'{r["column"]} ({r["instance"]})'
        by[(r["table"], r["function"], r["dim"], column, r["theta"], r["c"])][r["population_size"]].append(r)
    return by


def best_of_sizes(per_m: dict[int, list[dict]]) -> tuple[int, list[dict]]:
    """The population size with the lowest mean error (the smaller M on a tie), and its runs."""
    return min(per_m.items(), key=lambda kv: (np.mean([r["error"] for r in kv[1]]), kv[0]))


def reference(key: Cell) -> Cell:
    """The cell a row is tested against: EDA-MCC on the same function, dimension and instance
    (UMDAc in the additional table, whose columns are EDA-MCC's)."""
    table, fn, dim, col, theta, c = key
    _, _, inst = col.partition(" ")
    ref_col = ("edamcc" if table != "additional" else "umdac") + (f" {inst}" if inst else "")
    return (table, fn, dim, ref_col, theta, c)


def marker(a: list[float], b: list[float]) -> str:
    """The paper's markers: * p < 0.05, † p < 0.01, § p < 0.001 (two-sided Mann-Whitney U)."""
    a0 = np.where(np.asarray(a) < ZERO, 0.0, a)
    b0 = np.where(np.asarray(b) < ZERO, 0.0, b)
    if len(a0) < 2 or len(b0) < 2 or (np.all(a0 == a0[0]) and np.all(b0 == b0[0]) and a0[0] == b0[0]):
        return ""
    p = mannwhitneyu(a0, b0, alternative="two-sided").pvalue
    return "§" if p < 0.001 else "†" if p < 0.01 else "*" if p < 0.05 else ""


def verdict(ours: float, theirs) -> str:
    """"yes" when both are 0 or ours is within a factor 3 of the paper's mean, else better/worse by how much."""
    if theirs is None:
        return ""
    t = theirs[0]
    if ours < ZERO and t < ZERO:
        return "yes"
    if t < ZERO:
        return f"no (ours {ours:.1e}, theirs 0)"
    if ours < ZERO:
        return "better (0)"
    ratio = ours / t
    if 1 / 3 <= ratio <= 3:
        return "yes"
    factor = 1 / ratio if ratio < 1 else ratio
    text = f"{factor:.0f}x" if factor < 1e4 else f"{factor:.0e}x"
    return f"better ({text})" if ratio < 1 else f"worse ({text})"


def paper_cell(table: str, column: str, fn: str, dim: int, theta: float, c: int):
    """The paper's (mean, std) for a row, None where the paper has no such cell."""
    if table == "solution":
        return paper.SOLUTION_RESULTS.get((fn, dim), {}).get(column)
    if table == "500d":
        return paper.RESULTS_500D.get((fn,), {}).get(column)
    if table == "f10":
        return paper.F10_EEDA_VS_EDAMCC.get(dim, {}).get(column, (None,))[0]
    if table == "umda_large":
        return paper.UMDA_LARGE_POPSIZE.get((fn,), {}).get(column)
    if table == "additional":
        return paper.ADDITIONAL_EXP.get((fn, dim), {}).get(column)
    if table == "theta_c":
        grid = paper.THETA_C_F2 if fn == "F2" else paper.THETA_C_F8
        return grid.get((theta, c))
    if table == "gc":
        return paper.EDAMCC_GC.get((fn, dim), {}).get(column)
    if table == "wism":
        return paper.WISM_VS_SM_VS_WI.get((fn,), {}).get(column)
    return None
