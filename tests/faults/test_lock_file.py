"""The per-thread lock file `<db>-lock` is this user's own regular file, or the thread is not opened.

The attacker plants something at that path before the user runs: a symlink to the user's own
config file (a cloned folder's `checkpoint.db-lock -> ~/.config/mcp-chat/mcp.json` used to create
an empty mcp.json that broke every later run), a folder or a FIFO (a folder used to turn the lock
off silently), a file others may write, or, in a folder two users share, a lock file of their own
that they hold (it used to block every thread of the database). Each refuses the thread with one
line, exit 1, before any model request; nothing is created where a link points; another user's
file is named as theirs with what to do. Root ignores permissions: the second user is `nobody`
(tests/faults/files.py `unprivileged_ids`), run in this process (tests/cli.py `as_user`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.files import build_db, unprivileged_ids

pytestmark = pytest.mark.sqlite_only  # the SQLite store's lock file


def _chat(cli, db: Path, **kw):
    return cli("--thread", "thread-1", "--no-memory", "--db", str(db), input="안녕\n", db=False, **kw)


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "shared" / "checkpoint.db"
    path.parent.mkdir()
    build_db(path, user="tester")
    return path


def refused(cli, llm, db: Path, *words: str) -> str:
    r = _chat(cli, db, env={"MCP_CHAT_USER": "tester"})
    assert r.code == 1, r.err
    line = r.error_line()
    assert f"{db}-lock" in line and all(w in line for w in words), line
    assert llm.requests == []  # refused before anything was sent
    return line


def test_a_symlink_at_the_lock_path_is_not_followed(cli, llm, db, tmp_path):
    config = tmp_path / "home" / ".config" / "mcp-chat"
    config.mkdir(parents=True)
    target = config / "mcp.json"
    Path(f"{db}-lock").symlink_to(target)
    refused(cli, llm, db, "심볼릭 링크")
    assert not target.exists() and not os.path.lexists(config / "mcp.json~")  # nothing made where it points
    Path(f"{db}-lock").unlink()
    r = _chat(cli, db, env={"MCP_CHAT_USER": "tester"})  # removed, as the line says: the chat works again
    assert r.code == 0, r.err


@pytest.mark.parametrize("thing", ["folder", "fifo"])
def test_a_folder_or_fifo_at_the_lock_path_never_turns_the_lock_off(cli, llm, db, thing):
    lock = Path(f"{db}-lock")
    lock.mkdir() if thing == "folder" else os.mkfifo(lock)
    refused(cli, llm, db, "일반 파일이 아닌")


def test_a_lock_file_others_may_write_is_refused(cli, llm, db):
    lock = Path(f"{db}-lock")
    lock.write_bytes(b"")
    lock.chmod(0o666)
    refused(cli, llm, db, "다른 사용자도 쓸 수")


HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX, 0, 0)  # every byte: every thread of the database
print("holding", flush=True)
sys.stdin.readline()
"""


def test_another_users_lock_file_is_named_as_theirs(cli, llm, tmp_path):
    """A folder two users may write: the other user pre-creates the lock file and holds every byte.
    The victim is told whose it is and what to do, never left waiting or sharing a thread."""
    ids, home = unprivileged_ids(tmp_path)
    if ids is None:
        pytest.skip("needs a root test process to play a second user")
    shared = home / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    db = shared / "checkpoint.db"
    build_db(db, user="victim")
    os.chown(db, ids[0], ids[1])
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, f"{db}-lock"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # root: the other user here
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        cli.search_config = None  # the shared search server's config sits where nobody cannot read
        servers = home / "mcp.json"  # one that ends at once (the bundled one is not nobody's to run)
        servers.write_text('{"mcpServers": {"none": {"command": "/bin/false"}}}')
        r = cli("--thread", "thread-1", "--no-memory", "--db", str(db), "--mcp-config", str(servers), input="안녕\n",
                db=False, cwd=home, env={"HOME": str(home), "MCP_CHAT_USER": "victim"}, as_user=ids)
        assert r.code == 1, r.err
        lines = [ln for ln in r.err.splitlines() if ln.strip()]
        assert "Traceback" not in r.err and all("MCP" in ln for ln in lines[:-1]), r.err  # the server that ended
        line = lines[-1]
        assert f"{db}-lock" in line and "다른 사용자(root)" in line and "--db" in line, line
        assert llm.requests == []
    finally:
        holder.kill()
        holder.wait(timeout=30)
        shutil.rmtree(home, ignore_errors=True)


def test_as_root_a_lock_file_of_nobody_is_not_used_either(cli, llm, db, tmp_path):
    """Root could open anyone's file: ownership, not permission, decides."""
    ids, home = unprivileged_ids(tmp_path)
    if ids is None:
        pytest.skip("needs a root test process to play a second user")
    lock = Path(f"{db}-lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    os.fchown(fd, ids[0], ids[1])
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0)  # opened and even held: still not ours
        line = refused(cli, llm, db, "다른 사용자(nobody)")
        assert "지워 달라고" in line
    finally:
        os.close(fd)
        shutil.rmtree(home, ignore_errors=True)


def test_the_plumbing_opener_refuses_the_same_things(tmp_path):
    from plumbing.locks import LockRefused, open_lock

    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target")
    folder = tmp_path / "dir"
    folder.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    loose = tmp_path / "loose"
    loose.write_bytes(b"")
    loose.chmod(0o646)
    for path, why in ((link, "symlink"), (folder, "not_file"), (fifo, "not_file"), (loose, "writable")):
        with pytest.raises(LockRefused) as e:
            open_lock(path)
        assert e.value.why == why, path
    assert not (tmp_path / "target").exists()
    fd = open_lock(tmp_path / "fresh")
    try:
        assert (os.fstat(fd).st_mode & 0o777) == 0o600
    finally:
        os.close(fd)
