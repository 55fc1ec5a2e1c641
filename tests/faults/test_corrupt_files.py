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
