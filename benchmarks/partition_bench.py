r"""Learned SM groups (``partition="learned"``) against random ones (the default), on and off.

The self-adaptive variants group their strong variables at random (SM, Fig. 4 of the paper) or,
with ``partition="learned"``, by SM-GC's greedy clustering of |corr| (Fig. 11) with the strong
variables left over in random groups. Two campaigns, one run file each under ``results/partition/runs``:

* F1-F13 at n = 100, 1,000 n evaluations, 5 seeds, made by ``peers.py``:

      python benchmarks/peers.py --dims 100 --budget-factor 1000 --runs 5 --workers 1 \
          --algorithms edamcc-adaptive edamcc-adaptive-learned edamcc-csa edamcc-csa-learned --out benchmarks/results/partition

* a problem with real block structure, made by this program: the block-rotated ellipsoid
  ``f(x) = sum_i 10^(6 j_i / (b - 1)) z_i^2``, ``z = R (x - o)``, R block diagonal with random
  orthogonal b x b blocks (Nevergrad's block rotation, here with blocks of b = 5 and 10), j_i the
  position of variable i in its block, o uniform in [-4, 4]^n, box [-5, 5]^n, instance seed 0:

      python benchmarks/partition_bench.py run --runs 5

and ``python benchmarks/partition_bench.py report`` writes ``results/adaptive/partition.md``
from every run file there: median errors on and off, a two-sided Mann-Whitney U test per row,
and how often the learned groups are ahead, tied (equal medians: both 0 below 1e-12) or behind.
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.stats import mannwhitneyu

from common import FUNCTIONS, RESULTS, ZERO, load_runs, run_missing, verdict_of, write_report
from edamcc import minimize
from peers import LEARNED, minimize_options

OUT = RESULTS / "partition"
REPORT = RESULTS / "adaptive" / "partition.md"
BLOCK_SIZES = (5, 10)
PAIRS = [(off, on) for on, off in LEARNED.items()]  # (default random groups, learned groups)
ALGORITHMS = [a for pair in PAIRS for a in pair]
PEERS_COMMAND = ("python benchmarks/peers.py --dims 100 --budget-factor 1000 --runs 5 --workers 1 --algorithms "
                 + " ".join(ALGORITHMS) + " --out benchmarks/results/partition")  # fmt: skip


@dataclass(frozen=True)
class BlockRotatedEllipsoid:
    """The block-rotated ellipsoid of ``dim`` variables in rotation blocks of ``block`` (module docstring)."""

    dim: int
    block: int
    seed: int = 0

    def __post_init__(self) -> None:
        if self.dim % self.block:
            raise ValueError(f"block: expected a divisor of dim={self.dim}; got {self.block}")
        rng = np.random.default_rng(self.seed)
        g = rng.normal(size=(self.dim // self.block, self.block, self.block))
        q, r = np.linalg.qr(g)  # batched: one Haar-random orthogonal matrix per block
        object.__setattr__(self, "rotations", q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :])
        object.__setattr__(self, "shift", rng.uniform(-4.0, 4.0, self.dim))
        within = 10.0 ** (6.0 * np.arange(self.block) / (self.block - 1))  # condition 1e6 inside every block
        object.__setattr__(self, "weights", np.tile(within, self.dim // self.block))

    @property
    def name(self) -> str:
        return f"BlockEllipsoid{self.block}"

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(-5.0, 5.0)] * self.dim

    def __call__(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Values of the rows of ``x`` (shape ``(k, dim)`` or ``(dim,)``); the minimum is 0 at ``shift``."""
        d = np.atleast_2d(x) - self.shift
        z = np.einsum("kbi,bij->kbj", d.reshape(d.shape[0], -1, self.block), self.rotations).reshape(d.shape)
        values = (z**2) @ self.weights
        return values if np.ndim(x) == 2 else values[0]


def run_one(algorithm: str, block: int, dim: int, budget: int, seed: int) -> dict:
    """One run, with what SM grouped: per generation, the strong variables, the pairs of variables
    sharing a group and how many of those pairs lie inside one rotation block."""
    warnings.simplefilter("ignore")
    f = BlockRotatedEllipsoid(dim, block)
    owner = np.arange(dim) // block
    seen = np.zeros(4)  # generations, strong variables, grouped pairs, grouped pairs inside a block

    def note(result) -> None:
        es = result.strategy
        if es.weak_mask is None:
            return
        groups = es.groups
        pairs = sum(len(g) * (len(g) - 1) // 2 for g in groups)
        inside = sum(int(np.sum(np.bincount(owner[g]) * (np.bincount(owner[g]) - 1) // 2)) for g in groups)
        seen[:] += (1, np.count_nonzero(~es.weak_mask), pairs, inside)

    t = time.perf_counter()
    best = minimize(f, f.bounds, budget=budget, seed=seed, vectorized=True, record_pairs=False, callback=note, **minimize_options(algorithm)).fun
    wall = time.perf_counter() - t
    block_pairs = dim // block * block * (block - 1) // 2
    return {"algorithm": algorithm, "function": f.name, "dim": dim, "budget": budget, "seed": seed, "error": float(best),
            "wall_seconds": wall, "mean_strong": float(seen[1] / seen[0]),
            "grouped_pairs_inside_blocks": float(seen[3] / max(seen[2], 1)),
            "block_pairs_grouped": float(seen[3] / seen[0] / block_pairs)}


def run_job(job: tuple) -> dict:
    return run_one(*job)


def report(out: Path = OUT) -> str:
    runs = [r for r in load_runs(out / "runs") if r["algorithm"] in ALGORITHMS]
    errors: dict[tuple, list[float]] = {}
    walls: dict[tuple, list[float]] = {}
    for r in runs:
        key = (r["dim"], r["budget"], r["function"], r["algorithm"])
        errors.setdefault(key, []).append(0.0 if r["error"] < ZERO else r["error"])
        walls.setdefault((r["dim"], r["budget"], r["function"] in FUNCTIONS, r["algorithm"]), []).append(r["wall_seconds"])
    order = FUNCTIONS + [f"BlockEllipsoid{b}" for b in BLOCK_SIZES]
    lines = ["# Learned SM groups against random ones (`partition=\"learned\"` on and off)", "",
             "Median F(x) - F(x*) over the runs (0: below 1e-12); *p*: two-sided Mann-Whitney U of the runs, on against off;",
             "ahead/behind: the learned groups' median is lower/higher, tied: equal medians. Regenerate:", "",
             f"    {PEERS_COMMAND}", "    python benchmarks/partition_bench.py run --runs 5",
             "    python benchmarks/partition_bench.py report", "",
             "Both sides are run by the code of the same commit (the `edamcc-adaptive` runs in `results/adaptive/runs` were made",
             "by an earlier version and no longer reproduce bit for bit).", ""]  # fmt: skip
    for dim, budget in sorted({k[:2] for k in errors}):
        for group, names in (("F1-F13", FUNCTIONS), ("block-rotated ellipsoids", [f"BlockEllipsoid{b}" for b in BLOCK_SIZES])):
            rows = [f for f in order if f in names and any((dim, budget, f, a) in errors for a in ALGORITHMS)]
            if not rows:
                continue
            lines += [f"## {group}, n = {dim}, {budget} evaluations ({budget // dim} n)", "",
                      "| function | " + " | ".join(f"{off} | {on} | runs | p | verdict" for off, on in PAIRS) + " |",
                      "|---|" + "---|---|---|---|---|" * len(PAIRS)]  # fmt: skip
            counts = ("ahead", "tied", "behind", "significant ahead", "significant behind")
            tally = {pair: dict.fromkeys(counts, 0) for pair in PAIRS}
            for fname in rows:
                cells = []
                for off, on in PAIRS:
                    a, b = errors.get((dim, budget, fname, off)), errors.get((dim, budget, fname, on))
                    if not a or not b:
                        cells.append("– | – | – | – | –")
                        continue
                    m_off, m_on = float(np.median(a)), float(np.median(b))
                    verdict = verdict_of(m_on, m_off)
                    p = 1.0 if len(set(a) | set(b)) == 1 else float(mannwhitneyu(b, a).pvalue)  # all equal: no evidence
                    tally[(off, on)][verdict] += 1
                    if p < 0.05 and verdict != "tied":
                        tally[(off, on)][f"significant {verdict}"] += 1
                    cells.append(f"{m_off:.2e} | {m_on:.2e} | {len(a)}/{len(b)} | {p:.2g} | {verdict}{'*' if p < 0.05 else ''}")
                lines.append(f"| {fname} | " + " | ".join(cells) + " |")
            lines.append("")
            for (off, on), t in tally.items():
                seconds = [np.mean(walls.get((dim, budget, names is FUNCTIONS, a), [np.nan])) for a in (off, on)]
                lines.append(f"{on} against {off}: ahead on {t['ahead']}, tied on {t['tied']}, behind on {t['behind']} of "
                             f"{sum(t[k] for k in ('ahead', 'tied', 'behind'))}; with p < 0.05 (marked *): ahead on "
                             f"{t['significant ahead']}, behind on {t['significant behind']}. Mean wall seconds per run: "
                             f"{seconds[0]:.1f} off, {seconds[1]:.1f} on.")  # fmt: skip
            lines.append("")
            if names is not FUNCTIONS:
                lines += structure_table([r for r in runs if (r["dim"], r["budget"]) == (dim, budget) and "mean_strong" in r])
    return "\n".join(lines)


def structure_table(runs: list[dict]) -> list[str]:
    """What SM grouped on the block-structured problems, averaged over the runs' generations and the runs."""
    if not runs:
        return []
    lines = ["What SM grouped, mean over the generations and runs: the strong variables, the share of grouped pairs (two",
             "variables in one group) that lie inside one rotation block (chance for random pairs: (b - 1) / (n - 1)), and",
             "the share of the blocks' pairs grouped together.", "",
             "| function | configuration | mean #strong | grouped pairs inside a block | chance | block pairs grouped |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for fname in sorted({r["function"] for r in runs}, key=lambda name: int(name.removeprefix("BlockEllipsoid"))):
        block = int(fname.removeprefix("BlockEllipsoid"))
        for alg in ALGORITHMS:
            rs = [r for r in runs if r["function"] == fname and r["algorithm"] == alg]
            if rs:
                keys = ("mean_strong", "grouped_pairs_inside_blocks", "block_pairs_grouped")
                mean = {k: float(np.mean([r[k] for r in rs])) for k in keys}
                lines.append(f"| {fname} | {alg} | {mean['mean_strong']:.1f} | {mean['grouped_pairs_inside_blocks']:.1%} | "
                             f"{(block - 1) / (rs[0]['dim'] - 1):.1%} | {mean['block_pairs_grouped']:.1%} |")  # fmt: skip
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run", "report"])
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--blocks", nargs="+", type=int, default=list(BLOCK_SIZES), help="rotation block sizes")
    parser.add_argument("--budget-factor", type=int, default=1000, help="budget = factor * n")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--algorithms", nargs="+", default=ALGORITHMS, choices=ALGORITHMS)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=str(OUT), help="run files (and, if not the default, the report) go here")
    args = parser.parse_args()
    out = Path(args.out)
    if args.command == "run":
        (out / "runs").mkdir(parents=True, exist_ok=True)
        jobs = [(alg, b, args.dim, args.budget_factor * args.dim, seed)
                for b in args.blocks for alg in args.algorithms for seed in range(args.runs)]  # fmt: skip
        path = lambda j: out / "runs" / f"{j[0]}__BlockEllipsoid{j[1]}__{j[2]}__b{j[3]}__s{j[4]}.json"
        line = lambda j, r: f"{j[0]} BlockEllipsoid{j[1]}: error {r['error']:.3e} ({r['wall_seconds']:.0f} s)"
        run_missing(jobs, run_job, path, args.workers, line)
    write_report(REPORT if out.resolve() == OUT.resolve() else out / "partition.md", report(out))  # a scratch --out keeps its own


if __name__ == "__main__":
    main()
