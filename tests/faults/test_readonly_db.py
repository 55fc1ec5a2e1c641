"""A database this user may read but not write (the file, or its folder: SQLite writes `-wal`,
`-shm` and `-journal` beside the file). `threads` and `export` work; a chat, `-c` and `delete`
refuse at once with one line naming the right cause (exit 1), before any model request or MCP
server; the folder is left as it was (no sidecar file). A `--db` in a folder that does not
exist says so. Root ignores permissions, so as root the client runs with `nobody`'s ids (in this
process: tests/cli.py `as_user`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.cli import Result
from tests.faults.files import build_db, marker_server, snapshot, unprivileged_ids

pytestmark = pytest.mark.sqlite_only  # file permissions


def _layout(tmp_path: Path, what: str):
    """(the run's ids, home, the database, the folder to compare) with `what` read-only."""
    ids, home = unprivileged_ids(tmp_path)
    folder = home / "dbdir"
    folder.mkdir()
    db = folder / "chat.db"
    build_db(db, user="reader")
    for p in (folder, db):
        os.chown(p, ids[0] if ids else os.geteuid(), -1)
    if what == "file":
        db.chmod(0o400)
    else:
        folder.chmod(0o500)
    return ids, home, db, folder


def _run(cli, ids: tuple[int, int] | None, home: Path, *args: str) -> Result:
    cli.search_config = None  # the shared search server's config sits where the other user cannot read
    return cli(*args, input="안녕\n", env={"HOME": str(home), "MCP_CHAT_USER": "reader"}, db=False, cwd=home,
               as_user=ids)


@pytest.fixture(params=["file", "folder"])
def readonly(request, tmp_path):
    ids, home, db, folder = _layout(tmp_path, request.param)
    yield request.param, ids, home, db, folder
    folder.chmod(0o700)
    db.chmod(0o600)
    if ids:
        shutil.rmtree(home, ignore_errors=True)


def test_threads_and_export_read_a_read_only_database(cli, llm, readonly):
    what, ids, home, db, folder = readonly
    before = snapshot(folder)
    r = _run(cli, ids, home, "threads", "--db", str(db))
    assert r.code == 0, r.err
    assert all(f"thread-{i}" in r.out for i in range(3))
    r = _run(cli, ids, home, "export", "thread-1", "--format", "json", "--db", str(db))
    assert r.code == 0, r.err
    assert "질문 1" in r.out
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", [["--new"], ["-c"], ["--thread", "thread-2"], ["delete", "thread-0"]], ids=str)
def test_a_chat_on_a_read_only_database_refuses_at_start(cli, llm, readonly, command):
    what, ids, home, db, folder = readonly
    config, marker = marker_server(home)
    before = snapshot(folder)
    extra = ["--mcp-config", str(config)] if command[0] != "delete" else []
    r = _run(cli, ids, home, *command, *extra, "--db", str(db))
    assert r.code == 1, r.err
    line = r.error_line()
    assert str(db) in line and "쓸 권한이 없습니다" in line, line
    if what == "folder":
        assert str(folder) in line and "폴더" in line, line
    assert snapshot(folder) == before  # no -wal, -shm, -lock or -journal left behind
    assert llm.requests == []
    assert not marker.exists()  # refused before any MCP server was started


def test_a_db_in_a_missing_folder_names_the_missing_folder(cli, llm, tmp_path):
    config, marker = marker_server(tmp_path)
    missing = tmp_path / "no-such-folder"
    r = cli("--new", "--mcp-config", str(config), "--db", str(missing / "x.db"), input="안녕\n", db=False)
    assert r.code == 1, r.err
    line = r.error_line()
    assert "폴더가 없습니다" in line and str(missing) in line and "쓰기 권한" not in line, line
    assert not missing.exists()
    assert llm.requests == [] and not marker.exists()
    # the read-only commands find nothing there, and create nothing
    assert cli("threads", "--db", str(missing / "x.db"), db=False).code == 0
    assert cli("export", "x", "--db", str(missing / "x.db"), db=False).code == 1
    assert not missing.exists()


def test_a_bad_db_is_reported_before_the_local_model_is_prepared(cli, llm, tmp_path):
    """--provider local: the database is refused before the model server is built, fetched or
    started (its cache folder is never made), not 5-10 s later."""
    cache = tmp_path / "model-cache"
    r = cli("--provider", "local", "--new", "--db", str(tmp_path / "nope" / "x.db"), input="안녕\n", db=False,
             env={"MCP_CHAT_CACHE": str(cache)})
    assert r.code == 1, r.err
    assert "폴더가 없습니다" in r.error_line()
    assert not cache.exists()
