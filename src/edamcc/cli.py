"""The ``edamcc`` command: solve a benchmark function, list the suite and the variants."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import __version__
from .benchmark_functions import CEC2005_DATA_FILES, cec2005_instance, get_function, list_functions
from .checkpoint import check_path, open_run, read
from .checks import is_int
from .optimize import minimize
from .restarts import GROWTH
from .settings import DEFAULT_VARIANT, Resolved, Settings, check_seed, default_budget
from .structure_record import StructureRecord
from .variants import VARIANTS, get_variant


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
    return value


_MAIN_EPILOG = """examples:
  edamcc solve F8 --dim 100 --seed 1          the 100-D Rosenbrock, defaults
  edamcc solve F8 --dim 100 --variant edamcc -M 500   the paper's setting
  edamcc solve F5 --dim 50 --plot run.png     a picture of the learned structure
  edamcc functions                            the test functions F1-F13
  edamcc solve --help                         every option of a run
(python -m edamcc takes the same commands)"""

_SOLVE_EPILOG = """examples:
  edamcc solve F8 --dim 100 --seed 1 --plot f8.png --json f8.json
  edamcc solve F2 --dim 500 --variant edamcc -M 200 -c 100 -q   (paper, 500-D)"""


def _formatter(prog: str) -> argparse.HelpFormatter:
    # one line per option, so that each help fits on one screen
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=29, width=80)


# The CLI's checkpoints: a save pickles the whole run and syncs it to disk, which on a cheap
# benchmark function costs more than a generation, so by default at most one every 10 seconds.
CHECKPOINT_SECONDS = 10.0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0; got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected seconds >= 0; got {text!r}")
    return value


def _theta(text: str) -> float | str:
    if text in ("auto", "exact"):
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], 'auto' or 'exact'; got {text!r}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="edamcc", description="EDA-MCC for high-dimensional continuous optimization.",
                                     epilog=_MAIN_EPILOG, formatter_class=_formatter)  # fmt: skip
    parser.add_argument("--version", action="version", version=f"edamcc {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{solve,functions,variants}")

    solve = sub.add_parser(
        "solve", help="minimize one of the paper's test functions F1-F13", epilog=_SOLVE_EPILOG, formatter_class=_formatter,
        usage="edamcc solve FUNCTION [options]  (FUNCTION: see 'edamcc functions')", add_help=False,
    )  # fmt: skip
    solve.set_defaults(subparser=solve)
    solve.add_argument("-h", "--help", action="help", help=argparse.SUPPRESS)
    solve.add_argument("function", help=argparse.SUPPRESS)
    solve.add_argument("--dim", type=_positive_int, default=50, metavar="N", help="variables (default 50)")
    solve.add_argument("--seed", type=int, default=None, metavar="S", help="optimizer seed (default: drawn and printed)")
    solve.add_argument("--instance-seed", type=int, default=None, metavar="S",
                       help="shift/rotation seed where no data file gives it (0)")
    solve.add_argument("--cec2005-data", metavar="DIR", default=None, help="official CEC2005 data files (F2, F8-F10, F12, F13)")
    solve.add_argument("--budget", type=_positive_int, default=None, metavar="N", help="evaluations (default 10000 * dim)")
    solve.add_argument("--variant", default=DEFAULT_VARIANT, metavar="V", help=f"default {DEFAULT_VARIANT}; paper: edamcc")
    solve.add_argument("-M", "--population-size", type=int, default=None, metavar="M", help="M (default max(10, 4 + 3 ln n); paper: 10 to 200)")
    solve.add_argument("--selection-ratio", type=float, default=None, metavar="TAU", help="tau (0.5; edamcc-adaptive 0.35)")
    solve.add_argument("--m-corr", type=int, default=None, metavar="K", help="rows for WI (default min(100, m))")
    solve.add_argument("--theta", type=_theta, default=None, metavar="T", help="WI theta: auto (default), exact or 0..1; paper 0.3")
    solve.add_argument("-c", "--capacity", dest="c", type=int, default=Settings.c, help="largest group c (default 20)")
    solve.add_argument("--repair", default=Settings.repair, metavar="R", help="clip (default), reflect or none")
    solve.add_argument("--partition", default=Settings.partition, metavar="P", help="SM groups: random (default) or learned")
    solve.add_argument("--checkpoint", metavar="FILE", help=f"each {CHECKPOINT_SECONDS:g} s (--checkpoint-every S); rerun to resume")
    # its own line would not fit the screen of help; --checkpoint names it (0: every generation)
    solve.add_argument("--checkpoint-every", type=_seconds, default=None, metavar="S", help=argparse.SUPPRESS)
    solve.add_argument("--json", metavar="FILE", help="write the result and structure as JSON")
    solve.add_argument("--plot", metavar="FILE", help="draw error, #strong, pairs (.png, .svg, .pdf)")
    solve.add_argument("-q", "--quiet", action="store_true", help="no progress lines")

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
        "most_often_strong": [(int(i), float(freq[i])) for i in most if freq[i] > 0],  # never strong: not listed
    }
    if record.pair_counts is not None:
        out["strongest_pairs"] = [(i, j, round(f, 4)) for i, j, f in record.dependency_edges(0.0, limit=top) if f > 0]  # never: not listed
    return out


# The Python argument names the checks' messages begin with, and the options that set them here.
_OPTIONS = {"name": "FUNCTION", "dimension": "--dim", "variant": "--variant", "population_size": "-M/--population-size",
            "selection_ratio": "--selection-ratio", "m_corr": "--m-corr", "theta": "--theta", "c": "-c/--capacity",
            "repair": "--repair", "partition": "--partition", "population_size and selection_ratio": "-M and --selection-ratio"}  # fmt: skip


def _as_options(message: str) -> str:
    """A check's message in the CLI's words: its leading argument name becomes the option, and a
    Python ``None`` (the option left out) is said so."""
    name, colon, rest = message.partition(": ")
    if not colon or name not in _OPTIONS:
        return message
    rest = rest.replace(" or None", "").replace("expected None, got", "leave the option out; got")
    rest = rest.replace("selection_ratio", "tau").replace("population_size", "M")  # as the help's TAU and M
    return f"{_OPTIONS[name]}: {rest}"


def _check_output(option: str, path: str, parser: argparse.ArgumentParser, in_place: bool = True) -> None:
    """Fail now, before the run, if ``path`` cannot be written; creates nothing
    (:func:`edamcc.checkpoint.check_path`; ``in_place=False`` for the checkpoint)."""
    try:
        check_path(path, option, in_place=in_place)
    except ValueError as exc:
        parser.error(str(exc))


def _check_outputs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """The three output paths: each writable, no two the same file (one would overwrite the other:
    the JSON the checkpoint, or the picture the JSON), and the picture's type known."""
    given = [(option, path) for option, path in (("--json", args.json), ("--plot", args.plot), ("--checkpoint", args.checkpoint)) if path is not None]
    for option, path in given:
        if option == "--checkpoint":
            _check_output(option, path, parser, in_place=False)
        else:
            _check_output(option, path, parser)
    for i, (option, path) in enumerate(given):
        for other, other_path in given[:i]:
            if os.path.realpath(path) == os.path.realpath(other_path):
                parser.error(f"{option}: {path!r} is the file {other} writes too; give each output its own file")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib: pip install 'edamcc[plot]'")
        from .structure_plot import check_plot_path

        try:
            check_plot_path(args.plot, "--plot")
        except ValueError as exc:
            parser.error(str(exc))


def _first_rules(strategy: Any) -> Resolved:
    """The sizes a (resumed) run started with, before any restart doubled its population."""
    restarts = strategy.restarts
    first = restarts[0]["population_size"] // GROWTH if restarts else strategy.population_size
    return strategy.settings.resolve_population(strategy.dimension, first)


def _solve(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.subparser
    # Every check before anything runs or prints, with the sub-command's usage.
    try:
        seed = check_seed(args.seed)
    except ValueError:
        parser.error(f"--seed: expected a non-negative integer; got {args.seed}")
    _check_outputs(args, parser)  # before an instance is built (a rotation at large n takes seconds)
    if args.checkpoint_every is not None and args.checkpoint is None:
        parser.error("--checkpoint-every: applies only with --checkpoint; pass a checkpoint file too")
    every = CHECKPOINT_SECONDS if args.checkpoint_every is None else args.checkpoint_every
    if args.instance_seed is not None and args.instance_seed < 0:
        parser.error(f"--instance-seed: expected a non-negative integer; got {args.instance_seed}")
    try:  # the algorithm's options, before the instance too
        variant = get_variant(args.variant)
        budget = args.budget if args.budget is not None else default_budget(args.dim)
        settings = Settings(args.population_size, args.selection_ratio, args.m_corr, args.theta, args.c, variant, args.repair,
                            args.partition)
        rules = settings.resolve(args.dim, budget)
    except ValueError as exc:
        parser.error(_as_options(str(exc)))
    if args.plot and not variant.identify_weak:
        parser.error(f"--plot: variant {variant.name!r} does not run WI, so there is no structure to draw")
    instance_seed = 0 if args.instance_seed is None else args.instance_seed
    try:
        data = {} if args.cec2005_data is None else cec2005_instance(args.function, args.dim, args.cec2005_data)
    except FileNotFoundError as exc:
        parser.error(f"--cec2005-data: {exc}")
    except ValueError as exc:  # an unknown function or dimension is named as such; a bad file under the option
        parser.error(f"--cec2005-data: {exc}" if str(exc).startswith("directory:") else _as_options(str(exc)))
    try:
        f = get_function(args.function, args.dim, seed=instance_seed, **data)
    except ValueError as exc:
        parser.error(_as_options(str(exc)))
    if args.cec2005_data is not None and f.name not in CEC2005_DATA_FILES:
        parser.error(f"--cec2005-data: {f.name} has no CEC2005 data files (they exist for {', '.join(CEC2005_DATA_FILES)})")
    if data and not any(key in f.data and key not in data for key in ("shift", "rotation", "matrix")):
        # the files give the whole instance: no part of it is drawn from a seed
        if args.instance_seed is not None:
            parser.error(f"--instance-seed: {f.name}'s instance comes whole from --cec2005-data at n = {f.dimension}; "
                         "no part of it is drawn from a seed")
        instance_seed = None
    options = dict(variant=variant, population_size=args.population_size, selection_ratio=args.selection_ratio, m_corr=args.m_corr,
                   theta=args.theta, c=args.c, repair=args.repair, partition=args.partition)  # fmt: skip
    resumed = None
    if args.checkpoint and os.path.exists(args.checkpoint):  # resume: the saved run's seed, checked before anything prints
        try:
            saved_seed = read(args.checkpoint)["key"].get("seed")
            if seed is None and is_int(saved_seed):
                seed = saved_seed
            resumed = open_run(args.checkpoint, f.bounds, seed, budget, None, options, f)[0]
        except ValueError as exc:
            parser.error(str(exc))
    if args.plot and resumed is None and budget < rules.population_size:
        parser.error(f"--plot: the budget, {budget}, is below one generation (M = {rules.population_size}): no structure to draw")
    drawn = seed is None
    if drawn:
        seed = int(np.random.SeedSequence().entropy % 2**32)

    print(f"EDA-MCC variant {variant.name!r} on {f.name} ({f.title}), n = {f.dimension}, seed = {seed}"
          + (" (drawn: repeat the run with --seed {})".format(seed) if drawn else "")
          + ("" if args.cec2005_data is None else f"; the official CEC2005 data of {args.cec2005_data}")  # fmt: skip
          + ("" if resumed is None else f"; resuming {args.checkpoint} after {resumed.evaluations} evaluations"))
    if resumed is not None:  # the saved run's sizes (its M came from the budget of its first call)
        rules = _first_rules(resumed)
    population_size = rules.population_size
    print(f"budget {budget} evaluations; M = {population_size}, tau = {rules.settings.selection_ratio}"
          + ("" if rules.theta is None else f", theta = {rules.theta:.3g}") + ("" if rules.c is None else f", c = {rules.c}"))
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
        result = minimize(f, f.bounds, budget=budget, seed=seed, vectorized=True, callback=progress, checkpoint=args.checkpoint,
                          checkpoint_every=(every or None) if args.checkpoint else None, **options)  # fmt: skip
    except ValueError as exc:  # pragma: no cover - every argument was checked above
        parser.error(str(exc))
    except KeyboardInterrupt:
        saved = ""
        if args.checkpoint is not None and os.path.exists(args.checkpoint):
            when = "at the last generation" if not every else f"at most {every:g} s before"
            saved = f"; rerun the same command to resume from {args.checkpoint} (saved {when})"
        elif args.checkpoint is not None:  # the first save comes after `every` seconds
            saved = f" before the first save to {args.checkpoint}; nothing to resume"
        print(f"edamcc solve: interrupted{saved}", file=sys.stderr)
        return 130
    elapsed = time.perf_counter() - start
    error = f.error(result.fun)
    record = result.structure
    print(f"best F(x) = {result.fun:.10e}   error F(x) - F(x*) = {error:.4e}{'  (counted as 0: < 1e-12)' if error < 1e-12 else ''}")
    print(f"{result.nfev} evaluations, {result.nit} generations, {elapsed:.1f} s; stopped: {result.message}")
    summary = _structure_summary(record)
    if summary:
        chance = record.chance_n_strong()  # type: ignore[union-attr]  # per WI call: restarts change m_corr and theta
        summary["chance_n_strong"] = float(np.nanmean(chance)) if np.isfinite(chance).any() else None
        print(f"learned structure: mean #strong {summary['mean_n_strong']:.1f} / {f.dimension}, final {summary['final_n_strong']}")
        if summary["chance_n_strong"] is not None:
            expected = summary["chance_n_strong"]
            rows, thetas = record.wi_rows, record.wi_theta  # type: ignore[union-attr]
            where = (f"at n = {f.dimension}, m_corr = {rows[-1]:.0f}, theta = {thetas[-1]:.3g}"
                     if np.nanmin(rows) == np.nanmax(rows) and np.nanmin(thetas) == np.nanmax(thetas)
                     else f"on average over the generations (m_corr from {np.nanmin(rows):.0f} to {np.nanmax(rows):.0f}, "
                     f"theta from {np.nanmin(thetas):.3g} to {np.nanmax(thetas):.3g})")  # fmt: skip
            print(f"  chance alone: about {expected:.{0 if expected >= 10 else 1}f} of {f.dimension} variables would be called strong {where}")
        if summary["most_often_strong"]:
            print("  most often strong (variable: fraction of generations): " + ", ".join(f"x{i}: {p:.2g}" for i, p in summary["most_often_strong"]))
        if summary.get("strongest_pairs"):  # none at n = 1, or when no pair was ever dependent
            print("  most often dependent pairs (|corr| > theta): " + ", ".join(f"(x{i}, x{j}): {p:.2g}" for i, j, p in summary["strongest_pairs"]))
    failed = False
    if args.json:
        payload = {
            "function": f.name, "dimension": f.dimension, "instance_seed": instance_seed,
            "cec2005_data": args.cec2005_data, "instance_key": f.instance_key, "seed": seed,
            "seed_drawn": drawn, "variant": variant.name, "budget": budget, "population_size": population_size,
            "selection_ratio": rules.settings.selection_ratio, "m_corr": rules.m_corr, "theta": rules.theta, "c": rules.c,
            "restarts": result.strategy.restarts,
            "best_f": result.fun, "error": error, "x": None if result.x is None else result.x.tolist(),
            "nfev": result.nfev, "nit": result.nit, "message": result.message, "seconds": elapsed,
            "resumed_after_evaluations": 0 if resumed is None else resumed.evaluations,  # "seconds": this call's
            "structure": None if record is None or record.n_wi_calls == 0 else summary | {  # no WI call: no structure
                "evaluations": record.evaluations.tolist(), "n_strong": record.n_strong.tolist(),
                "wi_rows": record.wi_rows.tolist(), "wi_theta": record.wi_theta.tolist(), "best_f": record.best_f.tolist(),
                "chance_n_strong_per_generation": record.chance_n_strong().tolist(),
                "strong_frequency": record.strong_frequency().tolist()},
        }  # fmt: skip
        try:
            with open(args.json, "w") as fh:
                json.dump(_finite_or_null(payload), fh, indent=1, allow_nan=False)  # NaN and inf are not JSON
        except OSError as exc:
            print(f"edamcc solve: could not write --json {args.json}: {exc.strerror or exc}", file=sys.stderr)
            failed = True
        else:
            print(f"wrote {args.json}")
    if args.plot:
        if record is None or record.n_strong.size == 0:
            print("no plot: no generation finished within the budget")
        else:
            from .structure_plot import plot_structure

            # the error after each generation, from the record (so a resumed run draws all of it), and at the end
            errors = [(int(e), float(f.error(b))) for e, b in zip(record.evaluations, record.best_f) if np.isfinite(b)]
            errors.append((int(result.nfev), float(error)))
            try:
                plot_structure(record, errors=errors, path=args.plot,
                               title=f"{variant.name} on {f.name} ({f.title}), n = {f.dimension}, seed = {seed}")  # fmt: skip
            except (OSError, ValueError) as exc:  # ValueError: its directory went away during the run
                print(f"edamcc solve: could not write --plot {args.plot}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
                failed = True
            else:
                print(f"wrote {args.plot}")
    return 1 if failed else 0


def _finite_or_null(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, inf) replaced by None, in dicts and lists."""
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "functions":
            for name, alias, title in list_functions():
                f = get_function(name, 2)
                print(f"{name:4s} {alias:38s} [{f.lower:g}, {f.upper:g}]^n  {title}")
            status = 0
        elif args.command == "variants":
            for name, v in VARIANTS.items():
                print(f"{name:15s} {v.description}" + ("  [default]" if name == DEFAULT_VARIANT else ""))
            status = 0
        else:
            status = _solve(args)
        sys.stdout.flush()  # here, so that a reader gone away is caught below, not at the exit flush
        return status
    except BrokenPipeError:  # the reader went away (`edamcc solve ... | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so that Python's exit flush does not fail again
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
