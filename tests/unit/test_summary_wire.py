"""A summary call that fails or returns nothing never leaves an empty or fallback pair: it is asked
again, or the turns stay verbatim; and every request after a summary still has a real user
message (a local chat template rejected a history without one). Proven on the wire: the
request bodies the recording stub received, in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.engine.events import Notice
from tests.conftest import TEST_KEY
from tests.e2e.test_summary_robust import SUMMARY_REQ, SummaryStub, is_summary_request
from tests.sessions import Sessions

FACTS = ["내 고양이 이름은 모찌야.", "파이썬 리스트 정렬법 알려줘", "내 사물함 번호는 4817이야.", "하늘은 왜 파래?",
         "나는 부산 해운대에 살아.", "간단한 저녁 메뉴 추천해 줘", "치과 예약은 화요일이야."]


@pytest.fixture
def llm():
    with SummaryStub() as stub:
        yield stub


@pytest.fixture
async def session(tmp_path: Path, llm):
    sessions = Sessions()

    async def make(keep: int = 1, after: int = 3):
        settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                            user="kim", max_input_tokens=16_000, context=ContextSettings("summarize", keep, after),
                            interactive=False)  # a pipe: the turn that needs a summary waits for it
        s = await sessions.open(settings)
        await s.open("wire")
        return s

    yield make
    await sessions.close()


async def talk(s, messages: list[str]) -> list[str]:
    keys = []
    for text in messages:
        async for ev in s.turn(text):
            if isinstance(ev, Notice):
                keys.append(ev.key)
    return keys


def pairs(llm) -> list[str]:
    out = []
    for req in llm.chat_requests() or [r for r in llm.requests if not is_summary_request(r)]:
        msgs = req["messages"]
        for i, m in enumerate(msgs[:-1]):
            if m["role"] == "user" and m["content"] == SUMMARY_REQ:
                out.append(msgs[i + 1]["content"])
    return out


def chat_requests(llm) -> list[dict]:
    return [r for r in llm.requests if not is_summary_request(r)]


async def test_an_empty_summary_is_asked_again_and_the_second_one_stored(session, llm):
    answers = iter(["", "- 고양이 이름: 모찌, 사물함 4817"])
    llm.summarize = lambda body: next(answers, "- 부산 해운대")
    keys = await talk(await session(), FACTS[:5])
    sreqs = [r for r in llm.requests if is_summary_request(r)]
    assert len(sreqs) >= 2 and "(위 대화의 사실만" in sreqs[1]["messages"][-1]["content"]  # the reminder
    assert "summary_rejected" in keys and "summary_unusable" not in keys
    stored = pairs(llm)
    assert stored and all(p.strip() for p in stored) and stored[-1].startswith("- 고양이 이름: 모찌, 사물함 4817")


@pytest.mark.parametrize("answer", ["", "No prior conversation history to summarize.", "이전 대화 내용이 없습니다."])
async def test_a_summarizer_that_never_answers_leaves_the_turns_verbatim(session, llm, answer):
    llm.summarize = lambda body: answer
    keys = await talk(await session(), FACTS)
    assert "summary_unusable" in keys and "summarized" not in keys
    assert pairs(llm) == []  # never an empty or fallback pair
    last = chat_requests(llm)[-1]["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == FACTS  # every turn verbatim


async def test_a_failing_summary_call_leaves_the_turns_verbatim(session, llm):
    llm.summarize = None
    real_rule = llm.rule

    def failing(body: dict, n: int) -> dict:
        if is_summary_request(body):
            return {"status": 400, "body": {"error": {"message": "bad request"}}}
        return real_rule(body, n)

    llm.rule = failing  # type: ignore[method-assign]
    keys = await talk(await session(), FACTS[:6])
    assert "summary_failed" in keys and pairs(llm) == []
    assert [m["content"] for m in chat_requests(llm)[-1]["messages"] if m["role"] == "user"] == FACTS[:6]


@pytest.mark.parametrize("keep", [0, 1])
async def test_every_request_after_a_summary_has_a_real_user_message(session, llm, keep):
    """After compaction the history still starts, after the system message, with a user message,
    and holds a real (not synthetic) one: chat templates that look for the user's query find it."""
    llm.summarize = lambda body: "- 사용자 고양이: 모찌"
    s = await session(keep=keep, after=1)
    await talk(s, FACTS)
    async for _ in s.compact():
        pass
    await talk(s, ["마지막 질문이야"])
    summarized = [r for r in chat_requests(llm) if any(m["content"] == SUMMARY_REQ for m in r["messages"])]
    assert summarized, "no request carried a summary"
    for req in chat_requests(llm):
        msgs = req["messages"]
        assert msgs[0]["role"] == "system" and msgs[1]["role"] == "user"
        real = [m for m in msgs if m["role"] == "user" and m["content"] != SUMMARY_REQ]
        assert real and msgs[-1]["role"] == "user" and msgs[-1]["content"] != SUMMARY_REQ
