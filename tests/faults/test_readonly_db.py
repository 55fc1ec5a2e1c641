"""A database this user may read but not write (the file, or its folder: SQLite writes `-wal`,
`-shm` and `-journal` beside the file). `threads` and `export` work; a chat, `-c` and `delete`
refuse at once with one line naming the right cause (exit 1), before any model request or MCP
server; the folder is left as it was (no sidecar file). A `--db` in a folder that does not
exist says so. Root ignores permissions, so as root the client runs as `nobody` (setpriv).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.files import build_db, marker_server, one_line, snapshot, unprivileged

pytestmark = pytest.mark.sqlite_only  # file permissions


def _layout(tmp_path: Path, what: str):
    """(argv prefix, home, the database, the folder to compare) with `what` read-only."""
    prefix, home, uid = unprivileged(tmp_path)
    folder = home / "dbdir"
    folder.mkdir()
    db = folder / "chat.db"
    build_db(db, user="reader")
    for p in (folder, db):
        os.chown(p, uid, -1)
    if what == "file":
        db.chmod(0o400)
    else:
        folder.chmod(0o500)
    return prefix, home, db, folder


def _run(chat, prefix: list[str], home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**chat.env, "HOME": str(home), "MCP_CHAT_DAEMON": "0", "MCP_CHAT_USER": "reader"}
    env.pop("MCP_CONFIG", None)
    return subprocess.run([*prefix, sys.executable, "-m", "client", *args], input="안녕\n".encode(),
                          capture_output=True, cwd=home, env=env, timeout=120)


@pytest.fixture(params=["file", "folder"])
def readonly(request, tmp_path):
    prefix, home, db, folder = _layout(tmp_path, request.param)
    yield request.param, prefix, home, db, folder
    folder.chmod(0o700)
    db.chmod(0o600)
    if prefix:
        shutil.rmtree(home, ignore_errors=True)


def test_threads_and_export_read_a_read_only_database(chat, llm, readonly):
    what, prefix, home, db, folder = readonly
    before = snapshot(folder)
    r = _run(chat, prefix, home, "threads", "--db", str(db))
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert all(f"thread-{i}" in r.stdout.decode() for i in range(3))
    r = _run(chat, prefix, home, "export", "thread-1", "--format", "json", "--db", str(db))
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert "질문 1" in r.stdout.decode()
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", [["--new"], ["-c"], ["--thread", "thread-2"], ["delete", "thread-0"]], ids=str)
def test_a_chat_on_a_read_only_database_refuses_at_start(chat, llm, readonly, command):
    what, prefix, home, db, folder = readonly
    config, marker = marker_server(home)
    before = snapshot(folder)
    extra = ["--mcp-config", str(config)] if command[0] != "delete" else []
    r = _run(chat, prefix, home, *command, *extra, "--db", str(db))
    err = r.stderr.decode(errors="replace")
    assert r.returncode == 1, err
    line = one_line(err)
    assert str(db) in line and "쓸 권한이 없습니다" in line, line
    if what == "folder":
        assert str(folder) in line and "폴더" in line, line
    assert snapshot(folder) == before  # no -wal, -shm, -lock or -journal left behind
    assert llm.requests == []
    assert not marker.exists()  # refused before any MCP server was started


def test_a_db_in_a_missing_folder_names_the_missing_folder(chat, llm, tmp_path):
    config, marker = marker_server(tmp_path)
    missing = tmp_path / "no-such-folder"
    r = chat("--new", "--mcp-config", str(config), "--db", str(missing / "x.db"), input="안녕\n", db=False)
    assert r.code == 1, r.err
    line = r.error_line()
    assert "폴더가 없습니다" in line and str(missing) in line and "쓰기 권한" not in line, line
    assert not missing.exists()
    assert llm.requests == [] and not marker.exists()
    # the read-only commands find nothing there, and create nothing
    assert chat("threads", "--db", str(missing / "x.db"), db=False).code == 0
    assert chat("export", "x", "--db", str(missing / "x.db"), db=False).code == 1
    assert not missing.exists()


def test_a_bad_db_is_reported_before_the_local_model_is_prepared(chat, llm, tmp_path):
    """--provider local: the database is refused before the model server is built, fetched or
    started (its cache folder is never made), not 5-10 s later."""
    cache = tmp_path / "model-cache"
    r = chat("--provider", "local", "--new", "--db", str(tmp_path / "nope" / "x.db"), input="안녕\n", db=False,
             env={"MCP_CHAT_CACHE": str(cache)})
    assert r.code == 1, r.err
    assert "폴더가 없습니다" in r.error_line()
    assert not cache.exists()
