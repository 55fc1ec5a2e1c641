"""The database a folder brings is trusted by content (client/engine/trust_db.py), never by an inode.

The folder plays the attacker after the user trusted it and used it: a `git checkout` that writes
another database into the same inode, a `-wal` (or `-shm`, `-journal`) a later commit adds beside
the untouched main file, a file put in the database's place while a client of the user has it
open. The user's own writes through the client (turns, VACUUM, a second client of theirs running
meanwhile) are no change. The record lives in a real per-user config folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from client.core.trust import changes, record_of
from client.engine.store import open_store
from client.ui.env_settings import dirs
from client.ui.folder_trust import folder_offer, load_records, record_path, save_records, with_record
from tests.conftest import ROOT

pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A trusted folder whose ./checkpoint.db has one thread of the user's; the record in a config
    folder of its own."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".env").write_text("CLOVA_STUDIO_MODEL=HCX-007\n")
    asyncio.run(_write(proj / "checkpoint.db", "mine", "my question"))
    trust(proj)
    return proj


def records() -> Path:
    """The record in the config folder as the ui resolves it."""
    return record_path(dirs().config)


def trust(folder: Path) -> None:
    save_records(with_record(load_records(records()), record_of(folder_offer(folder, [], False))), records())


def check(folder: Path) -> list[str] | None:
    """What start-up compares (client/ui/trust.py settle)."""
    known = next((r for r in load_records(records()) if r.folder == os.path.realpath(folder)), None)
    return changes(folder_offer(folder, [], False, known), known)


async def _write(db: Path, thread: str, text: str, vacuum: bool = False) -> None:
    """A client's own writes, through the store as every command opens it."""
    store = await open_store(str(db), config=dirs().config)
    try:
        await store.create_thread(thread, "me")
        await store.append(thread, [HumanMessage(text, id=f"{thread}-{len(text)}")])
        if vacuum:
            await store.vacuum()
    finally:
        await store.close()


def threads_of(db: Path) -> list[str]:
    """What SQLite itself reads there now, -wal included (as -c would); read-only: nothing is
    folded into the main file by this look."""
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT thread_id FROM threads ORDER BY thread_id")]
    finally:
        con.close()


def planted(tmp_path: Path, like: Path) -> Path:
    """A copy of `like` that holds a planted thread besides."""
    copy = tmp_path / "planted" / like.name
    copy.parent.mkdir(exist_ok=True)
    shutil.copy(like, copy)
    asyncio.run(_write(copy, "planted", "planted question"))
    return copy


def test_the_users_own_writes_are_no_change(folder):
    db = folder / "checkpoint.db"
    asyncio.run(_write(db, "second", "another turn", vacuum=True))
    assert check(folder) == []
    asyncio.run(_write(db, "third", "and one more"))
    assert check(folder) == []
    assert threads_of(db) == ["mine", "second", "third"]


def test_another_database_in_the_same_inode_asks(folder, tmp_path):
    """`git checkout` of another version: ext4 gives the new file the freed inode; a `cp` over it
    keeps it outright. Either way the content differs."""
    db = folder / "checkpoint.db"
    ino = db.stat().st_ino
    other = planted(tmp_path, db)
    with open(db, "r+b") as f:  # the same inode, the planted bytes
        f.truncate(0)
        f.write(other.read_bytes())
    assert db.stat().st_ino == ino and "planted" in threads_of(db)
    assert check(folder) == [str(db.resolve())]


def test_a_checkout_with_the_same_bytes_is_the_same_database(folder, tmp_path):
    db = folder / "checkpoint.db"
    copy = tmp_path / "same.db"
    shutil.copy(db, copy)
    os.replace(copy, db)  # another inode, the very content the user trusted
    assert check(folder) == []


@pytest.mark.parametrize("side", ["-wal", "-shm", "-journal"])
def test_a_sidecar_added_later_asks(folder, tmp_path, side):
    """A later commit adds `checkpoint.db-wal` (a real one: the planted thread is in it) without
    touching the main file; `-shm` and `-journal` are covered the same way."""
    db = folder / "checkpoint.db"
    before = db.read_bytes()
    if side == "-wal":
        source = tmp_path / "wal" / "checkpoint.db"
        source.parent.mkdir()
        shutil.copy(db, source)
        con = sqlite3.connect(source)  # kept open: its -wal stays
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("INSERT INTO threads (thread_id, user_name, title, turns, created_at, updated_at) "
                    "VALUES ('planted', 'me', 'planted', 1, 0, 0)")
        con.commit()
        shutil.copy(f"{source}-wal", f"{db}-wal")
        con.close()
        assert db.read_bytes() == before and "planted" in threads_of(db)  # the attack is real
        assert check(folder) == [str(db.resolve())]
    else:
        Path(f"{db}{side}").write_bytes(b"\0" * 32768)
        assert check(folder) == [str(db.resolve())]


def test_a_changed_database_opened_anyway_is_not_sealed(folder, tmp_path):
    """`--db ./checkpoint.db` on a database a pull replaced: the user's writes do not make it trusted."""
    db = folder / "checkpoint.db"
    os.replace(planted(tmp_path, db), db)
    asyncio.run(_write(db, "later", "a turn on it"))
    assert check(folder) == [str(db.resolve())]


HOLDER = """
import asyncio, sys
from langchain_core.messages import HumanMessage
from client.engine.store import open_store
from client.ui.env_settings import dirs

async def main():
    store = await open_store(sys.argv[1], config=dirs().config)  # as every command opens it
    assert await store.lock_thread("busy")
    await store.create_thread("busy", "me")
    await store.append("busy", [HumanMessage("writing now", id="w1")])
    print("holding", flush=True)
    sys.stdin.readline()
    await store.close()
    print("closed", flush=True)

asyncio.run(main())
"""


def test_a_second_client_while_the_first_writes_is_not_asked(folder, tmp_path):
    """Another client of the user's has the database open (its -wal holds what it wrote): the main
    file being the one sealed counts as the same, and its close seals what it left. A file put in
    the main one's place meanwhile is not the one sealed."""
    db = folder / "checkpoint.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env, cwd=folder)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "holding"
        assert Path(f"{db}-wal").exists()
        assert check(folder) == []  # its writes are under way
        other = planted(tmp_path, db)
        saved = tmp_path / "saved.db"
        os.link(db, saved)  # keep the original reachable
        os.replace(other, db)  # a pull puts another file in its place while the client runs
        assert check(folder) == [str(db.resolve())]
        os.replace(saved, db)
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "closed"
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert check(folder) == []  # sealed by the last client out, its writes included
    assert "busy" in threads_of(db)


def test_no_reader_waits_on_a_fifo(tmp_path, monkeypatch):
    """A FIFO where a `.env`, a named file or a sidecar is expected is never opened for reading
    (nothing would ever write to it): the client's per-user .env, the folder's, the search
    server's `--env-file` and `./.env`, and the database's seal."""
    from client.ui.folder_trust import read_env_file, read_user_env
    from plumbing.trust_record import read_regular, sha256_file
    from server.envfile import load_env
    from server.limits import UsageError

    fifo = tmp_path / ".env"
    os.mkfifo(fifo)
    assert read_regular(fifo) is None and read_user_env(fifo) == {} and read_env_file(tmp_path) == (None, {})
    digest, st = sha256_file(fifo)
    assert digest is not None and st is None  # there, and not a file: never the same as a file
    with pytest.raises(UsageError):
        load_env(str(fifo))
    monkeypatch.chdir(tmp_path)
    assert load_env(None) is None
