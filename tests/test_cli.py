"""The edamcc command line."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from edamcc.cli import main


def test_solve_prints_progress_result_and_structure_and_writes_json_and_plot(tmp_path, capsys):
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    assert main(["solve", "F5", "--dim", "10", "--seed", "1", "--budget", "20000", "--json", str(out_json), "--plot", str(out_png)]) == 0
    text = capsys.readouterr().out
    assert "100.0%" in text and "best F(x)" in text and "learned structure" in text
    data = json.loads(out_json.read_text())
    assert data["function"] == "F5" and data["nfev"] == 20000
    from edamcc.benchmark_functions import get_function

    assert data["cec2005_data"] is None and data["instance_key"] == get_function("F5", 10, seed=0).instance_key  # the instance run
    assert data["error"] == data["best_f"] < 1.0  # F5 has F(x*) = 0
    assert len(data["structure"]["n_strong"]) == data["nit"]
    assert out_png.read_bytes()[:4] == b"\x89PNG"


def test_solve_same_seed_same_result(capsys):
    main(["solve", "F2", "--dim", "5", "--seed", "3", "--budget", "3000", "-q", "-M", "30"])
    a = capsys.readouterr().out.splitlines()
    main(["solve", "F2", "--dim", "5", "--seed", "3", "--budget", "3000", "-q", "-M", "30"])
    b = capsys.readouterr().out.splitlines()
    best = [line for line in a if line.startswith("best")]
    assert best and best == [line for line in b if line.startswith("best")]


def test_variants_and_functions_are_listed(capsys):
    main(["functions"])
    assert "F13" in capsys.readouterr().out
    main(["variants"])
    out = capsys.readouterr().out
    assert "mimic" in out
    assert [line.split()[0] for line in out.splitlines() if line.endswith("[default]")] == ["edamcc-sep-cc"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "F99"], "FUNCTION: unknown function 'F99'"),
        (["solve", "F1", "--dim", "0"], "--dim"),
        (["solve", "F1", "--budget", "-3"], "--budget"),
        (["solve", "F1", "--variant", "nope"], "--variant: unknown name 'nope'"),
        (["solve", "F1", "--theta", "2"], "--theta: "),
        (["solve", "F1", "--theta", "Auto"], "--theta: expected a number in [0, 1], 'auto' or 'exact'; got 'Auto'"),
        (["solve", "F1", "--seed", "-1"], "seed: expected a non-negative integer"),
        (["solve", "F1", "--seed", "x"], "--seed: invalid int value"),
        (["solve", "F1", "--instance-seed", "-5"], "--instance-seed: expected a non-negative integer; got -5"),
        (["solve", "F1", "-M", "2"], "-M/--population-size: expected an integer >= 3; got 2"),
        (["solve", "F1", "-c", "0"], "-c/--capacity: expected an integer >= 1 for variant"),
        (["solve", "F1", "--m-corr", "1"], "--m-corr: expected an integer >= 2 (and <= m = floor(tau * M)); got 1"),
        (["solve", "F1", "-M", "20", "--m-corr", "50"], "--m-corr: expected an integer in [2, m=10]"),
        (["solve", "F1", "--selection-ratio", "0"], "--selection-ratio: expected a number in (0, 1]"),
        (["solve", "F1", "--repair", "bounce"], "--repair: expected one of"),
        (["solve", "F1", "--json", "no-such-dir/r.json"], "--json: directory"),
        (["solve", "F1", "--plot", "no-such-dir/r.png"], "--plot: directory"),
        (["solve", "F1", "--plot", "."], "--plot: '.' is a directory"),
        (["solve", "F1", "--plot", "r.xyz"], "--plot: expected a file name ending in one of"),
        (["solve", "F1", "--plot", "r"], "--plot: expected a file name ending in one of"),  # matplotlib would write r.png
        (["solve", "F1", "--checkpoint", "no-such-dir/run.ckpt"], "--checkpoint: directory"),
        (["solve", "F1", "--checkpoint", "."], "--checkpoint: '.' is a directory"),
        (["solve", "F10", "--cec2005-data", "no-such-directory"], "--cec2005-data: directory: schwefel_206_data.txt not found"),
        (["solve", "F10", "--dim", "200", "--cec2005-data", "."], "at most 100"),
        (["solve", "F1", "--cec2005-data", "."], "--cec2005-data: F1 has no CEC2005 data files (they exist for F2, "),
        (["solve", "F1", "--json", "same.out", "--checkpoint", "same.out"], "--checkpoint: 'same.out' is the file --json writes too"),
        (["solve", "F1", "--json", "r.png", "--plot", "./r.png"], "--plot: './r.png' is the file --json writes too"),
        (["solve", "F1", "--dim", "5", "--budget", "50", "-M", "100", "--plot", "r.png"],
         "--plot: the budget, 50, is below one generation (M = 100): no structure to draw"),
        (["solve", "F1", "--variant", "umdac", "--plot", "r.png"], "--plot: variant 'umdac' does not run WI, so there is no structure to draw"),
        (["solve", "F12", "--dim", "3000", "--json", "no-such-dir/r.json"], "--json: directory"),  # before F12's 3000 x 3000 rotation
        (["solve", "F1", "--json", ""], "--json: expected a file path; got an empty one"),  # an unset $OUT, not "no JSON"
        (["solve", "F1", "--plot", ""], "--plot: expected a file path; got an empty one"),
        (["solve", "F1", "--checkpoint", ""], "--checkpoint: expected a file path; got an empty one"),
        (["solve", "F1", "--json", "no-such-dir/"], "--json: 'no-such-dir/' names a directory, not a file"),
        (["solve", "F1", "--json", "r.json/."], "--json: 'r.json/.' names a directory, not a file"),
        (["solve", "F1", "--json", "no-such-dir/../r.json"], "--json: directory 'no-such-dir/..' does not exist"),
        (["solve", "F1", "--checkpoint", "run.ckpt/"], "--checkpoint: 'run.ckpt/' names a directory, not a file"),
        (["solve", "F1", "--checkpoint-every", "5"], "--checkpoint-every: applies only with --checkpoint"),
        (["solve", "F1", "--variant", "umdac", "--theta", "0.5"], "--theta: variant 'umdac' does not run WI (identify_weak=False), so it "
                                                                  "does not use theta; leave the option out; got 0.5"),
        (["solve", "F1", "--partition", "grouped"], "--partition: expected one of"),
        (["solve", "F7", "--dim", "1"], "--dim: F7 needs at least 2 variables"),
        (["solve", "F1", "-M", "3"], "-M and --selection-ratio: floor(tau * M)"),
    ],
)
def test_clear_errors_before_anything_runs(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no header: nothing ran
    assert captured.err.startswith("usage: edamcc solve")  # the sub-command's usage
    assert message in captured.err
    assert sorted(os.listdir(tmp_path)) == []  # no stray files


@pytest.mark.parametrize("option", [["--variant", "nope"], ["-M", "2"], ["--theta", "5"], ["--repair", "bounce"],
                                    ["--variant", "umdac", "--plot", "r.png"]])  # fmt: skip
def test_the_algorithm_options_are_checked_before_the_instance_is_built(option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def built(*args, **kwargs):
        raise AssertionError("the instance was built before the options were checked")

    monkeypatch.setattr("edamcc.cli.get_function", built)  # F12's rotation at n = 3000 takes seconds
    with pytest.raises(SystemExit) as exc:
        main(["solve", "F12", "--dim", "3000", *option])
    assert exc.value.code == 2 and "usage: edamcc solve" in capsys.readouterr().err


def test_an_instance_seed_the_cec2005_files_leave_unused_is_refused_and_not_recorded(tmp_path, capsys):
    rng = np.random.default_rng(5)
    np.savetxt(tmp_path / "rosenbrock_func_data.txt", rng.uniform(-80, 80, (1, 100)))
    np.savetxt(tmp_path / "high_cond_elliptic_rot_data.txt", rng.uniform(-80, 80, (1, 100)))
    with pytest.raises(SystemExit):  # F8 is only shifted: the file gives all of it
        main(["solve", "F8", "--dim", "4", "--instance-seed", "7", "--cec2005-data", str(tmp_path)])
    assert "--instance-seed: F8's instance comes whole from --cec2005-data at n = 4" in capsys.readouterr().err
    out = tmp_path / "r.json"
    main(["solve", "F8", "--dim", "4", "--seed", "1", "--budget", "100", "-q", "--cec2005-data", str(tmp_path), "--json", str(out)])
    assert json.loads(out.read_text())["instance_seed"] is None
    # F9 at n = 4 has no rotation file: its rotation is drawn from the seed, which is then used and recorded
    main(["solve", "F9", "--dim", "4", "--seed", "1", "--budget", "100", "-q", "--instance-seed", "7", "--cec2005-data", str(tmp_path),
          "--json", str(out)])  # fmt: skip
    assert json.loads(out.read_text())["instance_seed"] == 7
    main(["solve", "F9", "--dim", "4", "--seed", "1", "--budget", "100", "-q", "--json", str(out)])
    assert json.loads(out.read_text())["instance_seed"] == 0


def test_checkpoints_are_saved_at_most_every_ten_seconds_by_default_and_an_interrupt_says_how_to_resume(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "F1", "--dim", "4", "--seed", "1", "-q", "--budget", "200", "--checkpoint", "c.ckpt"]) == 0  # a saved run
    capsys.readouterr()
    seen = []

    def interrupted(*args, **kwargs):
        seen.append(kwargs["checkpoint_every"])
        raise KeyboardInterrupt

    monkeypatch.setattr("edamcc.cli.minimize", interrupted)
    for extra, every, said in (([], 10.0, "(saved at most 10 s before)"), (["--checkpoint-every", "0"], None, "(saved at the last generation)"),
                               (["--checkpoint-every", "2.5"], 2.5, "(saved at most 2.5 s before)")):  # fmt: skip
        assert main(["solve", "F1", "--dim", "4", "--seed", "1", "-q", "--checkpoint", "c.ckpt", *extra]) == 130
        assert seen[-1] == every
        err = capsys.readouterr().err
        assert err == f"edamcc solve: interrupted; rerun the same command to resume from c.ckpt {said}\n"
    assert main(["solve", "F1", "--dim", "4", "--seed", "1", "-q"]) == 130 and seen[-1] is None
    assert capsys.readouterr().err == "edamcc solve: interrupted\n"
    os.remove("c.ckpt")  # interrupted before the first save: no resume is promised
    assert main(["solve", "F1", "--dim", "4", "--seed", "1", "-q", "--checkpoint", "c.ckpt"]) == 130
    assert capsys.readouterr().err == "edamcc solve: interrupted before the first save to c.ckpt; nothing to resume\n"
    with pytest.raises(SystemExit):
        main(["solve", "F1", "--checkpoint-every", "-1"])
    assert "--checkpoint-every: expected seconds >= 0; got '-1'" in capsys.readouterr().err


def test_a_checkpointed_run_resumes_with_the_saved_seed_and_population(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # without --seed: the README's "rerun to resume" takes the seed from the checkpoint
    assert main(["solve", "F1", "--dim", "5", "--budget", "500", "--checkpoint", "c.ckpt", "-q"]) == 0
    seed = _seed_in_header(capsys.readouterr().out)
    assert main(["solve", "F1", "--dim", "5", "--budget", "1000", "--checkpoint", "c.ckpt", "-q", "--json", "r.json"]) == 0
    assert f"seed = {seed}; resuming c.ckpt after 500 evaluations" in capsys.readouterr().out
    assert json.loads((tmp_path / "r.json").read_text())["nfev"] == 1000
    # the resumed call's JSON and plot cover the whole run: the error curve comes from the record
    import edamcc.structure_plot as structure_plot

    drawn = {}
    monkeypatch.setattr(structure_plot, "plot_structure", lambda record, errors, path, title: drawn.update(errors=errors))
    shutil.copy("c.ckpt", "d.ckpt")
    assert main(["solve", "F1", "--dim", "5", "--budget", "1500", "--checkpoint", "d.ckpt", "-q", "--json", "d.json",
                 "--plot", "d.png"]) == 0  # fmt: skip
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["resumed_after_evaluations"] == 1000 and data["nfev"] == 1500
    evaluations = data["structure"]["evaluations"]
    assert evaluations[0] < 500 and len(data["structure"]["best_f"]) == len(evaluations)
    assert drawn["errors"][0][0] == evaluations[0] and drawn["errors"][-1] == (1500, data["error"])
    assert [e for e, _ in drawn["errors"][:-1]] == evaluations  # each generation's, from the first call on
    # a larger budget would give the paper's variant another M; the resumed run keeps its own
    main(["solve", "F1", "--dim", "5", "--budget", "1500", "--seed", "3", "--variant", "edamcc", "--checkpoint", "p.ckpt", "-q"])
    assert "M = 50," in capsys.readouterr().out
    main(["solve", "F1", "--dim", "5", "--budget", "6000", "--seed", "3", "--variant", "edamcc", "--checkpoint", "p.ckpt", "-q",
          "--json", "p.json"])  # fmt: skip
    assert "M = 50," in capsys.readouterr().out and json.loads((tmp_path / "p.json").read_text())["population_size"] == 50
    # another seed, or a file that is no checkpoint: refused before the header
    (tmp_path / "x.json").write_text("{}")
    for argv, message in ((["--seed", "9", "--checkpoint", "c.ckpt"], "belongs to another problem (differs in: seed)"),
                          (["--checkpoint", "x.json"], "checkpoint 'x.json': not an edamcc checkpoint")):  # fmt: skip
        with pytest.raises(SystemExit):
            main(["solve", "F1", "--dim", "5", "--budget", "2000", *argv])
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err
    # another function or instance on the same box, or a budget below the evaluations spent: refused
    for argv, message in ((["F2"], "differs in: objective"), (["F2", "--instance-seed", "7"], "differs in: objective"),
                          (["F1", "--budget", "600"], "budget: 1000 evaluations are spent already")):  # fmt: skip
        with pytest.raises(SystemExit):
            main(["solve", "--dim", "5", "--budget", "2000", "--checkpoint", "c.ckpt", *argv])
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err


def test_the_chance_line_of_a_run_with_restarts_is_each_generations_own(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["solve", "F1", "--dim", "10", "--seed", "1", "--budget", "20000", "-q", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    s = data["structure"]
    assert data["restarts"] and len(set(s["wi_rows"])) > 1  # restarts changed WI's rows
    assert s["chance_n_strong"] == pytest.approx(np.mean(s["chance_n_strong_per_generation"]))
    assert f"about {s['chance_n_strong']:.1f} of 10 variables would be called strong on average over the generations" in text
    # the sizes reported beside the population are the first run's, as in the header
    assert (data["population_size"], data["m_corr"]) == (10, 5) and "M = 10," in text


def _seed_in_header(text):
    return int(re.search(r"seed = (\d+) \(drawn: repeat the run with --seed \1\)", text).group(1))


def test_a_run_without_seed_draws_prints_and_records_one_that_repeats_it(tmp_path, capsys):
    argv = ["solve", "F5", "--dim", "6", "--budget", "2000", "-q", "-M", "40"]
    main([*argv, "--json", str(tmp_path / "a.json")])
    first = capsys.readouterr().out
    seed = _seed_in_header(first)
    a = json.loads((tmp_path / "a.json").read_text())
    assert a["seed"] == seed and a["seed_drawn"] is True
    main([*argv, "--seed", str(seed), "--json", str(tmp_path / "b.json")])
    second = capsys.readouterr().out
    b = json.loads((tmp_path / "b.json").read_text())
    assert b["seed"] == seed and b["seed_drawn"] is False
    assert a["x"] == b["x"] and a["best_f"] == b["best_f"]
    best = [line for line in first.splitlines() if line.startswith("best")]
    assert best and best == [line for line in second.splitlines() if line.startswith("best")]


def test_python_m_edamcc_and_the_console_script_take_the_same_commands(tmp_path):
    # the same imports as this process, though the subprocess runs in another directory
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p))
    # the console script installed next to this interpreter (a virtualenv's bin/), else on PATH
    script = shutil.which("edamcc", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    launchers = [[sys.executable, "-m", "edamcc"], [script] if script else [sys.executable, "-c", "import sys; from edamcc.cli import main; sys.exit(main())"]]
    outputs = []
    for launcher in launchers:
        runs = [subprocess.run([*launcher, *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
                for argv in (["variants"], ["solve", "F1", "--dim", "4", "--seed", "2", "--budget", "600", "-q"], ["solve", "F1", "--seed", "-1"])]  # fmt: skip
        assert [r.returncode for r in runs] == [0, 0, 2]
        assert "seed: expected a non-negative integer" in runs[2].stderr and "Traceback" not in runs[2].stderr
        best = [line for line in runs[1].stdout.splitlines() if line.startswith("best")]
        outputs.append((runs[0].stdout, best))
    assert outputs[0] == outputs[1] and outputs[0][1]


def test_help_fits_one_screen_and_shows_examples(capsys):
    for argv in (["--help"], ["solve", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0
        text = capsys.readouterr().out
        assert len(text.splitlines()) <= 24 and max(map(len, text.splitlines())) <= 80
        assert "examples:" in text and "edamcc solve F8" in text


def test_a_write_that_fails_after_the_run_is_reported_in_one_line_and_the_result_is_kept(tmp_path, capsys, monkeypatch):
    import edamcc.cli

    monkeypatch.setattr(edamcc.cli, "_check_output", lambda option, path, parser: None)  # the directory vanishes mid-run
    missing = tmp_path / "gone"
    code = main(["solve", "F1", "--dim", "4", "--seed", "1", "--budget", "800", "-q",
                 "--json", str(missing / "r.json"), "--plot", str(missing / "r.png")])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1
    assert "best F(x)" in captured.out  # printed before the files
    errors = captured.err.strip().splitlines()
    assert len(errors) == 2 and errors[0].startswith("edamcc solve: could not write --json")
    assert errors[1].startswith("edamcc solve: could not write --plot") and "Traceback" not in captured.err


def test_the_read_out_and_the_json_give_the_chance_level(tmp_path, capsys):
    from edamcc.wi_threshold import chance_strong

    out_json = tmp_path / "r.json"
    main(["solve", "F1", "--dim", "30", "--seed", "1", "--budget", "4000", "-M", "40", "--variant", "edamcc", "-q", "--json", str(out_json)])
    text = capsys.readouterr().out
    expected = chance_strong(30, 20, 0.3)
    assert f"chance alone: about {expected:.0f} of 30 variables would be called strong at n = 30, m_corr = 20, theta = 0.3" in text
    assert json.loads(out_json.read_text())["structure"]["chance_n_strong"] == pytest.approx(expected)


def strict_json(text):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_the_json_is_strict_json_with_few_rows_per_wi_call_and_null_for_what_is_not_finite(tmp_path, capsys):
    from edamcc.cli import _finite_or_null

    out_json = tmp_path / "r.json"  # M = 4: WI correlates 2 rows
    main(["solve", "F1", "--dim", "5", "-M", "4", "--budget", "200", "--seed", "1", "--variant", "edamcc", "-q", "--json", str(out_json)])
    structure = strict_json(out_json.read_text())["structure"]
    assert structure["wi_rows"][0] == 2 and structure["chance_n_strong_per_generation"][0] == 5.0
    assert _finite_or_null({"a": [1.0, float("nan"), (float("inf"), 2)], "b": -float("inf"), "c": "x"}) == {"a": [1.0, None, [None, 2]], "b": None, "c": "x"}


def test_solve_uses_the_official_cec2005_files(tmp_path, capsys):
    rng = np.random.default_rng(5)
    np.savetxt(tmp_path / "sphere_func_data.txt", rng.uniform(-80, 80, (1, 100)))
    out_json = tmp_path / "r.json"
    main(["solve", "F2", "--dim", "4", "--seed", "1", "--budget", "4000", "-q", "--cec2005-data", str(tmp_path), "--json", str(out_json)])
    data = json.loads(out_json.read_text())
    assert data["error"] < 1e-3  # solved on the instance the file defines
    generated = tmp_path / "g.json"
    main(["solve", "F2", "--dim", "4", "--seed", "1", "--budget", "4000", "-q", "--json", str(generated)])
    assert json.loads(generated.read_text())["x"] != data["x"]


def test_the_read_out_lists_no_variable_or_pair_that_was_never_strong(tmp_path, capsys):
    assert main(["solve", "F1", "--dim", "1", "--budget", "200", "--seed", "1", "-q", "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "mean #strong 0.0 / 1" in out and "most often" not in out  # one variable is never strong: nothing to list
    assert json.loads((tmp_path / "r.json").read_text())["structure"]["most_often_strong"] == []


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered, as in a terminal's pipe
    # a budget long enough that the run is still going when the pipe closes (about 10 s alone)
    run = [sys.executable, "-m", "edamcc", "solve", "F1", "--dim", "5", "--budget", "1000000", "--seed", "1"]
    proc = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert first.startswith(b"EDA-MCC variant") and proc.returncode == 1 and err == ""
    for argv in (["functions"], ["variants"], ["solve", "F1", "--dim", "5", "--budget", "2000", "-q"]):  # broken at the last flush
        proc = subprocess.Popen([sys.executable, "-m", "edamcc", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                                env=env)  # fmt: skip
        proc.stdout.close()  # as `| true` does
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 1 and err == "", (argv, err)


def test_a_variant_without_wi_writes_no_structure_rather_than_zeros(tmp_path, capsys):
    out_json = tmp_path / "u.json"
    assert main(["solve", "F1", "--dim", "6", "--seed", "1", "--budget", "600", "--variant", "umdac", "-q", "--json", str(out_json)]) == 0
    assert strict_json(out_json.read_text())["structure"] is None  # not "strong_frequency": [0.0, ...], never strong
    assert "learned structure" not in capsys.readouterr().out
