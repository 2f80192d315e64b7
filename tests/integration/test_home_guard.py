"""The test suite is the test suite's (issue 55): the tests run with a home and caches of their own, the check
that they do not write under the user's real home counts their own writes only (tests/fixtures/home_guard.py), and
``make test`` installs no system package.

Each session test runs a tiny suite the way ``make test`` runs pytest (the Makefile's environment, pytest-xdist
workers, the same conftest) with ``$STREAMGAZE_REAL_HOME`` naming a stand-in "real home" under tmp_path, so that
nothing here writes under the user's actual home.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from ..fixtures.cli_entry import REPO

#: the Makefile's TEST_ENV (without the byte-code cache, which is no part of this)
TEST_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}

TINY_SUITE = '''
import os
import subprocess
import sys
from pathlib import Path


def test_the_home_is_the_sessions(tmp_path):
    real = Path(os.environ["STREAMGAZE_REAL_HOME"])
    assert Path.home() != real and ".pytest_tmp" in str(Path.home())
    assert os.environ["XDG_CACHE_HOME"].startswith(str(Path.home().parent))


def test_the_installed_script_runs(tmp_path):
    out = subprocess.run([str(Path(sys.executable).parent / "streamgaze"), "--version"], capture_output=True,
                         text=True)
    assert out.returncode == 0 and out.stdout.strip()
'''

LEAKS = '''
import os
import subprocess
import sys
from pathlib import Path


def test_writes_under_the_real_cache():
    (Path(os.environ["STREAMGAZE_REAL_HOME"]) / ".cache" / "leaked-by-a-test.txt").write_text("x")


def test_a_child_writes_under_the_real_config():
    target = Path(os.environ["STREAMGAZE_REAL_HOME"]) / ".config" / "leaked-by-a-child.txt"
    subprocess.run([sys.executable, "-c", f"open({str(target)!r}, 'w').write('x')"], check=True)
'''


def _suite(tmp_path: Path, name: str, text: str) -> Path:
    suite = tmp_path / name
    suite.mkdir()
    (suite / f"test_{name}.py").write_text(textwrap.dedent(text))
    return suite


def _pytest(suite: Path, real_home: Path, tmp_path: Path, *options: str) -> subprocess.CompletedProcess:
    """``make test``'s pytest invocation on ``suite``, with tests/conftest.py and a stand-in real home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "STREAMGAZE_HOME_WRITES"))}
    env.update(TEST_ENV, STREAMGAZE_REAL_HOME=str(real_home), HOME=str(real_home))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", *options, "-p", "tests.conftest",
                           "--rootdir", str(suite), "--basetemp", str(tmp_path / f"bt-{suite.name}"), str(suite)],
                          capture_output=True, text=True, cwd=str(REPO), env=env, timeout=300)


def test_a_session_passes_while_another_program_writes_under_the_cache(tmp_path):
    home = tmp_path / "real-home"
    (home / ".cache").mkdir(parents=True)
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from pathlib import Path
        for i in range(100000):
            for sub in ("huggingface/datasets", "deno", "dconf"):
                d = Path({str(home)!r}) / ".cache" / sub
                d.mkdir(parents=True, exist_ok=True)
                (d / f"f{{i}}").write_text("x")
            (Path({str(home)!r}) / ".config").mkdir(exist_ok=True)
            time.sleep(0.05)
    """)])
    try:
        time.sleep(0.3)
        proc = _pytest(_suite(tmp_path, "tiny", TINY_SUITE), home, tmp_path, "-n", "2", "--dist", "worksteal")
    finally:
        writer.terminate()
        writer.wait(timeout=30)
    written = len(list((home / ".cache" / "deno").iterdir()))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "2 passed" in proc.stdout and "wrote under the real home" not in proc.stdout + proc.stderr
    assert written > 10  # the other program did write there all along


def test_a_test_that_writes_under_the_real_home_fails_the_session(tmp_path):
    home = tmp_path / "real-home"
    (home / ".cache").mkdir(parents=True)
    (home / ".config").mkdir()
    proc = _pytest(_suite(tmp_path, "leaks", LEAKS), home, tmp_path, "-p", "no:xdist")
    said = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "2 passed" in said, said[-3000:]
    assert f"the tests wrote under the real home {home.resolve()}: open {home.resolve()}/.cache/leaked-by-a-test.txt" \
        in said, said[-3000:]
    assert f"open {home.resolve()}/.config/leaked-by-a-child.txt (pid " in said, said[-3000:]


def test_make_test_installs_nothing_and_says_what_is_missing(tmp_path):
    dry = subprocess.run(["make", "-n", "test"], capture_output=True, text=True, cwd=str(REPO), timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert "check_system_deps.sh" in dry.stdout
    assert not any(word in dry.stdout for word in ("install_browser", "install_ffmpeg", "apt-get")), dry.stdout
    deps = subprocess.run(["make", "-n", "system-deps"], capture_output=True, text=True, cwd=str(REPO), timeout=60)
    assert "scripts/install_browser.sh" in deps.stdout and "scripts/install_ffmpeg_libs.sh" in deps.stdout
    said = subprocess.run(["bash", "scripts/check_system_deps.sh"], capture_output=True, text=True, cwd=str(REPO),
                          env={**os.environ, "STREAMGAZE_CHROMIUM": str(tmp_path / "no-chromium")}, timeout=60)
    assert said.returncode == 0
    assert said.stderr.splitlines()[0] == (f"[test] no Chromium at {tmp_path / 'no-chromium'}: the browser tests will be "
                                           "skipped; `make system-deps` installs it (apt-get install chromium, as "
                                           "root or with sudo)")
    for script in ("README.md", ".ci/run"):
        assert "make system-deps" in (REPO / script).read_text()
