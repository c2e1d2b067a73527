"""benchmarks/line_free_weight.py: the registered weight is peers.py's run of edamcc-vd, the others change only the weight; its report."""

import json

import line_free_weight

from edamcc import VARIANTS, minimize
from edamcc.benchmark_functions import get_function


def test_the_registered_weight_is_edamcc_vds_run_and_another_weight_changes_it():
    f = get_function("F1", line_free_weight.DIM)
    run = line_free_weight.run_one((0.75, "F1", 100, 1))
    assert VARIANTS["edamcc-vd"].line_free_path == 0.75
    assert run["error"] == f.error(minimize(f, f.bounds, budget=10_000, seed=1, vectorized=True, record_pairs=False, variant="edamcc-vd").fun)
    assert line_free_weight.run_one((0.0, "F1", 100, 1))["error"] != run["error"]


def _write(folder, name, run):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(run))


def test_report_sets_each_median_against_the_issues_bounds(tmp_path):
    peers = tmp_path / "peers"
    for alg, errors in (("edamcc", {"F3": 0.05, "F4": 0.1, "F1": 1e3}), ("sep-cma", {"F3": 13.0, "F4": 5.0, "F1": 3e-4})):
        for fname, error in errors.items():
            budget = 10_000 if fname == "F1" else 100_000
            _write(peers, f"{alg}__{fname}__b{budget}.json", {"algorithm": alg, "function": fname, "dim": 100, "budget": budget, "seed": 0, "error": error})
    for weight, (f3, f4, f1) in ((0.5, (0.1, 0.5, 1e-3)), (0.75, (0.12, 0.2, 2e-3))):
        for seed in range(2):
            for fname, error, budget in (("F3", f3, 100_000), ("F4", f4, 100_000), ("F1", f1, 10_000)):
                run = {"weight": weight, "function": fname, "dim": 100, "budget": budget, "seed": seed, "error": error}
                _write(tmp_path / "runs", f"{weight}__{fname}__{budget}__s{seed}.json", run)
    text = line_free_weight.report(tmp_path, peers=peers)
    # bounds 3 x 0.05, 3 x 0.1 and 10 x 3e-4
    assert "| 0.5 | **0.1** | 0.5 | **0.001** | 2 | no |" in text
    assert "| 0.75 (registered) | **0.12** | **0.2** | **0.002** | 2 | yes |" in text
    assert "| 0 | – | – | – | 0 | no |" in text  # no runs
    assert "| bound | 0.15 | 0.3 | 0.003 | | |" in text
