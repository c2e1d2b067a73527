"""The COCO report's per-instance rows (benchmarks/coco/report.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.coco.ecdf import TARGETS  # noqa: E402
from benchmarks.coco.report import compare, ecdf_rows, medians, per_instance, per_instance_lines  # noqa: E402


def _markers(rng):
    dim, factor = 10, 1000
    markers = []
    for name, scale in (("a", 1.0), ("b", 3.0)):
        for instance in (1, 2):
            for function in (1, 2, 3):
                hits = np.sort(rng.uniform(1, factor * dim * 2 * scale, size=TARGETS.size))
                precision = float(rng.uniform(0.1, 10) * scale ** (instance + function))
                markers.append({"optimizer": name, "dim": dim, "instance": instance, "function": function,
                                "hits": hits, "precision": {str(factor): precision}})
    markers.append({"optimizer": "a", "dim": 20, "instance": 3, "function": 1, "hits": np.zeros(TARGETS.size),
                    "precision": {str(factor): 0.0}})  # another dimension: not an instance of dim 10
    return markers, dim, factor


def test_per_instance_rows_are_the_pooled_rules_on_one_instance_s_runs():
    markers, dim, factor = _markers(np.random.default_rng(0))
    by_instance = per_instance(markers, dim, factor, ["a", "b"])
    assert sorted(by_instance) == [1, 2]
    for instance, rows in by_instance.items():
        own = [m for m in markers if m["instance"] == instance and m["dim"] == dim]
        assert rows["ecdf"] == ecdf_rows(own, dim, factor)
        med = medians(own, dim, factor)
        assert rows["pairs"] == {"a vs b": compare(med["a"], med["b"])}
    # the instances differ, and neither is the pooled row
    pooled = ecdf_rows(markers, dim, factor)["a"]
    assert by_instance[1]["ecdf"]["a"] != by_instance[2]["ecdf"]["a"]
    assert pooled[1] == pytest.approx(np.mean([by_instance[i]["ecdf"]["a"][1] for i in (1, 2)]))  # equal runs per instance


def test_per_instance_lines_have_one_column_per_instance():
    markers, dim, factor = _markers(np.random.default_rng(1))
    by_instance = per_instance(markers, dim, factor, ["a", "b"])
    lines = per_instance_lines(by_instance, ["a", "b", "missing"])
    table = "\n".join(lines)
    assert "| optimizer | instance 1 | instance 2 |" in table and "| pair | instance 1 | instance 2 |" in table
    row = next(line for line in lines if line.startswith("| a |"))
    assert row.count("|") == 4 and f"{by_instance[2]['ecdf']['a'][1]:.3f} ({by_instance[2]['ecdf']['a'][0]:.3f})" in row
    counts = by_instance[1]["pairs"]["a vs b"]
    assert f"| a vs b | {counts[0]} / {counts[1]} / {counts[2]} |" in table
    assert not any(line.startswith("| missing |") for line in lines)  # an optimizer with no runs gets no row


def test_the_precision_at_a_budget_is_read_from_the_tdat_file_where_the_dat_lags(tmp_path):
    from benchmarks.coco.report import best_precision, precision_at

    data = tmp_path / "data_f21"
    data.mkdir()
    header = "% f evaluations | g evaluations | best noise-free fitness - Fopt | measured fitness | best measured fitness\n"
    # .dat: only improvements by a target step; .tdat: fixed evaluations, 320,000 among them
    (data / "bbobexp_f21_DIM320.dat").write_text(header + "1 0 +9.0e+01 0 0\n300000 0 +1.9946e+00 0 0\n400000 0 +1.0e+00 0 0\n")
    (data / "bbobexp_f21_DIM320.tdat").write_text(header + "1 0 +9.0e+01 0 0\n316227 0 +1.9e+00 0 0\n320000 0 +1.803e+00 0 0\n")
    evals, best = best_precision(tmp_path)
    assert precision_at(evals, best, 320_000) == 1.803  # the .dat alone would give 1.9946
    assert precision_at(evals, best, 3_200_000) == 1.0
    assert np.all(np.diff(evals) >= 0) and np.all(np.diff(best) <= 0)
