"""Follow one run's model generation by generation: best error, |W|, spreads, the mean's reach.

    python benchmarks/trace_model.py F3 --dim 500 -M 1000 -c 100 --generations 2500 --every 250
    python benchmarks/trace_model.py F3 --dim 500 -M 1000 -c 100 --variant umdac

    python benchmarks/trace_model.py F3 --dim 100 --variant edamcc-csa -M 0 -c 0 --theta auto --budget 100000 --every 400
    python benchmarks/trace_model.py F9 --dim 100 --variant edamcc-vd-lf0 -M 0 -c 0 --theta auto --budget 1000000 --every 2000

For diagnosing a run that stalls: a model whose standard deviations stay large while the best
error stops improving is not converging (too much variance kept), one whose deviations
collapse while the mean stops moving has converged prematurely. Prints a Markdown table.
``-M 0``, ``-c 0`` and ``--theta auto`` leave the population, c and theta to the package's
rules for the variant (and ``--budget``); ``--theta`` and ``-c`` go only to a variant that uses
them (``umdac`` has no WI and no groups); with a budget the run goes on to its stop unless
``--generations`` says otherwise. Variants with
a step size (the default's) add their population (it doubles at each restart), the step size
sigma and the shape's condition (max / min of the factorized part's variances); those with a
learned direction (``edamcc-vd``, and the experiments ``edamcc-vd-lf0``, ``-na`` and ``-na-wi`` of
:func:`coco.optimizers.direction_only_variant`) add |v| and its largest |v_i|.
"""

from __future__ import annotations

import argparse

import numpy as np

from coco.optimizers import direction_experiments
from edamcc import EDAMCCStrategy, get_variant
from edamcc.benchmark_functions import get_function

EXPERIMENTS = direction_experiments()  # the benchmarks' own variants, by their names


def model_stds(model) -> tuple[np.ndarray, np.ndarray]:
    """Marginal standard deviations of the weak variables and of the grouped (strong) ones."""
    weak = np.asarray(getattr(model, "weak_std", np.array([])))
    grouped = [np.sqrt(np.einsum("gij,gij->gj", b.factor, b.factor)).ravel() for b in getattr(model, "blocks", ())]
    return weak, (np.concatenate(grouped) if grouped else np.array([]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("function")
    parser.add_argument("--dim", type=int, default=500)
    parser.add_argument("-M", "--population-size", type=int, default=200, help="0: the package's rule")
    parser.add_argument("-c", type=int, default=100, help="0: the package's default")
    parser.add_argument("--theta", default="0.3", help="a number in [0, 1], or auto")
    parser.add_argument("--variant", default="edamcc")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generations", type=int, default=None, help="this many (default: 1000, or with --budget until its stop)")
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args()
    f = get_function(args.function, args.dim, seed=0)
    variant = get_variant(EXPERIMENTS.get(args.variant, args.variant))
    options = {"population_size": args.population_size or None, "theta": args.theta if args.theta == "auto" else float(args.theta),
               "c": args.c or None}
    for name in variant.unused_settings:  # theta and c go to the variants that use them (UMDAc has neither)
        options.pop(name, None)
    es = EDAMCCStrategy(bounds=f.bounds, variant=variant, seed=args.seed, budget=args.budget, record_pairs=False, **options)
    stepped = es.variant.uses_step_size
    directed = es.variant.learned_direction
    print(f"{args.function} {args.dim}D, {args.variant}, M = {es.population_size}, c = {es.c}, seed {args.seed}\n")
    extra = (" M | sigma | condition |" if stepped else "") + (" abs(v) | max abs(v_i) |" if directed else "")
    print("| generation | evaluations | best error | weak | median std (weak) | median std (groups) | min std | max |mean - x*| |" + extra)
    print("|---|---|---|---|---|---|---|---|" + "---|" * ((3 if stepped else 0) + (2 if directed else 0)))
    limit = args.generations if args.generations is not None else (None if args.budget is not None else 1000)
    g, stopped = 0, False
    while (limit is None or g < limit) and not stopped:
        x = es.ask()
        es.tell(x, f(x))
        g += 1
        stopped = args.budget is not None and es.should_stop()
        if g % args.every == 0 or g == limit or stopped:
            model, direction = es.model, None
            while hasattr(model, "model"):  # the Gaussian inside the mean-shift samples' and the direction's wrappers
                direction = getattr(model, "direction", direction)
                model = model.model
            weak, grouped = model_stds(model)
            both = np.concatenate([weak, grouped])
            if not both.size:  # a restart has just begun: the uniform box, no Gaussian yet
                continue
            med = (lambda a: f"{np.median(a):.3g}" if a.size else "–")  # noqa: E731
            reach = np.max(np.abs(model.mean - f.optimum_x))
            row = (f"| {g} | {es.evaluations} | {f.error(es.best_f):.4g} | {weak.size} | {med(weak)} | {med(grouped)} | "
                   f"{both.min():.3g} | {reach:.3g} |")  # fmt: skip
            if stepped:
                row += f" {es.population_size} | {es.step_size:.3g} | {(both.max() / both.min()) ** 2:.3g} |"
            if directed:  # v in the units of the factorized part: u_i / its spread
                v = np.zeros(1) if direction is None else direction / model.stds()
                row += f" {np.linalg.norm(v):.3g} | {np.max(np.abs(v)):.3g} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
