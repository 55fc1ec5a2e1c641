"""Helpers for tests on real database files: build one with the client's own store, scramble its
pages, take a snapshot of a folder (names and sha256), run the client as a user without write
rights, and a stdio MCP server that leaves a marker when it is started."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pwd
import random
import sqlite3
import tempfile
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage


def build_db(path: Path, threads: int = 3, user: str = "tester") -> list[str]:
    """A database written by the client's store: `threads` threads of one turn each."""
    from client.engine.store import open_store

    async def go() -> list[str]:
        store = await open_store(str(path))
        ids = []
        try:
            for i in range(threads):
                tid = f"thread-{i}"
                await store.create_thread(tid, user)
                await store.append(tid, [HumanMessage(f"질문 {i}", id=f"h{i}"), AIMessage(f"답변 {i} " * 30, id=f"a{i}")])
                ids.append(tid)
        finally:
            await store.close()
        return ids

    return asyncio.run(go())


def downgrade(path: Path) -> None:
    """Back to schema version 1, as an older client left it (no memory table, no thread lineage):
    the next writer migrates it."""
    con = sqlite3.connect(path)
    try:
        con.executescript("DELETE FROM schema_migrations WHERE version IN (2, 3, 4); DROP TABLE memory; DROP TABLE memory_notes; "
                          "DROP INDEX threads_parent; ALTER TABLE threads DROP COLUMN parent_id; "
                          "ALTER TABLE threads DROP COLUMN parent_turn; ALTER TABLE threads DROP COLUMN kind; "
                          "ALTER TABLE threads DROP COLUMN memory_turn; VACUUM;")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)


def scramble(path: Path, table: str | None = None, seed: int = 7) -> None:
    """Random bytes over the root page of `table`, or over every page after the first (the header
    and the schema stay: the file still looks like a SQLite database)."""
    con = sqlite3.connect(path)
    try:
        size = con.execute("PRAGMA page_size").fetchone()[0]
        count = con.execute("PRAGMA page_count").fetchone()[0]
        pages = [con.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (table,)).fetchone()[0]] if table \
            else list(range(2, count + 1))
    finally:
        con.close()
    data = bytearray(path.read_bytes())
    rnd = random.Random(seed)
    for page in pages:
        for i in range((page - 1) * size, page * size):
            data[i] = rnd.randrange(256)
    path.write_bytes(bytes(data))


def snapshot(folder: Path) -> dict[str, str]:
    """name -> sha256 of every entry of the folder (a new sidecar file shows as a new name)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.iterdir())}


def marker_server(folder: Path) -> tuple[Path, Path]:
    """(an --mcp-config file, the marker its one stdio server creates as soon as it is started)."""
    marker = folder / "mcp-server-started"
    config = folder / "marker-mcp.json"
    config.write_text(json.dumps({"mcpServers": {"marker": {
        "command": "/bin/sh", "args": ["-c", f": > '{marker}'; exec sleep 60"]}}}), encoding="utf-8")
    return config, marker


def unprivileged_ids(tmp_path: Path) -> tuple[tuple[int, int] | None, Path]:
    """((uid, gid) or None, a home folder) for a run without write rights, in this process
    (tests/cli.py `as_user`): root ignores file and folder permissions, so as root the run gets
    `nobody`'s ids and a home of its own; as anyone else it runs as that user (None)."""
    if os.geteuid() != 0:
        return None, tmp_path
    nobody = pwd.getpwnam("nobody")
    home = Path(tempfile.mkdtemp(prefix="mcp-chat-nobody-"))
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    return (nobody.pw_uid, nobody.pw_gid), home


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]
