"""A --db file that is not a readable database: every command refuses it the same way
(the chat itself: tests/e2e/test_chat.py and tests/faults/test_tools_and_input.py).

Exit 1, one line on stderr, no traceback, the file byte for byte as it was, and no new
file next to it (no `-lock`, `-wal`, `-shm` or `-journal` sidecar).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.sqlite_only  # file behaviour

CORRUPT = {
    "bad-pages": b"SQLite format 3\x00" + b"\x13" * 4000,  # a SQLite header over garbage
    "text": b"this is not sqlite\n" * 10,  # not a database at all
}

COMMANDS = {
    "threads": ["-m", "client", "threads"],
    "export": ["-m", "client", "export", "t1"],
    "delete": ["-m", "client", "delete", "t1"],
    "init_db": [str(ROOT / "init_db.py")],
}


def assert_refused_untouched(code: int, err: str, bad: Path, before: bytes, listing: set[str]) -> None:
    assert code == 1, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert bad.read_bytes() == before
    assert {p.name for p in bad.parent.iterdir()} == listing  # no sidecar files


@pytest.mark.parametrize("content", CORRUPT, ids=str)
@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_every_command_refuses_a_corrupt_file_untouched(chat, llm, tmp_path, command, content):
    folder = tmp_path / "dbdir"
    folder.mkdir()
    bad = folder / "chat.db"
    bad.write_bytes(CORRUPT[content])
    before, listing = bad.read_bytes(), {p.name for p in folder.iterdir()}
    p = subprocess.run([sys.executable, *COMMANDS[command], "--db", str(bad)], input="안녕\n".encode(),
                       capture_output=True, cwd=chat.tmp, env=chat.env, timeout=90)
    err = p.stderr.decode(errors="replace")
    assert_refused_untouched(p.returncode, err, bad, before, listing)
    assert "SQLite" in err or "데이터베이스" in err, err
    assert llm.requests == []


# -- a real database whose pages were scrambled ------------------------------------------------
# Header and schema intact, so it opens; only PRAGMA quick_check sees the damage. Before the check
# a chat on the "messages" case answered and wrote thousands of bytes into the damaged file.
SCRAMBLED = {"messages-page": "messages", "every-page-but-the-first": None,
             "old-schema-messages-page": "messages"}  # would be migrated first
WRITERS = {  # refused: exit 1, one line
    "chat": ["-m", "client", "--new"],
    "continue": ["-m", "client", "-c"],
    "delete": ["-m", "client", "delete", "thread-0"],
    "fork": ["-m", "client", "fork", "thread-0"],
    "init_db": [str(ROOT / "init_db.py")],
}
READERS = {  # read what can be read, write nothing
    "threads": ["-m", "client", "threads"],
    "export": ["-m", "client", "export", "thread-0"],
}


@pytest.mark.parametrize("damage", SCRAMBLED, ids=str)
@pytest.mark.parametrize("command", {**WRITERS, **READERS}, ids=str)
def test_a_scrambled_database_is_byte_identical_after_every_command(chat, llm, tmp_path, command, damage):
    from tests.faults.files import build_db, downgrade, marker_server, scramble, snapshot

    folder = tmp_path / "dbdir"
    folder.mkdir()
    db = folder / "chat.db"
    build_db(db)
    if damage.startswith("old-schema"):
        downgrade(db)
    assert {p.name for p in folder.iterdir()} == {"chat.db"}
    scramble(db, SCRAMBLED[damage])
    before = snapshot(folder)
    config, marker = marker_server(tmp_path)
    argv = [*{**WRITERS, **READERS}[command], "--db", str(db)]
    if command in ("chat", "continue"):
        argv += ["--mcp-config", str(config)]
    p = subprocess.run([sys.executable, *argv], input="안녕\n".encode(), capture_output=True, cwd=chat.tmp,
                       env={**chat.env, "MCP_CHAT_USER": "tester"}, timeout=120)
    err = p.stderr.decode(errors="replace")
    assert snapshot(folder) == before  # sha256 of the file, and no -wal/-shm/-lock/-journal beside it
    assert "Traceback" not in err
    if command in WRITERS:
        assert p.returncode == 1, err
        assert len(err.strip().splitlines()) == 1, err
        assert "SQLite" in err and "손상" in err, err
    elif p.returncode:
        assert p.returncode == 1 and len(err.strip().splitlines()) == 1, err
    assert llm.requests == []
    assert not marker.exists()  # refused before any MCP server was started


@pytest.mark.parametrize("command", READERS, ids=str)
def test_threads_and_export_never_upgrade_an_old_schema(chat, llm, tmp_path, command):
    """A sound database an older client left: read as it is, not migrated (a reader writes nothing)."""
    from tests.faults.files import build_db, downgrade, snapshot

    folder = tmp_path / "dbdir"
    folder.mkdir()
    db = folder / "chat.db"
    build_db(db)
    downgrade(db)
    before = snapshot(folder)
    p = subprocess.run([sys.executable, *READERS[command], "--db", str(db)], capture_output=True, cwd=chat.tmp,
                       env=chat.env, timeout=120)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert "질문 0" in p.stdout.decode()
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", {**WRITERS, **READERS}, ids=str)
def test_another_programs_database_is_refused_untouched(chat, llm, tmp_path, command):
    """A sound SQLite file with a `threads` table of another program (no record of our
    migrations): every command refuses it with one line; it is never migrated."""
    import sqlite3

    from tests.faults.files import snapshot

    folder = tmp_path / "dbdir"
    folder.mkdir()
    db = folder / "chat.db"
    con = sqlite3.connect(db)
    con.executescript("CREATE TABLE threads (id INTEGER PRIMARY KEY, subject TEXT); INSERT INTO threads VALUES (1, 'x');")
    con.close()
    before = snapshot(folder)
    p = subprocess.run([sys.executable, *{**WRITERS, **READERS}[command], "--db", str(db)], input="안녕\n".encode(),
                       capture_output=True, cwd=chat.tmp, env=chat.env, timeout=120)
    err = p.stderr.decode(errors="replace")
    assert p.returncode == 1, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "만들지 않은 테이블(threads)" in err, err
    assert snapshot(folder) == before
    assert llm.requests == []
