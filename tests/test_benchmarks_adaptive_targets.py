"""benchmarks/adaptive_targets.py: the issue's F1-F13 verdicts and the 3x check against the paper's variant."""

import json

import adaptive_targets


def _write(runs_dir, cells, dim=100, budget=100_000):
    for (alg, fname), errors in cells.items():
        for seed, error in enumerate(errors):
            run = {"algorithm": alg, "function": fname, "dim": dim, "budget": budget, "seed": seed, "error": error, "wall_seconds": 1.0}
            (runs_dir / f"{alg}__{fname}__{dim}__b{budget}__s{seed}.json").write_text(json.dumps(run))


def test_verdicts_ties_below_1e12_and_the_paper_check(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs, {
        ("edamcc", "F1"): [0.0, 0.0, 0.0], ("edamcc-csa", "F1"): [1e-13, 5e-13, 2e-13], ("sep-cma", "F1"): [0.0, 0.0, 0.0],
        ("edamcc", "F3"): [1e-14, 0.0, 0.0], ("edamcc-csa", "F3"): [3e-10, 4e-10, 5e-10], ("sep-cma", "F3"): [10.0, 20.0, 30.0],
        ("edamcc", "F4"): [1.0, 2.0, 3.0], ("edamcc-csa", "F4"): [5.0, 6.0, 7.0], ("sep-cma", "F4"): [9.0, 9.0, 9.0],
        ("edamcc", "F8"): [1.0, 1.0, 1.0], ("edamcc-csa", "F8"): [2.0, 2.0, 2.0], ("sep-cma", "F8"): [0.5, 0.5, 0.5],
    })  # fmt: skip
    text = adaptive_targets.report(tmp_path)
    assert "## n = 100, 100000 evaluations (1000 n), 3 run(s) per cell" in text
    assert "| F1 | 0.00e+00 | 0.00e+00 | 0.00e+00 | tied |" in text  # medians below 1e-12 are 0 and tie
    assert "| F3 | 0.00e+00 | 4.00e-10 | 2.00e+01 | ahead |" in text
    assert "| F8 | 1.00e+00 | 2.00e+00 | 5.00e-01 | behind |" in text
    assert "edamcc-csa: median ahead of sep-CMA-ES on 2 of 4 functions, tied on 1, behind on 1." in text
    # the paper's variant beats sep-CMA-ES on F3 (below 1e-12: no finite ratio) and F4 (3x: within); not on F8
    assert "against it: F3 4e-10 against below 1e-12 (more than 3x), F4 3x." in text
    assert "inf" not in text
    # sep-CMA-ES below 1e-12 on F1: there a median can only tie, so at most 3 of 4 can be ahead
    assert "sep-CMA-ES's median is below 1e-12 on 1 of 4 functions (F1), where a median can at best tie it: any optimizer can be ahead of it on at most 3 of 4." in text


def test_the_report_names_the_command_that_rewrites_it(tmp_path):
    assert adaptive_targets.regenerate_command(adaptive_targets.OUT) == "python benchmarks/adaptive_targets.py"
    inside = adaptive_targets.RESULTS / "adaptive_0.3"
    assert adaptive_targets.regenerate_command(inside) == "python benchmarks/adaptive_targets.py --runs benchmarks/results/adaptive_0.3"
    (tmp_path / "runs").mkdir()
    assert f"Regenerate: `python benchmarks/adaptive_targets.py --runs {tmp_path.resolve()}`." in adaptive_targets.report(tmp_path)


def test_a_reference_folder_adds_only_the_algorithms_the_runs_lack(tmp_path):
    old, peers = tmp_path / "old" / "runs", tmp_path / "peers" / "runs"
    old.mkdir(parents=True)
    peers.mkdir(parents=True)
    _write(old, {("edamcc-csa", "F1"): [3.0, 3.0, 3.0]})
    _write(peers, {("edamcc-csa", "F1"): [1.0, 1.0, 1.0], ("sep-cma", "F1"): [2.0, 2.0, 2.0]})
    text = adaptive_targets.report(tmp_path / "old", tmp_path / "peers")
    assert "| F1 | 3.00e+00 | 2.00e+00 | behind |" in text  # the folder's own edamcc-csa, the reference's sep-CMA-ES
    assert f"--runs {(tmp_path / 'old').resolve()} --reference {(tmp_path / 'peers').resolve()}`." in text
    assert "at most" not in text  # sep-CMA-ES's 2.0 is not below 1e-12: every function can be won
    assert "| F1 | 3.00e+00 | – |\n" in adaptive_targets.report(tmp_path / "old")  # without it: no sep-CMA-ES, no verdict


def test_the_verdicts_can_be_against_ipop_sep_cma_es(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs, {("edamcc-sep-cc", "F11"): [3.0] * 3, ("sep-cma", "F11"): [255.0] * 3, ("sep-cma-ipop", "F11"): [0.0] * 3})
    assert "edamcc-sep-cc: median ahead of sep-CMA-ES on 1 of 1 functions" in adaptive_targets.report(tmp_path)
    text = adaptive_targets.report(tmp_path, peer="sep-cma-ipop")
    assert text.startswith("# Self-adaptive EDA-MCC against IPOP sep-CMA-ES and the paper's variant")
    assert "| F11 | 3.00e+00 | 2.55e+02 | 0.00e+00 | behind |" in text and "--peer sep-cma-ipop`" in text
    assert "edamcc-sep-cc: median ahead of IPOP sep-CMA-ES on 0 of 1 functions, tied on 0, behind on 1." in text
    assert "IPOP sep-CMA-ES's median is below 1e-12 on 1 of 1 functions (F11)" in text
    _write(runs, {("edamcc-sep-cc", "F1"): [1.0] * 3, ("sep-cma", "F1"): [2.0] * 3}, budget=1_000_000)  # no IPOP run
    assert "## n = 100, 1000000" in adaptive_targets.report(tmp_path)
    assert "## n = 100, 1000000" not in adaptive_targets.report(tmp_path, peer="sep-cma-ipop")



def test_a_verdict_the_runs_bear_out_by_a_rank_sum_test_is_marked(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs, {
        ("edamcc-sep-cc", "F3"): [1.0, 2.0, 3.0, 4.0, 5.0], ("sep-cma", "F3"): [6.0, 7.0, 8.0, 9.0, 10.0],  # all five below: p = 2/252
        ("edamcc-sep-cc", "F4"): [1.0, 7.0, 3.0, 9.0, 5.0], ("sep-cma", "F4"): [6.0, 2.0, 8.0, 4.0, 10.0],  # median ahead, runs interleaved
        ("edamcc-sep-cc", "F8"): [9.0, 9.5, 8.0, 8.5, 7.0], ("sep-cma", "F8"): [1.0, 2.0, 3.0, 4.0, 5.0],
        ("edamcc-sep-cc", "F1"): [1e-13] * 5, ("sep-cma", "F1"): [0.0] * 5,  # all 0 below 1e-12: tied, no test
    })  # fmt: skip
    text = adaptive_targets.report(tmp_path)
    assert "| F3 | 3.00e+00 | 8.00e+00 | ahead* |" in text
    assert "| F4 | 5.00e+00 | 6.00e+00 | ahead |" in text
    assert "| F8 | 8.50e+00 | 3.00e+00 | behind* |" in text
    assert "| F1 | 0.00e+00 | 0.00e+00 | tied |" in text
    assert ("edamcc-sep-cc: median ahead of sep-CMA-ES on 2 of 4 functions, tied on 1, behind on 1. "
            "With rank-sum p < 0.05 (*): ahead on 1, behind on 1.") in text  # fmt: skip
    assert abs(adaptive_targets.rank_sum_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) - 2 / 252) < 1e-12
    assert adaptive_targets.rank_sum_p([1e-13, 0.0], [0.0, 5e-13]) == 1.0  # every error 0: nothing to order
    nan = float("nan")  # a failed run ranks worst, as NaN does in the package
    assert adaptive_targets.rank_sum_p([nan] * 5, [1, 2, 3, 4, 5]) == adaptive_targets.rank_sum_p([9] * 5, [1, 2, 3, 4, 5]) == 2 / 252
