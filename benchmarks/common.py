"""What the benchmark programs share: the paper's protocol, the results folder, run files.

A campaign is a list of jobs, each written to its own JSON run file as soon as it finishes;
a job whose run file exists is done, so an interrupted campaign resumes where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
FUNCTIONS = [f"F{i}" for i in range(1, 14)]  # the paper's F1-F13
ZERO = 1e-12  # errors below it count as 0, as in the paper
# The bounds (#14): where the paper's variant beats sep-CMA-ES, at most PAPER_FACTOR times
# its median; on the sphere at 100 n, at most SPHERE_FACTOR times sep-CMA-ES's.
PAPER_FACTOR = 3.0
SPHERE_FACTOR = 10.0

J = TypeVar("J")


def verdict_of(a: float, b: float) -> str:
    """Median ``a`` against median ``b`` (lower is better): "ahead", "tied" or "behind"."""
    if a == b:
        return "tied"
    return "ahead" if a < b else "behind"


def zeroed_median(errors: Sequence[float]) -> float:
    """The median of ``errors``, 0 below ``ZERO``: how the reports take a cell's median."""
    med = float(np.median(errors))
    return 0.0 if med < ZERO else med


def paper_budget(dim: int) -> int:
    """The paper's budget: 10000 n evaluations, 2.5e6 from 500 dimensions on."""
    return 2_500_000 if dim >= 500 else 10_000 * dim


def load_runs(directory: Path) -> list[dict]:
    """Every run file in ``directory``, in file-name order."""
    return [json.loads(p.read_text()) for p in sorted(Path(directory).glob("*.json"))]


def run_jobs(
    todo: Sequence[J],
    work: Callable[[J], dict],
    path: Callable[[J], Path],
    workers: int,
    progress: Callable[[J, dict], str],
    initializer: Callable[..., Any] | None = None,
    initargs: tuple = (),
) -> None:
    """Run ``work(job)`` for each job over ``workers`` processes; each result goes to
    ``path(job)`` as soon as it comes back, followed by a line ``[k/len(todo)] progress(...)``."""
    with ProcessPoolExecutor(max_workers=workers, initializer=initializer, initargs=initargs) as pool:
        futures = {pool.submit(work, j): j for j in todo}
        for k, fut in enumerate(as_completed(futures), 1):
            j = futures[fut]
            result = fut.result()
            path(j).write_text(json.dumps(result))
            print(f"[{k}/{len(todo)}] {progress(j, result)}", flush=True)


def run_missing(
    jobs: Sequence[J],
    work: Callable[[J], dict],
    path: Callable[[J], Path],
    workers: int,
    progress: Callable[[J, dict], str],
) -> None:
    """Runs are cached per file: :func:`run_jobs` on the jobs whose ``path(job)`` is not there
    yet, after a line saying how many of ``jobs`` those are."""
    todo = [j for j in jobs if not path(j).exists()]
    print(f"{len(jobs)} runs, {len(todo)} to do", flush=True)
    run_jobs(todo, work, path, workers, progress)


def add_campaign_options(parser: Any, out: Path, runs: int) -> None:
    """The options of a program whose runs are cached one file per run under a folder:
    ``--runs`` (seeds per cell), ``--workers``, ``--out`` (the folder) and ``--report``."""
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=str(out), help="folder of the runs and the report")
    parser.add_argument("--report", action="store_true", help="only rewrite report.md from the run files")


def runs_folder(args: Any) -> Path:
    """``--out`` of :func:`add_campaign_options`, with its ``runs`` folder made."""
    out = Path(args.out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    return out


def shown_path(path: Path | str) -> Path:
    """``path`` as a report shows it: relative to the repository when it is inside it."""
    resolved = Path(path).resolve()
    root = RESULTS.resolve().parent.parent
    return resolved.relative_to(root) if resolved.is_relative_to(root) else resolved


def rerun_command(script: str, parser: Any, args: Any, options: Sequence[str]) -> str:
    """The command line that rewrites a script's table: ``options`` (argparse dests, in order)
    that differ from the parser's defaults, then ``--out`` when it is not the default file."""
    defaults = parser.parse_args([])
    parts = [f"python benchmarks/{script}"]
    for dest in options:
        value = getattr(args, dest)
        if value != getattr(defaults, dest):
            parts.append(f"--{dest.replace('_', '-')} " + (" ".join(map(str, value)) if isinstance(value, list) else str(value)))
    if Path(args.out).resolve() != Path(defaults.out).resolve():
        parts.append(f"--out {shown_path(args.out)}")
    return " ".join(parts)


def write_report(path: Path, text: str) -> None:
    """Print a Markdown report and write it to ``path``."""
    print(text)
    path.write_text(text)


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (ImportError without matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
