"""benchmarks/line_samples.py: evaluations to 1e-8 for the default, edamcc-tpa and sep-CMA-ES."""

import line_samples
import numpy as np
import pytest

from edamcc import DEFAULT_VARIANT


def test_each_entry_runs_its_variant_and_counts_the_evaluations_to_the_target():
    assert line_samples.VARIANT_OF == {"edamcc": DEFAULT_VARIANT, "edamcc-csa": "edamcc-csa", "edamcc-tpa": "edamcc-tpa", "edamcc-sep-cc": "edamcc-sep-cc",
                                      "edamcc-sep-cc-lf": "edamcc-sep-cc-lf"}
    for algorithm in line_samples.VARIANT_OF:
        hit = line_samples.evaluations_to_target(algorithm, "sphere", 8, 0)
        assert hit is not None and 8 < hit <= line_samples.BUDGET_FACTOR * 8
    # below n = 300 edamcc-tpa is edamcc-csa itself: the same evaluation count; the default is edamcc-sep-cc
    assert line_samples.evaluations_to_target("edamcc-tpa", "ellipsoid", 8, 1) == line_samples.evaluations_to_target("edamcc-csa", "ellipsoid", 8, 1)
    assert line_samples.evaluations_to_target("edamcc", "ellipsoid", 8, 1) == line_samples.evaluations_to_target("edamcc-sep-cc", "ellipsoid", 8, 1)


def test_the_problems_are_cocos_f1_and_f2_without_the_output_transformation():
    f = line_samples.problem("ellipsoid", 4, 2)
    x_opt = np.random.default_rng(1002).uniform(-4.0, 4.0, 4)
    assert f(x_opt[None, :])[0] == 0.0
    step = np.eye(4)
    np.testing.assert_allclose(f(x_opt + step), 1e6 ** (np.arange(4) / 3))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "python benchmarks/line_samples.py"),
        (["--dims", "320", "--algorithms", "edamcc", "edamcc-tpa", "sep-cma", "--out", "benchmarks/results/adaptive/line_samples_tpa.json"],
         "python benchmarks/line_samples.py --dims 320 --algorithms edamcc edamcc-tpa sep-cma --out benchmarks/results/adaptive/line_samples_tpa.json"),
    ],
)
def test_the_table_names_the_command_that_rewrites_it(argv, expected, monkeypatch):
    root = line_samples.RESULTS.resolve().parent.parent
    monkeypatch.chdir(root)
    assert line_samples.command(line_samples.build_parser().parse_args(argv)) == expected


def test_the_table_has_a_column_for_every_entry(tmp_path, monkeypatch):
    out = tmp_path / "line_samples.json"
    entries = [*line_samples.VARIANT_OF, "sep-cma"]
    monkeypatch.setattr("sys.argv", ["line_samples.py", "--dims", "6", "--seeds", "0", "--algorithms", *entries, "--out", str(out)])
    line_samples.main()
    header = out.with_suffix(".md").read_text().splitlines()[2]
    assert header == "| n | function | edamcc default | " + " | ".join(entries[1:-1]) + " | sep-CMA-ES |"  # the variants by name
