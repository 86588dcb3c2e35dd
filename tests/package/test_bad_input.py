"""Bad input is a message and an exit status, never a traceback or a silent change; the
README's commands paste into bash; the declared Python version is the one the code needs."""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fastmach.cli import main
from fastmach.engine import run_play
from fastmach.errors import FastmachError
from fastmach.strategies import parse_strategy

ROOT = Path(__file__).resolve().parents[2]


def test_solve_batch_names_a_non_utf8_line_and_exits_1(tmp_path, capsys):
    f = tmp_path / "pos.jsonl"
    f.write_bytes(b'{"hand": ["8C"]}\n{"hand": ["8\xe9"]}\n')
    assert main(["solve", "--batch", str(f)]) == 1
    out, err = capsys.readouterr()
    rows = [json.loads(x) for x in out.splitlines()]
    assert "placed" in rows[0] and "line 2: not UTF-8" in rows[1]["error"]
    assert "2 position(s), 1 solved, 1 failed" in err


def test_solve_batch_names_a_null_hand_as_a_missing_one(tmp_path, capsys):
    """{"hand": null} is no hand (it was solved as an empty one); "" is the empty hand."""
    f = tmp_path / "pos.jsonl"
    f.write_text('{"hand": null}\n{"table": "8S 8C 8D"}\n{"hand": "", "table": "8S 8C 8D"}\n')
    assert main(["solve", "--batch", str(f)]) == 1
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert "line 1: 'hand' is null" in rows[0]["error"]
    assert "line 2: missing key 'hand'" in rows[1]["error"]
    assert rows[2]["placed"] == []


def test_solve_batch_exits_0_when_every_line_is_solved(tmp_path, capsys):
    f = tmp_path / "pos.jsonl"
    f.write_text('{"hand": ["8C"]}\n')
    assert main(["solve", "--batch", str(f)]) == 0


def test_solve_batch_refuses_input_columns_its_answer_would_overwrite(tmp_path, capsys):
    f = tmp_path / "pos.csv"
    f.write_text("hand,placed,error\n8D 8H 8S,my-note,keep-me\n")
    assert main(["solve", "--batch", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "column(s) placed, error would be overwritten" in err
    f.write_text("hand,note\n8D 8H 8S,keep-me\n")   # other columns pass through
    assert main(["solve", "--batch", str(f)]) == 0
    assert "8D 8H 8S,keep-me," in capsys.readouterr().out


def test_bench_names_a_missing_c_program_before_it_benchmarks(tmp_path, capsys):
    assert main(["bench", "solver", "--games", "1", "--c-program",
                 str(tmp_path / "rummy_dp")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--c-program" in err and "no such executable" in err


def test_a_bad_games_flag_is_named_as_the_flag_not_as_a_line_of_the_file(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('[study]\nname = "s"\ngames = 4\nseed = 1\n[grid]\n'
                 'rules = ["classic(match=single)"]\nlineup = [["expert"]]\n')
    assert main(["sweep", str(f), "--out", str(tmp_path / "o"), "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert "--games 0" in err and "line" not in err


@pytest.mark.parametrize("argv,needle", [
    (["solve", "--hand", "8D", "--out", "x.csv"], "--out is for --batch only"),
    (["solve", "--hand", "8D", "--workers", "2"], "--workers is for --batch only"),
    (["solve", "--batch", "pos.csv", "--hand", "8D"], "--batch reads every position"),
    (["rules", "--markdown", "classic"], "--markdown prints the reference of every preset"),
])
def test_an_option_the_command_would_ignore_is_refused(tmp_path, capsys, monkeypatch, argv,
                                                       needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pos.csv").write_text("hand\n8D 8H 8S\n")
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and needle in err
    assert not (tmp_path / "x.csv").exists()


def test_non_utf8_study_file_exits_2(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_bytes(b'[study]\nname = "\xe9"\n')
    assert main(["sweep", str(f), "--out", str(tmp_path / "o")]) == 2
    assert "not UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("games", ["-5", "0"])
def test_bench_refuses_a_non_positive_game_count(capsys, games):
    assert main(["bench", "games", "--games", games]) == 2
    assert "--games must be a positive integer" in capsys.readouterr().err


def test_partition_limit_message_counts_the_cards_it_was_given(monkeypatch):
    from fastmach.solver import exact as solver
    from fastmach.core import _solver

    def too_big(table, hand, *a):
        raise _solver.SolverLimitError(
            f"the position needs more than 8 solver states ({int(table.sum())} table cards, "
            f"{int(hand.sum())} hand cards)")
    monkeypatch.setattr(solver._solver, "solve_counts", too_big)
    cards = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H 5H 6H 7H"
    with pytest.raises(FastmachError, match=r"\(partition of 20 cards\)$"):
        solver.partition(cards)


def test_objective_and_keep_jokers_take_their_words():
    assert parse_strategy("expert(objective=points,keep_jokers=true)") == parse_strategy(
        "expert(objective=1,keep_jokers=1)")
    assert str(parse_strategy("beginner(objective=cards,keep_jokers=false)")) == "beginner"
    with pytest.raises(FastmachError, match="cards, points"):
        parse_strategy("expert(objective=most)")


def test_summary_md_escapes_manifest_strings_outside_code(tmp_path):
    from tests.report_data import random_hand_study, write_hand_results

    from fastmach.report import build_report, md_fence, md_text
    d = write_hand_results(tmp_path / "r", *random_hand_study(games=3, players=(2,)),
                           name="<img src=x> *bold* [l](u)")
    manifest = json.loads((d / "_study.json").read_text())
    manifest["command"] = "fastmach sweep ```\n# heading"
    (d / "_study.json").write_text(json.dumps(manifest))
    build_report(d, tmp_path / "rep", show_games=False)  # synthetic rows: no games
    md = (tmp_path / "rep" / "summary.md").read_text()
    assert not re.search(r"(?<!\\)(<img|\*bold|\[l\])", md)  # nothing left unescaped
    assert r"\<img src=x\> \*bold\* \[l\](u)" in md
    # the command as typed (report._display_command), in a fence longer than its backticks
    assert "````\nfastmach sweep '```' '#' heading\n````" in md
    assert md_text("a\nb") == "a b" and md_fence("x").startswith("```\n")


def _bash_blocks(path: Path) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", path.read_text(), re.S)


DOCS = ["README.md", "reports/README.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("doc", DOCS)
def test_readme_commands_paste_into_bash(doc):
    blocks = [re.sub(r"(?m)^\s+(?=\S)", "", b) for b in _bash_blocks(ROOT / doc)]
    assert blocks or doc.startswith("docs/")
    for block in blocks:
        rc = subprocess.run(["bash", "-n"], input=block, text=True, capture_output=True)
        assert rc.returncode == 0, f"{doc}: {rc.stderr}\n{block}"


@pytest.mark.parametrize("doc", DOCS)
def test_every_python_example_of_the_docs_is_python(doc):
    for block in re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(), re.S):
        compile(block, doc, "exec")   # (a SyntaxError names the page)


def test_the_readme_links_to_pages_that_exist():
    text = (ROOT / "README.md").read_text()
    pages = re.findall(r"\]\((docs/[^)#]+)\)", text)
    assert len(set(pages)) >= 10
    assert [p for p in pages if not (ROOT / p).is_file()] == []
    anchors = re.findall(r"\]\(#([^)]+)\)", text)
    headings = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
                for h in re.findall(r"(?m)^## (.+)$", text)}
    assert anchors and set(anchors) <= headings


def test_readme_says_which_python_and_the_declared_version_matches():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    low = tuple(int(x) for x in re.fullmatch(r">=\s*(\d+)\.(\d+)", declared).groups())
    # every standard-library module fastmach imports exists in the lowest declared version
    needs = {"tomllib": (3, 11)}
    for py in (ROOT / "fastmach").rglob("*.py"):
        for node in ast.walk(ast.parse(py.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            for name in names:
                if name in needs:
                    assert low >= needs[name], f"{py.name} imports {name}: needs {needs[name]}"
    assert sys.version_info[:2] >= low
    readme = (ROOT / "README.md").read_text()
    assert f"Python {low[0]}.{low[1]} or later" in readme and "venv" in readme


def test_the_main_commands_report_is_not_tracked():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    rc = subprocess.run(["git", "check-ignore", "-q", "reports/balance/index.html"], cwd=ROOT)
    assert rc.returncode == 0
    rc = subprocess.run(["git", "check-ignore", "-q", "reports/balance-reference/index.html"],
                        cwd=ROOT)
    assert rc.returncode == 1


LIBRARY_CALLS = [
    (lambda fm: fm.compare(["classic", "jokers"], players=[9]), "players: expected"),
    (lambda fm: fm.compare(["classic", "jokers"], lineups=[5]), "lineup: expected"),
    (lambda fm: fm.rate("expert"), "strategies: a rating needs two"),
    (lambda fm: fm.rate("expert,beginner", games=0), "games: expected"),
    (lambda fm: run_play("classic", "expert", 0, 1, players=4), "games=0"),
]


@pytest.mark.parametrize("call, words", LIBRARY_CALLS)
def test_a_library_error_names_the_python_argument_not_a_flag(call, words):
    import fastmach
    with pytest.raises(FastmachError) as e:
        call(fastmach)
    assert words in str(e.value) and "--" not in str(e.value)


def test_the_command_line_names_the_flag_and_leaves_rules_strings_alone(capsys):
    from fastmach.cli import as_flags
    assert main(["compare", "classic", "jokers", "--players", "9", "-q"]) == 2
    assert "--players: expected integers 2..8" in capsys.readouterr().err
    assert as_flags("max_games=3 is too small") == "--max-games 3 is too small"
    text = "expected a rules string like 'classic(players=3)', got 1"
    assert as_flags(text) == text


def test_bench_solver_prints_its_tables_without_the_c_program(capsys):
    """The solver's tables do not need --c-program (they printed nothing without it); the
    C program's row is the only part that does."""
    assert main(["bench", "solver", "--no-milp", "--games", "2"]) == 0
    out = capsys.readouterr().out
    for table in ("fastmach bench solver: positions", "fastmach bench solver (API)",
                  "fastmach bench solver (paths)"):
        assert table in out
    assert "C dynamic program" not in out
