"""Model cost of one generation (ask + tell, objective excluded), against the raw kernels.

    python benchmarks/generation_cost.py                   # n = 100 ... 10000, all goals
    python benchmarks/generation_cost.py --dims 1000 --algorithms edamcc eeda

Settings: M = 200, m = 100, m_corr = 100, c = 100, theta = 0.3 (the paper's 500D settings); the
self-adaptive variants (``--algorithms edamcc-adaptive edamcc-csa``) keep their own selection
ratio, m_corr and theta = "auto", with M = 200 and c = 100, and are timed against the same
kernels on their own m, m_corr and |S|.
Each (algorithm, n) runs in its own process; time is the median over generations, peak memory
is tracemalloc's peak of what the strategy allocates during two further generations (traced
apart from the timed ones, since tracing slows every allocation).

The raw kernels a generation cannot avoid, timed in the same process on the same shapes:
the correlation product of the m_corr selected rows (``Z.T @ Z``, all n^2 pairs) and one pass
taking each row's largest |entry| (WI's comparison of every pair with theta), the batched
eigendecompositions of the group covariances (the same partition as SM's), the group
covariance products, the sampling products and the normal draws. "ratio" is our generation
time divided by their sum; the kernels run once after each timed generation, on its |S|, and
both sides are medians over the generations.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from common import RESULTS, pyplot

from edamcc import EDAMCCStrategy
from edamcc.variants import VARIANTS

M, M_CORR, C = 200, 100, 100


def measure(algorithm: str, n: int, generations: int) -> dict:
    rng = np.random.default_rng(0)
    variant = VARIANTS[algorithm]
    m_corr = None if variant.adaptive or "m_corr" in variant.unused_settings else M_CORR  # the adaptive variants: their own
    c = None if "c" in variant.unused_settings else C  # UMDAc and EEDA have no groups to cap
    es = EDAMCCStrategy(bounds=[(-100.0, 100.0)] * n, population_size=M, m_corr=m_corr, c=c, variant=algorithm,
                        seed=1, record_pairs=False)  # fmt: skip
    # warm up: two generations on a sphere so the model is a fitted Gaussian, not the uniform start
    for _ in range(2):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
    times, kernel_runs = [], []
    x = es.ask()
    for _ in range(generations):
        f = np.sum(x**2, axis=1)  # the objective: outside the timed part
        t = time.perf_counter()
        es.tell(x, f)  # closes the generation: select, WI, SM, fit, sample the next one
        x = es.ask()
        times.append(time.perf_counter() - t)
        if with_kernels(algorithm):
            # right after the generation it is compared with, on that generation's |S|, so
            # that drifts in machine speed touch both alike
            kernel_runs.append(kernels(n, int(es.strong_variables.size), rng, es.n_selected, es.m_corr))
    # Peak memory in separate generations: tracemalloc hooks every allocation, which would
    # inflate the times above (by 30-50% at n = 500).
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(2):
        es.tell(x, np.sum(x**2, axis=1))
        x = es.ask()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    n_strong = int(es.strong_variables.size) if es.strong_variables is not None else 0
    out = {"algorithm": algorithm, "n": n, "seconds": float(np.median(times)), "peak_mib": peak / 2**20, "n_strong": n_strong}
    if kernel_runs:
        out |= {key: float(np.median([k[key] for k in kernel_runs])) for key in kernel_runs[0]}
    return out


def with_kernels(algorithm: str) -> bool:
    """WI + random SM (EDA-MCC and its self-adaptive variants): timed against the raw kernels."""
    v = VARIANTS.get(algorithm)
    return v is not None and v.identify_weak and v.grouping == "random"


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def kernels(n: int, n_strong: int, rng: np.random.Generator, m: int = M // 2, m_corr: int = M_CORR) -> dict:
    """One call of each unavoidable numerical kernel of an EDA-MCC generation with |S| = n_strong,
    m selected rows and m_corr rows for WI, timed: the same partition as SM's (floor(|S|/c) groups
    of c, plus one of the remainder)."""
    z = rng.standard_normal((m_corr, n))

    def corr_kernel():
        c = z.T @ z
        np.abs(c, out=c)
        return c.max(axis=1)  # WI needs each variable's largest |corr|: one pass over the n^2 entries

    corr = _timed(corr_kernel)
    stacks = [(n_strong // C, C)] + ([(1, n_strong % C)] if n_strong % C else [])
    stacks = [(g, s) for g, s in stacks if g]
    cov_t = eig = sample = 0.0
    for g, s in stacks:
        d = rng.standard_normal((g, m, s))
        cov_t += _timed(lambda: d.transpose(0, 2, 1) @ d)
        cov = d.transpose(0, 2, 1) @ d / m
        eig += _timed(lambda: np.linalg.eigh(cov))
        factor = rng.standard_normal((g, s, s))
        noise = rng.standard_normal((g, M - 1, s))
        sample += _timed(lambda: noise @ factor)
    rand = _timed(lambda: rng.standard_normal((M - 1, n)))
    total = corr + cov_t + eig + sample + rand
    return {"kernel_corr": corr, "kernel_cov": cov_t, "kernel_eigh": eig, "kernel_sample": sample, "kernel_randn": rand, "kernels": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", nargs="+", type=int, default=[100, 500, 1000, 2000, 5000, 10000])
    parser.add_argument("--algorithms", nargs="+", default=["edamcc", "umdac", "eeda"])
    parser.add_argument("--eeda-max", type=int, default=2000, help="largest n for EEDA (cubic cost)")
    parser.add_argument("--generations", type=int, default=15)
    parser.add_argument("--single", nargs=2, metavar=("ALGORITHM", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(RESULTS / "generation_cost.json"))
    args = parser.parse_args()
    if args.single:
        print(json.dumps(measure(args.single[0], int(args.single[1]), args.generations)))
        return
    results = []
    for n in args.dims:
        for alg in args.algorithms:
            if alg == "eeda" and n > args.eeda_max:
                continue
            proc = subprocess.run([sys.executable, __file__, "--single", alg, str(n), "--generations", str(args.generations)],
                                  capture_output=True, text=True, check=True)  # fmt: skip
            r = json.loads(proc.stdout)
            results.append(r)
            extra = f"  kernels {r['kernels'] * 1e3:8.1f} ms  ratio {r['seconds'] / r['kernels']:.2f}" if "kernels" in r else ""
            print(f"{alg:8s} n={n:6d}  {r['seconds'] * 1e3:9.1f} ms/gen  peak {r['peak_mib']:7.1f} MiB  #strong {r['n_strong']:6d}{extra}", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1))
    by = {(r["algorithm"], r["n"]): r for r in results}
    print("\n| n | EDA-MCC ms/gen | raw kernels ms | ratio | #strong | peak MiB | UMDAc ms/gen | EEDA ms/gen | EEDA / EDA-MCC |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in args.dims:
        e = by.get(("edamcc", n))
        if e is None:
            continue
        u, ee = by.get(("umdac", n)), by.get(("eeda", n))
        umda_ms = "–" if u is None else f"{u['seconds'] * 1e3:.1f}"
        eeda_ms = "–" if ee is None else f"{ee['seconds'] * 1e3:.1f}"
        speedup = "–" if ee is None else f"{ee['seconds'] / e['seconds']:.1f}x"
        print(f"| {n} | {e['seconds'] * 1e3:.1f} | {e['kernels'] * 1e3:.1f} | {e['seconds'] / e['kernels']:.2f} | "
              f"{e['n_strong']} | {e['peak_mib']:.0f} | {umda_ms} | {eeda_ms} | {speedup} |")
    others = [a for a in args.algorithms if a != "edamcc" and with_kernels(a)]
    if others:
        print("\n| n | variant | ms/gen | raw kernels ms | ratio | #strong | peak MiB |\n|---|---|---|---|---|---|---|")
        for n in args.dims:
            for a in others:
                r = by.get((a, n))
                if r is not None:
                    print(f"| {n} | {a} | {r['seconds'] * 1e3:.1f} | {r['kernels'] * 1e3:.1f} | {r['seconds'] / r['kernels']:.2f} | "
                          f"{r['n_strong']} | {r['peak_mib']:.0f} |")
    try:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for alg in args.algorithms:
            pts = sorted((r["n"], r["seconds"]) for r in results if r["algorithm"] == alg)
            if pts:
                ax.loglog(*zip(*pts), marker="o", label=alg)
        ax.set_xlabel("n")
        ax.set_ylabel("seconds per generation (objective excluded)")
        ax.legend()
        fig.tight_layout()
        path = Path(args.out).with_suffix(".png")
        fig.savefig(path, dpi=100)
        print(f"wrote {path}")
    except ImportError:
        print("no plot: matplotlib is not installed")


if __name__ == "__main__":
    main()
