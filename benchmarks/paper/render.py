"""The Markdown report (ours beside the paper's, per table) and the paper's two figures drawn
from the run files: convergence curves at 100D and CPU time per run against n."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from common import ZERO, pyplot

from . import statistics as stats
from .execution import load
from .registry import TABLES, generated

ALGORITHM_COLUMNS = ("umdac", "emna-global", "eeda", "edamcc")
HEADER = ["| function | dim | column | M | runs | ours (mean ± std) | vs edamcc | paper | reproduces? | s/run |",
          "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip


def fmt(mean: float, std: float | None = None) -> str:
    if mean < ZERO and (std is None or std < ZERO):
        return "0 ± 0" if std is not None else "0"
    return f"{mean:.2e}" + ("" if std is None else f" ± {std:.1e}")


def paper_fmt(cell) -> str:
    if cell is None:
        return "–"
    mean, std = cell
    return fmt(mean, std)


def report(out: Path) -> str:
    """One table per paper table; each row the best population size of a cell."""
    rows = load(out)
    if not rows:
        return "no runs yet\n"
    by = stats.cells(rows)
    lines: list[str] = []
    for table in TABLES:
        cells = {k: v for k, v in by.items() if k[0] == table}
        if not cells:
            continue
        lines += [f"\n### {table}\n", *HEADER]
        best = {key: stats.best_of_sizes(per_m) for key, per_m in cells.items()}
        order = sorted(best, key=lambda k: (int(k[1][1:]), k[2], k[4], k[5], k[3]))
        for key in order:
            _, fn, dim, col, theta, c = key
            m, runs = best[key]
            errs = [r["error"] for r in runs]
            ref_key = stats.reference(key)
            marker = ""
            if ref_key != key and ref_key in best and table != "theta_c":
                marker = stats.marker(errs, [r["error"] for r in best[ref_key][1]])
            theirs = stats.paper_cell(table, col.partition(" ")[0], fn, dim, theta, c)
            mean = float(np.mean(errs))
            lines.append(f"| {fn} | {dim} | {col} | {m} | {len(errs)} | {fmt(mean, float(np.std(errs)))} | {marker} | "
                         f"{paper_fmt(theirs)} | {stats.verdict(mean, theirs)} | {np.mean([r['wall_seconds'] for r in runs]):.1f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def panels(path: Path, fns: list[str], draw, ylabel: str) -> Path:
    """One panel per function, side by side, as the paper's figures; ``draw(ax, fn)`` fills one."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(fns), figsize=(4 * len(fns), 3.4), squeeze=False)
    for ax, fn in zip(axes[0], fns):
        draw(ax, fn)
    axes[0][0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plots(out: Path) -> list[Path]:
    """convergence_100D.png (fig:EvolutionaryCurves2ndGroup) and cpu_time.png (fig:CPU_comparison)."""
    solution = [r for r in load(out) if r["table"] == "solution" and generated(r)]
    rows = [r for r in solution if r["dim"] == 100]
    written = []

    def convergence(ax, fn: str) -> None:  # mean curve of the smallest M run, per algorithm
        for col in ALGORITHM_COLUMNS:
            runs = [r for r in rows if r["function"] == fn and r["column"] == col]
            if not runs:
                continue
            m = min({r["population_size"] for r in runs})
            runs = [r for r in runs if r["population_size"] == m]
            grid = np.geomspace(max(r["curve"][0][0] for r in runs), 10_000 * 100, 80)
            ys = [np.interp(grid, [p[0] for p in r["curve"]], [max(p[1], ZERO) for p in r["curve"]]) for r in runs]
            ax.loglog(grid, np.mean(ys, axis=0), label=col)
        ax.set_title(f"{fn}, 100D")
        ax.set_xlabel("#eval")

    def cpu_time(ax, fn: str) -> None:  # CPU seconds per run at each algorithm's reported M
        for col in ALGORITHM_COLUMNS:
            pts = []
            for dim in sorted({r["dim"] for r in solution}):
                runs = [r for r in solution if r["function"] == fn and r["column"] == col and r["dim"] == dim]
                if runs:
                    pts.append((dim, float(np.mean([r["cpu_seconds"] for r in runs]))))
            if pts:
                ax.plot(*zip(*pts), marker="o", label=col)
        ax.set_title(f"{fn}: CPU time per run")
        ax.set_xlabel("n")

    fns = [f for f in ("F3", "F5", "F8", "F9", "F10") if any(r["function"] == f for r in rows)]
    if fns:
        written.append(panels(out / "convergence_100D.png", fns, convergence, "F(x) - F(x*)"))
    fns = [f for f in ("F2", "F8", "F11") if any(r["function"] == f for r in solution)]
    if fns:
        written.append(panels(out / "cpu_time.png", fns, cpu_time, "CPU seconds"))
    return written
