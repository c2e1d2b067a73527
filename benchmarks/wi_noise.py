"""WI's noise floor: how often WI calls a truly independent variable weak.

Independent standard normal data, m_corr = 100 rows (``--m-corr default``: the default
variant's own m_corr for each n), n variables; the fraction of variables
whose largest |corr| to the others is at most theta, measured (mean over repetitions) and
predicted (edamcc.wi_threshold.weak_probability, exact under independence: r^2 follows
Beta(1/2, (m_corr - 2) / 2)), for the paper's theta = 0.3, theta = "auto" and theta = "exact":

    python benchmarks/wi_noise.py            # writes results/wi_noise.md
    python benchmarks/wi_noise.py --m-corr default --reps 30 --out benchmarks/results/wi_noise_default.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from common import RESULTS, write_report
from edamcc import Settings
from edamcc.structure_learning import max_abs_correlation
from edamcc.wi_threshold import auto_theta, exact_theta, weak_probability


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", nargs="+", type=int, default=[100, 500, 1000, 10_000])
    parser.add_argument("--m-corr", default="100", help="rows WI correlates, or 'default': the default variant's m_corr for each n")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "wi_noise.md"), help="the table (default: the committed one)")
    args = parser.parse_args()
    if args.m_corr != "default" and not (args.m_corr.isdigit() and int(args.m_corr) >= 4):
        parser.error(f"--m-corr: expected an integer >= 4 or 'default'; got {args.m_corr!r}")
    rng = np.random.default_rng(0)
    rows = "the default variant's own m_corr rows at each n" if args.m_corr == "default" else f"m_corr = {args.m_corr} rows"
    lines = [f"Independent variables called weak by WI, {rows}, {args.reps} repetitions "
             f"(`python benchmarks/wi_noise.py{'' if args.m_corr == '100' else ' --m-corr ' + args.m_corr}"
             f"{'' if args.reps == 3 else f' --reps {args.reps}'}`):", "",
             "| n | m_corr | theta = 0.3: measured | predicted | theta = auto | auto: measured | predicted | theta = exact | exact: measured | predicted |",
             "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for n in args.dims:
        m_corr = Settings().resolve(n).m_corr if args.m_corr == "default" else int(args.m_corr)
        auto, exact = auto_theta(n, m_corr), exact_theta(n, m_corr)
        best = [max_abs_correlation(rng.standard_normal((m_corr, n))) for _ in range(args.reps)]
        fixed = np.mean([np.mean(b <= 0.3) for b in best])
        calibrated = np.mean([np.mean(b <= auto) for b in best])
        exactly = np.mean([np.mean(b <= exact) for b in best])
        lines.append(f"| {n} | {m_corr} | {fixed:.1%} | {weak_probability(n, m_corr, 0.3):.1%} | {auto:.3f} | "
                     f"{calibrated:.1%} | {weak_probability(n, m_corr, auto):.1%} | {exact:.3f} | {exactly:.1%} | "
                     f"{weak_probability(n, m_corr, exact):.1%} |")  # fmt: skip
    write_report(Path(args.out), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
