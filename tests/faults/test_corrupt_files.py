"""A --db file that is not a readable database: every command refuses it the same way
(the chat itself: tests/e2e/test_chat.py and tests/faults/test_tools_and_input.py).

Exit 1, one line on stderr, no traceback, the file byte for byte as it was, and no new
file next to it (no `-lock`, `-wal`, `-shm` or `-journal` sidecar). Every command runs in this
process (tests/cli.py): `mcp-chat ...` through client.ui.cli.main, init_db.py through its main.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli import Result

pytestmark = pytest.mark.sqlite_only  # file behaviour

CORRUPT = {
    "bad-pages": b"SQLite format 3\x00" + b"\x13" * 4000,  # a SQLite header over garbage
    "text": b"this is not sqlite\n" * 10,  # not a database at all
}

INIT_DB = "init_db.py"
COMMANDS = {
    "threads": ["threads"],
    "export": ["export", "t1"],
    "delete": ["delete", "t1"],
    "init_db": [INIT_DB],
}


def run(cli, argv: list[str], db: Path, input: str = "", env: dict | None = None) -> Result:
    """`mcp-chat ARGV --db DB`, or `python init_db.py --db DB`, in this process."""
    if argv[:1] == [INIT_DB]:
        import init_db

        return cli.run(init_db.main, *argv[1:], "--db", str(db), input=input, env=env)
    return cli(*argv, "--db", str(db), input=input, env=env, db=False)


def assert_refused_untouched(code: int, err: str, bad: Path, before: bytes, listing: set[str]) -> None:
    assert code == 1, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert bad.read_bytes() == before
    assert {p.name for p in bad.parent.iterdir()} == listing  # no sidecar files


@pytest.mark.parametrize("content", CORRUPT, ids=str)
@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_every_command_refuses_a_corrupt_file_untouched(cli, llm, tmp_path, command, content):
    folder = tmp_path / "dbdir"
    folder.mkdir()
    bad = folder / "chat.db"
    bad.write_bytes(CORRUPT[content])
    before, listing = bad.read_bytes(), {p.name for p in folder.iterdir()}
    p = run(cli, COMMANDS[command], bad, input="안녕\n")
    err = p.err
    assert_refused_untouched(p.code, err, bad, before, listing)
    assert "SQLite" in err or "데이터베이스" in err, err
    assert llm.requests == []


# -- a real database whose pages were scrambled ------------------------------------------------
# Header and schema intact, so it opens; only PRAGMA quick_check sees the damage. Before the check
# a chat on the "messages" case answered and wrote thousands of bytes into the damaged file.
SCRAMBLED = {"messages-page": "messages", "every-page-but-the-first": None,
             "old-schema-messages-page": "messages"}  # would be migrated first
WRITERS = {  # refused: exit 1, one line
    "chat": ["--new"],
    "continue": ["-c"],
    "delete": ["delete", "thread-0"],
    "fork": ["fork", "thread-0"],
    "init_db": [INIT_DB],
}
READERS = {  # read what can be read, write nothing
    "threads": ["threads"],
    "export": ["export", "thread-0"],
}


@pytest.mark.parametrize("damage", SCRAMBLED, ids=str)
@pytest.mark.parametrize("command", {**WRITERS, **READERS}, ids=str)
def test_a_scrambled_database_is_byte_identical_after_every_command(cli, llm, tmp_path, command, damage):
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
    argv = [*{**WRITERS, **READERS}[command]]
    if command in ("chat", "continue"):
        argv += ["--mcp-config", str(config)]
    p = run(cli, argv, db, input="안녕\n", env={"MCP_CHAT_USER": "tester"})
    err = p.err
    assert snapshot(folder) == before  # sha256 of the file, and no -wal/-shm/-lock/-journal beside it
    assert "Traceback" not in err
    if command in WRITERS:
        assert p.code == 1, err
        assert len(err.strip().splitlines()) == 1, err
        assert "SQLite" in err and "손상" in err, err
    elif p.code:
        assert p.code == 1 and len(err.strip().splitlines()) == 1, err
    assert llm.requests == []
    assert not marker.exists()  # refused before any MCP server was started


@pytest.mark.parametrize("command", READERS, ids=str)
def test_threads_and_export_never_upgrade_an_old_schema(cli, llm, tmp_path, command):
    """A sound database an older client left: read as it is, not migrated (a reader writes nothing)."""
    from tests.faults.files import build_db, downgrade, snapshot

    folder = tmp_path / "dbdir"
    folder.mkdir()
    db = folder / "chat.db"
    build_db(db)
    downgrade(db)
    before = snapshot(folder)
    p = run(cli, READERS[command], db)
    assert p.code == 0, p.err
    assert "질문 0" in p.out
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", {**WRITERS, **READERS}, ids=str)
def test_another_programs_database_is_refused_untouched(cli, llm, tmp_path, command):
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
    p = run(cli, {**WRITERS, **READERS}[command], db, input="안녕\n")
    err = p.err
    assert p.code == 1, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "만들지 않은 테이블(threads)" in err, err
    assert snapshot(folder) == before
    assert llm.requests == []
