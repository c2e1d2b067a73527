"""Command line: ``python -m benchmarks.coco {run,report,campaign,list} ...`` (from the repository root).

    python -m benchmarks.coco campaign largescale-1e3 --workers 2     # run (resumes) + pictures + tables
    python -m benchmarks.coco run --suite bbob --dims 20 --functions 1-24 --instances 1-5 --budget-factor 1000
    python -m benchmarks.coco report bbob_1000n                      # pictures + tables only
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # one BLAS thread per worker process
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

from . import optimizers, report, runner  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "coco"
DATA = RESULTS / "data"

CAMPAIGNS = {
    "largescale-1e3": ("bbob-largescale", (80, 320), 1000),
    "bbob-1e3": ("bbob", (20, 40), 1000),
    "largescale-1e4": ("bbob-largescale", (80, 320), 10000),
    "bbob-1e4": ("bbob", (20, 40), 10000),
}


def int_list(text: str) -> list[int]:
    """``"1-5"`` -> [1, 2, 3, 4, 5]; ``"1,3,10-12"`` -> [1, 3, 10, 11, 12]."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.coco", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="campaign data folders (default: %(default)s)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="tables and pictures (default: %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)

    def run_options(p, campaign: bool):
        if not campaign:
            p.add_argument("--suite", choices=runner.SUITES, required=True)
            p.add_argument("--budget-factor", type=int, required=True, help="evaluations = factor x n")
        p.add_argument("--dims", type=int, nargs="+", help="dimensions" + (" (default: the campaign's)" if campaign else ""),
                       required=not campaign)
        p.add_argument("--functions", type=int_list, default=int_list("1-24"), help="e.g. 1-24 or 1,8,10")
        p.add_argument("--instances", type=int_list, default=int_list("1-5"))
        p.add_argument("--optimizers", nargs="+", default=list(optimizers.REGISTRY), choices=list(optimizers.REGISTRY))
        p.add_argument("--workers", type=int, default=os.cpu_count(), help="processes, one problem each")
        p.add_argument("--seed", type=int, default=1, help="campaign seed")
        p.add_argument("--no-report", action="store_true", help="skip pictures and tables")

    run_options(sub.add_parser("run", help="run optimizers on a suite (resumes)"), campaign=False)
    camp = sub.add_parser("campaign", help="run a predefined campaign (resumes), then write pictures and tables")
    camp.add_argument("name", choices=list(CAMPAIGNS))
    run_options(camp, campaign=True)
    rep = sub.add_parser("report", help="pictures and tables of campaign folders")
    rep.add_argument("names", nargs="+", help="campaign folder names, e.g. bbob_1000n")
    rep.add_argument("--no-pictures", action="store_true")
    sub.add_parser("list", help="the registered optimizers")
    args = parser.parse_args(argv)

    if args.command == "list":
        for name, entry in optimizers.REGISTRY.items():
            print(f"{name:15s} {entry.description}")
        return
    if args.command == "report":
        for name in args.names:
            report.write(args.data / name, args.results, with_pictures=not args.no_pictures)
        return
    if args.command == "campaign":
        suite, dims, factor = CAMPAIGNS[args.name]
        dims = args.dims or dims
    else:
        suite, dims, factor = args.suite, args.dims, args.budget_factor
    root = args.data / runner.campaign_name(suite, factor)
    runner.run(root, suite, dims, args.functions, args.instances, factor, args.optimizers, args.seed, args.workers)
    if not args.no_report:
        report.write(root, args.results)


if __name__ == "__main__":
    main()
