"""Ctrl-C (SIGINT) and SIGKILL: a turn is cancelled alone; nothing half-done is stored.

Processes by nature (signals), on SQLite: a turn is written whole at its end by the store, whose
PostgreSQL adapter (transactions, a lock that dies with its holder) test_postgres_store.py proves."""

from __future__ import annotations

import signal

import pytest

from tests.conftest import roles, user_texts
from tests.faults.conftest import wait_for

pytestmark = pytest.mark.cold  # signals to a cold-started process (tests/launch proves the forked one)

# The stub streams its answer in 8-character pieces spread over 20 s: with this much
# text the first piece shows within about a second and the rest takes the 20 s.
SLOW = "[slow:20] " + "가" * 200 + " "


def test_ctrl_c_while_streaming_cancels_that_turn_only(chat, llm, live):
    lv = live("--thread", "intr", "--context", "none")
    lv.send("첫 질문")
    lv.send(SLOW + "느린 답")
    lv.wait_text("[slow:20]")  # the answer is streaming
    lv.p.send_signal(signal.SIGINT)
    lv.wait_text("중단했습니다")
    lv.send("셋째 질문")
    code, out, err = lv.finish()
    assert code == 0, err
    assert "중단했습니다" in out + err
    last = llm.chat_requests()[-1]
    assert user_texts(last) == ["첫 질문", "셋째 질문"]  # the cancelled message was dropped
    assert roles(last) == ["system", "user", "assistant", "user"]
    assert "느린 답" not in chat.sub("export", "intr").out


def test_ctrl_c_while_a_tool_runs(chat, llm, naver, live):
    naver.set_mode("slow", delay=20)
    lv = live("--thread", "intr-tool")
    lv.send("날씨 검색해줘")
    wait_for(lambda: len(naver.requests) >= 1)
    lv.p.send_signal(signal.SIGINT)
    lv.wait_text("중단했습니다")
    naver.reset()
    lv.send("다음 질문")
    code, out, err = lv.finish()
    assert code == 0, err
    assert "중단했습니다" in out + err
    last = llm.chat_requests()[-1]
    assert user_texts(last) == ["다음 질문"]
    assert "tool" not in roles(last)


def test_ctrl_c_at_the_prompt_exits_cleanly(chat, llm, live):
    lv = live("--new")
    lv.send("안녕")
    lv.wait_text("[상태]")  # the turn is over
    lv.interrupt_at_prompt()  # exits on the signal alone; stdin is still open
    code, out, err = lv.finish(timeout=20)
    assert code == 0, err
    assert "Traceback" not in err
    assert "대화를 종료합니다" in err  # the goodbye is a status line: stderr in a pipe


def test_sigkill_mid_answer_resumes_from_last_completed_turn(chat, llm, live):
    lv = live("--thread", "crash", "--context", "none")
    lv.send("첫 질문")
    lv.send(SLOW + "둘째 질문")
    lv.wait_text("[slow:20]")  # mid-answer
    lv.p.send_signal(signal.SIGKILL)
    lv.p.wait(timeout=10)
    llm.clear()
    r = chat("--thread", "crash", "--context", "none", input="다시 질문\n")
    assert r.code == 0, r.err
    req = llm.chat_requests()[0]
    assert user_texts(req) == ["첫 질문", "다시 질문"]
    assert roles(req) == ["system", "user", "assistant", "user"]


def test_sigkill_during_slow_tool_call(chat, llm, naver, live):
    naver.set_mode("slow", delay=20)
    lv = live("--thread", "toolcrash")
    lv.send("첫 질문")
    lv.send("날씨 검색해줘")
    wait_for(lambda: len(naver.requests) >= 1)
    lv.p.send_signal(signal.SIGKILL)
    lv.p.wait(timeout=10)
    naver.reset()
    llm.clear()
    r = chat("--thread", "toolcrash", input="다음 질문\n")
    assert r.code == 0, r.err
    req = llm.chat_requests()[0]
    for i, m in enumerate(req["messages"]):
        if m.get("tool_calls"):
            assert req["messages"][i + 1]["role"] == "tool"
    assert user_texts(req) == ["첫 질문", "다음 질문"]
