"""The diagonal shape on a rotated ill-conditioned function: edamcc-csa against edamcc-sep-cc and sep-CMA-ES.

    python benchmarks/shape_condition.py                          # F9 at n = 100, 2000 n, 5 seeds
    python benchmarks/shape_condition.py --dims 500 --budget-factor 1000 --seeds 0 1
    python benchmarks/shape_condition.py --report                 # table and picture from the runs file

F9 is CEC2005's F3, the shifted rotated high-conditioned elliptic (condition 1e6, a random
rotation): no diagonal model fits it, and sep-CMA-ES's diagonal stays within a condition of
about 1e3. The shape condition of ``edamcc-csa`` (the default from 0.3 to 0.6) max D^2 / min D^2 grows without bound
and the run stalls. Our reading: its two samples per generation on the mean's last step
(:class:`edamcc.models.LineSamples`) make the mean's steps persist from one generation to the
next; its rank-one path p_c, whose rate c_c is about 4 / n (Hansen's tutorial), sums those
steps, and the term c_1 p_c^2 of the shape's update then feeds the same few coordinates
generation after generation. ``edamcc-sep-cc``, the default since 0.7, is ``edamcc-csa`` with pycma's rate for
sep-CMA-ES, c_c = (1 + 1/n + mu_eff/n) / (sqrt(n) + 1/n + 2 mu_eff/n), about 1 / sqrt(n): the path
forgets a step within about sqrt(n) generations instead of n / 4.

For each algorithm and seed the run records, at each quarter of the budget, the error
F(x) - F(x*) of the best point and the condition of the sampling model's variances (ours:
sigma^2 D_i^2, the same condition as D^2; pycma: sigma^2 sigma_vec_i^2 C_ii). The table gives
medians over the seeds, the picture (``shape_condition.png``) the same medians against
evaluations / n. pycma's sep-CMA-ES runs as in ``peers.py`` (start at the centre,
sigma0 a third of the range, bounds), with the default ``tolfun``/``tolx`` stops off.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from common import RESULTS, pyplot, rerun_command

from edamcc import DEFAULT_VARIANT, EDAMCCStrategy
from edamcc.benchmark_functions import get_function

FUNCTION = "F9"
VARIANT_OF = {"edamcc": DEFAULT_VARIANT, "edamcc-csa": "edamcc-csa", "edamcc-sep-cc": "edamcc-sep-cc"}  # "edamcc": the package's default
ALGORITHMS = [*VARIANT_OF, "sep-cma"]
DEFAULT_ALGORITHMS = ["edamcc", "edamcc-csa", "sep-cma"]  # since 0.7 the default is edamcc-sep-cc
LEGACY_DEFAULT = "edamcc-csa"  # runs saved before 0.7 record no variant: the default was edamcc-csa then
LABEL = {"edamcc-csa": "edamcc-csa", "edamcc-sep-cc": "edamcc-sep-cc", "sep-cma": "sep-CMA-ES (pycma)"}
CHECKPOINTS = 4  # records at 1/4, 2/4, 3/4 and all of the budget


def label(algorithm: str, runs: list[dict]) -> str:
    """The name of an algorithm's row; for the default, the variant its runs recorded."""
    if algorithm != "edamcc":
        return LABEL[algorithm]
    variant = next((r.get("variant", LEGACY_DEFAULT) for r in runs if r["algorithm"] == algorithm), DEFAULT_VARIANT)
    return f"default ({variant})"


def condition(variances: np.ndarray) -> float:
    """max / min of the variances (inf when one is zero)."""
    low = float(np.min(variances))
    return float(np.max(variances)) / low if low > 0 else float("inf")


def run(algorithm: str, n: int, budget_factor: int, seed: int) -> dict:
    """One run: at each checkpoint the evaluations used, the error and the variances' condition."""
    f = get_function(FUNCTION, n)
    budget = budget_factor * n
    marks = [budget * (k + 1) // CHECKPOINTS for k in range(CHECKPOINTS)]
    records, used = [], 0
    if algorithm in VARIANT_OF:
        es = EDAMCCStrategy(bounds=f.bounds, budget=budget, seed=seed, variant=VARIANT_OF[algorithm], record_structure=False)

        def variances() -> np.ndarray:
            model = getattr(es.model, "model", es.model)  # the Gaussian behind the mean-shift samples
            return model.stds() ** 2

        while not es.should_stop():
            x = es.ask()
            es.tell(x, f(x))
            used = es.evaluations
            while marks and used >= marks[0]:
                records.append({"evaluations": used, "error": es.best_f - f.optimum_value, "condition": condition(variances())})
                marks.pop(0)
        restarts = len(es.restarts)
    else:
        import cma

        es = cma.CMAEvolutionStrategy(np.zeros(n) + 0.5 * (f.lower + f.upper), (f.upper - f.lower) / 3.0,
                                      {"CMA_diagonal": True, "bounds": [f.lower, f.upper], "seed": seed + 1, "verbose": -9,
                                       "maxfevals": budget, "tolfun": 0, "tolfunhist": 0, "tolx": 0, "tolstagnation": budget,
                                       "tolflatfitness": budget})  # fmt: skip
        while used < budget and not es.stop():
            x = es.ask()
            es.tell(x, f(np.asarray(x)).tolist())
            used = es.countevals
            while marks and used >= marks[0]:
                v = es.sigma**2 * np.asarray(es.sigma_vec.scaling) ** 2 * np.asarray(es.dC)
                records.append({"evaluations": used, "error": es.best.f - f.optimum_value, "condition": condition(v)})
                marks.pop(0)
        restarts = 0
    return {"algorithm": algorithm, "variant": VARIANT_OF.get(algorithm), "n": n, "seed": seed, "budget": budget,
            "records": records, "restarts": restarts}


def command(args: argparse.Namespace, runs: list[dict] | None = None) -> str:
    """The command line that rewrites this table (the defaults left out). With the ``runs``, the
    default's runs made when it was another variant are named by that variant (``edamcc-csa`` for
    0.6's), so that the command reruns what the table shows, not today's default."""
    if runs is not None:
        then = next((r.get("variant", LEGACY_DEFAULT) for r in runs if r["algorithm"] == "edamcc"), DEFAULT_VARIANT)
        named = [then if a == "edamcc" and then != DEFAULT_VARIANT else a for a in args.algorithms]
        args = argparse.Namespace(**(vars(args) | {"algorithms": list(dict.fromkeys(named))}))
    return rerun_command("shape_condition.py", build_parser(), args, ["dims", "budget_factor", "seeds", "algorithms"])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", nargs="+", type=int, default=[100])
    parser.add_argument("--budget-factor", type=int, default=2000, help="budget = factor * n")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--algorithms", nargs="+", default=DEFAULT_ALGORITHMS, choices=ALGORITHMS)
    parser.add_argument("--out", default=str(RESULTS / "adaptive" / "shape_condition.json"))
    parser.add_argument("--report", action="store_true", help="only rewrite the table and the picture from --out, for every algorithm it has")
    return parser


def table(runs: list[dict], args: argparse.Namespace, version: str) -> str:
    """Medians over the seeds of the error and of the condition at each checkpoint."""
    lines = [f"{FUNCTION} (shifted rotated elliptic, condition 1e6): median over seeds {args.seeds} of the error and of the "
             f"sampling variances' condition max / min at each quarter of the budget (edamcc {version}; `{command(args, runs)}`)", ""]  # fmt: skip
    for n in args.dims:
        lines += [f"## n = {n}, {args.budget_factor} n evaluations", "",
                  "| algorithm | " + " | ".join(f"error at {(k + 1) * args.budget_factor // CHECKPOINTS} n" for k in range(CHECKPOINTS))
                  + " | " + " | ".join(f"condition at {(k + 1) * args.budget_factor // CHECKPOINTS} n" for k in range(CHECKPOINTS)) + " |",
                  "|---|" + "---|" * (2 * CHECKPOINTS)]  # fmt: skip
        for algorithm in args.algorithms:
            mine = [r for r in runs if r["algorithm"] == algorithm and r["n"] == n]
            errors = [float(np.median([r["records"][k]["error"] for r in mine])) for k in range(CHECKPOINTS)]
            conds = [float(np.median([r["records"][k]["condition"] for r in mine])) for k in range(CHECKPOINTS)]
            lines.append(f"| {label(algorithm, runs)} | " + " | ".join(f"{e:.2e}" for e in errors) + " | " + " | ".join(f"{c:.0e}" for c in conds) + " |")
        lines.append("")
    return "\n".join(lines)


def picture(runs: list[dict], args: argparse.Namespace, path: Path) -> None:
    """Median error and median condition against evaluations / n, one line per algorithm and n."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for n in args.dims:
        for algorithm in args.algorithms:
            mine = [r for r in runs if r["algorithm"] == algorithm and r["n"] == n]
            x = [(k + 1) * args.budget_factor / CHECKPOINTS for k in range(CHECKPOINTS)]
            name = f"{label(algorithm, runs)}, n = {n}" if len(args.dims) > 1 else label(algorithm, runs)
            for ax, key in zip(axes, ("error", "condition")):
                ax.plot(x, [np.median([r["records"][k][key] for r in mine]) for k in range(CHECKPOINTS)], marker="o", label=name)
    for ax, title in zip(axes, (f"{FUNCTION}: error of the best point", "condition of the sampling variances")):
        ax.set_yscale("log")
        ax.set_xlabel("evaluations / n")
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"median over seeds {args.seeds}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_report(runs: list[dict], args: argparse.Namespace, version: str) -> str:
    out = Path(args.out)
    text = table(runs, args, version)
    out.with_suffix(".md").write_text(text)
    try:
        picture(runs, args, out.with_suffix(".png"))
    except ImportError:
        print("matplotlib is not installed: no picture")
    return text


def main() -> None:
    args = build_parser().parse_args()
    import edamcc

    if args.report:
        saved = json.loads(Path(args.out).read_text())
        args.algorithms = list(dict.fromkeys(r["algorithm"] for r in saved["runs"]))  # every algorithm the file has
        print(write_report(saved["runs"], args, saved["edamcc"]))
        return
    runs = []
    for n in args.dims:
        for algorithm in args.algorithms:
            for seed in args.seeds:
                t = time.perf_counter()
                r = run(algorithm, n, args.budget_factor, seed)
                r["wall_seconds"] = time.perf_counter() - t
                runs.append(r)
                last = r["records"][-1]
                print(f"n={n} {algorithm:14s} seed {seed}: error {last['error']:.3e}, condition {last['condition']:.1e} "
                      f"({r['wall_seconds']:.0f} s)", flush=True)  # fmt: skip
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"edamcc": edamcc.__version__, "function": FUNCTION, "runs": runs}, indent=1))
    print(write_report(runs, args, edamcc.__version__))


if __name__ == "__main__":
    main()
