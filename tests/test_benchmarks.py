"""The paper runner's command line (benchmarks/paper_runs.py): the documented commands parse,
and ``report`` writes the Markdown report from the run files."""

import re
import shlex
from pathlib import Path

import pytest

pytest.importorskip("scipy")
import paper_runs  # noqa: E402  (a program of this repository: a failing import is a failure, not a skip)
from benchmark_runs import write_runs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _documented_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text() + (ROOT / "benchmarks" / "README.md").read_text()
    found = re.findall(r"python benchmarks/paper_runs\.py ([^`\n]*)", text)
    return [shlex.split(c.replace("DIR", "data")) for c in found]


def test_every_documented_command_parses():
    commands = _documented_commands()
    assert {c[0] for c in commands} == {"run", "report", "structure"}
    parser = paper_runs.build_parser()
    for argv in commands:
        args = parser.parse_args(argv)
        assert args.command in paper_runs.COMMANDS


def test_run_defaults_are_the_papers_protocol():
    args = paper_runs.build_parser().parse_args(["run"])
    assert (args.table, args.runs, args.popsizes, args.workers) == (["solution"], 25, "all", 2)
    assert Path(args.out) == paper_runs.DEFAULT_OUT


def test_report_command_writes_the_report(tmp_path, capsys):
    write_runs(tmp_path, "edamcc", [1.0, 1.1, 1.2])
    paper_runs.main(["report", "--out", str(tmp_path)])
    text = (tmp_path / "report.md").read_text()
    assert text.startswith("\n### solution\n") and "| F10 | 50 | edamcc | 200 | 3 |" in text
    assert text in capsys.readouterr().out


def test_cec2005_data_must_be_a_directory(tmp_path):
    with pytest.raises(SystemExit, match="cec2005-data"):
        paper_runs.main(["run", "--out", str(tmp_path), "--cec2005-data", str(tmp_path / "missing")])
