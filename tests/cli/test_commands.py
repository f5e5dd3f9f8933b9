"""Every subcommand: registered, with --help, and the one-line error contract."""
import json

import pytest

from layerzero_viz.cli import COMMANDS, main

from .helpers import FIXTURES, err_text, out_text, run

SUBCOMMANDS = ("prune", "sweep", "batch", "report", "app")


def test_each_subcommand_is_registered_and_lists_itself_in_the_top_help(capsys):
    for name in ("sweep", "batch", "report", "app"):
        assert f"layerzero_viz.commands.{name}" in COMMANDS
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    top = capsys.readouterr().out
    assert all(name in top for name in SUBCOMMANDS)


@pytest.mark.parametrize("name,options", [
    ("prune", ["--fail-on", "--max-ratio", "--ratio"]),
    ("sweep", ["--ratios", "--step", "--json", "--target"]),
    ("batch", ["--ratio", "--format", "--jobs", "--strict", "--json", "--engine", "--scheduler", "--report",
               "--overwrite"]),
    ("report", ["--png", "-o"]),
    ("app", ["--fixture", "--port", "--dry-run"]),
])
def test_help_of_each_subcommand_names_its_options(capsys, name, options):
    with pytest.raises(SystemExit) as exit_:
        main([name, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert all(option in text for option in options)


def test_the_console_entry_point_and_python_dash_m_agree():
    proc = run("sweep", FIXTURES / "finance_qa.zh.json", "--ratios", "0.2", "--json")
    assert proc.returncode == 0, err_text(proc)
    assert json.loads(out_text(proc))["rows"][0]["ratio"] == 0.2


@pytest.mark.parametrize("argv,needle", [
    (["sweep", "missing.json"], "missing.json"),
    (["report", "missing.json", "-o", "x.html"], "missing.json"),
    (["batch", "missing.jsonl", "-o", "out.jsonl"], "missing.jsonl"),
])
def test_a_missing_input_is_one_error_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]
    assert captured.out == ""
