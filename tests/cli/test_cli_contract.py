"""Issue 15, the CLI's behaviour: --version, ``-o -``, an output that is the input, the umask, missing optional
dependencies (one ``error:`` line naming the extra, exit 3), hints that name CLI options, share-link errors."""
import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from layerzero_viz import __version__, load_conversation
from layerzero_viz.cli import main, version, write_atomic
from layerzero_viz.errors import InputError, ShareLinkError
from layerzero_viz.share import ShareStore

from .helpers import FIXTURES, ROOT, clean_env, err_text, out_text, run

CONV = FIXTURES / "support_chat.en.json"


@pytest.fixture
def conv_file(tmp_path):
    path = tmp_path / "chat.json"
    path.write_bytes(CONV.read_bytes())
    return path


# ---- --version ---------------------------------------------------------------------------------------------

def test_version_prints_the_package_version_and_exits_0():
    proc = run("--version")
    assert proc.returncode == 0, err_text(proc)
    assert out_text(proc).strip() == f"layerzero-viz {version()}"
    assert version().split("+")[0][0].isdigit()


def test_version_falls_back_to_the_source_tree_without_installed_metadata(monkeypatch):
    import importlib.metadata as md

    def not_installed(name):
        raise md.PackageNotFoundError(name)

    monkeypatch.setattr(md, "version", not_installed)
    assert version() == __version__


# ---- -o - and the JSON result --------------------------------------------------------------------------------

def test_dash_o_writes_the_pruned_conversation_to_stdout_and_no_json(conv_file, tmp_path):
    proc = run("prune", conv_file, "--ratio", "0.3", "-o", "-")
    assert proc.returncode == 0, err_text(proc)
    assert not (tmp_path / "-").exists() and not (ROOT / "-").exists()
    to_file = run("prune", conv_file, "--ratio", "0.3", "-o", tmp_path / "pruned.json")
    assert proc.stdout == (tmp_path / "pruned.json").read_bytes()  # the same bytes as -o FILE
    assert load_conversation(out_text(proc)).format == "anthropic"  # the conversation, not the JSON result
    assert json.loads(to_file.stdout)["version"] == 2  # without -o -, the JSON result is on stdout as before


def test_dash_o_with_result_file_puts_the_json_result_there(conv_file, tmp_path):
    proc = run("prune", conv_file, "--ratio", "0.3", "-o", "-", "--result", tmp_path / "r.json")
    assert proc.returncode == 0, err_text(proc)
    result = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert result["version"] == 2 and load_conversation(out_text(proc)).format == "anthropic"


def test_dash_o_and_result_dash_both_on_stdout_is_refused(conv_file):
    proc = run("prune", conv_file, "-o", "-", "--result", "-")
    assert proc.returncode == 2 and proc.stdout == b""
    assert err_text(proc).startswith("error: ") and len(err_text(proc).splitlines()) == 1


# ---- an output that is the input -----------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["same", "relative", "symlink", "hardlink"])
def test_an_output_that_is_the_input_is_refused_with_exit_2(conv_file, tmp_path, how):
    before = conv_file.read_bytes()
    if how == "same":
        target = conv_file
    elif how == "relative":
        target = tmp_path / "sub" / ".." / conv_file.name
        (tmp_path / "sub").mkdir()
    elif how == "symlink":
        target = tmp_path / "link.json"
        target.symlink_to(conv_file)
    else:
        target = tmp_path / "hard.json"
        os.link(conv_file, target)
    proc = run("prune", conv_file, "--ratio", "0.3", "-o", target)
    assert proc.returncode == 2 and proc.stdout == b""
    lines = err_text(proc).splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--in-place" in lines[0]
    assert conv_file.read_bytes() == before


def test_in_place_overwrites_the_input(conv_file):
    before = conv_file.read_bytes()
    proc = run("prune", conv_file, "--ratio", "0.3", "-o", conv_file, "--in-place")
    assert proc.returncode == 0, err_text(proc)
    assert conv_file.read_bytes() != before and load_conversation(conv_file).format == "anthropic"


def test_in_place_alone_means_output_to_the_input(conv_file, tmp_path):
    expected = tmp_path / "expected.json"
    assert main(["prune", str(conv_file), "--ratio", "0.3", "-o", str(expected)]) == 0
    assert main(["prune", str(conv_file), "--ratio", "0.3", "--in-place"]) == 0
    assert conv_file.read_bytes() == expected.read_bytes()


def test_lint_refuses_to_write_its_fixes_over_its_input(conv_file, capsys):
    before = conv_file.read_bytes()
    assert main(["lint", str(conv_file), "-o", str(conv_file)]) == 2
    assert capsys.readouterr().err.startswith("error: -o: ")
    assert conv_file.read_bytes() == before


# ---- the umask -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_prune_output_respects_the_umask(conv_file, tmp_path, umask):
    out = tmp_path / f"out-{umask:o}.json"
    code = f"import os, sys; os.umask({umask}); from layerzero_viz.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, "prune", str(conv_file), "-o", str(out),
                           "--result", str(tmp_path / "r.json")], cwd=ROOT, env=clean_env(), capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()
    for path in (out, tmp_path / "r.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_write_atomic_keeps_an_existing_files_mode_and_honours_an_explicit_one(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    private = tmp_path / "private.txt"
    write_atomic(private, "secret", mode=0o600)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


# ---- a missing optional dependency ---------------------------------------------------------------------------

def _without(modules, *argv, cwd=ROOT):
    """The CLI as a subprocess in which importing ``modules`` fails as if they were not installed."""
    code = textwrap.dedent(f"""
        import sys
        for name in {list(modules)!r}:
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                del sys.modules[loaded]
            sys.modules[name] = None  # import raises ModuleNotFoundError(name=name)
        from layerzero_viz.cli import main
        sys.exit(main(sys.argv[1:]))
    """)
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], cwd=cwd, env=clean_env(),
                          capture_output=True, timeout=180)


def _one_error_line(proc, extra):
    err = err_text(proc)
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f"pip install 'layerzero-viz[{extra}]'" in lines[0]
    return lines[0]


def test_report_without_altair_names_the_app_extra(conv_file, tmp_path):
    result = tmp_path / "r.json"
    assert main(["prune", str(conv_file), "--result", str(result)]) == 0
    proc = _without(["altair"], "report", result, "-o", tmp_path / "r.html")
    line = _one_error_line(proc, "app")
    assert "altair" in line and "report" in line and not (tmp_path / "r.html").exists()


def test_report_png_without_vl_convert_names_the_app_extra(conv_file, tmp_path):
    result = tmp_path / "r.json"
    assert main(["prune", str(conv_file), "--result", str(result)]) == 0
    proc = _without(["vl_convert"], "report", result, "-o", tmp_path / "r.html", "--png", tmp_path / "r.png")
    _one_error_line(proc, "app")
    assert not (tmp_path / "r.html").exists()


def test_batch_dask_without_dask_names_the_dask_extra(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text((FIXTURES / "batch_small.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    proc = _without(["distributed", "dask"], "batch", log, "-o", tmp_path / "out.jsonl", "--engine", "dask",
                    "--quiet")
    _one_error_line(proc, "dask")


def test_batch_parquet_without_pyarrow_and_report_without_altair_fail_before_any_work(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text((FIXTURES / "batch_small.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    proc = _without(["pyarrow"], "batch", log, "-o", tmp_path / "out.parquet", "--quiet")
    _one_error_line(proc, "parquet")
    proc = _without(["altair"], "batch", log, "-o", tmp_path / "out.jsonl", "--report", tmp_path / "r.html",
                    "--quiet")
    _one_error_line(proc, "app")
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "out.jsonl").exists()


def test_app_without_streamlit_names_the_app_extra():
    proc = _without(["streamlit"], "app")
    _one_error_line(proc, "app")


def test_any_other_missing_optional_import_is_caught_by_main(monkeypatch, capsys, conv_file, tmp_path):
    """A module imported deep inside a command (not checked up front) still ends as one line and exit 3."""
    import layerzero_viz.commands.report as report_command

    def run_missing(args):
        raise ModuleNotFoundError("No module named 'pandas'", name="pandas")

    monkeypatch.setattr(report_command, "run", run_missing)
    assert main(["report", str(conv_file), "-o", str(tmp_path / "x.html")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'layerzero-viz[app]'" in err


# ---- hints and share-link errors -----------------------------------------------------------------------------

def test_the_size_limit_hint_names_the_option_on_the_command_line(conv_file):
    proc = run("prune", conv_file, "--max-bytes", "100")
    assert proc.returncode == 2
    line = err_text(proc).strip()
    assert line.startswith("error: ") and "--max-bytes" in line and "max_bytes=" not in line
    assert "iter_conversations" not in line


def test_the_size_limit_hint_names_the_keyword_in_the_library(conv_file):
    with pytest.raises(InputError) as info:
        load_conversation(conv_file, max_bytes=100)
    assert "max_bytes=" in info.value.hint and "--max-bytes" not in info.value.hint


def test_the_line_hint_names_the_options_on_the_command_line(conv_file):
    proc = run("prune", conv_file, "--line", "2")
    assert proc.returncode == 2
    line = err_text(proc).strip()
    assert "--line" in line and "--format jsonl" in line and "line=" not in line.replace("--line", "")


def test_an_unknown_share_id_does_not_show_the_database_path(tmp_path):
    store = ShareStore(tmp_path / "secret-folder" / "shares.db")
    with pytest.raises(ShareLinkError) as info:
        store.get("0123456789abcdef")
    message = str(info.value)
    assert "0123456789abcdef" in message
    assert str(tmp_path) not in message and "shares.db" not in message and "secret-folder" not in message
