"""Long-term memory across threads, on the wire. The default scorer is the shipped
local one: no test here but the `--memory-scorer llm` ones may see a scoring request.

Memory passes run in the background and an exit does not wait for them (issue 27): a run whose
pass must be complete before the test looks (requests counted, rows in the database) ends
with `/memory`, which waits for the passes under way, as a user asking to see memory would.

The command line in this process (tests/cli.py), on SQLite: the memory rows on PostgreSQL are
tests/e2e/test_postgres_store.py's (round trip, delete)."""

from __future__ import annotations

import re

import pytest

from client.engine.memory.scorer import load
from tests.backends import count_rows
from tests.conftest import thread_id_of


def scoring_requests(llm) -> list[dict]:
    return [q for q in llm.plain_requests() if "유용성" in q["messages"][0]["content"]]


LLM_SCORER_TESTS = {"test_llm_scorer_makes_one_scoring_request", "test_scoring_failure_keeps_bullets_unscored"}


@pytest.fixture(autouse=True)
def no_scoring_request_unless_llm(request, llm, monkeypatch):
    """The local scorer makes no model call: the recording stub must see none, also
    before a test clears it."""
    seen: list[dict] = []
    clear = llm.clear

    def clear_but_keep_scoring() -> None:
        seen.extend(scoring_requests(llm))
        clear()

    monkeypatch.setattr(llm, "clear", clear_but_keep_scoring)
    yield
    if request.node.originalname not in LLM_SCORER_TESTS:
        assert seen + scoring_requests(llm) == []


def system_of(req: dict) -> str:
    assert req["messages"][0]["role"] == "system"
    return req["messages"][0]["content"]


def test_fact_reaches_next_thread_of_same_user_only(cli, llm):
    r = cli("--thread", "a", "--user", "minji", input="나는 채식주의자야\n오늘 몇 시야?\n/memory\n")
    assert r.code == 0, r.err
    assert "장기 기억" in r.err  # the memory update line: a status line
    extract = [q for q in llm.plain_requests() if "장기 기억 후보" in q["messages"][0]["content"]]
    assert len(extract) == 1 and "tools" not in extract[0]  # a question-only turn asks for nothing
    assert "어시스턴트" not in extract[0]["messages"][-1]["content"]  # the extractor reads the user's words
    assert len(llm.plain_requests()) == 1  # extraction only: scored locally
    llm.clear()
    cli("--new", "--user", "minji", input="뭐 먹을까?\n")
    system = system_of(llm.chat_requests()[0])
    assert "[장기 기억]" in system and "채식주의자" in system
    assert "오늘 몇 시야" not in system  # chit-chat scored low, dropped
    llm.clear()
    cli("--new", "--user", "other", input="뭐 먹을까?\n")
    assert "채식주의자" not in system_of(llm.chat_requests()[0])


def test_resumed_thread_does_not_get_memory_reinjected(cli, llm):
    cli("--thread", "x", "--user", "u1", input="나는 서울에 살아\n")
    cli("--thread", "y", "--user", "u1", input="안녕\n")
    llm.clear()
    cli("--thread", "x", "--user", "u1", input="다시\n")
    assert "[장기 기억]" not in system_of(llm.chat_requests()[0])  # stored once at creation


def test_memory_commands_and_forget(cli, llm):
    cli("--thread", "m1", "--user", "u2", input="나는 고양이를 좋아해\n")  # its pass may be left to the next start
    r = cli("--thread", "m2", "--user", "u2", input="/memory\n/forget 1\n/memory\n/forget 9\n")
    assert "고양이를 좋아해" in r.out
    assert f"[{load().score('나는 고양이를 좋아해'):.2f}]" in r.out  # the local scorer's score
    assert "삭제했습니다" in r.out
    assert "저장된 장기 기억이 없습니다" in r.out
    assert "9번이 없습니다" in r.out + r.err


def test_no_memory_flag(cli, llm):
    cli("--thread", "n1", "--user", "u3", "--no-memory", input="나는 바다를 좋아해\n")
    assert not any("장기 기억 후보" in q["messages"][0]["content"] for q in llm.plain_requests())
    cli("--thread", "n2", "--user", "u3", input="나는 산을 좋아해\n")
    llm.clear()
    cli("--new", "--user", "u3", "--no-memory", input="안녕\n")
    assert "[장기 기억]" not in system_of(llm.chat_requests()[0])


def test_delete_removes_what_the_thread_contributed(cli, llm):
    cli("--thread", "d1", "--user", "u4", input="나는 축구를 좋아해\n/memory\n")
    assert count_rows(cli.db, "memory", "d1") == 1
    assert cli.sub("delete", "d1").code == 0
    assert count_rows(cli.db, "memory") == 0


def test_llm_scorer_makes_one_scoring_request(cli, llm):
    cli("--thread", "l1", "--user", "u7", "--memory-scorer", "llm", input="나는 고양이를 좋아해\n/memory\n")
    assert len(scoring_requests(llm)) == 1
    r = cli("--thread", "l2", "--user", "u7", "--memory-scorer", "llm", input="/memory\n")
    assert "[0.90] 나는 고양이를 좋아해" in r.out  # the stub judge's score


def test_scoring_failure_keeps_bullets_unscored(cli, llm):
    llm.push({"text": "답"})  # the chat turn
    llm.push({"text": "- [1] 사용자는 파이썬 개발자다", "for": "memory"})  # extraction
    llm.push({"text": "엉뚱한 답", "for": "memory"}, {"text": "또 엉뚱한 답", "for": "memory"})  # scoring, then its one retry
    r = cli("--thread", "s1", "--user", "u5", "--memory-scorer", "llm", input="나는 파이썬 개발자야\n/memory\n")
    assert "점수 없이" in r.out + r.err
    r = cli("--thread", "s2", "--user", "u5", input="/memory\n")
    assert "[-] 사용자는 파이썬 개발자다" in r.out


def test_second_update_only_reads_new_turns(cli, llm):
    cli("--thread", "inc", "--user", "u6", input="나는 김치를 좋아해\n/memory\n")
    llm.clear()
    cli("--thread", "inc", "--user", "u6", input="나는 라면도 좋아해\n/memory\n")
    extract = [q for q in llm.plain_requests() if "장기 기억 후보" in q["messages"][0]["content"]]
    body = extract[0]["messages"][-1]["content"]
    assert "라면" in body and "김치" not in body
    assert thread_id_of(cli("--new", "--user", "u6", input="").err)


@pytest.mark.timeout(300)  # five client runs
def test_memory_commands_and_delete_touch_only_their_own_user(cli, llm):
    cli("--thread", "k1", "--user", "kim", input="나는 고양이를 좋아해\n/memory\n")  # kim's memory first (lowest ids)
    cli("--thread", "l1", "--user", "lee", input="나는 강아지를 좋아해\n")  # lee's pass: maybe at lee's next start
    r = cli("--thread", "l2", "--user", "lee", input="/memory\n/forget 1\n/memory\n나는 축구를 좋아해\n/memory\n")
    assert r.code == 0, r.err
    listed = r.out.split("삭제했습니다")[0]
    assert "강아지를 좋아해" in listed and "고양이" not in listed  # lee's list is lee's alone
    assert "저장된 장기 기억이 없습니다" in r.out  # /forget 1 took lee's item, not kim's
    assert count_rows(cli.db, "memory", "l2") == 1
    assert cli.sub("delete", "l2").code == 0  # lee's thread and what it contributed
    assert count_rows(cli.db, "memory", "l2") == 0
    assert count_rows(cli.db, "memory", "k1") == 1  # kim's memory untouched by all of lee's commands
    llm.clear()
    r = cli("--new", "--user", "kim", input="/memory\n뭐 할까?\n")
    assert "고양이를 좋아해" in r.out and "강아지" not in r.out and "축구" not in r.out
    system = system_of(llm.chat_requests()[0])
    assert "고양이" in system and "강아지" not in system and "축구" not in system
