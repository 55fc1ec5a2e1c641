"""A thread belongs to whoever made it (issue 50), on both backends: a fork or an import is the
user's who ran it, another user's thread is not written, and nothing one user says reaches
another's -c, first screen or memory.

The attacker is the other user of a shared database: alice forks bob's thread and writes in the
fork with -p (whose memory pass is left to the next start), the way that used to put alice's
words into bob's `-c` and, through bob's pending memory, into every new thread of bob's; alice
opens bob's thread directly; bob deletes his thread after alice forked it (his memory used to
pass to her fork, and her fork used to fold his turns).
"""

from __future__ import annotations

import json
import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from client.core.memory.policy import Bullet
from client.engine.forks import delete_thread, fork_thread
from client.engine.store import open_store

pytestmark = pytest.mark.storage  # the owner each backend writes

SECRET_WORDS = ("채식주의자", "hunter2")


def sent(llm) -> str:
    return json.dumps(llm.requests, ensure_ascii=False)


def current(r) -> str:
    return next(ln for ln in r.err.splitlines() if "현재 세션 ID:" in ln).split(":", 1)[1].strip()


def test_a_fork_of_another_users_thread_is_the_forkers_own(cli, llm):
    assert cli("--thread", "b1", "--user", "bob", input="나는 부산에 살아\n/memory\n").code == 0
    f = cli.sub("fork", "b1", "--name", "f1", "--user", "alice")
    assert f.code == 0 and f.out == "f1\n", f.err
    assert "다른 사용자(bob)" in f.err and "alice" in f.err  # not silent: whose it was, whose it is
    r = cli("--thread", "f1", "--user", "alice", "-p", "나는 채식주의자야. 내 비밀번호는 hunter2 야")
    assert r.code == 0, r.err
    llm.clear()
    r = cli("-c", "-p", "이어서", "--user", "bob")  # bob's latest thread is still his own
    assert r.code == 0 and current(r) == "b1", r.err
    r = cli("--new", "--user", "bob", input="/memory\n뭐 먹을까?\n")  # his memory, and what is pending of it
    assert r.code == 0, r.err
    assert not any(w in sent(llm) + r.out for w in SECRET_WORDS)
    llm.clear()
    r = cli("--new", "--user", "alice", input="/memory\n뭐 먹을까?\n")
    items = re.sub(r"\(세션 .*?, 턴 \d+\)", "", r.out)  # each item's source names the fork, titled as bob's was
    assert "채식주의자" in sent(llm) and "부산" not in sent(llm) + items  # hers only: bob's turns are not folded


def test_another_users_thread_is_not_written_and_a_copy_says_whose_it_was(cli, llm):
    assert cli("--thread", "b1", "--user", "bob", "--no-memory", input="나는 부산에 살아\n").code == 0
    r = cli("--thread", "b1", "--user", "alice", "--no-memory", input="끼어든 말\n")
    assert r.code == 1, r.err
    line = r.error_line()
    assert "b1" in line and "다른 사용자(bob)" in line and "--fork" in line, line
    assert "끼어든 말" not in sent(llm)
    r = cli("-r", "b1", "--fork", "--user", "alice", "--no-memory", input="사본에서\n")
    assert r.code == 0 and "다른 사용자(bob)" in r.err, r.err
    llm.clear()
    r = cli("-c", "-p", "이어서", "--user", "bob", "--no-memory")
    assert current(r) == "b1" and "사본에서" not in sent(llm)
    doc = json.loads(cli.sub("export", "b1", "--format", "json").out)
    assert "끼어든 말" not in json.dumps(doc, ensure_ascii=False) and "사본에서" not in json.dumps(doc, ensure_ascii=False)


def test_an_import_is_the_importers_own(cli, llm, tmp_path):
    conv = {"thread_id": "x", "title": "가져온 대화", "messages": [
        {"role": "user", "content": "가져온 질문"}, {"role": "assistant", "content": "가져온 답"}]}
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(conv, ensure_ascii=False), encoding="utf-8")
    assert cli("--thread", "b1", "--user", "bob", "--no-memory", input="내 질문\n").code == 0
    r = cli("import", str(path), "--user", "alice", "--db", cli.db, db=False)
    assert r.code == 0, r.err
    llm.clear()
    r = cli("-c", "-p", "이어서", "--user", "bob", "--no-memory")
    assert current(r) == "b1" and "가져온 질문" not in sent(llm)


async def test_deleting_a_forked_thread_hands_nothing_to_another_users_fork(db_url):
    """bob's memory stays bob's: his items go with his deleted thread, never to alice's fork, and
    her fork's watermark is not lowered to fold his turns into her memory."""
    store = await open_store(db_url)
    try:
        await store.create_thread("b1", "bob")
        await store.append("b1", [HumanMessage("나는 부산에 살아", id="h1"), AIMessage("네", id="a1"),
                                  HumanMessage("나는 축구를 좋아해", id="h2"), AIMessage("네", id="a2")])
        await store.memory_add("bob", [Bullet("부산에 산다", [1], 0.9, thread_id="b1")])
        await store.set_memory_turn("b1", 1)  # turn 2 not folded yet
        fork = await fork_thread(store, "b1", owner="alice", new_id="f1")
        assert (await store.get_thread(fork)).user_name == "alice"
        assert await store.memory_turn(fork) == 2  # bob's turns are not hers to fold
        assert await delete_thread(store, "b1")
        assert await store.memory_list("bob") == [] and await store.memory_list("alice") == []
        assert await store.memory_turn(fork) == 2
        assert await store.memory_pending("alice") == [] and await store.memory_pending("bob") == []
    finally:
        await store.close()
