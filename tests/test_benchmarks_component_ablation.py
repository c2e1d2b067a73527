"""benchmarks/component_ablation.py: "shipped" is minimize's run, each ablation changes what it names and is put back, its report."""

import component_ablation
import numpy as np
import pytest
from benchmark_runs import write_issue_peers, write_json

import edamcc.step_size as step_size
from edamcc import EDAMCCStrategy, minimize
from edamcc.benchmark_functions import get_function
from edamcc.models import LineSamples


def test_shipped_is_the_defaults_run_and_the_step_size_module_is_put_back():
    f = get_function("F1", component_ablation.DIM)
    saved = step_size.mean_shift_line, step_size.shape_rates, step_size.SHAPE_RATE
    run = component_ablation.run_one(("shipped", "F1", 100, 1))
    assert run["error"] == f.error(minimize(f, f.bounds, budget=10_000, seed=1, vectorized=True, record_pairs=False).fun)
    ablated = component_ablation.run_one(("no-line-samples+no-rank-one+shape-rate-half", "F1", 100, 1))
    assert (step_size.mean_shift_line, step_size.shape_rates, step_size.SHAPE_RATE) == saved
    assert ablated["error"] != run["error"] and ablated["ablation"] == "no-line-samples+no-rank-one+shape-rate-half"


def _generations(variant, k=6):
    es = EDAMCCStrategy(bounds=[(-5.0, 5.0)] * 8, seed=0, variant=variant, record_structure=False)
    samplers = []
    while es.generation < k:
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
        samplers.append(es.model)
    return es, samplers


def test_each_ablation_changes_what_it_names():
    with component_ablation.ablated("no-line-samples") as variant:
        _, samplers = _generations(variant)
        assert not any(isinstance(s, LineSamples) for s in samplers)
    assert any(isinstance(s, LineSamples) for s in _generations(variant)[1])  # put back: the line samples return
    with component_ablation.ablated("no-rank-one") as variant:
        assert step_size.shape_rates(100, 4.0)[0] == 0.0
    assert step_size.shape_rates(100, 4.0)[0] > 0.0
    with component_ablation.ablated("shape-rate-double"):
        assert step_size.SHAPE_RATE == 0.6
    with component_ablation.ablated("line-free+cma-path+no-active") as variant:
        assert variant.line_free_path and variant.rank_one_path == "cma" and not variant.active
    with component_ablation.ablated("shipped") as variant:
        assert variant.name == component_ablation.BASE


def test_an_unknown_ablation_is_refused_before_anything_changes():
    saved = step_size.mean_shift_line, step_size.shape_rates, step_size.SHAPE_RATE
    with pytest.raises(ValueError, match="ablation: expected"):
        with component_ablation.ablated("no-line-samples+no-such-thing"):
            pass
    assert (step_size.mean_shift_line, step_size.shape_rates, step_size.SHAPE_RATE) == saved


def test_report_sets_each_median_against_the_issues_bounds(tmp_path):
    peers = tmp_path / "peers"
    write_issue_peers(peers)
    for seed, (f3, f4, f1) in enumerate([(0.1, 0.5, 1e-3), (0.2, 0.2, 4e-3), (0.12, 0.31, 2e-3)]):
        for fname, error, budget in (("F3", f3, 100_000), ("F4", f4, 100_000), ("F1", f1, 10_000)):
            run = {"ablation": "line-free", "function": fname, "dim": 100, "budget": budget, "seed": seed, "error": error, "restarts": seed == 0}
            write_json(tmp_path / "runs", f"line-free__{fname}__b{budget}__s{seed}.json", run)
    text = component_ablation.report(tmp_path, peers=peers)
    row = next(line for line in text.splitlines() if line.startswith("| line-free |"))
    # medians 0.12, 0.31 and 2e-3: F3 within 3 x 0.05, F4 not within 3 x 0.1, F1 within 10 x 3e-4
    assert "1.20e-01 (1.0e-01 2.0e-01 1.2e-01; 1 restarted)" in row
    assert row.endswith("| yes, no | yes |")
    assert "| the paper's `edamcc` | 5.00e-02 | 1.00e-01 | 1.00e+03 | | |" in text
    assert "| no-active | – | – | – | –, – | – |" in text  # no runs
    picture = component_ablation.plot(tmp_path, peers=peers)  # matplotlib is a test extra
    assert picture == tmp_path / "report.png" and picture.stat().st_size > 10_000


def test_the_wide_table_counts_an_ablation_on_all_of_f1_to_f13_against_sep_cma(tmp_path):
    peers = tmp_path / "peers"
    functions = [f"F{i}" for i in range(1, 14)]
    for k, fname in enumerate(functions):
        for alg, error in (("sep-cma", 1.0), ("edamcc-sep-cc", 2.0 if k < 4 else 0.5)):  # the default behind on F1-F4
            write_json(peers, f"{alg}__{fname}.json", {"algorithm": alg, "function": fname, "dim": 100, "budget": 100_000, "seed": 0, "error": error})
        for seed in range(3):  # the ablation: ahead everywhere but F13, where it ties sep-CMA-ES
            error = 1.0 if fname == "F13" else 0.1
            run = {"ablation": "no-active", "function": fname, "dim": 100, "budget": 100_000, "seed": seed, "error": error, "restarts": 0}
            write_json(tmp_path / "runs", f"no-active__{fname}__s{seed}.json", run)
    for seed in range(2):  # an ablation with only some functions gets no column
        run = {"ablation": "cma-path", "function": "F3", "dim": 100, "budget": 100_000, "seed": seed, "error": 1.0, "restarts": 0}
        write_json(tmp_path / "runs", f"cma-path__F3__s{seed}.json", run)
    text = component_ablation.report(tmp_path, peers=peers)
    assert "| function | the default (`peers.py`) | no-active | sep-CMA-ES |" in text
    assert "the default (`peers.py`): median ahead of sep-CMA-ES on 9, tied on 0, behind on 4." in text
    assert "no-active: median ahead of sep-CMA-ES on 12, tied on 1, behind on 0." in text
    assert f"Regenerate: `python benchmarks/component_ablation.py --wide no-active --out {tmp_path.resolve()}`." in text
