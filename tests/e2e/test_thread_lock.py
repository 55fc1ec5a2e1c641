"""One live client per thread on PostgreSQL, across replicas and machines (issue 40): the claim is a
session advisory lock on a connection of its own. A client whose lock connection was lost (server
restart, network) claims its thread again before its next turn writes, or, when another client has
taken the thread meanwhile, sends nothing and says so. The process-level checks (a second client
refused, a SIGKILLed holder) are in test_postgres_clients.py, on both backends."""

from __future__ import annotations

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.engine.events import Refused
from client.engine.store import open_store
from tests.backends import query
from tests.conftest import TEST_KEY
from tests.sessions import Sessions, run_turn

pytestmark = [pytest.mark.storage, pytest.mark.postgres_only]


@pytest.fixture
async def session(db_url, llm):
    opened = Sessions()
    s = await opened.open(Settings(db=db_url, api_key=TEST_KEY, base_url=llm.base_url, model="stub", user="kim",
                                   max_input_tokens=8_000, context=ContextSettings("none", 5, 5)))
    yield s
    await opened.close()


def cut_lock_connection(db: str, store) -> None:
    """The server ends the store's lock connection, as a restart or a dead network would."""
    pid = store.lock_conn.info.backend_pid
    query(db, "SELECT pg_terminate_backend(?)", (pid,))


async def test_the_lock_connection_keeps_alive_on_both_ends(db_url, session):
    cur = await session.store.lock_conn.execute("SHOW tcp_keepalives_idle")
    assert (await cur.fetchone())[0] in ("10", "10s")  # a vanished machine's claim ends within ~25 s


async def test_a_lost_lock_connection_claims_the_thread_again(db_url, llm, session):
    await session.open("t")
    await run_turn(session, "첫 질문")
    cut_lock_connection(db_url, session.store)
    await run_turn(session, "둘째 질문")  # claimed again before it wrote
    other = await open_store(db_url)
    try:
        assert not await other.lock_thread("t")  # and held: another client is refused
    finally:
        await other.close()


async def test_a_thread_taken_while_the_connection_was_lost_sends_nothing(db_url, llm, session):
    await session.open("t")
    await run_turn(session, "첫 질문")
    cut_lock_connection(db_url, session.store)
    other = await open_store(db_url)
    try:
        assert await other.lock_thread("t")  # the claim died with the connection: another client takes it
        sent = len(llm.requests)
        events = [ev async for ev in session.turn("끼어든 질문")]
        assert [type(ev) for ev in events] == [Refused] and events[0].key == "thread_lost"
        assert len(llm.requests) == sent  # nothing reached the model
        transcript = await other.transcript("t")
        assert "끼어든 질문" not in [m.content for _, m in transcript]  # nor the database
    finally:
        await other.close()
