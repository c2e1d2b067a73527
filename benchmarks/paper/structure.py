"""WI results as the paper draws them (fig:F1_WI, fig:F4_WI, fig:F7_WI, fig:F6_WI): for each
function, mean #strong over the runs against #eval, and Q (runs that put variable i into S
at each generation), one column per dimension; a summary of every cell in structure.json."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from common import pyplot
from edamcc import minimize
from edamcc.benchmark_functions import get_function

from . import published as paper


def structure_run(fn: str, dim: int, big_m: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = get_function(fn, dim, seed=0)
    res = minimize(f, f.bounds, seed=seed, vectorized=True, population_size=big_m, c=20, record_pairs=False)
    rec = res.structure
    return rec.evaluations, rec.n_strong, rec.q_matrix()


def draw_structure(out: Path, functions: list[str], dims: list[int], runs: int, workers: int) -> None:
    """structure_<F>.png per function and structure.json, with the paper's best M for EDA-MCC (200 where it has none)."""
    plt = pyplot()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for fn in functions:
            fig, axes = plt.subplots(2, len(dims), figsize=(4 * len(dims), 6.5), squeeze=False)
            for col, dim in enumerate(dims):
                big_m = paper.POPSIZE_RESULTS.get((fn, dim), {}).get("edamcc", 200)
                results = list(pool.map(structure_run, [fn] * runs, [dim] * runs, [big_m] * runs, range(runs)))
                length = min(len(r[1]) for r in results)
                evals = results[0][0][:length]
                mean_strong = np.mean([r[1][:length] for r in results], axis=0)
                q = np.sum([r[2][:, :length] for r in results], axis=0)
                summary[f"{fn}_{dim}"] = {"M": big_m, "runs": runs, "mean_n_strong": float(mean_strong.mean()),
                                          "strong_frequency": (q.sum(axis=1) / (runs * length)).round(3).tolist()}  # fmt: skip
                axes[0][col].plot(evals, mean_strong, lw=0.8)
                axes[0][col].set_title(f"{fn}, {dim}D: average #strong")
                axes[1][col].imshow(q, aspect="auto", cmap="Greys", interpolation="nearest", vmin=0, vmax=runs,
                                    extent=(evals[0], evals[-1], dim + 0.5, 0.5))  # fmt: skip
                axes[1][col].set_title(f"{dim}D Q ({runs} runs)")
                axes[1][col].set_xlabel("#eval")
                print(f"{fn} {dim}D M={big_m}: mean #strong {mean_strong.mean():.1f}", flush=True)
            axes[1][0].set_ylabel("variable")
            fig.tight_layout()
            path = out / f"structure_{fn}.png"
            fig.savefig(path, dpi=90)
            plt.close(fig)
            print(f"wrote {path}")
    (out / "structure.json").write_text(json.dumps(summary, indent=1))
