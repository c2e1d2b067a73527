"""Evaluations to reach 1e-8 on a sphere and a separable ellipsoid: the default against sep-CMA-ES.

    python benchmarks/line_samples.py                  # n = 80 and 320, 3 seeds
    python benchmarks/line_samples.py --dims 80 --seeds 0 1 2 3 4
    python benchmarks/line_samples.py --dims 320 --algorithms edamcc edamcc-tpa sep-cma --out benchmarks/results/adaptive/line_samples_tpa.json

What the mean-shift samples of ``edamcc-csa`` (:class:`edamcc.models.LineSamples`) are for:
the progress per generation on smooth functions. Both functions are COCO's f1 and f2 without
the output transformation: the optimum is drawn uniformly in [-4, 4]^n from the seed, the
ellipsoid's condition number is 1e6 (weights 1e6^((i - 1)/(n - 1))). The default runs with
COCO's box [-5, 5]^n as the region of its first samples (``repair="none"``), as its COCO
entry; pycma's sep-CMA-ES (``CMA_diagonal=True``) starts at x0 ~ U[-4, 4]^n with sigma0 = 2,
as in ``benchmarks/coco``. pycma uses two-point step-size adaptation, with the same
mean-shift samples, from n = 300 on, and cumulative step-size adaptation below. Budget
1000 n; the table gives the median over the seeds of evaluations / n until the best value is
below 1e-8 (a run that does not get there counts as the budget, marked >).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from common import RESULTS, rerun_command

from edamcc import DEFAULT_VARIANT, EDAMCCStrategy

TARGET = 1e-8
BUDGET_FACTOR = 1000
# "edamcc": the package's default (edamcc-csa up to 0.6, edamcc-sep-cc since 0.7)
VARIANT_OF = {"edamcc": DEFAULT_VARIANT, "edamcc-csa": "edamcc-csa", "edamcc-tpa": "edamcc-tpa", "edamcc-sep-cc": "edamcc-sep-cc",
              "edamcc-sep-cc-lf": "edamcc-sep-cc-lf"}


def problem(name: str, n: int, seed: int):
    x_opt = np.random.default_rng(1000 + seed).uniform(-4.0, 4.0, n)
    weights = np.ones(n) if name == "sphere" else 1e6 ** (np.arange(n) / (n - 1))

    def f(x: np.ndarray) -> np.ndarray:
        return ((np.asarray(x) - x_opt) ** 2) @ weights

    return f


def evaluations_to_target(algorithm: str, name: str, n: int, seed: int) -> int | None:
    f = problem(name, n, seed)
    budget = BUDGET_FACTOR * n
    used = 0
    if algorithm in VARIANT_OF:
        es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * n, seed=seed, budget=budget, repair="none", record_structure=False,
                            variant=VARIANT_OF[algorithm])  # fmt: skip
        while used < budget and not es.should_stop():
            x = es.ask()
            y = f(x)
            if np.any(y <= TARGET):
                return used + int(np.argmax(y <= TARGET)) + 1
            used += len(y)
            es.tell(x, y)
        return None
    import cma

    x0 = np.random.default_rng(seed).uniform(-4.0, 4.0, n)
    es = cma.CMAEvolutionStrategy(x0, 2.0, {"CMA_diagonal": True, "seed": seed + 1, "maxfevals": budget, "verbose": -9})
    while not es.stop():
        x = es.ask()
        y = f(x)
        if np.any(y <= TARGET):
            return used + int(np.argmax(y <= TARGET)) + 1
        used += len(y)
        es.tell(x, y.tolist())
    return None


def command(args: argparse.Namespace) -> str:
    """The command line that rewrites this table (the defaults left out)."""
    return rerun_command("line_samples.py", build_parser(), args, ["dims", "seeds", "algorithms"])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", nargs="+", type=int, default=[80, 320])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--algorithms", nargs="+", default=["edamcc", "sep-cma"], choices=[*VARIANT_OF, "sep-cma"])
    parser.add_argument("--out", default=str(RESULTS / "adaptive" / "line_samples.json"))
    return parser


def main() -> None:
    args = build_parser().parse_args()
    import edamcc

    rows = []
    for n in args.dims:
        for name in ("sphere", "ellipsoid"):
            for algorithm in args.algorithms:
                t = time.perf_counter()
                hits = [evaluations_to_target(algorithm, name, n, s) for s in args.seeds]
                per_n = [BUDGET_FACTOR if h is None else h / n for h in hits]
                rows.append({"n": n, "function": name, "algorithm": algorithm, "seeds": args.seeds, "evaluations": hits,
                             "median_per_n": float(np.median(per_n)), "missed": sum(h is None for h in hits),
                             "wall_seconds": time.perf_counter() - t})  # fmt: skip
                print(f"n={n:4d} {name:9s} {algorithm:8s} median {rows[-1]['median_per_n']:7.1f} n  {hits}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"edamcc": edamcc.__version__, "target": TARGET, "rows": rows}, indent=1))
    header = {name: name for name in VARIANT_OF} | {"edamcc": "edamcc default", "sep-cma": "sep-CMA-ES"}
    lines = [f"Evaluations / n to reach {TARGET:g}, median over seeds {args.seeds} (edamcc {edamcc.__version__}; "
             f"`{command(args)}`)", "", "| n | function | " + " | ".join(header[a] for a in args.algorithms) + " |",
             "|---|---|" + "---|" * len(args.algorithms)]  # fmt: skip
    by = {(r["n"], r["function"], r["algorithm"]): r for r in rows}
    for n in args.dims:
        for name in ("sphere", "ellipsoid"):
            cells = []
            for algorithm in args.algorithms:
                r = by[(n, name, algorithm)]
                cells.append((">" if r["missed"] * 2 > len(args.seeds) else "") + f"{r['median_per_n']:.0f}")
            lines.append(f"| {n} | {name} | " + " | ".join(cells) + " |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
