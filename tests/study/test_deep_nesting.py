"""A study file or a study directory's file nested too deeply for its parser is refused as
any malformed TOML or JSON (the same message, naming the file), never a RecursionError."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastmach.cli import main
from fastmach.errors import FastmachError
from fastmach.study import Study
from fastmach.study.driver import execute
from fastmach.study.logs import log_path
from fastmach.study.plan import MANIFEST
from fastmach.study.results import Store, read_manifest
from fastmach.study.store import JOURNAL, load_records
from fastmach.study.tomlfile import read_toml

DEEP = "[" * 100_000 + "]" * 100_000

STUDY = """\
[study]
name = "tiny"
seed = 7
games = 2
chunk = 2
{extra}
[grid]
rules = ["ace-low(match=single)"]
players = [2]
lineup = [["expert", "beginner"]]
"""


def _sweep(tmp_path: Path, out: Path, extra: str = "") -> int:
    toml = tmp_path / "s.toml"
    toml.write_text(STUDY.format(extra=extra))
    return main(["sweep", str(toml), "--out", str(out), "--workers", "0", "-q"])


@pytest.fixture
def done(tmp_path) -> Path:
    out = tmp_path / "out"
    assert _sweep(tmp_path, out) == 0
    return out


def test_a_deeply_nested_study_file_is_bad_toml_naming_the_file(tmp_path, capsys):
    toml = tmp_path / "deep.toml"
    toml.write_text("[study]\nname = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(FastmachError, match=r"deep\.toml: bad TOML: .*nested too deeply$"):
        Study.from_toml(toml)
    with pytest.raises(FastmachError, match=r"^<study>: bad TOML: .*nested too deeply$"):
        read_toml('[study]\nname = "t"\nx = ' + "{a = " * 100_000 + "1" + "}" * 100_000, "study",
                  "<study>")
    assert main(["sweep", str(toml), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "deep.toml: bad TOML" in err and "Traceback" not in err


def test_a_deeply_nested_manifest_is_an_unreadable_manifest(done, tmp_path, capsys):
    study = Study.from_toml(read_manifest(done)["study"])
    (done / MANIFEST).write_text(DEEP)
    with pytest.raises(FastmachError, match=r"_study\.json: cannot read the study manifest "
                                            r"\(.*nested too deeply"):
        read_manifest(done)
    with pytest.raises(FastmachError, match=r"_study\.json: unreadable manifest \(.*nested "
                                            r"too deeply"):
        Store(done, study)
    assert _sweep(tmp_path, done) == 2
    assert main(["report", str(done), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("_study.json: ") == 2 and "Traceback" not in err


@pytest.mark.parametrize("manifest, message", [
    (DEEP, "unreadable manifest"),
    ("[]", "the manifest is not a JSON object"),   # (it used to be a TypeError)
], ids=["deep", "not-an-object"])
def test_a_precision_sweep_refuses_a_damaged_manifest_naming_it(tmp_path, capsys, manifest,
                                                                message):
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).write_text(manifest)
    extra = "precision = { turns_per_hand = 5.0 }\nmax_games = 4"
    assert _sweep(tmp_path, out, extra) == 2
    err = capsys.readouterr().err
    assert f"_study.json: {message}" in err and "Traceback" not in err


def test_a_deeply_nested_journal_line_is_skipped_like_a_torn_one(done, tmp_path, capsys):
    manifest = json.loads((done / MANIFEST).read_text())
    records = manifest.pop("chunks")
    lines = [json.dumps({"chunk": k, "files": v}) for k, v in records.items()]
    (done / MANIFEST).write_text(json.dumps(manifest))
    (done / JOURNAL).write_text("\n".join(lines) + "\n" + DEEP + "\n")
    assert load_records(done, manifest) == records
    assert main(["report", str(done), "--out", str(tmp_path / "r")]) == 0
    assert _sweep(tmp_path, done) == 0


def test_a_study_log_ending_in_a_deeply_nested_line_is_written_again(tmp_path):
    study = Study.from_toml(STUDY.format(extra="log_games = 2"))
    out = tmp_path / "out"
    execute(study, out, workers=0, progress=False)
    path = log_path(study, out, 0, 0)
    whole = path.read_text()
    path.write_text("[" * 2000 + "]" * 2000 + "\n")   # (within the tail read for the count)
    execute(study, out, workers=0, progress=False)
    assert path.read_text() == whole
