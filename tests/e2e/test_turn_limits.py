"""Every turn ends (issue 14): per-turn caps against a looping stub, a last call without tools,
the user's message kept when a turn fails, and an empty stream handled as incomplete.

Assertions are on the request bodies the recording stub received. Notices are looked for in
stdout and stderr together (status output may move to stderr when stdout is a pipe). The command
line in this process (tests/cli.py), on SQLite (what a store keeps is test_postgres_store.py's).
"""

from __future__ import annotations

import json

from tests.conftest import user_texts


def _tool_calls(req: dict) -> list[tuple[str, str]]:
    return [(c["function"]["name"], c["function"]["arguments"])
            for m in req["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]


def test_looping_model_ends_after_12_calls_with_a_last_call_without_tools(cli, llm):
    r = cli("--thread", "loop", "--no-memory", input="[loop] 서울 날씨 알려줘\n다음 질문\n", timeout=120)
    assert r.code == 0, r.err
    turn1 = [q for q in llm.requests if "다음 질문" not in user_texts(q)]
    assert len(turn1) == 12  # the default cap
    assert all(q.get("tools") for q in turn1[:-1])
    assert "tools" not in turn1[-1] or not turn1[-1]["tools"]  # the last one cannot call a tool
    assert len(_tool_calls(turn1[-1])) == 11
    assert "도구 사용 한도" in turn1[-1]["messages"][0]["content"]
    out = r.out + r.err
    assert out.count("모델 호출 한도(12회)") == 1  # one notice line
    # the turn completed: its user message and answer are in the next turn's request
    nxt = llm.requests[-1]
    assert user_texts(nxt) == ["[loop] 서울 날씨 알려줘", "다음 질문"]
    assert nxt.get("tools")  # a new turn gets its tools back


def test_cap_is_configurable_by_option_and_env(cli, llm):
    r = cli("--new", "--no-memory", "--max-model-calls", "3", input="[loop] 하나\n")
    assert r.code == 0, r.err
    assert len(llm.requests) == 3 and not llm.requests[-1].get("tools")
    llm.clear()
    r = cli("--new", "--no-memory", input="[loop] 둘\n", env={"MAX_MODEL_CALLS": "4"})
    assert r.code == 0, r.err
    assert len(llm.requests) == 4 and not llm.requests[-1].get("tools")
    assert "모델 호출 한도(4회)" in r.out + r.err
    r = cli("--new", "--max-model-calls", "0", input="x\n")
    assert r.code == 2 and "--max-model-calls" in r.err


def test_identical_failing_call_is_not_made_a_third_time(cli, llm, naver):
    naver.set_mode("status", status=401)
    r = cli("--new", "--no-memory", input="[loop:same] 검색\n")
    assert r.code == 0, r.err
    calls = _tool_calls(llm.requests[-1])
    assert calls == [("web_search", json.dumps({"query": "loop"}))] * 2
    assert len(llm.requests) == 3 and not llm.requests[-1].get("tools")
    assert len(naver.requests) == 2
    assert "같은 인자로 2번 실패" in r.out + r.err


def test_tool_call_cap(cli, llm):
    r = cli("--new", "--no-memory", "--max-tool-calls", "2", input="[loop] 검색\n")
    assert r.code == 0, r.err
    assert len(llm.requests) == 3 and not llm.requests[-1].get("tools")
    assert "도구 호출 한도(2회)" in r.out + r.err


def test_failed_turn_keeps_the_user_message(cli, llm):
    for _ in range(3):
        llm.push({"status": 503, "body": {"error": {"message": "overloaded"}}})
    r = cli("--thread", "kept", "--no-memory", input="나는 채식주의자야\n다음\n")
    assert r.code == 0, r.err
    assert user_texts(llm.requests[-1]) == ["나는 채식주의자야", "다음"]
    doc = cli.sub("export", "kept").out
    assert "나는 채식주의자야" in doc


def test_empty_stream_is_retried_as_incomplete(cli, llm):
    llm.push({"empty": True})
    r = cli("--thread", "empty", "--no-memory", input="안녕\n")
    assert r.code == 0, r.err
    assert len(llm.requests) == 2
    assert "답변 2: 안녕" in r.out
    assert "incomplete response (empty stream)" in r.out + r.err  # the retry notice


def test_empty_stream_every_time_is_one_clean_line(cli, llm):
    for _ in range(3):
        llm.push({"empty": True})
    r = cli("--thread", "empty3", "--no-memory", input="안녕\n다음\n")
    assert r.code == 0, r.err
    out = r.out + r.err
    assert "Traceback" not in out and "No generations" not in out
    assert [ln for ln in out.splitlines() if "오류가 발생했습니다" in ln] == [
        "요청을 처리하는 중 오류가 발생했습니다: incomplete response (empty stream)"]
    assert user_texts(llm.requests[-1]) == ["안녕", "다음"]


def test_model_that_calls_tools_even_without_them_still_ends(cli, llm):
    llm.loop = "always"
    r = cli("--thread", "always", "--no-memory", "--max-model-calls", "4", input="안녕\n")
    assert r.code == 0, r.err
    assert len(llm.requests) == 4 and not llm.requests[-1].get("tools")
    doc = cli.sub("export", "always").out
    assert "안녕" in doc and "답을 만들지 못했습니다" in doc  # an honest stored answer, never an empty one
