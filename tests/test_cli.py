"""The edamcc command line."""

import json

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
    assert "mimic" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "F99"], "unknown function"),
        (["solve", "F1", "--dim", "0"], "--dim"),
        (["solve", "F1", "--budget", "-3"], "--budget"),
        (["solve", "F1", "--variant", "nope"], "variant"),
        (["solve", "F1", "--theta", "2"], "theta"),
        (["solve", "F10", "--cec2005-data", "no-such-directory"], "--cec2005-data: directory: schwefel_206_data.txt not found"),
        (["solve", "F10", "--dim", "200", "--cec2005-data", "."], "at most 100"),
    ],
)
def test_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


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
