"""The pre-imported process (plumbing/forkserver) serves a run exactly as a cold start would.

A small probe program (tests/stubs/launch_probe.py) goes through the same launcher as
`mcp-chat`, with a daemon of its own that imports nothing, so these tests are cheap: each run
reports the process state it had, and a run served by the daemon is compared with a cold run
of the same invocation. That a run was served is seen from outside: its pid is not the pid of
the process the test started.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = [sys.executable, "-c",
         f"import sys; sys.path.insert(0, {str(ROOT)!r}); from tests.stubs.launch_probe import entry; entry()"]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the daemon is Linux-only (SO_PEERCRED, pidfd)")


@pytest.fixture
def rundir(tmp_path: Path) -> Iterator[Path]:
    d = tmp_path / "rt"
    d.mkdir(mode=0o700)
    yield d
    run({**probe_env(d), "MCP_CHAT_DAEMON": "0"}, "stop")  # nothing left running after the test


def probe_env(rundir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MCP_CHAT_", "PROBE_"))}
    env.update({"MCP_CHAT_DAEMON": "1", "MCP_CHAT_RUNTIME_DIR": str(rundir), "PYTHONPATH": str(ROOT),
                "MCP_CHAT_DAEMON_IDLE": "120"}, **extra)
    return env


def run(env: dict, *args: str, cwd: Path | None = None, input: bytes = b"", **kw: object) -> subprocess.CompletedProcess:
    return subprocess.run([*PROBE, *args], env=env, cwd=cwd, input=input, capture_output=True, timeout=60, **kw)


def status(env: dict) -> dict | None:
    p = run({**env, "MCP_CHAT_DAEMON": "0"}, "status")
    return json.loads(p.stdout)


def warm(env: dict) -> dict:
    """Start the probe's daemon (a cold run spawns it) and wait until it answers."""
    run(env, "state")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        st = status(env)
        if st is not None:
            return st
        time.sleep(0.1)
    raise AssertionError("the probe daemon did not start")


def served(p: subprocess.Popen | subprocess.CompletedProcess, out: dict) -> bool:
    return out["pid"] != p.pid if isinstance(p, subprocess.Popen) else True


def state_of(env: dict, *args: str, **kw: object) -> tuple[subprocess.Popen, dict, str]:
    p = subprocess.Popen([*PROBE, "state", *args], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, **kw)
    out, err = p.communicate(timeout=60)
    return p, json.loads(out), err.decode()


def comparable(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "pid"}


def test_a_served_run_has_the_state_of_a_cold_run(rundir: Path, tmp_path: Path) -> None:
    env = probe_env(rundir, SOME_VAR="값 with spaces")
    warm(env)
    work = tmp_path / "work folder"
    work.mkdir()

    def limits() -> None:
        os.umask(0o027)
        os.nice(3)
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])

    hot_p, hot, hot_err = state_of(env, "7", "x y", cwd=work, preexec_fn=limits)
    cold_p, cold, cold_err = state_of({**env, "MCP_CHAT_DAEMON": "0"}, "7", "x y", cwd=work, preexec_fn=limits)
    assert hot["pid"] != hot_p.pid, "the run was not served by the daemon"
    assert cold["pid"] == cold_p.pid
    assert hot_p.returncode == cold_p.returncode == 7
    assert hot["env"].pop("MCP_CHAT_DAEMON") == "1" and cold["env"].pop("MCP_CHAT_DAEMON") == "0"
    assert comparable(hot) == comparable(cold)
    assert hot["umask"] == 0o027 and hot["nice"] >= 3 and hot["nofile"][0] == 200
    assert signal.SIGUSR1 in hot["ignored"] and signal.SIGUSR2 in hot["mask"]
    assert hot["env"]["SOME_VAR"] == "값 with spaces" and hot["cwd"] == str(work)
    assert hot_err == cold_err


def test_standard_streams_and_exit_codes_pass_through(rundir: Path) -> None:
    env = probe_env(rundir)
    warm(env)
    before = status(env)["served"]
    p = run(env, "read", input="hello\n안녕\n".encode())
    assert p.returncode == 0 and p.stdout.decode() == "HELLO\n안녕\n" and p.stderr.decode() == "read done\n"
    hot = run(env, "raise")
    cold = run({**env, "MCP_CHAT_DAEMON": "0"}, "raise")
    assert hot.returncode == cold.returncode == 1
    assert hot.stderr.decode().splitlines()[-1] == cold.stderr.decode().splitlines()[-1] == "RuntimeError: probe failure"
    assert status(env)["served"] == before + 2


def test_unbuffered_and_encoding_settings_follow_the_run(rundir: Path) -> None:
    env = probe_env(rundir)
    warm(env)
    for extra in ({"PYTHONUNBUFFERED": "1"}, {"PYTHONIOENCODING": "latin-1:replace"}):
        hot_p, hot, _ = state_of({**env, **extra})
        cold_p, cold, _ = state_of({**env, **extra, "MCP_CHAT_DAEMON": "0"})
        assert hot["pid"] != hot_p.pid
        assert hot["streams"] == cold["streams"]


@pytest.mark.parametrize("handle", [False, True], ids=["default", "handled"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1])
def test_a_signal_to_the_launcher_reaches_the_run(rundir: Path, sig: int, handle: bool) -> None:
    """The run gets the signal (its handler runs), and the launcher ends as a cold run ends."""
    env = probe_env(rundir)
    warm(env)
    ends = []
    for mode in ("1", "0"):
        # as a shell starts a foreground job: the signal at its default, even when this test runs
        # under a background job (which ignores SIGINT and SIGQUIT, and so would its children)
        p = subprocess.Popen([*PROBE, "sleep", *(["handle"] if handle else [])], env={**env, "MCP_CHAT_DAEMON": mode},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
        line = p.stdout.readline().decode()  # the sign that the run is in its sleep
        assert line.startswith("ready ")
        assert (int(line.split()[1]) != p.pid) == (mode == "1")
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        ends.append((p.returncode, out.decode(), err.decode().strip().splitlines()[-1:]))
    assert ends[0] == ends[1]
    assert ends[0][0] == (100 + sig if handle else -sig)
    assert ends[0][1] == (f"got {sig}\n" if handle else "")


def test_a_killed_launcher_takes_its_run_with_it(rundir: Path) -> None:
    env = probe_env(rundir)
    warm(env)
    p = subprocess.Popen([*PROBE, "sleep"], env=env, stdout=subprocess.PIPE)
    pid = int(p.stdout.readline().split()[1])
    assert pid != p.pid
    p.kill()
    p.wait()
    deadline = time.monotonic() + 20
    while Path(f"/proc/{pid}").exists() and _state(pid) != "Z" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists() or _state(pid) == "Z", "the served run outlived its launcher"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def test_a_different_interpreter_setting_is_served_cold_and_retires_the_daemon(rundir: Path) -> None:
    env = probe_env(rundir)
    first = warm(env)
    p, out, _ = state_of({**env, "PYTHONFAKESETTING": "1"})  # part of the key: the daemon is stale
    assert out["pid"] == p.pid
    deadline = time.monotonic() + 20
    while (st := status(env)) is not None and st["pid"] == first["pid"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert st is None or st["pid"] != first["pid"]


def test_a_variable_read_while_importing_must_match(rundir: Path) -> None:
    env = probe_env(rundir, PROBE_IMPORT_VAR="a")
    first = warm(env)
    p, out, _ = state_of({**env, "PROBE_IMPORT_VAR": "b"})
    assert out["pid"] == p.pid, "served although the imports saw another value"
    p, out, _ = state_of(env)
    assert out["pid"] != p.pid
    assert status(env)["pid"] == first["pid"]  # a refusal for one run does not retire the daemon


def test_a_terminal_run_is_served_with_its_terminal(rundir: Path) -> None:
    import pty

    env = probe_env(rundir)
    warm(env)
    outs = []
    for mode in ("1", "0"):
        leader, follower = pty.openpty()
        try:
            p = subprocess.Popen([*PROBE, "state"], env={**env, "MCP_CHAT_DAEMON": mode}, stdin=follower,
                                 stdout=subprocess.PIPE, stderr=follower)
            outs.append((p.pid, json.loads(p.communicate(timeout=60)[0])))
        finally:
            os.close(leader)
            os.close(follower)
    (hot_pid, hot), (cold_pid, cold) = outs
    assert hot["pid"] != hot_pid and cold["pid"] == cold_pid
    assert hot["streams"][0]["tty"] and hot["streams"][2]["tty"]
    assert hot["streams"] == cold["streams"]


def test_disabled_means_cold_and_no_daemon(rundir: Path) -> None:
    env = probe_env(rundir, MCP_CHAT_DAEMON="0")
    for _ in range(2):
        p, out, _ = state_of(env)
        assert out["pid"] == p.pid
    assert not list(rundir.glob("*.sock"))


def test_a_runtime_folder_others_can_enter_is_not_used(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    loose.chmod(0o755)
    env = probe_env(loose)
    for _ in range(2):
        p, out, _ = state_of(env)
        assert out["pid"] == p.pid
    assert not list(loose.iterdir())
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target")
    (tmp_path / "target").mkdir(mode=0o700)
    p, out, _ = state_of(probe_env(link))
    assert out["pid"] == p.pid and not list((tmp_path / "target").iterdir())


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
def test_another_user_is_never_served() -> None:
    """Even with the folder opened up, a peer of another uid gets nothing (SO_PEERCRED)."""
    import shutil
    import tempfile

    rundir = Path(tempfile.mkdtemp(prefix="mcp-chat-peer-", dir="/tmp"))  # a path another user can reach
    try:
        _another_user_is_never_served(rundir)
    finally:
        run({**probe_env(rundir), "MCP_CHAT_DAEMON": "0"}, "status")
        shutil.rmtree(rundir, ignore_errors=True)


def _another_user_is_never_served(rundir: Path) -> None:
    env = probe_env(rundir)
    warm(env)
    before = status(env)["served"]
    sock = next(rundir.glob("probe-*.sock"))
    rundir.chmod(0o755)
    sock.chmod(0o777)
    try:
        code = (
            "import json, os, socket, struct, sys; os.setgid(65534); os.setuid(65534)\n"
            "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
            "d = json.dumps({'op': 'status'}).encode()\n"
            "try:\n s.sendall(struct.pack('!I', len(d)) + d); print(repr(s.recv(100)))\n"
            "except OSError as e:\n print('closed', type(e).__name__)\n"
        )
        p = subprocess.run([sys.executable, "-c", code, str(sock)], capture_output=True, timeout=30)
    finally:
        rundir.chmod(0o700)
        sock.chmod(0o600)
    assert p.returncode == 0, p.stderr
    answer = p.stdout.decode().strip()
    assert answer == "b''" or answer.startswith("closed"), f"a peer of another user got an answer: {answer}"
    assert status(env)["served"] == before
