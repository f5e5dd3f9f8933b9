"""Issue 15, process hygiene: batch workers die with their parent (SIGKILL included), SIGTERM ends a batch run
as Ctrl-C does (``error: terminated``, a resumable checkpoint, exit 143), and caches live in the user's cache
folder, never in a shared /tmp path."""
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from layerzero_viz.batch import checkpoint_path

from .helpers import FIXTURES, ROOT, clean_env, good_lines, read_jsonl, run, write_log

ZH = FIXTURES / "finance_qa.zh.json"


@pytest.fixture(scope="module")
def long_log(tmp_path_factory):
    """About 530 conversations: long enough to be stopped in the middle."""
    return write_log(tmp_path_factory.mktemp("hygiene") / "log.jsonl", good_lines() * 10)


def _batch_cmd(log, out, *extra):
    return [sys.executable, "-m", "layerzero_viz", "batch", str(log), "-o", str(out), "--ratio", "0.3",
            "--jobs", "2", "--chunk-lines", "5", "--checkpoint-seconds", "0", "--quiet", *extra]


def _children(pid: int) -> set[int]:
    """The pids whose parent is ``pid`` (Linux /proc)."""
    kids = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids.update(int(k) for k in (task / "children").read_text().split())
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie is dead; it only waits to be reaped


def _wait_until_working(proc, cp: Path, min_line: int = 30, timeout: float = 120) -> set[int]:
    """Wait until the run has checkpointed ``min_line`` lines; its worker pids."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if cp.exists():
            try:
                if json.loads(cp.read_text())["cursor"]["line"] >= min_line:
                    break
            except ValueError:
                pass
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be stopped"
    workers = _children(proc.pid)
    assert len(workers) >= 2, workers
    return workers


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_workers_exit_when_the_parent_is_killed_with_sigkill(tmp_path, long_log):
    out = tmp_path / "out.jsonl"
    # a new session, so only the CLI gets the signal (not the group, as in test_resume)
    proc = subprocess.Popen(_batch_cmd(long_log, out), cwd=ROOT, env=clean_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = set()
    try:
        workers = _wait_until_working(proc, checkpoint_path(out))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "orphaned workers kept running"
    finally:
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigterm_ends_a_batch_run_like_ctrl_c_and_it_resumes(tmp_path, long_log):
    out = tmp_path / "out.jsonl"
    cp = checkpoint_path(out)
    proc = subprocess.Popen(_batch_cmd(long_log, out), cwd=ROOT, env=clean_env(), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    workers = set()
    try:
        workers = _wait_until_working(proc, cp)
        os.kill(proc.pid, signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = stderr.decode()
    assert proc.returncode == 143, err
    assert err.splitlines() == ["error: terminated"], err
    assert stdout == b""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)

    state = json.loads(cp.read_text())
    assert not state["complete"] and state["cursor"]["line"] >= 30
    resumed = subprocess.run(_batch_cmd(long_log, out, "--json"), cwd=ROOT, env=clean_env(), capture_output=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert json.loads(resumed.stdout)["run"]["resumed"] is True
    keys = [(r["file"], r["line"]) for r in read_jsonl(out)]
    assert len(keys) == len(set(keys)) == len(good_lines()) * 10


def test_sigterm_handler_is_not_left_behind_after_a_batch_run(tmp_path):
    from layerzero_viz.cli import main

    log = write_log(tmp_path / "log.jsonl", good_lines()[:3])
    before = signal.getsignal(signal.SIGTERM)
    assert main(["batch", str(log), "-o", str(tmp_path / "out.jsonl"), "--quiet"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_worker_whose_parent_is_already_gone_exits(tmp_path):
    """The parent-pid check: a worker initialised for a parent that is not its parent ends itself."""
    code = ("import os; from layerzero_viz.batch.executors import _die_with_parent; "
            "_die_with_parent(os.getppid() + 1000000); print('still here')")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean_env(), capture_output=True, timeout=60)
    assert proc.returncode == 1 and b"still here" not in proc.stdout


# ---- caches ------------------------------------------------------------------------------------------------

def _cache_env(tmp_path: Path, **extra) -> dict:
    """A fresh XDG cache folder and a private TMPDIR (nothing may land there)."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return {"TMPDIR": str(tmp_path / "tmp"), "XDG_CACHE_HOME": str(tmp_path / "xdg"), **extra}


def test_caches_go_to_the_xdg_cache_folder_not_tmp(tmp_path):
    proc = run("prune", ZH, "--no-tokens", env=_cache_env(tmp_path))
    assert proc.returncode == 0, proc.stderr.decode()
    folder = tmp_path / "xdg" / "layerzero-viz"
    assert list(folder.glob("jieba-*.cache")), list(folder.iterdir())
    assert (os.stat(folder).st_mode & 0o077) == 0  # private
    assert list((tmp_path / "tmp").iterdir()) == []
    assert b"Traceback" not in proc.stderr


def test_the_cache_defaults_to_home_dot_cache(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in _cache_env(tmp_path, HOME=str(home)).items() if k != "XDG_CACHE_HOME"}
    base = clean_env(env)
    base.pop("XDG_CACHE_HOME", None)
    proc = subprocess.run([sys.executable, "-m", "layerzero_viz", "prune", str(ZH), "--no-tokens"], cwd=ROOT,
                          env=base, capture_output=True, timeout=180)
    assert proc.returncode == 0, proc.stderr.decode()
    assert list((home / ".cache" / "layerzero-viz").glob("jieba-*.cache"))


def _nobody():
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return None


@pytest.mark.skipif(os.geteuid() != 0 or _nobody() is None, reason="needs root to run as another user")
def test_a_non_root_user_gets_no_traceback_even_with_roots_cache_in_tmp(tmp_path):
    """root's 0600 /tmp/jieba.cache is unreadable and unreplaceable for another user: jieba logged a traceback."""
    user = _nobody()
    shared_tmp = tmp_path / "shared-tmp"
    shared_tmp.mkdir()
    shared_tmp.chmod(0o1777)
    (shared_tmp / "jieba.cache").write_bytes(b"root's")
    (shared_tmp / "jieba.cache").chmod(0o600)
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, user.pw_uid, user.pw_gid)
    tmp_path.chmod(0o755)
    env = clean_env({"HOME": str(home), "TMPDIR": str(shared_tmp)})
    env.pop("XDG_CACHE_HOME", None)

    def demote():
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)

    try:
        probe = subprocess.run([sys.executable, "-c", "import layerzero_viz"], cwd=ROOT, env=env,
                               capture_output=True, preexec_fn=demote, timeout=120)
    except OSError as exc:  # the interpreter itself is not reachable for that user (a venv under /root)
        pytest.skip(f"{sys.executable} is not usable by {user.pw_name}: {exc}")
    if probe.returncode != 0:
        pytest.skip(f"the package is not readable by {user.pw_name}: {probe.stderr.decode()[-200:]}")
    proc = subprocess.run([sys.executable, "-m", "layerzero_viz", "prune", str(ZH), "--no-tokens"], cwd=ROOT,
                          env=env, capture_output=True, preexec_fn=demote, timeout=180)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr and proc.stderr == b"", proc.stderr.decode()
    assert list((home / ".cache" / "layerzero-viz").glob("jieba-*.cache"))
    assert (shared_tmp / "jieba.cache").read_bytes() == b"root's"


def test_a_cache_in_tmp_that_cannot_be_replaced_is_no_longer_involved(tmp_path):
    """What a non-root user met (root's /tmp/jieba.cache cannot be read or replaced), as root can meet it: a
    jieba.cache in the temp folder that is a directory.  jieba used to log a traceback replacing it."""
    env = _cache_env(tmp_path)
    (tmp_path / "tmp" / "jieba.cache").mkdir()
    proc = run("prune", ZH, "--no-tokens", env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b"", proc.stderr.decode()
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == ["jieba.cache"]
    assert list((tmp_path / "tmp" / "jieba.cache").iterdir()) == []


def test_an_unwritable_cache_folder_is_no_traceback(tmp_path):
    """No writable cache folder at all: the run works, says nothing, and the cache is private to it."""
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    proc = run("prune", ZH, "--no-tokens", env=_cache_env(tmp_path, XDG_CACHE_HOME=str(blocked)))
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode()
    leftovers = list((tmp_path / "tmp").iterdir())
    assert all(p.name.startswith("layerzero-viz-cache-") and (p.stat().st_mode & 0o077) == 0 for p in leftovers)
    for p in leftovers:
        shutil.rmtree(p)


def test_a_reader_that_stops_early_ends_prune_quietly():
    # (`layerzero-viz prune … | head`: the JSON result is ~270 KB, more than a pipe holds, so the write meets the
    # closed pipe; it used to print "error: : Broken pipe")
    proc = subprocess.Popen([sys.executable, "-m", "layerzero_viz", "prune", str(FIXTURES / "finance_qa.zh.json"),
                             "--ratio", "0.3"], cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.read(10) == b'{"version"'
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert err == b""
