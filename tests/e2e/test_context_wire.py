"""Context policies, proven on the wire: what the recording endpoint received. The command line
in this process (tests/cli.py); a "resumed process" is a new run on the same database. On SQLite:
the stored pairs and pruning on PostgreSQL are tests/e2e/test_postgres_store.py's."""

from __future__ import annotations

import json
import re

from tests.conftest import roles, user_texts

SUMMARY_REQ = "지금까지의 대화를 요약해 주세요."


def lines(n: int, start: int = 1) -> str:
    return "".join(f"질문 {i}\n" for i in range(start, start + n))


def real_users(req: dict) -> list[str]:
    return [u for u in user_texts(req) if u != SUMMARY_REQ]


def test_none_sends_everything(cli, llm):
    cli("--new", "--context", "none", input=lines(8))
    last = llm.chat_requests()[-1]
    assert real_users(last) == [f"질문 {i}" for i in range(1, 9)]


def test_trim_by_turn_on_the_wire(cli, llm):
    r = cli("--new", "--context", "trim", "--max-turns", "5", input=lines(7))
    assert r.code == 0, r.err
    reqs = llm.chat_requests()
    assert real_users(reqs[5]) == [f"질문 {i}" for i in range(1, 7)]  # 6th: all 5 earlier turns
    assert real_users(reqs[6]) == [f"질문 {i}" for i in range(2, 8)]  # 7th: turns 2-6 + 7th
    assert roles(reqs[6])[0] == "system" and roles(reqs[6]).count("system") == 1
    assert "5턴을 초과하여서 트리밍을 수행합니다." in r.err


def test_trim_applies_to_the_call_after_a_tool_result(cli, llm):
    text = lines(6) + "마지막으로 날씨 검색\n"
    cli("--new", "--context", "trim", "--max-turns", "5", input=text)
    reqs = llm.chat_requests()
    assert len(reqs) == 8  # 6 plain turns + a tool turn with two model calls
    for req in reqs[6:]:
        assert real_users(req) == [f"질문 {i}" for i in range(2, 7)] + ["마지막으로 날씨 검색"]
    assert roles(reqs[7])[-2:] == ["assistant", "tool"]


def test_trim_keeps_tool_pairs_together(cli, llm):
    text = "처음에 검색\n" + lines(6)
    cli("--new", "--context", "trim", "--max-turns", "5", input=text)
    for req in llm.chat_requests():
        msgs = req["messages"]
        for i, m in enumerate(msgs):
            if m["role"] == "tool":
                assert msgs[i - 1]["role"] in ("assistant", "tool")
                ids = [c["id"] for j in range(i - 1, -1, -1) if msgs[j]["role"] == "assistant"
                       for c in msgs[j].get("tool_calls", [])][:5]
                assert m["tool_call_id"] in ids
            if m.get("tool_calls"):
                assert msgs[i + 1]["role"] == "tool"
    last = llm.chat_requests()[-1]
    assert "tool" not in roles(last)  # the tool turn was trimmed away whole


def test_summarize_n5_m2_rolls_forward(cli, llm):
    r = cli("--thread", "sum", "--context", "summarize", "--summary-after", "5", "--max-turns", "2",
             input=lines(11))
    assert r.code == 0, r.err
    chat_reqs = llm.chat_requests()
    plain = llm.summary_requests()
    assert len(chat_reqs) == 11
    assert len(plain) == 2  # the 7th and the 11th message trigger a summary
    # the summary request is its own plain completion, without tools
    assert "tools" not in plain[0] and "tools" not in plain[1]
    first_input = plain[0]["messages"][-1]["content"]
    for i in (1, 2, 3, 4):
        assert f"질문 {i}" in first_input
    for i in (5, 6):
        assert f"질문 {i}" not in first_input
    # 7th request: system, pair, turns 5-6, the 7th message
    r7 = chat_reqs[6]
    assert roles(r7) == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert r7["messages"][1]["content"] == SUMMARY_REQ
    summary1 = r7["messages"][2]["content"]
    assert summary1.startswith(llm.answer_to(plain[0]))  # the summarizer's own answer holds the pair
    assert real_users(r7) == ["질문 5", "질문 6", "질문 7"]
    # 8th-10th: the pair plus turns since, no re-summarizing
    assert real_users(chat_reqs[9]) == ["질문 5", "질문 6", "질문 7", "질문 8", "질문 9", "질문 10"]
    # 11th: the model reads only turns 5-8; the new summary extends the first one
    second_input = plain[1]["messages"][-1]["content"]
    assert summary1 not in second_input
    for i in (5, 6, 7, 8):
        assert f"질문 {i}" in second_input
    for i in (9, 10):
        assert f"질문 {i}" not in second_input
    r11 = chat_reqs[10]
    assert [m["content"] for m in r11["messages"]].count(SUMMARY_REQ) == 1
    summary2 = r11["messages"][2]["content"]
    assert summary2.startswith(summary1) and "질문 8" in summary2
    assert real_users(r11) == ["질문 9", "질문 10", "질문 11"]
    # every real message is still stored and exportable
    doc = json.loads(cli.sub("export", "sum", "--format", "json").out)
    stored = [m["content"] for m in doc["messages"] if m["role"] == "user" and not m.get("synthetic")]
    assert stored == [f"질문 {i}" for i in range(1, 12)]


def test_resumed_process_starts_at_the_last_summary(cli, llm):
    args = ("--thread", "hyd", "--context", "summarize", "--summary-after", "5", "--max-turns", "2")
    cli(*args, input=lines(7))
    llm.clear()
    r = cli(*args, input="질문 8\n")
    assert r.code == 0, r.err
    req = llm.chat_requests()[0]
    contents = [m["content"] for m in req["messages"]]
    assert contents.count(SUMMARY_REQ) == 1
    assert real_users(req) == ["질문 5", "질문 6", "질문 7", "질문 8"]
    assert not any(f"질문 {i}" == c for c in contents for i in (1, 2, 3, 4))


def test_resumed_legacy_thread_with_a_pair_in_the_middle_starts_at_the_pair(cli, llm):
    """An older client stored the whole history with the summary pair in the middle: what the
    pair covers is pruned when the thread is loaded, and never sent again."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from client.core.context.turns import summary_pair
    from tests.e2e.test_storage import seed_legacy_thread

    old = [HumanMessage("옛 질문 1"), AIMessage("옛 답 1"), HumanMessage("옛 질문 2"), AIMessage("옛 답 2")]
    kept = [HumanMessage("남은 질문 3"), AIMessage("남은 답 3")]
    seed_legacy_thread(cli.db, "legacy", [SystemMessage("시스템"), *old, *summary_pair("요약본 1-2"), *kept])
    r = cli("--thread", "legacy", "--context", "summarize", input="새 질문 4\n")
    assert r.code == 0, r.err
    [req] = llm.chat_requests()
    assert [(m["role"], m["content"]) for m in req["messages"]] == [
        ("system", "시스템"), ("user", SUMMARY_REQ), ("assistant", "요약본 1-2"),
        ("user", "남은 질문 3"), ("assistant", "남은 답 3"), ("user", "새 질문 4")]
    assert llm.summary_requests() == []  # nothing new to summarize: the pair stands for turns 1-2


def test_foreground_summary_on_resume_in_a_pipe(cli, llm):
    """A thread stored without summaries, resumed with the summarize policy in a pipe: the turn
    makes the summary first (no background task exists yet), then sends the pair; the state
    holds the pair from then on, so a third process starts from it."""
    r = cli("--thread", "fg", "--context", "none", input=lines(7))
    assert r.code == 0, r.err
    llm.clear()
    args = ("--thread", "fg", "--context", "summarize", "--summary-after", "5", "--max-turns", "2")
    r = cli(*args, input="질문 8\n")
    assert r.code == 0, r.err
    assert "이전 대화 5턴을 요약합니다" in r.out + r.err
    [summary] = llm.summary_requests()
    assert llm.requests.index(summary) == 0  # made before the turn's own request
    body = summary["messages"][-1]["content"]
    assert all(f"질문 {i}" in body for i in range(1, 6)) and all(f"질문 {i}" not in body for i in (6, 7, 8))
    [req] = llm.chat_requests()
    assert roles(req) == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert req["messages"][1]["content"] == SUMMARY_REQ
    pair = req["messages"][2]["content"]
    assert pair.startswith(llm.answer_to(summary).strip())
    assert real_users(req) == ["질문 6", "질문 7", "질문 8"]
    llm.clear()
    r = cli(*args, input="질문 9\n")
    assert r.code == 0, r.err
    [req] = llm.chat_requests()
    assert req["messages"][2]["content"] == pair  # stored: the next process starts at the same pair
    assert real_users(req) == ["질문 6", "질문 7", "질문 8", "질문 9"]


def test_resume_with_trim_policy_after_summary(cli, llm):
    """Switching policy on resume still never re-sends what the summary covers."""
    cli("--thread", "mix", "--context", "summarize", input=lines(7))
    llm.clear()
    cli("--thread", "mix", "--context", "none", input="질문 8\n")
    req = llm.chat_requests()[0]
    assert real_users(req) == ["질문 5", "질문 6", "질문 7", "질문 8"]


def test_summarizer_failure_keeps_history_and_retries_next_turn(cli, llm):
    llm.push(*[{"text": f"답 {i}"} for i in range(1, 7)])
    llm.push({"status": 500, "body": {"error": {"message": "boom"}}})  # the summary request fails
    llm.push({"status": 500, "body": {"error": {"message": "boom"}}})  # (client retries once)
    llm.push({"status": 500, "body": {"error": {"message": "boom"}}})
    r = cli("--thread", "fail", "--context", "summarize", input=lines(8))
    assert r.code == 0, r.err
    assert "경고: 요약 요청이 실패" in r.out + r.err
    chat_reqs = llm.chat_requests()
    r7 = chat_reqs[6]
    assert SUMMARY_REQ not in [m["content"] for m in r7["messages"]]
    assert real_users(r7) == [f"질문 {i}" for i in range(1, 8)]  # unsummarized, nothing replaced by an error
    r8 = chat_reqs[7]
    assert [m["content"] for m in r8["messages"]].count(SUMMARY_REQ) == 1  # next turn tried again
    assert real_users(r8) == ["질문 6", "질문 7", "질문 8"]
    assert "boom" not in r8["messages"][2]["content"]


def test_message_over_budget_is_refused_not_sent_not_stored(cli, llm):
    big = "가" * 4000
    r = cli("--thread", "budget", "--max-input-tokens", "3000", input=f"{big}\n짧은 질문\n{big}\n다음 질문\n")
    assert r.code == 0, r.err
    assert (r.out + r.err).count("메시지가 너무 깁니다") == 2
    assert all(big not in u for q in llm.requests for u in user_texts(q))
    doc = json.loads(cli.sub("export", "budget", "--format", "json").out)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["짧은 질문", "다음 질문"]


def test_budget_drops_oldest_turns_from_the_request(cli, llm):
    """Exactly the newest turns that fit are sent: one more would not have fit."""
    from client.core.context.budget import PER_MESSAGE, estimate_text_tokens

    llm.report_usage = False  # no calibration: the client's estimate is the measure, ratio 1
    budget = 2600
    long_lines = "".join(f"질문 {i} " + "나" * 300 + "\n" for i in range(1, 9))
    r = cli("--new", "--context", "none", "--max-input-tokens", str(budget), input=long_lines)
    assert r.code == 0, r.err
    reqs = llm.chat_requests()
    last, before = reqs[-1], reqs[-2]
    kept = real_users(last)
    first = int(kept[0].split()[1])
    assert first > 1 and kept == [f"질문 {i} " + "나" * 300 for i in range(first, 9)]  # the newest, in order
    assert roles(last) == ["system"] + ["user", "assistant"] * (len(kept) - 1) + ["user"]
    estimates = [int(m) for m in re.findall(r"요청 토큰 추정 (\d+)", r.out + r.err)]
    assert len(estimates) == 8
    assert estimates[-1] <= budget
    # the turn left out last: its user line and answer, as the previous request carried them
    i = [m["content"] for m in before["messages"]].index(f"질문 {first - 1} " + "나" * 300)
    pair = before["messages"][i:i + 2]
    assert [m["role"] for m in pair] == ["user", "assistant"]
    one_more = sum(PER_MESSAGE + estimate_text_tokens(m["content"]) for m in pair)
    assert estimates[-1] + one_more > budget  # it would not have fit
    assert "턴을 이번 요청에서 뺐습니다" in r.out + r.err  # the user is told


def test_summary_rolled_over_chunks_twice_keeps_turn_one_facts(cli, llm):
    """Long turns, two summary rolls of two chunks each: every summarized turn is read by exactly
    one summarizer request, each request holds only what fits one chunk (here one ~1,900-token
    turn: two would not fit half the 7,500-token budget), oldest first; the pair holds every
    chunk's answer in order, the second roll extends the first roll's summary instead of
    rewriting it, and after both rolls the pair still holds turn 1's fact."""
    from client.engine.summaries import SUMMARY_CHUNK_TOKENS

    llm.report_usage = False  # the client's own estimate decides, uncalibrated
    budget = 7500  # three long turns do not fit (a turn is dropped), two and the summary do
    assert min(SUMMARY_CHUNK_TOKENS, budget // 2) == 3750  # one turn a chunk
    facts = ["고래는 포유류", "수도는 서울", "물은 백도", "달은 위성", "불은 뜨겁", "끝 질문"]
    # [brief]: short answers, so three long user lines still fit one request
    lines_ = "".join(f"질문 {i} {fact} [brief] " + "나" * 2530 + "\n" for i, fact in enumerate(facts, 1))
    r = cli("--thread", "roll", "--context", "summarize", "--summary-after", "2", "--max-turns", "1",
             "--max-input-tokens", str(budget), "--no-memory", input=lines_)
    assert r.code == 0, r.err
    assert "이번 요청에서 뺐습니다" not in r.out + r.err  # the budget itself dropped nothing

    sums = llm.summary_requests()
    for q in sums:
        assert "tools" not in q
    bodies = [q["messages"][-1]["content"] for q in sums]
    read = [[i for i in range(1, 7) if f"질문 {i} " in b] for b in bodies]
    assert read == [[1], [2], [3], [4]]  # one chunk a request, oldest first; turns 5-6 are kept
    # the first roll's two requests come before turn 4's request, the second roll's before turn 6's
    order = [("sum" if q in sums else "chat") for q in llm.requests]
    assert order == ["chat"] * 3 + ["sum"] * 2 + ["chat"] * 2 + ["sum"] * 2 + ["chat"]
    answers = [llm.answer_to(q).strip() for q in sums]  # what the summarizer answered
    chat_reqs = llm.chat_requests()
    assert len(chat_reqs) == 6
    assert chat_reqs[3]["messages"][1]["content"] == SUMMARY_REQ
    pair1 = chat_reqs[3]["messages"][2]["content"]  # after the first roll: both chunks, in order
    assert 0 <= pair1.index(answers[0]) < pair1.index(answers[1])
    assert facts[0] in pair1 and facts[1] in pair1
    last = chat_reqs[5]
    assert roles(last) == ["system", "user", "assistant", "user", "assistant", "user"]
    assert last["messages"][1]["content"] == SUMMARY_REQ
    final_pair = last["messages"][2]["content"]
    assert final_pair.startswith(pair1)  # the second roll extended the first summary
    assert len(pair1) < final_pair.index(answers[2]) < final_pair.index(answers[3])
    for fact in facts[:4]:
        assert fact in final_pair, (fact, final_pair)  # turn 1's fact survived two rolls
    assert [u.split()[1] for u in real_users(last)] == ["5", "6"]
