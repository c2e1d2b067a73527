"""Which variables the active term of the diagonal's update takes variance from, in which metric.

    python benchmarks/active_metric.py F9 --dim 100 --variant edamcc-vd-lf0 --generations 6000 --every 1000

The active (negative-weight) term of the step-size shape's update (``StepSize._active_shape``,
:mod:`edamcc.step_size`) rescales each of the generation's worst rows to a typical length,
w_i n / |y_i / D|^2, with the row's length in the *diagonal's* metric. Beside a learned direction
(:mod:`edamcc.direction`) the model's own metric is another: the rows' lengths there are those
of whitening by the whole model. This script runs one seeded run and, at each generation with
an active update, computes the term both ways, and the rank-mu term, for the ``--smallest``
variables with the smallest variance and for the others, each as a multiple of the variable's
own shape D_i^2 (so a variable's variance grows, relative to the others', when its rank-mu share
minus its active share is larger than theirs). Prints a Markdown table of means over the
``--every`` generations before each row. A diagnostic: the run itself is the package's, unchanged.
"""

from __future__ import annotations

import argparse
from contextlib import contextmanager

import numpy as np

from coco.optimizers import direction_experiments
from edamcc import EDAMCCStrategy
from edamcc.benchmark_functions import get_function
from edamcc.step_size import StepSize, active_weights


def active_terms(state: StepSize, worst: np.ndarray, mu: int, c1: float, c_mu: float, mu_eff: float) -> tuple[np.ndarray, np.ndarray]:
    """The active term's removal per variable over D_i^2 (positive numbers), with each bad row's
    length read in the diagonal's metric (as the package does) and in the whole model's."""
    n = worst.shape[1]
    weights, _ = active_weights(mu, worst.shape[0], n, c1, c_mu, mu_eff)  # the package's, summing to -alpha
    rows = worst - state.model.mean
    y2 = (rows / state.sigma) ** 2
    diagonal = np.sum(y2 / state.shape, axis=1)
    whole = state.model.squared_lengths(rows)  # the model's whitening, with sigma (active_metric="model" without its floor)
    return -((weights * n / diagonal) @ y2) / state.shape, -((weights * n / whole) @ y2) / state.shape


@contextmanager
def recording(smallest: int, log: list):
    """Wrap ``StepSize._active_shape`` so that each call appends one row to ``log``; restored after."""
    original = StepSize._active_shape

    def wrapped(self, worst, mu, c1, c_mu, mu_eff, rank_one, around_old_mean):
        diagonal, whole = active_terms(self, worst, mu, c1, c_mu, mu_eff)
        positive = around_old_mean / self.shape
        low = np.argsort(self.shape)[:smallest]
        rest = np.setdiff1d(np.arange(self.shape.size), low)
        log.append([diagonal[low].mean(), diagonal[rest].mean(), whole[low].mean(), whole[rest].mean(),
                    positive[low].mean(), positive[rest].mean(), float(self.shape.max() / self.shape.min())])  # fmt: skip
        return original(self, worst, mu, c1, c_mu, mu_eff, rank_one, around_old_mean)

    StepSize._active_shape = wrapped
    try:
        yield log
    finally:
        StepSize._active_shape = original


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("function")
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--variant", default="edamcc-vd-lf0", help="a package variant with active=True, or an experiment of coco.optimizers.direction_experiments")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generations", type=int, default=6000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--smallest", type=int, default=5)
    parser.add_argument("--theta", default="auto", help="a number in [0, 1], or auto")
    args = parser.parse_args(argv)
    if args.generations < 1 or args.every < 1 or args.smallest < 1 or args.smallest >= args.dim:
        parser.error("--generations and --every must be positive, --smallest in [1, dim)")
    variant = direction_experiments().get(args.variant, args.variant)
    f = get_function(args.function, args.dim, seed=0)
    theta = args.theta if args.theta == "auto" else float(args.theta)
    es = EDAMCCStrategy(bounds=f.bounds, variant=variant, seed=args.seed, theta=theta, record_structure=False)
    if not es.variant.active:
        parser.error(f"--variant: {args.variant} has no active term (active=False)")
    print(f"{args.function} {args.dim}D, {args.variant}, seed {args.seed}: the active term's removal and the rank-mu term, "
          f"each over D_i^2, for the {args.smallest} smallest variances and the rest\n")  # fmt: skip
    print("| generations | evaluations | active, diagonal's metric: smallest / rest | active, whole model's metric: smallest / rest "
          "| rank-mu term: smallest / rest | condition of D^2 |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    log: list = []
    start = 0
    with recording(args.smallest, log):
        for g in range(1, args.generations + 1):
            x = es.ask()
            es.tell(x, f(x))
            if g % args.every == 0 and len(log) > start:
                m = np.mean(np.array(log[start:]), axis=0)
                print(f"| {g - args.every + 1}-{g} | {es.evaluations} | {m[0]:.3f} / {m[1]:.3f} | {m[2]:.3f} / {m[3]:.3f} "
                      f"| {m[4]:.3f} / {m[5]:.3f} | {log[-1][6]:.3g} |")  # fmt: skip
                start = len(log)


if __name__ == "__main__":
    main()
