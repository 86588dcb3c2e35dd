"""The README's Python examples run as written, in a folder where the README's first command
ran (its results/balance: here a small study stored the same way), and its first block
is the two commands in the form the test command and the tests rely on."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import fastmach

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SMALL = """
[study]
name = "readme"
seed = 1
games = 4
chunk = 4
[grid]
rules = ["classic(match=single)", "jokers"]
players = [3, 4]
lineup = [["expert"]]
"""


def test_the_readme_python_examples_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 4
    fastmach.run_study(fastmach.Study.from_toml(SMALL), tmp_path / "results" / "balance",
                       workers=0, progress=False)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    text = out.getvalue()
    assert "classic(match=single)" in text                  # the turns per rules and players
    assert "Solution(placed='8H 8D', melds=['8H 8D 8C', '5C 6C 7C'], points=2)" in text


def test_the_first_block_installs_into_a_venv_then_runs_the_study_and_the_tests():
    first = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    commands = [line for line in first.splitlines() if line and not line.startswith("#")]
    assert commands[0] == "python3 -m venv .venv && . .venv/bin/activate"
    assert commands[1].startswith("pip install -e . && fastmach sweep simulations/balance.toml "
                                  "--out results/balance && fastmach report results/balance")
    assert commands[2] == "bash .ci/run"
    # each step says how long it takes: the compile, the study, the report, the tests
    assert re.search(r"about 2 minutes.*study \(2 to 5\s+#?\s*minutes\).*about 40 s.*a few minutes",
                     first, re.S)
