"""The README's promises that a test can hold to."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readmes_test_command_verbatim():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    commands = [line for b in blocks for line in b.splitlines() if line and not line.startswith("#")]
    test_command = next(c for c in commands if "pytest" in c)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
# A warning printed through logging rather than the warnings module (Optuna, Nevergrad).
LOGGED_WARNING = re.compile(r"warning|^\[W ", flags=re.I | re.M)


def _ram_disk():
    """The Optuna journal syncs every write to disk; on a RAM disk the example runs in seconds."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_every_readme_python_example_runs_twice_without_a_warning(index, tmp_path):
    source = PYTHON_BLOCKS[index]
    script = tmp_path / f"readme_example_{index}.py"
    script.write_text(source)
    # the same imports as this process, though the subprocess runs in another directory
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p))
    if _ram_disk():
        env["TMPDIR"] = _ram_disk()
    for run in (1, 2):  # a second run in the same directory must work as the first did
        done = subprocess.run([sys.executable, "-W", "error", str(script)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, f"run {run} of README example {index}:\n{source}\n{done.stderr}"
        assert not LOGGED_WARNING.search(done.stderr), f"run {run} of README example {index} warned:\n{done.stderr}"
        assert done.stdout.strip(), f"README example {index} printed nothing"
    assert sorted(p.name for p in tmp_path.iterdir()) == [script.name]  # nothing left behind


def test_the_readme_runs_every_python_example():
    assert len(PYTHON_BLOCKS) >= 4  # the API, Nevergrad, Optuna and Optuna with several processes


def test_the_readme_picture_exists_and_its_command_is_a_valid_edamcc_command():
    readme = (ROOT / "README.md").read_text()
    picture = re.search(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", readme).group(1)
    assert (ROOT / picture).read_bytes()[:4] == b"\x89PNG"
    command = re.search(rf"`edamcc (solve [^`]*--plot {re.escape(picture)})`", readme).group(1).split()
    from edamcc.cli import _parser

    args = _parser().parse_args(command)
    assert args.plot == picture and args.seed is not None  # repeatable


def test_the_adapters_import_public_names_of_the_core_only():
    """Architecture: "the adapters import public names of the core only", i.e. ``from edamcc
    import name`` with ``name`` in ``edamcc.__all__``, never a submodule of the core."""
    import ast

    import edamcc

    for path in sorted((ROOT / "adapters").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "edamcc":
                assert node.module == "edamcc", f"{path.name} imports from {node.module}"
                assert {a.name for a in node.names} <= set(edamcc.__all__), f"{path.name}: not public"
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("edamcc.") for a in node.names), f"{path.name} imports a core submodule"


def _peers_tables():
    """The two tables of the README's "Peers at equal budgets", as (dimension, header, rows)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Peers at equal budgets") :]
    section = section[: section.index("\n### ")]
    tables = re.findall(r"^(\| function \|.*?)\n\|---.*?\n((?:\|.*\n)+)", section, flags=re.M)
    return [(dim, [c.strip() for c in head.strip("|").split("|")], rows) for dim, (head, rows) in zip((100, 500), tables)]


def test_the_peers_tables_show_the_committed_run_files():
    """Every error in the README's peers tables is its run file's (to 3 digits; "0" below the
    benchmarks' zero), so a rerun that moves a value cannot leave the README behind."""
    import json

    from common import ZERO

    runs = ROOT / "benchmarks" / "results" / "peers" / "runs"
    tables = _peers_tables()
    assert [dim for dim, _, _ in tables] == [100, 500]
    checked = 0
    for dim, head, rows in tables:
        for line in rows.strip().splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            for algorithm, cell in zip(head[1:], cells[1:]):
                run = json.loads((runs / f"{algorithm}__{cells[0]}__{dim}__b{1000 * dim}__s0.json").read_text())
                shown = "0" if run["error"] < ZERO else f"{run['error']:.2e}"
                assert cell.split(" ")[0] == shown, (dim, cells[0], algorithm)
                checked += 1
    assert checked == 13 * 10 + 13 * 6
