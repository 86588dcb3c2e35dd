"""The `fastmach solve` command: readable and JSON output, JSONL batches, exit status 2."""
from __future__ import annotations

import argparse
import gc
import json

import pytest

from fastmach.cli import SUBCOMMANDS, main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_the_melds_of_the_worked_example(capsys):
    code, out, err = run(capsys, "solve", "--rules", "classic", "--table", "5C 6C 7C 8C",
                         "--hand", "8D 8H")
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "placed 2: 8H 8D"
    assert "5C 6C 7C" in out and "8C" in out


def test_solve_json_lists_placed_cards_and_melds(capsys):
    code, out, _ = run(capsys, "solve", "--table", "6C 7C 8C", "--hand", "8D 8H", "--json")
    assert code == 0
    res = json.loads(out)
    assert res == {"placed": [], "melds": [["6C", "7C", "8C"]]}


@pytest.mark.parametrize("argv,needle", [
    (["--table", "5C 6C 7C", "--hand", "8D ZZ"], "'ZZ'"),
    (["--table", "5C 6C 7C", "--hand", "5C 5C"], "3 copies of 5C"),
    (["--table", "6C 7C", "--hand", "8C"], "does not split into valid melds"),
    (["--rules", "clasic", "--hand", "8C"], "unknown rules preset 'clasic'"),
    (["--rules", "classic(jokerz=2)", "--hand", "8C"], "'jokerz'"),
    (["--hand", "JK"], "joker"),
])
def test_bad_input_exits_2_with_a_message_naming_it(capsys, argv, needle):
    code, out, err = run(capsys, "solve", *argv)
    assert code == 2 and out == ""
    assert err.startswith("fastmach: error:") and needle in err


def test_batch_answers_every_line_and_reports_bad_ones(capsys, tmp_path):
    lines = [
        {"id": "a", "rules": "classic", "table": ["5C", "6C", "7C", "8C"], "hand": ["8D", "8H"]},
        "this is not json",
        {"id": "c", "rules": "jokers", "table": [], "hand": ["QS", "KS", "JK"], "objective": "points"},
        {"id": "d", "rules": "nope", "hand": ["8C"]},
        {"id": "e", "hand": ["8C"], "colour": "red"},
    ]
    f = tmp_path / "pos.jsonl"
    f.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    code, out, err = run(capsys, "solve", "--batch", str(f))
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and len(rows) == 5
    assert rows[0]["id"] == "a" and sorted(rows[0]["placed"]) == ["8D", "8H"]
    assert "error" in rows[1] and "line 2" in rows[1]["error"] and "JSON" in rows[1]["error"]
    assert rows[2]["id"] == "c" and sorted(rows[2]["placed"]) == ["JK", "KS", "QS"]
    assert rows[3]["id"] == "d" and "unknown rules preset 'nope'" in rows[3]["error"]
    assert "colour" in rows[4]["error"]
    assert "5 position(s), 2 solved, 3 failed" in err


def test_missing_batch_file_exits_2(capsys, tmp_path):
    code, _, err = run(capsys, "solve", "--batch", str(tmp_path / "absent.jsonl"))
    assert code == 2 and "absent.jsonl" in err


def test_unknown_command_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["frobnicate"])
    assert e.value.code == 2


def test_batch_csv_in_csv_out_with_workers(capsys, tmp_path):
    import pandas as pd

    src = tmp_path / "pos.csv"
    pd.DataFrame({
        "id": ["a", "b", "c", "d"],
        "table": ["5C 6C 7C 8C", "6C 7C", "", "AS 2S 3S"],
        "hand": ["8D 8H", "8C", "QS KS AS", "4S ZZ"],
        "note": ["x", "y", "z", "w"],
    }).to_csv(src, index=False)
    out = tmp_path / "ans.csv"
    code, stdout, err = run(capsys, "solve", "--batch", str(src), "--out", str(out),
                            "--workers", "2")
    got = pd.read_csv(out, keep_default_na=False)
    assert code == 1 and stdout == "" and "4 position(s), 2 solved, 2 failed" in err
    assert got["id"].tolist() == ["a", "b", "c", "d"] and got["note"].tolist() == ["x", "y", "z", "w"]
    assert got["placed"][0] == "8H 8D" and got["n_placed"].tolist() == [2, -1, 3, -1]
    assert "5C 6C 7C" in got["melds"][0] and " | " in got["melds"][0]
    assert "does not split" in got["error"][1] and "'ZZ'" in got["error"][3]
    assert got["error"][0] == "" and got["value"][2] == 3


def test_batch_parquet_in_parquet_out_and_exit_0_when_all_solved(capsys, tmp_path):
    import pandas as pd

    src = tmp_path / "pos.parquet"
    pd.DataFrame({"table": [["5C", "6C", "7C", "8C"], []], "hand": [["8D", "8H"], ["QS", "KS", "JK"]],
                  "rules": ["classic", "jokers"], "objective": ["cards", "points"]}).to_parquet(src)
    out = tmp_path / "ans.parquet"
    code, _, err = run(capsys, "solve", "--batch", str(src), "--out", str(out))
    got = pd.read_parquet(out)
    assert code == 0 and "2 solved, 0 failed" in err
    assert got["placed"].tolist() == ["8H 8D", "QS KS JK"] and got["value"].tolist() == [2, 45]
    code, _, err = run(capsys, "solve", "--batch", str(src))
    assert code == 2 and "--out" in err


def test_batch_jsonl_answers_do_not_depend_on_workers(capsys, tmp_path):
    from fastmach.tools.bench import game_positions
    from fastmach.core.cards import format_cards

    tables, hands = game_positions("classic", games=2, seed=3)
    f = tmp_path / "pos.jsonl"
    f.write_text("".join(json.dumps({"id": i, "table": format_cards(t), "hand": format_cards(h)}) + "\n"
                         for i, (t, h) in enumerate(zip(tables, hands))))
    outs = []
    for w in ("1", "2"):
        code, out, _ = run(capsys, "solve", "--batch", str(f), "--workers", w)
        assert code == 0
        outs.append(out)
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == len(tables)
    first = json.loads(outs[0].splitlines()[1])
    code, one, _ = run(capsys, "solve", "--table", format_cards(tables[1]), "--hand",
                       format_cards(hands[1]), "--json")
    assert {k: first[k] for k in ("placed", "melds")} == json.loads(one)


def test_solve_reads_a_table_written_as_melds_with_bars(capsys):
    code, out, err = run(capsys, "solve", "--table", "5C 6C 7C 8C | 8D 8H 8S",
                         "--hand", "9C 8C", "--json")
    assert code == 0 and err == ""
    res = json.loads(out)
    assert sorted(res["placed"]) == ["8C", "9C"]
    assert sorted(map(sorted, res["melds"])) == sorted(
        map(sorted, [["5C", "6C", "7C", "8C", "9C"], ["8S", "8H", "8D", "8C"]]))


def test_solve_names_the_bad_meld_of_a_table_written_with_bars(capsys):
    code, _, err = run(capsys, "solve", "--table", "5C 6C 7D | 8D 8H 8S", "--hand", "9C")
    assert code == 2 and "table meld 5C 6C 7D" in err


def test_play_with_rotate_says_how_many_games_it_plays(capsys, tmp_path):
    code, out, err = run(capsys, "play", "--rules", "classic(players=2)", "--strategies",
                         "expert,beginner", "--games", "3", "--rotate",
                         "--out", str(tmp_path / "g.parquet"))
    assert code == 0
    assert "2 rotation(s) of the line-up x 3 deal(s) = 6 games" in err
    assert out.startswith("6 games")


def test_play_leaves_the_garbage_collector_of_its_caller_unfrozen(capsys, tmp_path):
    # play freezes what is loaded before its games (the collector's full passes skip it)
    # and must hand a caller of cli.main in its own process a collector as it found it
    assert gc.get_freeze_count() == 0
    code, _, _ = run(capsys, "play", "--games", "2", "--out", str(tmp_path / "g.parquet"))
    assert code == 0 and gc.get_freeze_count() == 0


def test_play_unfreezes_the_garbage_collector_when_its_games_fail(capsys, tmp_path, monkeypatch):
    import fastmach.cli as cli
    from fastmach.errors import FastmachError

    def fail(*args, **kwargs):
        assert gc.get_freeze_count() > 0  # frozen while the games run
        raise FastmachError("the games failed")

    monkeypatch.setattr(cli.games, "run_play_columns", fail)
    code, _, err = run(capsys, "play", "--games", "2", "--out", str(tmp_path / "g.parquet"))
    assert code == 2 and "the games failed" in err and gc.get_freeze_count() == 0


def test_compare_of_a_rule_set_with_itself_names_the_repeated_rule_set(capsys):
    code, _, err = run(capsys, "compare", "classic", "classic(players=4)", "--games", "2")
    assert code == 2
    assert "duplicate rule set 'classic(players=4)' (the same rules as 'classic')" in err
    assert "[grid]" not in err


def _subcommands() -> dict:
    """Each subcommand's parser by name, from the command's own parser."""
    import argparse

    from fastmach.cli import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


@pytest.mark.parametrize("name", list(_subcommands()))
def test_every_subcommands_help_shows_percent_signs_once_and_explains_every_argument(
        capsys, name):
    parser = _subcommands()[name]
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "%%" not in out and "%(" not in out
    for action in parser._actions:
        if action.dest == "help":
            continue
        what = (name, action.option_strings or action.dest)
        assert action.help and action.help.strip(), what
        if action.default is not None and action.default is not False:  # (play --games)
            assert "default" in action.help, what


def test_a_parser_built_for_one_subcommand_is_that_of_the_whole_parser():
    from fastmach.cli import build_parser

    def subparsers(parser):
        return next(a for a in parser._actions
                    if isinstance(a, argparse._SubParsersAction)).choices

    full = subparsers(build_parser())
    assert len(full) == len(SUBCOMMANDS)
    for name, ref in full.items():
        one = subparsers(build_parser(name))
        assert list(one) == [name]
        assert one[name].format_help() == ref.format_help()
    # any other word (a typo, an option first) builds every subcommand: argparse's
    # message then lists them all
    for word in ("plya", "--version", None):
        assert list(subparsers(build_parser(word))) == list(full)
