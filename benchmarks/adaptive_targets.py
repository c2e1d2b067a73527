"""The self-adaptive EDA-MCC against sep-CMA-ES and the paper's variant: the issue's targets.

Runs are made by ``peers.py`` into ``results/adaptive/runs`` (one JSON file per run), e.g.

    python benchmarks/peers.py --dims 100 --budget-factor 1000 --runs 5 --algorithms edamcc edamcc-adaptive edamcc-csa sep-cma --out benchmarks/results/adaptive
    python benchmarks/peers.py --dims 100 --budget-factor 100 --functions F1 F5 F8 --runs 5 --algorithms edamcc edamcc-adaptive edamcc-csa sep-cma --out benchmarks/results/adaptive

and this program reads every run file there and writes ``results/adaptive/targets.md``:

    python benchmarks/adaptive_targets.py

An earlier version's runs are kept in a folder of their own, and the peers' runs of
``results/adaptive`` complete their table (``--reference``: the algorithms the folder has no
runs of are read from there):

    python benchmarks/adaptive_targets.py --runs benchmarks/results/adaptive_0.4 --reference benchmarks/results/adaptive

For each dimension and budget: the median error per function and algorithm, how often the
self-adaptive variant's median is ahead of sep-CMA-ES's (errors below 1e-12 count as 0, so
two zeros tie) for each self-adaptive variant, and, where the paper's variant beats sep-CMA-ES, whether the self-adaptive
one stays within 3x of it. Where sep-CMA-ES's own median is below 1e-12 no median can be ahead
of it, only tied; a cell with such functions names them, and says on how many any optimizer
can be ahead at most.

A median can be ahead by chance. Each verdict "ahead" or "behind" is also tested against the
runs themselves with a two-sided Wilcoxon rank-sum (Mann-Whitney U) test on the errors (0 below
1e-12): a verdict marked * has p < 0.05, and each variant's sentence counts those. With 5 runs
against 5 the smallest p there is, with all five of one below all five of the other, is 2/252 =
0.008; with 3 against 3 it is 0.1, so no verdict of 3 runs is marked. The test is per function,
not corrected for the 13 of a cell.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
from common import FUNCTIONS, PAPER_FACTOR, RESULTS, ZERO, load_runs, shown_path, verdict_of, write_report, zeroed_median
from scipy.stats import mannwhitneyu, rankdata

OUT = RESULTS / "adaptive"
ORDER = ["edamcc", "edamcc-adaptive", "edamcc-csa", "edamcc-tpa", "edamcc-tpa-all", "edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-lf0", "edamcc-vd-lf0-na", "edamcc-vd-lf0-na-wi", "edamcc-vd-wi-am", "edamcc-sep-cc-psa", "edamcc-sep-cc-psa-path", "edamcc-budget-pop", "edamcc-exact-theta", "edamcc-default", "sep-cma", "sep-cma-ipop", "vd-cma"]
PEERS = {"sep-cma": "sep-CMA-ES", "sep-cma-ipop": "IPOP sep-CMA-ES"}  # the verdicts' peer (--peer) and its name in the text
SIGNIFICANCE = 0.05  # a verdict is marked * where the rank-sum test's p is below it
EXACT_SPLITS = 200_000  # the rank-sum test enumerates the splits up to this many (10 runs against 10: 184,756)
ADAPTIVE = ["edamcc-adaptive", "edamcc-csa", "edamcc-tpa", "edamcc-tpa-all", "edamcc-sep-cc", "edamcc-sep-cc-lf", "edamcc-vd", "edamcc-vd-lf0", "edamcc-vd-lf0-na", "edamcc-vd-lf0-na-wi", "edamcc-vd-wi-am", "edamcc-sep-cc-psa", "edamcc-sep-cc-psa-path", "edamcc-budget-pop", "edamcc-exact-theta", "vd-cma"]  # each gets its verdict against sep-CMA-ES (vd-cma: the peer with one learned direction)


def errors_of(runs: list[dict]) -> dict[tuple, list[float]]:
    """``{(dim, budget, function, algorithm): the runs' errors}``, in the runs' order."""
    cells: dict[tuple, list[float]] = defaultdict(list)
    for r in runs:
        cells[(r["dim"], r["budget"], r["function"], r["algorithm"])].append(r["error"])
    return cells


def medians(runs: list[dict]) -> dict[tuple, dict[str, dict[str, float]]]:
    """``{(dim, budget): {function: {algorithm: median error (0 below 1e-12)}}}``."""
    out: dict[tuple, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for (dim, budget, fname, alg), errors in errors_of(runs).items():
        out[(dim, budget)][fname][alg] = zeroed_median(errors)
    return out


def rank_sum_p(ours: list[float], theirs: list[float]) -> float:
    """The two-sided Wilcoxon rank-sum (Mann-Whitney U) test's p of two sets of errors, each
    0 below 1e-12 as the medians are, NaN (a failed run) as the worst; 1.0 where all are equal
    (no order to test).

    Exact: the share of all splits of the pooled runs into two such sets whose rank sum is at
    least as far from its mean as the observed one (tied errors share their mean rank), so
    ties, common at the 1e-12 floor, need no normal approximation. Beyond EXACT_SPLITS splits,
    scipy's asymptotic test.
    """
    a = [np.inf if np.isnan(e) else 0.0 if e < ZERO else e for e in ours]
    b = [np.inf if np.isnan(e) else 0.0 if e < ZERO else e for e in theirs]
    if len(set(a) | set(b)) == 1:
        return 1.0
    if comb(len(a) + len(b), len(a)) > EXACT_SPLITS:
        return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    ranks = rankdata(a + b)
    centre = len(a) * (len(a) + len(b) + 1) / 2  # the rank sum's mean under no difference
    sums = np.array([ranks[list(split)].sum() for split in combinations(range(len(ranks)), len(a))])
    observed = abs(ranks[: len(a)].sum() - centre)
    return float(np.mean(np.abs(sums - centre) >= observed - 1e-9))


def reference_medians(folder: Path) -> dict[tuple, dict[str, dict[str, float]]]:
    """:func:`medians` of ``peers.py``'s run files in ``folder`` (empty without the folder)."""
    return medians(load_runs(folder)) if Path(folder).is_dir() else {}


def ceiling(table: dict[str, dict[str, float]], peer: str = "sep-cma") -> str | None:
    """The sentence on how many functions of a cell any optimizer can be ahead of the ``peer`` on:
    not on those where its median is 0 (below 1e-12), which can only be tied. None without the
    peer, or where it has no such function (then every one can be won)."""
    rows = [f for f in sorted(table, key=FUNCTIONS.index) if peer in table[f]]
    solved = [f for f in rows if table[f][peer] == 0.0]
    if not solved:
        return None
    return (f"{PEERS[peer]}'s median is below 1e-12 on {len(solved)} of {len(rows)} functions ({', '.join(solved)}), where a median "
            f"can at best tie it: any optimizer can be ahead of it on at most {len(rows) - len(solved)} of {len(rows)}.")


def regenerate_command(out: Path, reference: Path | None = None, peer: str = "sep-cma") -> str:
    """The command that rewrites this report: ``--runs`` names a folder other than the default,
    relative to the repository when it is inside it, and ``--reference`` the folder of the peers' runs."""
    folder = Path(out).resolve()
    command = "python benchmarks/adaptive_targets.py"
    if folder != OUT.resolve():
        command += f" --runs {shown_path(folder)}"
    if reference is not None:
        command += f" --reference {shown_path(Path(reference).resolve())}"
    if peer != "sep-cma":
        command += f" --peer {peer}"
    return command


def with_reference(runs: list[dict], reference: list[dict]) -> list[dict]:
    """``runs``, and the runs of ``reference`` whose algorithm ``runs`` has none of."""
    own = {r["algorithm"] for r in runs}
    return runs + [r for r in reference if r["algorithm"] not in own]


def report(out: Path = OUT, reference: Path | None = None, peer: str = "sep-cma") -> str:
    """The targets' report, with every self-adaptive variant's verdicts against ``peer``."""
    label = PEERS[peer]
    runs = load_runs(out / "runs")
    if reference is not None:
        runs = with_reference(runs, load_runs(Path(reference) / "runs"))
    errors = errors_of(runs)
    lines = [f"# Self-adaptive EDA-MCC against {label} and the paper's variant", "",
             f"Median F(x) - F(x*) over the runs (0: below 1e-12). Regenerate: `{regenerate_command(out, reference, peer)}`.", ""]  # fmt: skip
    for (dim, budget), table in sorted(medians(runs).items()):
        if peer != "sep-cma" and not any(peer in row for row in table.values()):
            continue  # another peer's report: only the cells it was run in
        algs = [a for a in ORDER if any(a in row for row in table.values())]
        ours = [a for a in ADAPTIVE if a in algs]
        n_runs = sorted({len(cell) for key, cell in errors.items() if key[:2] == (dim, budget)})
        lines += [f"## n = {dim}, {budget} evaluations ({budget // dim} n), {'/'.join(map(str, n_runs))} run(s) per cell", "",
                  "| function | " + " | ".join(algs) + "".join(f" | {a} vs {label}" for a in ours) + " |",
                  "|---|" + "---|" * (len(algs) + len(ours))]  # fmt: skip
        verdicts: dict[str, dict[str, int]] = {a: defaultdict(int) for a in ours}
        significant: dict[str, dict[str, int]] = {a: defaultdict(int) for a in ours}
        paper_checks: dict[str, list[str]] = {a: [] for a in ours}
        for fname in sorted(table, key=FUNCTIONS.index):
            row = table[fname]
            cells = [f"{row[a]:.2e}" if a in row else "–" for a in algs]
            for a in ours:
                verdict = verdict_of(row[a], row[peer]) if {a, peer} <= set(row) else "–"
                verdicts[a][verdict] += 1
                if verdict in ("ahead", "behind") and rank_sum_p(errors[(dim, budget, fname, a)], errors[(dim, budget, fname, peer)]) < SIGNIFICANCE:
                    significant[a][verdict] += 1
                    verdict += "*"
                cells.append(verdict)
                if {"edamcc", a, peer} <= set(row) and row["edamcc"] < row[peer]:
                    if row["edamcc"] == 0 and row[a] > 0:  # the paper's below 1e-12: no finite ratio
                        paper_checks[a].append(f"{fname} {row[a]:.2g} against below 1e-12 (more than 3x)")
                    else:
                        ratio = 1.0 if row[a] == row["edamcc"] else row[a] / row["edamcc"]
                        paper_checks[a].append(f"{fname} {ratio:.2g}x" + ("" if ratio <= PAPER_FACTOR else " (more than 3x)"))
            lines.append(f"| {fname} | " + " | ".join(cells) + " |")
        lines.append("")
        most = ceiling(table, peer)
        if most is not None:
            lines += [most, ""]
        for a in ours:
            v = verdicts[a]
            total = sum(v[k] for k in ("ahead", "tied", "behind"))
            lines.append(f"{a}: median ahead of {label} on {v['ahead']} of {total} functions, tied on {v['tied']}, behind on {v['behind']}."
                         + f" With rank-sum p < {SIGNIFICANCE:g} (*): ahead on {significant[a]['ahead']}, behind on {significant[a]['behind']}."
                         + (f" Where the paper's variant beats {label}, {a} against it: " + ", ".join(paper_checks[a]) + "."
                            if paper_checks[a] else ""))  # fmt: skip
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", default=str(OUT), help="the folder whose runs/ are read (default: results/adaptive)")
    parser.add_argument("--reference", default=None, help="a folder whose runs/ add the algorithms missing from --runs (the peers)")
    parser.add_argument("--peer", default="sep-cma", choices=sorted(PEERS), help="the peer of the verdicts (default: sep-cma)")
    parser.add_argument("--out", default=None, help="the report (default: targets.md in that folder, targets_<peer>.md for another peer)")
    args = parser.parse_args()
    folder = Path(args.runs)
    default = "targets.md" if args.peer == "sep-cma" else f"targets_{args.peer}.md"
    write_report(Path(args.out) if args.out else folder / default, report(folder, args.reference and Path(args.reference), args.peer))


if __name__ == "__main__":
    main()
