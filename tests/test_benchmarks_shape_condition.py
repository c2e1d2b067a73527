"""benchmarks/shape_condition.py: the error and the shape's condition on F9, default against edamcc-sep-cc and sep-CMA-ES."""

import numpy as np
import pytest
import shape_condition

from edamcc import DEFAULT_VARIANT


def test_each_run_records_four_checkpoints_of_error_and_condition():
    assert shape_condition.VARIANT_OF == {"edamcc": DEFAULT_VARIANT, "edamcc-csa": "edamcc-csa", "edamcc-sep-cc": "edamcc-sep-cc"}
    assert shape_condition.build_parser().parse_args([]).algorithms == ["edamcc", "edamcc-csa", "sep-cma"]  # no run twice
    for algorithm in shape_condition.ALGORITHMS:
        r = shape_condition.run(algorithm, 10, 40, 0)
        used = [c["evaluations"] for c in r["records"]]
        assert len(used) == shape_condition.CHECKPOINTS and used == sorted(used)
        assert used[0] >= 100 and used[-1] >= 400
        errors = [c["error"] for c in r["records"]]
        assert errors == sorted(errors, reverse=True) and errors[-1] > 0  # the best so far never gets worse
        assert all(c["condition"] >= 1.0 for c in r["records"])


def test_condition_is_max_over_min_and_infinite_with_a_zero():
    assert shape_condition.condition(np.array([2.0, 0.5, 1.0])) == 4.0
    assert shape_condition.condition(np.array([1.0, 0.0])) == float("inf")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "python benchmarks/shape_condition.py"),
        (["--dims", "500", "--budget-factor", "1000", "--seeds", "0", "1", "--out", "benchmarks/results/adaptive/shape_condition_500.json"],
         "python benchmarks/shape_condition.py --dims 500 --budget-factor 1000 --seeds 0 1 --out benchmarks/results/adaptive/shape_condition_500.json"),
    ],
)
def test_the_table_names_the_command_that_rewrites_it(argv, expected, monkeypatch):
    root = shape_condition.RESULTS.resolve().parent.parent
    monkeypatch.chdir(root)
    assert shape_condition.command(shape_condition.build_parser().parse_args(argv)) == expected


def test_the_table_gives_medians_over_the_seeds(tmp_path):
    args = shape_condition.build_parser().parse_args(["--dims", "10", "--seeds", "0", "1", "--algorithms", "edamcc", "--out", str(tmp_path / "s.json")])
    runs = [{"algorithm": "edamcc", "variant": DEFAULT_VARIANT, "n": 10, "seed": s,
             "records": [{"error": e * (s + 1), "condition": 10.0 ** (s + 1)} for e in (4.0, 3.0, 2.0, 1.0)]} for s in (0, 1)]
    text = shape_condition.table(runs, args, "x")
    row = next(line for line in text.splitlines() if line.startswith("| default ("))
    assert row == f"| default ({DEFAULT_VARIANT}) | 6.00e+00 | 4.50e+00 | 3.00e+00 | 1.50e+00 | 6e+01 | 6e+01 | 6e+01 | 6e+01 |"
    # runs saved before 0.7 name no variant: the default then was edamcc-csa, and their rows say so
    legacy = [{k: v for k, v in r.items() if k != "variant"} for r in runs]
    assert "| default (edamcc-csa) | 6.00e+00 |" in shape_condition.table(legacy, args, "0.6.0")


def test_a_report_of_the_defaults_earlier_runs_names_the_variant_they_ran():
    args = shape_condition.build_parser().parse_args([])
    args.algorithms = ["edamcc", "edamcc-sep-cc", "sep-cma"]  # 0.6's file: its default's runs are edamcc-csa's
    legacy = [{"algorithm": "edamcc"}, {"algorithm": "edamcc-sep-cc", "variant": "edamcc-sep-cc"}, {"algorithm": "sep-cma"}]
    assert shape_condition.command(args, legacy) == "python benchmarks/shape_condition.py --algorithms edamcc-csa edamcc-sep-cc sep-cma"
    args.algorithms = ["edamcc", "edamcc-csa", "sep-cma"]
    today = [{"algorithm": "edamcc", "variant": DEFAULT_VARIANT}, {"algorithm": "edamcc-csa", "variant": "edamcc-csa"}, {"algorithm": "sep-cma"}]
    assert shape_condition.command(args, today) == "python benchmarks/shape_condition.py"
    both = [{"algorithm": "edamcc"}, {"algorithm": "edamcc-csa", "variant": "edamcc-csa"}, {"algorithm": "sep-cma"}]
    assert shape_condition.command(args, both) == "python benchmarks/shape_condition.py --algorithms edamcc-csa sep-cma"  # once
