"""benchmarks/line_free_weight.py: the registered weight is peers.py's run of edamcc-vd, the others change only the weight; its report."""

import line_free_weight
from benchmark_runs import write_issue_peers, write_json

from edamcc import VARIANTS, minimize
from edamcc.benchmark_functions import get_function


def test_the_registered_weight_is_edamcc_vds_run_and_another_weight_changes_it():
    f = get_function("F1", line_free_weight.DIM)
    run = line_free_weight.run_one((0.75, "F1", 100, 1))
    assert VARIANTS["edamcc-vd"].line_free_path == 0.75
    assert run["error"] == f.error(minimize(f, f.bounds, budget=10_000, seed=1, vectorized=True, record_pairs=False, variant="edamcc-vd").fun)
    assert line_free_weight.run_one((0.0, "F1", 100, 1))["error"] != run["error"]


def test_report_sets_each_median_against_the_issues_bounds(tmp_path):
    peers = tmp_path / "peers"
    write_issue_peers(peers)
    for weight, (f3, f4, f1) in ((0.5, (0.1, 0.5, 1e-3)), (0.75, (0.12, 0.2, 2e-3))):
        for seed in range(2):
            for fname, error, budget in (("F3", f3, 100_000), ("F4", f4, 100_000), ("F1", f1, 10_000)):
                run = {"weight": weight, "function": fname, "dim": 100, "budget": budget, "seed": seed, "error": error}
                write_json(tmp_path / "runs", f"{weight}__{fname}__{budget}__s{seed}.json", run)
    text = line_free_weight.report(tmp_path, peers=peers)
    # bounds 3 x 0.05, 3 x 0.1 and 10 x 3e-4
    assert "| 0.5 | **0.1** | 0.5 | **0.001** | 2 | no |" in text
    assert "| 0.75 (registered) | **0.12** | **0.2** | **0.002** | 2 | yes |" in text
    assert "| 0 | – | – | – | 0 | no |" in text  # no runs
    assert "| bound | 0.15 | 0.3 | 0.003 | | |" in text
