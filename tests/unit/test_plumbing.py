"""plumbing/: the ground floor's rules, each tried against what an attacker (or a stale file) leaves."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plumbing import locks, private, proc, rundir, unixsock
from plumbing.forkserver.envscrub import daemon_env


def test_the_daemon_environment_drops_secrets_by_name_and_by_value() -> None:
    env = {
        "PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "TERM": "xterm", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
        "OPENAI_API_KEY": "sk-abcdef123456", "NAVER_CLIENT_ID": "naver-id-42x7",
        "DB": "postgresql://u:pw-9f8e7d6c@h/db", "API": "https://x.example/v1?page=2&api_key=qq-1234abcd",
        "DSN": "host=h dbname=d password='s3cr3t pass'", "COPY": "again sk-abcdef123456",
        "ID_COPY": "naver-id-42x7", "PLAIN_URL": "https://x.example/v1?page=2", "HOME_AGAIN": "/home/u",
        "GIT_REMOTE": "https://ghp_abcdefghijklmnop1234@github.com/x/y", "SSH_REMOTE": "ssh://git@github.com/x/y",
    }
    out = daemon_env(env, ["NAVER_CLIENT_ID"])
    assert out == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "TERM": "xterm",
                   "PLAIN_URL": "https://x.example/v1?page=2", "HOME_AGAIN": "/home/u",
                   "SSH_REMOTE": "ssh://git@github.com/x/y"}


def test_no_daemon_when_a_variable_of_its_key_holds_a_secret() -> None:
    assert daemon_env({"PYTHONPATH": "/x", "LC_ALL": "C"}) is not None
    assert daemon_env({"PYTHONSTARTUP": "https://u:pw-long-secret@h/x.py"}) is None


def test_the_client_names_every_secret_variable_its_words_miss() -> None:
    from client.core.secrets import SECRET_VARS
    from client.engine.daemon import PROGRAM
    from plumbing.forkserver.envscrub import secret_name

    assert all(secret_name(n, PROGRAM.secret_names) for n in SECRET_VARS)


def test_one_rule_for_private_files(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "state.json"
    private.write_json(path, {"a": 1})
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert private.read_json(path) == {"a": 1}
    for mode in (0o640, 0o604, 0o620):  # readable or writable by someone else: not ours to trust
        path.chmod(mode)
        assert private.read_json(path) is None
    path.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(path)
    assert private.read_json(link) is None
    big = tmp_path / "big"
    private.write_private(big, b"x" * (private.MAX_BYTES + 1))
    assert private.read_private(big) is None
    assert private.save_json(tmp_path / "f" / "x.json", {}) is None and (tmp_path / "f").is_dir()
    (tmp_path / "ro").mkdir(mode=0o500)
    if os.geteuid() != 0:
        assert private.save_json(tmp_path / "ro" / "x.json", {})


def test_a_runtime_folder_others_can_enter_or_a_symlink_is_not_private(tmp_path: Path) -> None:
    assert rundir.private_dir(tmp_path / "new") == tmp_path / "new"
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    assert rundir.private_dir(loose) is None
    (tmp_path / "link").symlink_to(tmp_path / "new")
    assert rundir.private_dir(tmp_path / "link") is None
    assert rundir.private_dir(Path("relative")) is None


def test_locks_and_leases_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    assert not locks.held(path)
    hold = subprocess.Popen([sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                             "fcntl.flock(f, fcntl.LOCK_SH); print('held', flush=True); sys.stdin.read()", str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert hold.stdout.readline() == b"held\n"
        assert locks.held(path) and not locks.Lock(path, wait=False).acquire()
        lease = locks.Lease(path)  # shared: taken beside the other
        assert lease.others()
    finally:
        hold.stdin.close()
        hold.wait(10)
    assert not lease.others()
    before = path.stat().st_mtime_ns
    lease.release()
    assert path.stat().st_mtime_ns >= before and not lease.active and not locks.held(path)
    link = tmp_path / "link.lock"
    link.symlink_to(path)
    assert locks.held(link)  # a planted symlink is never locked through: counts as held


def test_liveness_from_proc() -> None:
    command = [sys.executable, "-c", "import time; time.sleep(30)"]
    p = subprocess.Popen(command)
    try:
        assert proc.alive(p.pid)
        deadline = time.monotonic() + 30  # until the child has exec'd: before, /proc shows the parent's command line
        while not proc.runs(p.pid, command) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proc.runs(p.pid, command)
        assert not proc.runs(p.pid, ["x", "-c", "other"])
    finally:
        p.kill()
    deadline = time.monotonic() + 10
    while proc.alive(p.pid) and time.monotonic() < deadline:  # killed: a zombie until reaped, not alive
        time.sleep(0.01)
    assert not proc.alive(p.pid)
    p.wait()
    assert not proc.alive(p.pid) and not proc.alive(0) and proc.thread_count() >= 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd names")
def test_a_socket_in_a_deep_folder_is_reached_by_a_lasting_name(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["d" * 40] * 3)
    deep.mkdir(parents=True)
    path = deep / "x.sock"
    assert not unixsock.fits(path)
    server = unixsock.listen(path)
    try:
        assert path.stat().st_mode & 0o777 == 0o600
        name, fd = unixsock.lasting_name(path)
        assert fd is not None and len(name) < 64
        c = socket.socket(socket.AF_UNIX)
        c.connect(name)
        c.close()
        c = unixsock.connect(path)  # peer checked: this user
        c.close()
    finally:
        server.close()
