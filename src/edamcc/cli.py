"""The ``edamcc`` command: solve a benchmark function, list the suite and the variants."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import __version__
from .benchmark_functions import cec2005_instance, get_function, list_functions
from .optimize import minimize
from .structure_record import StructureRecord
from .settings import Settings
from .variants import VARIANTS, get_variant


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="edamcc", description="EDA-MCC for high-dimensional continuous optimization.")
    parser.add_argument("--version", action="version", version=f"edamcc {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="minimize one of the paper's test functions F1-F13")
    solve.add_argument("function", help="F1..F13 or a descriptive name (see 'edamcc functions')")
    solve.add_argument("--dim", type=_positive_int, default=50, help="number of variables (default 50)")
    solve.add_argument("--seed", type=int, default=None, help="seed of the optimizer (default: fresh entropy)")
    solve.add_argument("--instance-seed", type=int, default=0, help="seed of the function's shift/rotation data (default 0)")
    solve.add_argument("--cec2005-data", metavar="DIR", default=None,
                       help="directory of the official CEC2005 data files: use them where they define the "
                            "function (F2, F8, F9, F10, F12, F13 up to 100D)")  # fmt: skip
    solve.add_argument("--budget", type=_positive_int, default=None, help="evaluations (default 10000 * dim)")
    solve.add_argument("--variant", default="edamcc", help=f"algorithm (default edamcc; one of {', '.join(sorted(VARIANTS))})")
    solve.add_argument("--population-size", "-M", type=int, default=None,
                       help="M (default: 200, or fewer for a budget below 6000 evaluations)")  # fmt: skip
    solve.add_argument("--selection-ratio", type=float, default=0.5, help="tau (default 0.5)")
    solve.add_argument("--m-corr", type=int, default=None, help="m_corr (default min(100, m))")
    solve.add_argument("--theta", type=float, default=0.3, help="WI threshold (default 0.3)")
    solve.add_argument("-c", "--capacity", dest="c", type=int, default=20, help="subspace capacity c (default 20)")
    solve.add_argument("--repair", default="clip", help="out-of-box repair: clip (default), reflect or none")
    solve.add_argument("--checkpoint", metavar="FILE", help="save the run to FILE every generation; rerun with it present to resume")
    solve.add_argument("--json", metavar="FILE", help="write the result and structure summary as JSON")
    solve.add_argument("--plot", metavar="FILE", help="write the #strong curve and the Q matrix as a PNG (needs matplotlib)")
    solve.add_argument("--quiet", "-q", action="store_true", help="no progress lines")

    sub.add_parser("functions", help="list the test functions")
    sub.add_parser("variants", help="list the algorithms")
    return parser


def _structure_summary(record: StructureRecord | None, top: int = 5) -> dict[str, Any]:
    if record is None or record.n_strong.size == 0:
        return {}
    freq = record.strong_frequency()
    most = np.argsort(-freq, kind="stable")[:top]
    out: dict[str, Any] = {
        "mean_n_strong": float(record.n_strong.mean()),
        "final_n_strong": int(record.n_strong[-1]),
        "most_often_strong": [(int(i), float(freq[i])) for i in most],
    }
    if record.pair_counts is not None:
        out["strongest_pairs"] = [(i, j, round(f, 4)) for i, j, f in record.dependency_edges(0.0, limit=top)]
    return out


def _plot(record: StructureRecord, title: str, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True, gridspec_kw={"height_ratios": [1, 2]})
    top.plot(record.evaluations, record.n_strong, lw=1)
    top.set_ylabel("#strong")
    top.set_title(title)
    q = record.q_matrix()
    ev = record.q_evaluations
    extent = (float(ev[0]), float(ev[-1]) if ev.size > 1 else float(ev[0]) + 1.0, record.dimension - 0.5, -0.5)
    bottom.imshow(q, aspect="auto", cmap="Greys", interpolation="nearest", extent=extent, vmin=0, vmax=max(1, int(q.max(initial=1))))
    bottom.set_xlabel("#eval")
    bottom.set_ylabel("variable (Q: dark = in S)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _solve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        data = {} if args.cec2005_data is None else cec2005_instance(args.function, args.dim, args.cec2005_data)
        f = get_function(args.function, args.dim, seed=args.instance_seed, **data)
        variant = get_variant(args.variant)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(f"--cec2005-data: {exc}" if isinstance(exc, FileNotFoundError) else str(exc))
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib: pip install 'edamcc[plot]'")
    budget = args.budget if args.budget is not None else 10_000 * args.dim
    try:
        settings = Settings(args.population_size, args.selection_ratio, args.m_corr, args.theta, args.c, variant, args.repair)
        rules = settings.resolve(args.dim, budget)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"EDA-MCC variant {variant.name!r} on {f.name} ({f.title}), n = {f.dimension}, seed = {args.seed}")
    print(f"budget {budget} evaluations; M = {rules.population_size}, tau = {args.selection_ratio}, theta = {args.theta}, c = {args.c}")
    marks = iter(np.linspace(0.1, 1.0, 10) * budget)
    next_mark = [next(marks)]
    start = time.perf_counter()

    def progress(r: Any) -> bool:
        if not args.quiet and r.nfev >= next_mark[0]:
            strong = r.strategy.strong_variables
            n_strong = "-" if strong is None else f"{strong.size}/{f.dimension}"
            print(
                f"  {100 * r.nfev / budget:5.1f}%  nfev {r.nfev:9d}  gen {r.nit:6d}  error {f.error(r.fun):.4e}  "
                f"#strong {n_strong:>9}  {time.perf_counter() - start:7.1f}s",
                flush=True,
            )
            while r.nfev >= next_mark[0]:
                next_mark[0] = next(marks, np.inf)
        return False

    try:
        result = minimize(
            f, f.bounds, budget=budget, seed=args.seed, vectorized=True, callback=progress,
            variant=variant, population_size=args.population_size, selection_ratio=args.selection_ratio,
            m_corr=args.m_corr, theta=args.theta, c=args.c, repair=args.repair, checkpoint=args.checkpoint,
        )  # fmt: skip
    except ValueError as exc:
        parser.error(str(exc))
    elapsed = time.perf_counter() - start
    error = f.error(result.fun)
    print(f"best F(x) = {result.fun:.10e}   error F(x) - F(x*) = {error:.4e}{'  (counted as 0: < 1e-12)' if error < 1e-12 else ''}")
    print(f"{result.nfev} evaluations, {result.nit} generations, {elapsed:.1f} s; stopped: {result.message}")
    summary = _structure_summary(result.structure)
    if summary:
        print(f"learned structure: mean #strong {summary['mean_n_strong']:.1f} / {f.dimension}, final {summary['final_n_strong']}")
        print("  most often strong (variable: fraction of generations): " + ", ".join(f"x{i}: {p:.2f}" for i, p in summary["most_often_strong"]))
        if "strongest_pairs" in summary:
            print("  most often dependent pairs (|corr| > theta): " + ", ".join(f"(x{i}, x{j}): {p:.2f}" for i, j, p in summary["strongest_pairs"]))
    if args.json:
        payload = {
            "function": f.name, "dimension": f.dimension, "instance_seed": args.instance_seed, "seed": args.seed,
            "variant": variant.name, "budget": budget, "population_size": rules.population_size,
            "selection_ratio": args.selection_ratio, "m_corr": result.strategy.m_corr, "theta": args.theta, "c": args.c,
            "best_f": result.fun, "error": error, "x": None if result.x is None else result.x.tolist(),
            "nfev": result.nfev, "nit": result.nit, "message": result.message, "seconds": elapsed,
            "structure": summary | ({} if result.structure is None else {
                "evaluations": result.structure.evaluations.tolist(), "n_strong": result.structure.n_strong.tolist(),
                "strong_frequency": result.structure.strong_frequency().tolist()}),
        }  # fmt: skip
        with open(args.json, "w") as fh:
            json.dump(payload, fh, indent=1)
        print(f"wrote {args.json}")
    if args.plot:
        if result.structure is None or result.structure.n_strong.size == 0:
            print(f"no plot: variant {variant.name!r} does not run WI, so there is no structure to draw")
        else:
            _plot(result.structure, f"{variant.name} on {f.name}, n = {f.dimension}", args.plot)
            print(f"wrote {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "functions":
        for name, alias, title in list_functions():
            f = get_function(name, 2)
            print(f"{name:4s} {alias:38s} [{f.lower:g}, {f.upper:g}]^n  {title}")
        return 0
    if args.command == "variants":
        for name, v in VARIANTS.items():
            print(f"{name:12s} {v.description}")
        return 0
    return _solve(args, parser)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
