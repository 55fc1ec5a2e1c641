"""The storage interface, proven the same on both backends (SQLite always,
PostgreSQL when TEST_POSTGRES_URL is set): migrations, transcript, pruning,
delete, memory, per-thread locks across processes; and no password shown."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from client.ui.i18n import t
from client.core.memory.policy import Bullet
from client.engine.store import StoreError, mask_url, open_store
from client.engine.forks import delete_thread, fork_thread
from client.core.pg_url import url_passwords
from client.core.secrets import redact_db_error
from tests.backends import PG_URL, count_rows, is_pg, query, tables
from tests.conftest import ROOT

pytestmark = pytest.mark.storage  # the store itself: both backends

HOLDER = """
import asyncio, sys
from client.engine.store import open_store
async def main():
    store = await open_store(sys.argv[1])
    print("locked" if await store.lock_thread(sys.argv[2]) else "busy", flush=True)
    sys.stdin.readline()
    await store.close()
asyncio.run(main())
"""


SCHEMA = {  # our tables' columns as every version so far made them, in order, on both backends
    "threads": ["thread_id", "user_name", "title", "turns", "created_at", "updated_at", "memory_turn", "parent_id",
                "parent_turn", "kind"],
    "messages": ["thread_id", "seq", "msg_id", "turn", "data", "created_at"],
    "usage": ["thread_id", "turn", "input_tokens", "output_tokens", "estimated_tokens", "created_at"],
    "memory": ["id", "user_name", "thread_id", "text", "score", "sources", "created_at", "updated_at", "rules"],
    "memory_notes": ["user_name", "note", "at"],
    "schema_migrations": ["version", "name", "applied_at"],
}
AS_VERSION_1 = ["DELETE FROM schema_migrations WHERE version > 1", "DROP TABLE memory", "DROP TABLE memory_notes",
                "DROP INDEX threads_parent", *(f"ALTER TABLE threads DROP COLUMN {c}"
                                               for c in ("parent_id", "parent_turn", "kind", "memory_turn"))]


def columns(db: str, name: str) -> list[str]:
    if is_pg(db):
        return [r[0] for r in query(db, "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                                        "current_schema() AND table_name = ? ORDER BY ordinal_position", (name,))]
    return [r[1] for r in query(db, f"PRAGMA table_info({name})")]


async def test_one_list_of_migrations_makes_the_same_tables_on_both_backends(db_url):
    await (await open_store(db_url)).close()
    for name, cols in SCHEMA.items():  # Postgres numbers usage rows itself; SQLite has rowid
        assert columns(db_url, name) == (["id", *cols] if is_pg(db_url) and name == "usage" else cols), name


async def test_a_version_1_database_upgrades_keeping_its_rows(db_url):
    """As the oldest client left it (no memory, no lineage): the next start applies 2, 3 and 4, each
    once, and every row stays; the new columns hold their defaults, and a fork of it works."""
    store = await open_store(db_url)
    try:
        await store.create_thread("old", "kim")
        await store.append("old", [HumanMessage("질문", id="h1"), AIMessage("답", id="a1")])
    finally:
        await store.close()
    for sql in AS_VERSION_1:
        query(db_url, sql)
    for _ in range(2):
        store = await open_store(db_url)
        try:
            info = await store.get_thread("old")
            assert (info.user_name, info.turns, info.parent_id, info.memory_turn) == ("kim", 1, "", 0)
            assert [m.id for _, m in await store.transcript("old")] == ["h1", "a1"]
            assert await store.memory_list("kim") == []
        finally:
            await store.close()
    assert [r[0] for r in query(db_url, "SELECT version FROM schema_migrations ORDER BY version")] == [1, 2, 3, 4]
    assert columns(db_url, "threads") == SCHEMA["threads"]
    store = await open_store(db_url)
    try:
        assert (await store.get_thread(await fork_thread(store, "old", owner="kim"))).parent_id == "old"
    finally:
        await store.close()


async def test_setup_is_idempotent_and_recorded(db_url):
    for _ in range(2):
        store = await open_store(db_url)
        await store.close()
    assert [r[0] for r in query(db_url, "SELECT version FROM schema_migrations ORDER BY version")] == [1, 2, 3, 4]


async def test_another_programs_tables_are_never_migrated(db_url):
    """A database that has a `threads` table but no record of our migrations belongs to another
    program: refused with one line, nothing created in it (not even the saver's tables)."""
    query(db_url, "CREATE TABLE threads (id INTEGER PRIMARY KEY, subject TEXT)")
    query(db_url, "INSERT INTO threads VALUES (1, 'theirs')")
    before = tables(db_url)
    snapshot = None if is_pg(db_url) else open(db_url, "rb").read()
    for readonly in (False, True):
        with pytest.raises(StoreError) as e:
            await open_store(db_url, readonly=readonly)
        assert e.value.key == "db_foreign" and e.value.fmt["tables"] == "threads"
        assert "threads" in t(e.value.key, **e.value.fmt)
    assert tables(db_url) == before
    if snapshot is not None:
        assert open(db_url, "rb").read() == snapshot
    assert query(db_url, "SELECT subject FROM threads") == [("theirs",)]


def test_first_setup_by_several_processes_at_once(db_url):
    """Four processes create the schema of a new database at the same moment."""
    code = "import asyncio, sys\nfrom client.engine.store import open_store\n" \
           "async def main():\n    await (await open_store(sys.argv[1])).close()\nasyncio.run(main())\n"
    procs = [subprocess.Popen([sys.executable, "-c", code, db_url], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}) for _ in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert [r[0] for r in query(db_url, "SELECT version FROM schema_migrations ORDER BY version")] == [1, 2, 3, 4]


async def test_transcript_turns_title_and_known_ids(db_url):
    store = await open_store(db_url)
    try:
        msgs = [SystemMessage("시스템", id="s"), HumanMessage("첫   질문입니다", id="u1"), AIMessage("답", id="a1")]
        assert await store.append("t", msgs) == 1
        assert await store.append("t", [HumanMessage("둘째", id="u2"), AIMessage("답2", id="a2")]) == 2
        assert await store.append("t", [AIMessage("답2", id="a2")]) == 2  # already stored: ignored
        assert await store.known_ids("t", ["u1", "zz", "a2", ""]) == {"u1", "a2"}
        rows = await store.transcript("t")
        assert [(n, m.id) for n, m in rows] == [(0, "s"), (1, "u1"), (1, "a1"), (2, "u2"), (2, "a2")]
        info = await store.get_thread("t")
        assert info is not None and info.turns == 2 and info.title == "첫 질문입니다"
        assert [i.thread_id for i in await store.list_threads()] == ["t"]
    finally:
        await store.close()


async def test_a_tool_turn_is_stored_and_loaded_in_order(db_url):
    """What tests/e2e/test_chat.py proves through the CLI on SQLite, for each backend's adapter: a
    turn with a tool pair comes back from the checkpointer and the transcript in order, the call
    and its result still bound by id."""
    from langchain_core.messages import ToolMessage
    from langgraph.graph import END, START, MessagesState, StateGraph

    call = {"name": "web_search", "args": {"query": "서울 맛집"}, "id": "call_1", "type": "tool_call"}
    turn = [HumanMessage("서울 맛집 검색해줘", id="u1"), AIMessage("", tool_calls=[call], id="a1"),
            ToolMessage("검색 결과: 서울 맛집", tool_call_id="call_1", id="t1"), AIMessage("요약", id="a2")]
    g = StateGraph(MessagesState)
    g.add_node("turn", lambda s: {"messages": turn[1:]})
    g.add_edge(START, "turn")
    g.add_edge("turn", END)
    store = await open_store(db_url)
    try:
        app = g.compile(checkpointer=store.checkpointer)
        config = {"configurable": {"thread_id": "tools"}}
        await app.ainvoke({"messages": [turn[0]]}, config)
        assert await store.append("tools", turn) == 1
        for loaded in ((await app.aget_state(config)).values["messages"], [m for _, m in await store.transcript("tools")]):
            assert [(type(m).__name__, m.id) for m in loaded] == [(type(m).__name__, m.id) for m in turn]
            assert loaded[1].tool_calls[0]["id"] == loaded[2].tool_call_id == "call_1"
            assert loaded[1].tool_calls[0]["args"] == {"query": "서울 맛집"}
    finally:
        await store.close()


async def _graph_turns(store, thread: str, n: int):  # -> the compiled graph
    from langgraph.graph import END, START, MessagesState, StateGraph

    g = StateGraph(MessagesState)
    g.add_node("echo", lambda s: {"messages": [AIMessage(f"답 {len(s['messages'])}")]})
    g.add_edge(START, "echo")
    g.add_edge("echo", END)
    app = g.compile(checkpointer=store.checkpointer)
    for i in range(n):
        await app.ainvoke({"messages": [HumanMessage(f"질문 {i}")]}, {"configurable": {"thread_id": thread}})
    return app


async def test_prune_keeps_latest_checkpoint_and_the_blobs_it_references(db_url):
    store = await open_store(db_url)
    try:
        app = await _graph_turns(store, "p", 4)
        await _graph_turns(store, "other", 2)
        assert count_rows(db_url, "checkpoints", "p") > 1
        assert await store.prune_checkpoints("p") > 0
        assert count_rows(db_url, "checkpoints", "p") == 1
        assert await store.prune_checkpoints("p") == 0
        state = await app.aget_state({"configurable": {"thread_id": "p"}})
        assert len(state.values["messages"]) == 8  # everything still loads from the one checkpoint
        assert count_rows(db_url, "checkpoints", "other") > 1  # other threads untouched
        if is_pg(db_url):
            orphans = query(db_url, """SELECT count(*) FROM checkpoint_blobs b WHERE b.thread_id='p' AND NOT EXISTS (
                SELECT 1 FROM checkpoints c, jsonb_each_text(c.checkpoint->'channel_versions') v
                WHERE c.thread_id=b.thread_id AND v.key=b.channel AND v.value=b.version)""")[0][0]
            assert orphans == 0
            assert count_rows(db_url, "blobs", "p") >= 1
    finally:
        await store.close()


async def test_delete_removes_every_row_of_the_thread(db_url):
    store = await open_store(db_url)
    try:
        for tid in ("gone", "kept"):
            await store.create_thread(tid, "u")
            await _graph_turns(store, tid, 2)
            await store.append(tid, [HumanMessage("질문", id=f"{tid}-1")])
            await store.memory_add("u", [Bullet("사실", [1], 0.9, thread_id=tid)])
        assert await delete_thread(store, "gone") is True
        assert await delete_thread(store, "gone") is False
        names = ["threads", "messages", "memory", "checkpoints", "writes"] + (["blobs"] if is_pg(db_url) else [])
        for name in names:
            assert count_rows(db_url, name, "gone") == 0, name
        assert count_rows(db_url, "messages", "kept") == 1 and count_rows(db_url, "memory", "kept") == 1
    finally:
        await store.close()


async def test_memory_roundtrip(db_url):
    store = await open_store(db_url)
    try:
        await store.create_thread("m", "u")
        await store.memory_add("u", [Bullet("가", [1], 0.9, thread_id="m"), Bullet("나", [2], None, thread_id="m")])
        items = await store.memory_list("u")
        assert [(b.text, b.sources, b.score) for b in items] == [("가", [1], 0.9), ("나", [2], None)]
        items[1].score, items[1].sources = 0.7, [2, 3]
        await store.memory_update([items[1]])
        assert (await store.memory_list("u"))[1].sources == [2, 3]
        assert await store.memory_delete("u", items[0].id) and not await store.memory_delete("u", items[0].id)
        assert await store.memory_list("nobody") == []
        await store.set_memory_turn("m", 4)
        assert await store.memory_turn("m") == 4
    finally:
        await store.close()


async def test_memory_rows_checked_once_against_the_rules_and_one_time_notes(db_url):
    """Items an older version kept (rules 0) are listed until checked; a check drops some and marks
    the rest, for that user alone; a one-time note is new once (issue 49)."""
    store = await open_store(db_url)
    try:
        await store.create_thread("m", "u")
        await store.memory_add("u", [Bullet("사용자의 말: clear", [1], 0.7, thread_id="m"), Bullet("사실", [2], 0.9, thread_id="m")])
        await store.memory_add("v", [Bullet("사용자의 말: ok", [1], 0.7, thread_id="m")])
        assert await store.memory_unchecked("u") == []  # new rows are checked against the current rules
        query(db_url, "UPDATE memory SET rules = 0")  # as an older version left them
        junk, fact = await store.memory_unchecked("u")
        await store.memory_checked("u", [junk.id], [fact.id])
        assert [b.text for b in await store.memory_list("u")] == ["사실"] and await store.memory_unchecked("u") == []
        assert [b.text for b in await store.memory_unchecked("v")] == ["사용자의 말: ok"]  # another user's: untouched
        await store.memory_checked("u", [(await store.memory_unchecked("v"))[0].id], [])  # not u's row: nothing goes
        assert len(await store.memory_list("v")) == 1
        assert await store.memory_note("u", "n") and not await store.memory_note("u", "n") and await store.memory_note("v", "n")
    finally:
        await store.close()


def _holder(db: str, thread: str) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", HOLDER, db, thread], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.stdout is not None and p.stdout.readline().strip() == "locked"
    return p


async def test_thread_lock_is_exclusive_across_processes_and_dies_with_the_holder(db_url):
    await (await open_store(db_url)).close()  # schema first
    holder = _holder(db_url, "x")
    store = await open_store(db_url)
    try:
        assert await store.lock_thread("x") is False
        assert await store.lock_thread("y") is True and await store.lock_thread("y") is True
        with pytest.raises(StoreError) as e:
            await delete_thread(store, "x")
        assert e.value.key == "thread_busy" and "x" in t(e.value.key, **e.value.fmt)
        holder.kill()  # SIGKILL: no clean-up code runs
        holder.wait(timeout=10)
        end = time.monotonic() + 10
        while not await store.lock_thread("x"):
            assert time.monotonic() < end, "lock outlived its holder"
            time.sleep(0.1)
        await store.unlock_thread("y")
    finally:
        await store.close()
    holder = _holder(db_url, "y")  # closing the store released everything it held
    holder.communicate("\n", timeout=30)


@pytest.mark.parametrize("url, shown", [
    ("postgresql://bob:s3cret@db.example:5432/chat", "postgresql://bob:***@db.example:5432/chat"),
    ("postgres://bob:p%40ss%3Aw@h/db?sslmode=require", "postgres://bob:***@h/db?sslmode=require"),
    ("postgresql://bob@h/db?password=hunter2&x=1", "postgresql://bob@h/db?password=***&x=1"),
    ("postgresql://h/db", "postgresql://h/db"),
    ("postgresql://bob:@h/db", "postgresql://bob:@h/db"),
    ("chat.db", "chat.db"),
])
def test_mask_url(url, shown):
    assert mask_url(url) == shown


def test_redact_removes_raw_and_decoded_password():
    url = "postgresql://bob:p%40ss@h/db"
    assert set(url_passwords(url)) == {"p%40ss", "p@ss"}
    text = redact_db_error(f'connection to "{url}" failed for p@ss', url)
    assert "p@ss" not in text and "p%40ss" not in text and "bob:***@h" in text


pg_only = pytest.mark.skipif(not PG_URL, reason="needs TEST_POSTGRES_URL (scripts/pg_start.sh)")
WRONG = "Wr0ng-PassWord-9f3e"


def _bad_urls() -> list[str]:
    from urllib.parse import urlsplit

    u = urlsplit(PG_URL)
    return [
        f"postgresql://{u.username}:{WRONG}@{u.hostname}:{u.port}{u.path}",  # bad credentials
        f"postgresql://{u.username}:{WRONG}@127.0.0.1:1{u.path}",  # nothing listens
        f"postgresql://{u.username}:{WRONG}@{u.hostname}:{u.port}/no_such_db_x",
        f"postgresql://{u.username}:{WRONG}@{u.hostname}:{u.port}{u.path}?sslmode=bogus",  # bad option
    ]


@pg_only
async def test_store_errors_never_carry_the_password():
    for url in _bad_urls():
        with pytest.raises(StoreError) as e:
            await open_store(url)
        text = t(e.value.key, **e.value.fmt)
        assert WRONG not in text and "***" in text, text


@pytest.mark.postgres_only
@pytest.mark.parametrize("argv", [["--new"], ["--new", "--debug"], ["threads"], ["delete", "x", "--debug"]])
def test_cli_never_prints_the_password(cli, argv):  # the command line in this process (tests/cli.py)
    for url in _bad_urls()[:2]:
        r = cli(*argv, "--db", url, input="안녕\n", db=False)
        assert r.code == 1, r.err
        assert WRONG not in r.out + r.err
        assert "***" in r.err and "Traceback" not in r.err
        assert len(r.err.strip().splitlines()) == 1


@pytest.mark.postgres_only
def test_init_db_and_chat_with_a_good_url_show_it_masked(cli, db_url):
    import init_db

    p = cli.run(init_db.main, "--db", db_url)
    pw = url_passwords(db_url)[0]
    assert p.code == 0 and pw not in p.out + p.err and "***" in p.out
    r = cli("--new", "--debug", input="안녕\n")
    assert r.code == 0, r.err
    assert pw not in r.out + r.err
