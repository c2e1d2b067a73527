"""Reproduce the paper's result tables: run campaigns, then report ours beside theirs.

    python benchmarks/paper_runs.py run --table solution --runs 5 --popsizes paper
    python benchmarks/paper_runs.py report
    python benchmarks/paper_runs.py structure --runs 3

Each run is one file under ``<out>/runs/``; an interrupted campaign resumes where it stopped
(finished runs are skipped). Runs are independent and spread over ``--workers`` processes.
The default protocol is the paper's: budget 10000 n (2.5e6 at 500D), tau = 0.5, elitism,
errors below 1e-12 counted as 0, and the best of M in {200, 500, 1000, 2000} where the paper
searched it (``--popsizes all``); ``--popsizes paper`` runs only the M the paper reports as
best for each cell, a 4x cheaper reduction. The work is done by the package ``paper/``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from common import RESULTS, write_report
from paper.execution import run_campaign
from paper.registry import TABLES, campaign
from paper.render import plots, report
from paper.structure import draw_structure

DEFAULT_OUT = RESULTS / "paper"


def cmd_run(args: argparse.Namespace) -> None:
    if args.cec2005_data and not Path(args.cec2005_data).is_dir():
        raise SystemExit(f"--cec2005-data: expected the directory of the CEC2005 data files; got {args.cec2005_data!r}")
    jobs = campaign(args.table, args.runs, args.popsizes, args.functions, args.dims, args.columns, bool(args.cec2005_data))
    run_campaign(Path(args.out), jobs, args.workers, args.cec2005_data)


def cmd_report(args: argparse.Namespace) -> None:
    out = Path(args.out)
    write_report(out / "report.md", report(out))
    try:
        for p in plots(out):
            print(f"wrote {p}")
    except ImportError:
        print("no plots: matplotlib is not installed")


def cmd_structure(args: argparse.Namespace) -> None:
    draw_structure(Path(args.out), args.functions, args.dims, args.runs, args.workers)


def build_parser() -> argparse.ArgumentParser:
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
    return parser


COMMANDS = {"run": cmd_run, "report": cmd_report, "structure": cmd_structure}


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    COMMANDS[args.command](args)


if __name__ == "__main__":
    main()
