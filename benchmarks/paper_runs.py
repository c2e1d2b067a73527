"""Reproduce the paper's result tables: run campaigns, then report ours beside theirs.

    python benchmarks/paper_runs.py run --table solution --runs 5 --popsizes paper
    python benchmarks/paper_runs.py report

Each run is one file under ``<out>/runs/``; an interrupted campaign resumes where it stopped
(finished runs are skipped). Runs are independent and spread over ``--workers`` processes.
The default protocol is the paper's: budget 10000 n (2.5e6 at 500D), tau = 0.5, elitism,
errors below 1e-12 counted as 0, and the best of M in {200, 500, 1000, 2000} where the paper
searched it (``--popsizes all``); ``--popsizes paper`` runs only the M the paper reports as
best for each cell, a 4x cheaper reduction.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paper_data as paper  # noqa: E402

from edamcc import minimize  # noqa: E402
from edamcc.functions import CEC2005_DATA_FILES, CEC2005_MAX_DIMENSION, cec2005_instance, get_function  # noqa: E402

ZERO = 1e-12
POPSIZES = (200, 500, 1000, 2000)
FUNCTIONS = [f"F{i}" for i in range(1, 14)]
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "paper"


@dataclass(frozen=True)
class Job:
    table: str
    column: str  # the table's column this run belongs to
    variant: str
    function: str
    dim: int
    population_size: int
    c: int
    theta: float
    seed: int
    budget: int
    instance: str = "generated"  # or "cec2005": the official data files (--cec2005-data)

    @property
    def key(self) -> str:
        tag = "" if self.instance == "generated" else f"__{self.instance}"
        return (f"{self.table}__{self.column}__{self.function}__{self.dim}__M{self.population_size}"
                f"__c{self.c}__t{self.theta}__s{self.seed}{tag}")  # fmt: skip


_CEC2005_DIR: str | None = None  # set in each worker by --cec2005-data (never written into results)


def _set_cec2005_dir(directory: str | None) -> None:
    global _CEC2005_DIR
    _CEC2005_DIR = directory


def instance_for(function: str, dim: int, cec2005: bool) -> str:
    """"cec2005" where official data define the function at this dimension, else "generated"."""
    return "cec2005" if cec2005 and function in CEC2005_DATA_FILES and dim <= CEC2005_MAX_DIMENSION else "generated"


def _generated(run: dict) -> bool:
    """Whether a run file is on a generated instance (files from before instances existed are)."""
    return run.get("instance", "generated") == "generated"


def run_job(job: Job) -> dict:
    data = {} if job.instance == "generated" else cec2005_instance(job.function, job.dim, _CEC2005_DIR)  # type: ignore[arg-type]
    f = get_function(job.function, job.dim, seed=0, **data)  # one fixed instance, as CEC2005's data files
    curve: list[tuple[int, float]] = []

    def callback(r) -> bool:
        curve.append((r.nfev, r.fun))
        return False

    start = time.process_time()
    wall = time.perf_counter()
    res = minimize(f, f.bounds, budget=job.budget, seed=job.seed, vectorized=True, callback=callback,
                   variant=job.variant, population_size=job.population_size, c=job.c, theta=job.theta,
                   record_pairs=False)  # fmt: skip
    cpu, wall = time.process_time() - start, time.perf_counter() - wall
    idx = np.unique(np.geomspace(1, len(curve), 120).astype(int) - 1)
    rec = res.structure
    return {
        **asdict(job),
        "error": float(f.error(res.fun)),
        "nfev": int(res.nfev),
        "generations": int(res.nit),
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "curve": [(curve[i][0], float(f.error(curve[i][1]))) for i in idx],
        "mean_n_strong": None if rec is None or rec.n_strong.size == 0 else float(rec.n_strong.mean()),
    }


# ------------------------------------------------------------------ the tables as jobs
def _budget(dim: int) -> int:
    return 2_500_000 if dim >= 500 else 10_000 * dim


def jobs_for(table: str, runs: int, popsizes: str, functions: list[str] | None, dims: list[int] | None) -> Iterator[Job]:
    fsel = (lambda f: functions is None or f in functions)
    dsel = (lambda d: dims is None or d in dims)

    def sizes(cell_m: int) -> tuple[int, ...]:
        return (cell_m,) if popsizes == "paper" else POPSIZES

    for seed in range(runs):
        if table == "solution":
            for (fn, dim), cells in paper.POPSIZE_RESULTS.items():
                if fsel(fn) and dsel(dim):
                    for col, m in cells.items():
                        for big_m in sizes(m):
                            yield Job(table, col, col, fn, dim, big_m, 20, 0.3, seed, _budget(dim))
        elif table == "500d":
            for fn in FUNCTIONS:
                if fsel(fn) and dsel(500):
                    yield Job(table, "edamcc", "edamcc", fn, 500, paper.EDAMCC_500D_POPSIZE[fn], 100, 0.3, seed, _budget(500))
                    yield Job(table, "umdac", "umdac", fn, 500, 2000, 100, 0.3, seed, _budget(500))
                    yield Job(table, "mimic", "mimic", fn, 500, 2000, 100, 0.3, seed, _budget(500))
        elif table == "f10":
            for dim, cells in paper.F10_EEDA_VS_EDAMCC.items():
                if dsel(dim):
                    for col, (_, m) in cells.items():
                        for big_m in sizes(m):
                            yield Job(table, col, col, "F10", dim, big_m, 20, 0.3, seed, _budget(dim))
        elif table == "umda_large":
            for fn in paper.UMDA_LARGE_POPSIZE:
                fn = fn[0]
                if fsel(fn) and dsel(100):
                    for big_m in (4000, 8000, 16000):
                        yield Job(table, f"umdac-{big_m}", "umdac", fn, 100, big_m, 20, 0.3, seed, _budget(100))
        elif table == "additional":
            for fn, dim in paper.ADDITIONAL_EXP:
                if fsel(fn) and dsel(dim):
                    for big_m in sizes(2000):
                        yield Job(table, "umdac", "umdac", fn, dim, big_m, 20, 0.3, seed, _budget(dim))
                    for variant, tag in (("edamcc", "edamcc"), ("edamcc-emna", "edamcc-emna")):
                        for c in (20, 2):
                            for big_m in sizes(2000):
                                yield Job(table, f"{tag}-c{c}", variant, fn, dim, big_m, c, 0.3, seed, _budget(dim))
        elif table == "theta_c":
            for fn, big_m in (("F2", 1000), ("F8", 500)):
                if fsel(fn) and dsel(100):
                    for theta in (0.2, 0.25, 0.3, 0.35, 0.4):
                        for c in (5, 10, 20, 30, 40, 50):
                            yield Job(table, f"t{theta}-c{c}", "edamcc", fn, 100, big_m, c, theta, seed, _budget(100))
        elif table == "gc":
            for (fn, dim), cell in paper.EDAMCC_GC.items():
                if fsel(fn) and dsel(dim):
                    for variant in ("edamcc-gc", "edamcc"):
                        yield Job(table, variant, variant, fn, dim, cell["M"], cell["c"], 0.3, seed, _budget(dim))  # type: ignore[arg-type]
        elif table == "wism":
            for (fn,) in paper.WISM_VS_SM_VS_WI:
                m = paper.POPSIZE_RESULTS[(fn, 100)]["edamcc"]
                if fsel(fn) and dsel(100):
                    for variant in ("edamcc", "sm-only", "wi-only"):
                        yield Job(table, variant, variant, fn, 100, m, 20, 0.3, seed, _budget(100))
        else:
            raise SystemExit(f"--table: unknown table {table!r}")


TABLES = ("solution", "500d", "f10", "umda_large", "additional", "theta_c", "gc", "wism")


def cmd_run(args: argparse.Namespace) -> None:
    runs_dir = Path(args.out) / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    jobs = [j for t in args.table for j in jobs_for(t, args.runs, args.popsizes, args.functions, args.dims)]
    if args.columns:
        jobs = [j for j in jobs if j.column in args.columns]
    if args.cec2005_data:
        if not Path(args.cec2005_data).is_dir():
            raise SystemExit(f"--cec2005-data: expected the directory of the CEC2005 data files; got {args.cec2005_data!r}")
        jobs = [replace(j, instance=instance_for(j.function, j.dim, True)) for j in jobs]
        jobs = [j for j in jobs if j.instance == "cec2005"]  # the generated ones are the default campaign's
    todo = [j for j in jobs if not (runs_dir / f"{j.key}.json").exists()]
    print(f"{len(jobs)} runs, {len(jobs) - len(todo)} already done, {len(todo)} to do, {args.workers} workers", flush=True)
    # the most expensive first, so the pool drains evenly
    todo.sort(key=lambda j: -j.budget * (1 + j.dim / 100))
    with ProcessPoolExecutor(max_workers=args.workers, initializer=_set_cec2005_dir, initargs=(args.cec2005_data,)) as pool:
        futures = {pool.submit(run_job, j): j for j in todo}
        for k, fut in enumerate(as_completed(futures), 1):
            j = futures[fut]
            out = fut.result()
            (runs_dir / f"{j.key}.json").write_text(json.dumps(out))
            print(f"[{k}/{len(todo)}] {j.table} {j.column} {j.function} {j.dim}D M={j.population_size} seed {j.seed}: "
                  f"error {out['error']:.3e} ({out['wall_seconds']:.1f} s)", flush=True)  # fmt: skip


# ------------------------------------------------------------------ report
def _load(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]


def _fmt(mean: float, std: float | None = None) -> str:
    if mean < ZERO and (std is None or std < ZERO):
        return "0 ± 0" if std is not None else "0"
    return f"{mean:.2e}" + ("" if std is None else f" ± {std:.1e}")


def _paper_fmt(cell) -> str:
    if cell is None:
        return "–"
    mean, std = cell
    return _fmt(mean, std)


def _marker(a: list[float], b: list[float]) -> str:
    """The paper's markers: * p < 0.05, † p < 0.01, § p < 0.001 (two-sided Mann-Whitney U)."""
    a0 = np.where(np.asarray(a) < ZERO, 0.0, a)
    b0 = np.where(np.asarray(b) < ZERO, 0.0, b)
    if len(a0) < 2 or len(b0) < 2 or (np.all(a0 == a0[0]) and np.all(b0 == b0[0]) and a0[0] == b0[0]):
        return ""
    p = mannwhitneyu(a0, b0, alternative="two-sided").pvalue
    return "§" if p < 0.001 else "†" if p < 0.01 else "*" if p < 0.05 else ""


def _verdict(ours: float, theirs) -> str:
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


def _paper_cell(table: str, column: str, fn: str, dim: int, theta: float, c: int):
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


def report(out: Path) -> str:
    rows = _load(out)
    if not rows:
        return "no runs yet\n"
    by: dict[tuple, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        column = r["column"] if _generated(r) else f'{r["column"]} ({r["instance"]})'
        by[(r["table"], r["function"], r["dim"], column, r["theta"], r["c"])][r["population_size"]].append(r)
    lines: list[str] = []
    for table in TABLES:
        cells = {k: v for k, v in by.items() if k[0] == table}
        if not cells:
            continue
        lines += [f"\n### {table}\n",
                  "| function | dim | column | M | runs | ours (mean ± std) | vs edamcc | paper | reproduces? | s/run |",
                  "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        best: dict[tuple, tuple[int, list[dict]]] = {}
        for key, per_m in cells.items():  # best of the population sizes run, by mean error
            m, runs = min(per_m.items(), key=lambda kv: (np.mean([r["error"] for r in kv[1]]), kv[0]))
            best[key] = (m, runs)
        order = sorted(best, key=lambda k: (int(k[1][1:]), k[2], k[4], k[5], k[3]))
        for key in order:
            _, fn, dim, col, theta, c = key
            m, runs = best[key]
            errs = [r["error"] for r in runs]
            base_col, _, inst = col.partition(" ")  # "edamcc (cec2005)" -> compared with "edamcc (cec2005)"
            ref_col = ("edamcc" if table != "additional" else "umdac") + (f" {inst}" if inst else "")
            ref_key = (table, fn, dim, ref_col, theta, c)
            marker = ""
            if ref_key != key and ref_key in best and table != "theta_c":
                marker = _marker(errs, [r["error"] for r in best[ref_key][1]])
            theirs = _paper_cell(table, base_col, fn, dim, theta, c)
            mean = float(np.mean(errs))
            lines.append(f"| {fn} | {dim} | {col} | {m} | {len(errs)} | {_fmt(mean, float(np.std(errs)))} | {marker} | "
                         f"{_paper_fmt(theirs)} | {_verdict(mean, theirs)} | {np.mean([r['wall_seconds'] for r in runs]):.1f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


ALGORITHM_COLUMNS = ("umdac", "emna-global", "eeda", "edamcc")


def _panels(path: Path, fns: list[str], draw, ylabel: str) -> Path:
    """One panel per function, side by side, as the paper's figures; ``draw(ax, fn)`` fills one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    solution = [r for r in _load(out) if r["table"] == "solution" and _generated(r)]
    rows = [r for r in solution if r["dim"] == 100]
    written = []

    def convergence(ax, fn: str) -> None:  # fig:EvolutionaryCurves2ndGroup
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

    def cpu_time(ax, fn: str) -> None:  # fig:CPU_comparison: CPU seconds per run at each algorithm's reported M
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
        written.append(_panels(out / "convergence_100D.png", fns, convergence, "F(x) - F(x*)"))
    fns = [f for f in ("F2", "F8", "F11") if any(r["function"] == f for r in solution)]
    if fns:
        written.append(_panels(out / "cpu_time.png", fns, cpu_time, "CPU seconds"))
    return written


def _structure_run(fn: str, dim: int, big_m: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = get_function(fn, dim, seed=0)
    res = minimize(f, f.bounds, seed=seed, vectorized=True, population_size=big_m, c=20, record_pairs=False)
    rec = res.structure
    return rec.evaluations, rec.n_strong, rec.q_matrix()


def cmd_structure(args: argparse.Namespace) -> None:
    """WI results as the paper draws them (fig:F1_WI, fig:F4_WI, fig:F7_WI, fig:F6_WI): for each
    function, mean #strong over the runs against #eval, and Q (runs that put variable i into S
    at each generation) for 10, 30, 50 and 100 dimensions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for fn in args.functions:
            fig, axes = plt.subplots(2, len(args.dims), figsize=(4 * len(args.dims), 6.5), squeeze=False)
            for col, dim in enumerate(args.dims):
                big_m = paper.POPSIZE_RESULTS.get((fn, dim), {}).get("edamcc", 200)
                runs = list(pool.map(_structure_run, [fn] * args.runs, [dim] * args.runs, [big_m] * args.runs, range(args.runs)))
                length = min(len(r[1]) for r in runs)
                evals = runs[0][0][:length]
                mean_strong = np.mean([r[1][:length] for r in runs], axis=0)
                q = np.sum([r[2][:, :length] for r in runs], axis=0)
                summary[f"{fn}_{dim}"] = {"M": big_m, "runs": args.runs, "mean_n_strong": float(mean_strong.mean()),
                                          "strong_frequency": (q.sum(axis=1) / (args.runs * length)).round(3).tolist()}  # fmt: skip
                axes[0][col].plot(evals, mean_strong, lw=0.8)
                axes[0][col].set_title(f"{fn}, {dim}D: average #strong")
                axes[1][col].imshow(q, aspect="auto", cmap="Greys", interpolation="nearest", vmin=0, vmax=args.runs,
                                    extent=(evals[0], evals[-1], dim + 0.5, 0.5))  # fmt: skip
                axes[1][col].set_title(f"{dim}D Q ({args.runs} runs)")
                axes[1][col].set_xlabel("#eval")
                print(f"{fn} {dim}D M={big_m}: mean #strong {mean_strong.mean():.1f}", flush=True)
            axes[1][0].set_ylabel("variable")
            fig.tight_layout()
            path = out / f"structure_{fn}.png"
            fig.savefig(path, dpi=90)
            plt.close(fig)
            print(f"wrote {path}")
    (out / "structure.json").write_text(json.dumps(summary, indent=1))


def cmd_report(args: argparse.Namespace) -> None:
    out = Path(args.out)
    text = report(out)
    print(text)
    (out / "report.md").write_text(text)
    try:
        for p in plots(out):
            print(f"wrote {p}")
    except ImportError:
        print("no plots: matplotlib is not installed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a campaign (resumable)")
    run.add_argument("--table", nargs="+", default=["solution"], choices=TABLES)
    run.add_argument("--runs", type=int, default=25, help="runs per cell (paper: 25)")
    run.add_argument("--popsizes", choices=["all", "paper"], default="all", help="search M in 200..2000 (paper) or only the paper's best M")
    run.add_argument("--functions", nargs="+", default=None)
    run.add_argument("--dims", nargs="+", type=int, default=None)
    run.add_argument("--columns", nargs="+", default=None, help="only these columns of the tables (e.g. edamcc umdac)")
    run.add_argument("--workers", type=int, default=2)
    run.add_argument("--out", default=str(DEFAULT_OUT))
    run.add_argument("--cec2005-data", metavar="DIR", default=None,
                     help="directory of the official CEC2005 data files: run only the cells they define "
                          "(F2, F8, F9, F10, F12, F13 up to 100D) on the official instances")  # fmt: skip
    rep = sub.add_parser("report", help="print and write the Markdown report and plots")
    rep.add_argument("--out", default=str(DEFAULT_OUT))
    st = sub.add_parser("structure", help="#strong curves and Q matrices (fig:F1_WI and siblings)")
    st.add_argument("--functions", nargs="+", default=["F1", "F8", "F9", "F12"])
    st.add_argument("--dims", nargs="+", type=int, default=[10, 30, 50, 100])
    st.add_argument("--runs", type=int, default=25)
    st.add_argument("--workers", type=int, default=2)
    st.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()
    {"run": cmd_run, "report": cmd_report, "structure": cmd_structure}[args.command](args)


if __name__ == "__main__":
    main()
