"""Pictures (cocopp runtime ECDFs) and Markdown tables from a campaign's COCO data.

The precisions in the tables are COCO's own: the third column of the observer's ``.dat`` and
``.tdat`` files, "best noise-free fitness - Fopt", read at the last logged evaluation within the
budget. The ``.tdat`` file logs at fixed evaluations, among them 1, 2, 5 x n x 10^k, so 10^3 n
and 10^4 n are read exactly; the ``.dat`` file logs only when the best value improves by a
target step (10^0.05), so read alone it gives a value up to one step behind at 10^3 n.
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np

from . import optimizers
from .ecdf import TARGETS, ecdf_summary, hitting_evaluations

FINAL_TARGET = 1e-8
FUNCTIONS = {1: "Sphere", 2: "Ellipsoid sep.", 3: "Rastrigin sep.", 4: "Skew Rastrigin-Bueche", 5: "Linear slope",
             6: "Attractive sector", 7: "Step ellipsoid", 8: "Rosenbrock", 9: "Rosenbrock rot.", 10: "Ellipsoid",
             11: "Discus", 12: "Bent cigar", 13: "Sharp ridge", 14: "Different powers", 15: "Rastrigin",
             16: "Weierstrass", 17: "Schaffer F7", 18: "Schaffer F7 ill-cond.", 19: "Griewank-Rosenbrock",
             20: "Schwefel", 21: "Gallagher 101", 22: "Gallagher 21", 23: "Katsuura", 24: "Lunacek bi-Rastrigin"}
GROUPS = {"separ": "separable (f1-f5)", "lcond": "low/moderate conditioning (f6-f9)",
          "hcond": "high conditioning, unimodal (f10-f14)", "multi": "multimodal, adequate structure (f15-f19)",
          "mult2": "multimodal, weak structure (f20-f24)", "noiselessall": "all 24 functions"}


def best_precision(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """(evaluations, best f - fopt so far) from the ``.dat`` and ``.tdat`` files of one COCO run
    folder, merged in order of evaluations (a run without a ``.tdat`` file: the ``.dat`` alone)."""
    (dat,) = sorted(folder.glob("data_f*/*.dat"))
    rows = []
    for path in [dat, *sorted(folder.glob("data_f*/*.tdat"))]:
        rows += [line.split()[:3] for line in path.read_text().splitlines() if line and not line.startswith("%")]
    data = np.array(rows, dtype=float)
    data = data[np.argsort(data[:, 0], kind="stable")]
    return data[:, 0], np.minimum.accumulate(data[:, 2])


def precision_at(evals: np.ndarray, best: np.ndarray, budget: int) -> float:
    within = evals <= budget
    return float(best[within][-1]) if within.any() else float("nan")


def load(root: Path) -> tuple[dict, list[dict]]:
    info = json.loads((root / "campaign.json").read_text())
    markers = [json.loads(p.read_text()) for p in sorted((root / "markers").glob("*/*.json"))]
    for m in markers:
        evals, best = best_precision(root / m["data_folder"])
        m["precision"] = {str(f): precision_at(evals, best, f * m["dim"]) for f in budget_factors(info)}
        m["hits"] = hitting_evaluations(evals, best)
    return info, markers


def budget_factors(info: dict) -> list[int]:
    return [f for f in (1000, 10000) if f <= info["budget_factor"]] or [info["budget_factor"]]


def ordered(names) -> list[str]:
    order = list(optimizers.REGISTRY)
    return sorted(set(names), key=lambda n: order.index(n) if n in order else len(order))


def medians(markers: list[dict], dim: int, factor: int) -> dict[str, dict[int, tuple[float, int]]]:
    """optimizer -> function -> (median precision over instances, #instances)."""
    cells: dict[str, dict[int, list[float]]] = {}
    for m in markers:
        if m["dim"] == dim:
            cells.setdefault(m["optimizer"], {}).setdefault(m["function"], []).append(m["precision"][str(factor)])
    return {o: {f: (float(np.median(v)), len(v)) for f, v in fs.items()} for o, fs in cells.items()}


def _hits(markers: list[dict], dim: int, by_function: bool) -> dict[str, dict[int | None, np.ndarray]]:
    """optimizer -> function (None: all functions) -> the stacked hit rows of its runs at ``dim``."""
    runs: dict[str, dict[int | None, list[np.ndarray]]] = {}
    for m in markers:
        if m["dim"] == dim:
            runs.setdefault(m["optimizer"], {}).setdefault(m["function"] if by_function else None, []).append(m["hits"])
    return {o: {f: np.stack(h) for f, h in fs.items()} for o, fs in runs.items()}


def ecdf_rows(markers: list[dict], dim: int, factor: int) -> dict[str, tuple[float, float, int]]:
    """optimizer -> (ECDF value at factor x n, normalized ECDF area, #runs) over all its runs at ``dim``."""
    return {o: (*ecdf_summary(h[None], dim, factor), len(h[None])) for o, h in _hits(markers, dim, False).items()}


def ecdf_by_function(markers: list[dict], dim: int, factor: int) -> dict[str, dict[int, float]]:
    """optimizer -> function -> normalized ECDF area of that function's runs at ``dim``."""
    return {o: {f: ecdf_summary(h, dim, factor)[1] for f, h in fs.items()} for o, fs in _hits(markers, dim, True).items()}


def compare(a: dict[int, tuple[float, int]], b: dict[int, tuple[float, int]]) -> tuple[int, int, int]:
    """Functions where a's median precision is better than half of b's / within a factor 2 / worse
    (both clipped at the final target 1e-8, so two solved functions tie)."""
    better = within = worse = 0
    for f in sorted(set(a) & set(b)):
        x, y = max(a[f][0], FINAL_TARGET), max(b[f][0], FINAL_TARGET)
        if x * 2 < y:
            better += 1
        elif x > 2 * y:
            worse += 1
        else:
            within += 1
    return better, within, worse


def per_instance(markers: list[dict], dim: int, factor: int, names: list[str]) -> dict[int, dict]:
    """instance -> that instance's runs alone: each optimizer's (ECDF value at factor x n, area,
    #runs) and each pair's counts of :func:`compare` (``names`` in table order)."""
    out = {}
    for instance in sorted({m["instance"] for m in markers if m["dim"] == dim}):
        own = [m for m in markers if m["dim"] == dim and m["instance"] == instance]
        med = medians(own, dim, factor)
        cols = [n for n in names if n in med]
        out[instance] = {"ecdf": ecdf_rows(own, dim, factor),
                         "pairs": {f"{a} vs {b}": compare(med[a], med[b]) for a, b in itertools.combinations(cols, 2)}}
    return out


def per_instance_lines(by_instance: dict[int, dict], names: list[str]) -> list[str]:
    """Markdown of :func:`per_instance`: ECDF areas, then pair counts, one column per instance."""
    instances = sorted(by_instance)
    head = "| " + " | ".join(f"instance {i}" for i in instances) + " |"
    rule = "|---|" + "---|" * len(instances)
    lines = ["Each instance's runs alone: every optimizer's ECDF area, with the share of targets reached at the budget "
             "in brackets, then every pair's counts better / within 2x / worse. The pooled area above is the mean of "
             "these areas when every instance has the same runs; the pooled counts compare medians over the instances, "
             "so they are not sums of these.", "",
             "| optimizer " + head, rule]
    for name in names:
        cells = [by_instance[i]["ecdf"].get(name) for i in instances]
        if any(cells):
            lines.append(f"| {name} | " + " | ".join("—" if c is None else f"{c[1]:.3f} ({c[0]:.3f})" for c in cells) + " |")
    pairs = list(dict.fromkeys(p for i in instances for p in by_instance[i]["pairs"]))
    lines += ["", "| pair " + head, rule]
    for pair in pairs:
        cells = [by_instance[i]["pairs"].get(pair) for i in instances]
        lines.append(f"| {pair} | " + " | ".join("—" if c is None else " / ".join(map(str, c)) for c in cells) + " |")
    return lines + [""]


def _ecdf_entry(row: tuple[float, float, int]) -> dict[str, float]:
    """An :func:`ecdf_rows` row as ``summary.json`` holds it."""
    return {"solved": round(row[0], 4), "area": round(row[1], 4)}


def _fmt(value: float) -> str:
    return "—" if not np.isfinite(value) else ("≤1e-8" if value <= FINAL_TARGET else f"{value:.1e}")


def wall_times(root: Path) -> list[dict]:
    path = root / "runs.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def tables(root: Path) -> tuple[str, dict]:
    """The campaign's Markdown and its summary (medians, pair counts, CPU time, wall time)."""
    info, markers = load(root)
    names = ordered(m["optimizer"] for m in markers)
    dims = sorted({m["dim"] for m in markers})
    instances = sorted({m["instance"] for m in markers})
    versions = ", ".join(f"{k} {v}" for k, v in sorted(info["versions"].items()))
    seeds = sorted({(m["function"], m["instance"], m["seed"]) for m in markers})
    blas = sorted({m.get("blas", "not recorded") for m in markers})  # runs before markers recorded it: "not recorded"
    lines = [f"# COCO `{info['suite']}`, budget {info['budget_factor']} n", "",
             f"Instances {', '.join(map(str, instances))}; budget {info['budget_factor']} x n evaluations per run; "
             f"campaign seed {info['campaign_seed']} (one optimizer seed per (function, instance), e.g. f{seeds[0][0]} instance "
             f"{seeds[0][1]}: {seeds[0][2]}); {len(markers)} finished runs.", "", f"Versions: {versions}.", "",
             f"BLAS kernels of the runs: {'; '.join(blas)} (seeded runs repeat bit for bit on the same kernels only).", "",
             "Cells: COCO's logged best f - f_opt (\"best noise-free fitness - Fopt\" of the observer's .dat and .tdat files) "
             "after the stated number of evaluations, median over the instances run; ≤1e-8 means the final target "
             "was hit. (k) after a value: only k instances finished. Pairs: functions where the row's first optimizer's "
             "median is more than 2x better / within a factor 2 / more than 2x worse than the second's (both clipped "
             "at 1e-8).", ""]
    summary = {"suite": info["suite"], "budget_factor": info["budget_factor"], "campaign_seed": info["campaign_seed"],
               "instances": instances, "versions": info["versions"], "blas": blas, "runs": wall_times(root), "dims": {}}
    for dim in dims:
        dim_summary = summary["dims"][str(dim)] = {"optimizers": {}, "pairs": {}}
        dim_markers = [m for m in markers if m["dim"] == dim]
        for name in names:
            own = [m for m in dim_markers if m["optimizer"] == name]
            if own:
                dim_summary["optimizers"][name] = {
                    "runs": len(own), "final_target_hits": sum(m["final_target_hit"] for m in own),
                    "median_cpu_us_per_evaluation": round(float(np.median([m["cpu_seconds_per_evaluation"] for m in own])) * 1e6, 2),
                    "cpu_seconds_total": round(sum(m["cpu_seconds"] for m in own), 1)}
        for factor in budget_factors(info):
            med = medians(markers, dim, factor)
            cols = [n for n in names if n in med]
            lines += [f"## {dim}-D after {factor} n = {factor * dim} evaluations", "",
                      "| function | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
            nmax = len(instances)
            for fid in sorted({f for o in med.values() for f in o}):
                cells = []
                for name in cols:
                    value, k = med[name].get(fid, (float("nan"), 0))
                    cells.append(_fmt(value) + (f" ({k})" if 0 < k < nmax else ""))
                lines.append(f"| f{fid} {FUNCTIONS[fid]} | " + " | ".join(cells) + " |")
            lines += ["", "| pair | better | within 2x | worse |", "|---|---|---|---|"]
            pairs = dim_summary["pairs"][str(factor)] = {}
            for a, b in itertools.combinations(cols, 2):
                counts = compare(med[a], med[b])
                pairs[f"{a} vs {b}"] = counts
                lines.append(f"| {a} vs {b} | {counts[0]} | {counts[1]} | {counts[2]} |")
            ecdf = ecdf_rows(markers, dim, factor)
            lines += ["", f"Aggregated runtime ECDF over all functions run ({len(TARGETS)} targets 1e2 ... 1e-8 per run, "
                      f"no simulated restarts; area over log10(evaluations / n) from 0 to {np.log10(factor):g}, "
                      "normalized; see `ecdf.py`):", "",
                      f"| optimizer | runs | solved at {factor} n | ECDF area |", "|---|---|---|---|"]
            lines += [f"| {n} | {ecdf[n][2]} | {ecdf[n][0]:.3f} | {ecdf[n][1]:.3f} |" for n in cols]
            per_function = ecdf_by_function(markers, dim, factor)
            lines += ["", "ECDF area per function (the same targets and budgets, that function's runs only):", "",
                      "| function | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
            for fid in sorted({f for o in per_function.values() for f in o}):
                cells = [f"{per_function[n][fid]:.3f}" if fid in per_function.get(n, {}) else "—" for n in cols]
                lines.append(f"| f{fid} {FUNCTIONS[fid]} | " + " | ".join(cells) + " |")
            lines.append("")
            if len(instances) > 1:
                by_instance = per_instance(markers, dim, factor, cols)
                lines += per_instance_lines(by_instance, cols)
                dim_summary[f"instances_{factor}n"] = {
                    str(i): {"ecdf": {n: _ecdf_entry(v) for n, v in b["ecdf"].items()}, "pairs": b["pairs"]}
                    for i, b in by_instance.items()}
            for name in cols:
                dim_summary["optimizers"][name][f"ecdf_{factor}n"] = _ecdf_entry(ecdf[name])
                dim_summary["optimizers"][name][f"median_precision_{factor}n"] = {
                    str(f): v for f, (v, _) in sorted(med[name].items())}
        lines += [f"CPU time per evaluation at {dim}-D (process time of the optimizer loop, COCO's evaluation and "
                  "logging included, divided by the evaluations; median over runs):", "",
                  "| optimizer | runs | final target hit | µs per evaluation |", "|---|---|---|---|"]
        lines += [f"| {n} | {s['runs']} | {s['final_target_hits']} | {s['median_cpu_us_per_evaluation']:.1f} |"
                  for n, s in dim_summary["optimizers"].items()] + [""]
    runs = wall_times(root)
    if runs:
        lines += ["Wall time of each invocation:", "", "| finished (UTC) | dims | problems run | workers | wall (s) |",
                  "|---|---|---|---|---|"]
        lines += [f"| {r['finished_utc']} | {','.join(map(str, r['dims']))} | {r['ran']} | {r['workers']} | "
                  f"{r['wall_seconds']:.0f} |" for r in runs if r["ran"]] + [""]
    return "\n".join(lines), summary


def pictures(root: Path, out: Path, log=print) -> list[Path]:
    """Run cocopp on all optimizers of the campaign (offline) and copy the runtime ECDFs per
    function group and over all functions, as PNG, into ``out``."""
    import cocopp
    import matplotlib

    matplotlib.use("Agg")
    cocopp.genericsettings.figure_file_formats = ["png"]
    cocopp.genericsettings.interactive_mode = False
    cocopp.genericsettings.isTab = False
    cocopp.genericsettings.isConv = False
    cocopp.genericsettings.isScaleUp = False
    folders = [root / "exdata" / n for n in ordered(p.name for p in (root / "exdata").iterdir())]
    pp = root / "ppdata"
    if pp.exists():
        shutil.rmtree(pp)
    argv = ["-o", str(pp)] + [str(f) for f in folders]
    if len(folders) == 1:
        argv = ["-o", str(pp), str(folders[0])]
    cocopp.main(argv)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for png in sorted(pp.rglob("pprldmany_*D_*.png")):
        if png.parent.name == "pprldmany-single-functions":
            continue
        target = out / png.name
        shutil.copyfile(png, target)
        written.append(target)
    log(f"{root.name}: {len(written)} ECDF pictures in {out}")
    return written


def write(root: Path, results: Path, with_pictures: bool = True, log=print) -> dict:
    """Tables (``<results>/<campaign>.md``), pictures (``<results>/<campaign>/``) and the
    campaign's entry in ``<results>/summary.json``."""
    markdown, summary = tables(root)
    results.mkdir(parents=True, exist_ok=True)
    if with_pictures:
        pictures(root, results / root.name, log)
    pics = sorted((results / root.name).glob("pprldmany_*D_*.png"))
    if pics:
        markdown += "\nRuntime ECDFs (cocopp): " + ", ".join(f"[{p.stem}]({root.name}/{p.name})" for p in pics) + "\n"
    (results / f"{root.name}.md").write_text(markdown)
    path = results / "summary.json"
    all_summary = json.loads(path.read_text()) if path.exists() else {}
    all_summary[root.name] = summary
    path.write_text(json.dumps(all_summary, indent=1, sort_keys=True))
    overview(results)
    log(f"{root.name}: wrote {results / (root.name + '.md')}, {path} and {results / 'overview.md'}")
    return summary


def overview(results: Path) -> str:
    """``<results>/overview.md``: both EDA-MCC entries against every peer, for every campaign and
    dimension in ``summary.json`` (better / within 2x / worse, as in the campaign tables)."""
    summary = json.loads((results / "summary.json").read_text())
    lines = ["# COCO overview: EDA-MCC against its peers", "",
             "Functions (of those run) where the EDA-MCC entry's median precision is more than 2x better / within a "
             "factor 2 / more than 2x worse than the peer's, from `summary.json`; details in each campaign's table.", ""]
    for name, camp in sorted(summary.items()):
        for dim, d in sorted(camp["dims"].items(), key=lambda kv: int(kv[0])):
            for factor, pairs in sorted(d["pairs"].items(), key=lambda kv: int(kv[0])):
                peers = [p for p in ordered(d["optimizers"]) if not p.startswith("edamcc")]
                ours = [p for p in ordered(d["optimizers"]) if p.startswith("edamcc")]
                nfun = len(d["optimizers"][ours[0]][f"median_precision_{factor}n"]) if ours else 0
                lines += [f"## `{camp['suite']}` {dim}-D, {factor} n evaluations ({nfun} functions, campaign {name})", "",
                          "| | " + " | ".join(peers) + " |", "|---|" + "---|" * len(peers)]
                for us in ours:
                    cells = ["{}/{}/{}".format(*pairs[f"{us} vs {p}"]) for p in peers]
                    lines.append(f"| {us} | " + " | ".join(cells) + " |")
                cpu = [f"{p} {d['optimizers'][p]['median_cpu_us_per_evaluation']:.1f}" for p in ordered(d["optimizers"])]
                areas = [f"{p} {d['optimizers'][p][f'ecdf_{factor}n']['area']:.3f}" for p in ordered(d["optimizers"])
                         if f"ecdf_{factor}n" in d["optimizers"][p]]
                if areas:
                    lines += ["", "Aggregated ECDF area (51 targets, normalized): " + ", ".join(areas) + "."]
                lines += ["", "Median CPU µs per evaluation: " + ", ".join(cpu) + ".", ""]
    text = "\n".join(lines)
    (results / "overview.md").write_text(text)
    return text
