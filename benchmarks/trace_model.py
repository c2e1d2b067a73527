"""Follow one run's model generation by generation: best error, |W|, spreads, the mean's reach.

    python benchmarks/trace_model.py F3 --dim 500 -M 1000 -c 100 --generations 2500 --every 250
    python benchmarks/trace_model.py F3 --dim 500 -M 1000 -c 100 --variant umdac

For diagnosing a run that stalls: a model whose standard deviations stay large while the best
error stops improving is not converging (too much variance kept), one whose deviations
collapse while the mean stops moving has converged prematurely. Prints a Markdown table.
"""

from __future__ import annotations

import argparse

import numpy as np

from edamcc import EDAMCCStrategy
from edamcc.benchmark_functions import get_function


def model_stds(model) -> tuple[np.ndarray, np.ndarray]:
    """Marginal standard deviations of the weak variables and of the grouped (strong) ones."""
    weak = np.asarray(getattr(model, "weak_std", np.array([])))
    grouped = [np.sqrt(np.einsum("gij,gij->gj", b.factor, b.factor)).ravel() for b in getattr(model, "blocks", ())]
    return weak, (np.concatenate(grouped) if grouped else np.array([]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("function")
    parser.add_argument("--dim", type=int, default=500)
    parser.add_argument("-M", "--population-size", type=int, default=200)
    parser.add_argument("-c", type=int, default=100)
    parser.add_argument("--theta", type=float, default=0.3)
    parser.add_argument("--variant", default="edamcc")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generations", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args()
    f = get_function(args.function, args.dim, seed=0)
    es = EDAMCCStrategy(bounds=f.bounds, population_size=args.population_size, c=args.c, theta=args.theta,
                        variant=args.variant, seed=args.seed, record_pairs=False)  # fmt: skip
    print(f"{args.function} {args.dim}D, {args.variant}, M = {args.population_size}, c = {args.c}, seed {args.seed}\n")
    print("| generation | evaluations | best error | weak | median std (weak) | median std (groups) | min std | max |mean - x*| |")
    print("|---|---|---|---|---|---|---|---|")
    for g in range(1, args.generations + 1):
        x = es.ask()
        es.tell(x, f(x))
        if g % args.every == 0 or g == args.generations:
            weak, grouped = model_stds(es.model)
            both = np.concatenate([weak, grouped])
            med = (lambda a: f"{np.median(a):.3g}" if a.size else "–")  # noqa: E731
            reach = np.max(np.abs(es.model.mean - f.optimum_x))
            print(f"| {g} | {es.evaluations} | {f.error(es.best_f):.4g} | {weak.size} | {med(weak)} | {med(grouped)} | "
                  f"{both.min():.3g} | {reach:.3g} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
